// VRM metadata for generated rigs (RigOptions::vrm): humanoid map, a short spring tuft under the
// head (nodes that are not skin joints), colliders on the head, hips and upper legs.
#include "rig_generator_internal.h"

#include "retail/io/builder.h"

namespace retail::gen {
namespace {

using Eigen::Vector3d;

/// VRM humanoid bone name -> generated joint (bare Mixamo name).
const char* const kHumanBones[][2] = {
    {"hips", "Hips"},
    {"spine", "Spine"},
    {"chest", "Spine1"},
    {"upperChest", "Spine2"},
    {"neck", "Neck"},
    {"head", "Head"},
    {"leftShoulder", "LeftShoulder"},
    {"leftUpperArm", "LeftArm"},
    {"leftLowerArm", "LeftForeArm"},
    {"leftHand", "LeftHand"},
    {"rightShoulder", "RightShoulder"},
    {"rightUpperArm", "RightArm"},
    {"rightLowerArm", "RightForeArm"},
    {"rightHand", "RightHand"},
    {"leftUpperLeg", "LeftUpLeg"},
    {"leftLowerLeg", "LeftLeg"},
    {"leftFoot", "LeftFoot"},
    {"leftToes", "LeftToeBase"},
    {"rightUpperLeg", "RightUpLeg"},
    {"rightLowerLeg", "RightLeg"},
    {"rightFoot", "RightFoot"},
    {"rightToes", "RightToeBase"},
};

Json vec3(const Vector3d& v) {
  return Json::array({v.x(), v.y(), v.z()});
}

/// VRM 0.x vectors are objects; `flip_z` stores Unity's Z (collider offsets).
Json vec3_v0(const Vector3d& v, bool flip_z) {
  return {{"x", v.x()}, {"y", v.y()}, {"z", flip_z ? -v.z() : v.z()}};
}

/// A collider: a sphere (or capsule head → tail) in its node's frame, node-space units.
struct Collider {
  int node;
  Vector3d head, tail;
  double radius;
};

int node_of(const Skeleton& sk, const char* name) {
  return sk.joints[std::size_t(sk.find(name))].node;
}

/// The tuft: three nodes under the head, back and down (not skin joints); their indices.
std::vector<int> add_tuft(Document& doc, const Skeleton& sk, double k) {
  const Vector3d tuft[] = {Vector3d(0, 1.74, -0.10) * k, Vector3d(0, 1.66, -0.19) * k,
                           Vector3d(0, 1.54, -0.22) * k};
  const char* names[] = {"HairTuft_1", "HairTuft_2", "HairTuft_End"};
  std::vector<int> nodes;
  Vector3d parent = sk.joints[std::size_t(sk.find("Head"))].world;
  int parent_node = node_of(sk, "Head");
  for (int i = 0; i < 3; ++i) {
    int n = append_to_array(
        doc.gltf, "nodes",
        {{"name", names[i]}, {"translation", vec3(sk.to_armature(tuft[i] - parent))}});
    Json& p = doc.gltf["nodes"][std::size_t(parent_node)];
    if (!p.contains("children")) p["children"] = Json::array();
    p["children"].push_back(n);
    nodes.push_back(n);
    parent = tuft[i], parent_node = n;
  }
  return nodes;
}

/// Head sphere, hips sphere, a capsule down each upper leg (node-space units).
std::vector<Collider> body_colliders(const Skeleton& sk, double k) {
  auto local = [&](const Vector3d& world_offset) { return sk.to_armature(world_offset); };
  const double units = 1 / sk.node_scale; // metres -> node-space units
  const double leg = (sk.joints[std::size_t(sk.find("LeftLeg"))].world -
                      sk.joints[std::size_t(sk.find("LeftUpLeg"))].world)
                         .norm();
  const Vector3d head = local(Vector3d(0, 0.09, 0) * k), hips = local(Vector3d(0, 0, -0.02) * k);
  const Vector3d knee = local(Vector3d(0, -0.8 * leg, 0));
  return {{node_of(sk, "Head"), head, head, 0.10 * k * units},
          {node_of(sk, "Hips"), hips, hips, 0.08 * k * units},
          {node_of(sk, "LeftUpLeg"), Vector3d::Zero(), knee, 0.07 * k * units},
          {node_of(sk, "RightUpLeg"), Vector3d::Zero(), knee, 0.07 * k * units}};
}

void write_vrm0(Document& doc, const Skeleton& sk, const std::vector<int>& tuft,
                const std::vector<Collider>& colliders, double tuft_radius) {
  Json bones = Json::array();
  for (const auto& hb : kHumanBones)
    bones.push_back({{"bone", hb[0]}, {"node", node_of(sk, hb[1])}, {"useDefaultValues", true}});
  Json groups = Json::array();
  for (const Collider& c : colliders) { // VRM 0 has spheres: a capsule as its two ends
    Json spheres = Json::array({{{"offset", vec3_v0(c.head, true)}, {"radius", c.radius}}});
    if (c.tail != c.head)
      spheres.push_back({{"offset", vec3_v0(c.tail, true)}, {"radius", c.radius}});
    groups.push_back({{"node", c.node}, {"colliders", spheres}});
  }
  Json tuft_group = {{"comment", "HairTuft"},
                     {"stiffiness", 1.0},
                     {"gravityPower", 0.1},
                     {"gravityDir", vec3_v0(Vector3d(0, -1, 0), false)},
                     {"dragForce", 0.4},
                     {"center", -1},
                     {"hitRadius", tuft_radius},
                     {"bones", Json::array({tuft[0]})},
                     {"colliderGroups", Json::array({0})}};
  doc.gltf["extensions"]["VRM"] = {
      {"exporterVersion", "retail make_test_rig"},
      {"specVersion", "0.0"},
      {"meta",
       {{"title", "retail generated rig"},
        {"version", "1"},
        {"author", "retail"},
        {"allowedUserName", "Everyone"},
        {"violentUssageName", "Disallow"},
        {"sexualUssageName", "Disallow"},
        {"commercialUssageName", "Allow"},
        {"licenseName", "CC0"}}},
      {"humanoid", {{"humanBones", bones}}},
      {"secondaryAnimation",
       {{"boneGroups", Json::array({tuft_group})}, {"colliderGroups", groups}}}};
  append_to_array(doc.gltf, "extensionsUsed", "VRM");
}

void write_vrm1(Document& doc, const Skeleton& sk, const std::vector<int>& tuft,
                const std::vector<Collider>& colliders, double tuft_radius) {
  Json bones = Json::object();
  for (const auto& hb : kHumanBones) bones[hb[0]] = {{"node", node_of(sk, hb[1])}};
  Json shapes = Json::array();
  for (const Collider& c : colliders) {
    Json shape =
        c.tail == c.head
            ? Json{{"sphere", {{"offset", vec3(c.head)}, {"radius", c.radius}}}}
            : Json{{"capsule",
                    {{"offset", vec3(c.head)}, {"radius", c.radius}, {"tail", vec3(c.tail)}}}};
    shapes.push_back({{"node", c.node}, {"shape", shape}});
  }
  Json joints = Json::array();
  for (int n : tuft)
    joints.push_back({{"node", n},
                      {"hitRadius", tuft_radius},
                      {"stiffness", 1.0},
                      {"gravityPower", 0.1},
                      {"gravityDir", vec3(Vector3d(0, -1, 0))},
                      {"dragForce", 0.4}});
  joints.back() = {{"node", tuft.back()}};
  doc.gltf["extensions"]["VRMC_vrm"] = {{"specVersion", "1.0"},
                                        {"meta",
                                         {{"name", "retail generated rig"},
                                          {"version", "1"},
                                          {"authors", Json::array({"retail"})},
                                          {"licenseUrl", "https://vrm.dev/licenses/1.0/"}}},
                                        {"humanoid", {{"humanBones", bones}}}};
  doc.gltf["extensions"]["VRMC_springBone"] = {
      {"specVersion", "1.0"},
      {"colliders", shapes},
      {"colliderGroups", Json::array({{{"name", "Head"}, {"colliders", {0}}},
                                      {{"name", "Lower body"}, {"colliders", {1, 2, 3}}}})},
      {"springs",
       Json::array({{{"name", "HairTuft"}, {"joints", joints}, {"colliderGroups", {0}}}})}};
  append_to_array(doc.gltf, "extensionsUsed", "VRMC_vrm");
  append_to_array(doc.gltf, "extensionsUsed", "VRMC_springBone");
}

} // namespace

void add_vrm_metadata(Document& doc, const Skeleton& sk, int version, double k) {
  const std::vector<int> tuft = add_tuft(doc, sk, k);
  const std::vector<Collider> colliders = body_colliders(sk, k);
  const double tuft_radius = 0.02 * k / sk.node_scale;
  if (version == 0)
    write_vrm0(doc, sk, tuft, colliders, tuft_radius);
  else
    write_vrm1(doc, sk, tuft, colliders, tuft_radius);
}

} // namespace retail::gen
