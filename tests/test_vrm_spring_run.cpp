// The VRM spring export as the driver runs it (issue 17 point 5): generated tailed VRM 0.x and
// VRM 1 rigs (RigOptions::vrm) re-rigged keep every byte they had and gain one spring per grown
// chain, with the collider rule and the bake's parameters; --no-vrm-springs and non-VRM outputs
// get none; godette.vrm and the springbone fixtures round-trip untouched when nothing grows.
#include "retail/app/pipeline.h"
#include "retail/base/document.h"
#include "retail/io/io.h"
#include "retail/motion/vrm_spring_export.h"
#include "retail/rig/skeleton.h"
#include "retail/rig/transform.h"
#include "retail/vrm/vrm_springs.h"
#include "support.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>

namespace test_vrm_spring_run {

using namespace retail;

namespace {

/// JSON pointer of the spring metadata object for a file's VRM version.
std::string owner_pointer(const Document& d) {
  return vrm_spring_target(d) == "VRMC_springBone" ? "/VRMC_springBone" : "/VRM/secondaryAnimation";
}

/// The entries appended to `key` of the spring metadata (`ein` -> `eout`), every existing entry
/// serialised the same and in place; the appended ones removed from `eout`.
Json appended_to(const Json& ein, Json& eout, const std::string& owner, const std::string& key) {
  const Json::json_pointer ptr(owner + "/" + key);
  const Json before = ein.contains(ptr) ? ein.at(ptr) : Json::array();
  if (!eout.contains(ptr)) return Json::array();
  const Json after = eout.at(ptr);
  REQUIRE(after.size() >= before.size());
  for (std::size_t i = 0; i < before.size(); ++i) CHECK(after[i].dump() == before[i].dump());
  if (ein.contains(ptr))
    eout[ptr] = before;
  else
    eout[ptr.parent_pointer()].erase(ptr.back());
  return Json(after.begin() + std::ptrdiff_t(before.size()), after.end());
}

/// What retail appended to a VRM's spring metadata.
struct Appended {
  Json springs;         ///< springs[] (VRM 1) or boneGroups[] (VRM 0.x)
  Json colliders;       ///< VRM 1 colliders[] (VRM 0.x: none)
  Json collider_groups; ///< colliderGroups[]
};

/// Checks that `out` holds everything `in` did: each input buffer a byte prefix of the output's,
/// extensionsUsed equal, every existing spring, collider and collider group entry serialised the
/// same and in place, and the VRM extensions equal once the appended entries are removed.
Appended appended(const Document& in, const Document& out) {
  REQUIRE(out.buffers.size() >= in.buffers.size());
  for (std::size_t b = 0; b < in.buffers.size(); ++b) {
    REQUIRE(out.buffers[b].size() >= in.buffers[b].size());
    CHECK(std::equal(in.buffers[b].begin(), in.buffers[b].end(), out.buffers[b].begin()));
  }
  CHECK(in.gltf.value("extensionsUsed", Json()) == out.gltf.value("extensionsUsed", Json()));
  const std::string owner = owner_pointer(in);
  const bool vrm1 = vrm_spring_target(in) == "VRMC_springBone";
  Json ein = in.gltf["extensions"], eout = out.gltf["extensions"];
  REQUIRE(eout.contains(Json::json_pointer(owner + (vrm1 ? "/springs" : "/boneGroups"))));
  Appended a;
  a.springs = appended_to(ein, eout, owner, vrm1 ? "springs" : "boneGroups");
  a.colliders = appended_to(ein, eout, owner, "colliders");
  a.collider_groups = appended_to(ein, eout, owner, "colliderGroups");
  CHECK(eout.dump() == ein.dump());
  return a;
}

/// The spring entries appended (see appended).
Json appended_springs(const Document& in, const Document& out) {
  return appended(in, out).springs;
}

std::vector<int> operator+(std::vector<int> a, const std::vector<int>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

Eigen::Vector3d vec3(const Json& j, bool unity) {
  if (j.is_array()) return {j[0].get<double>(), j[1].get<double>(), j[2].get<double>()};
  return {j["x"].get<double>(), j["y"].get<double>(), (unity ? -1 : 1) * j["z"].get<double>()};
}

/// The body capsules the ponytail respects as VRM colliders in `out` (appended: `app`): one per
/// added capsule, on its bone's node, its ends the world capsule mapped by the inverse of the
/// node's bind world matrix (VRM 0.x: spheres from end to end at spacing <= the radius); in one
/// new group (VRM 0.x one per node) that only the ponytail lists; the report says which.
void check_body_colliders(const RunResult& r, const Document& out, const Appended& app,
                          int version) {
  REQUIRE(r.hair_colliders.size() == 1);
  const VrmSpringRecord& rec = r.vrm_springs[0];
  const Model m = parse_model(out);
  const Character c = build_characters(out, m, BindParams{}).at(0);
  std::vector<const BodyCapsule*> body;
  for (const BodyCapsule& b : r.hair_colliders[0].body)
    if (b.added) body.push_back(&b);
  REQUIRE(body.size() >= 2); // the generated neck and chest at least (no file collider there)
  REQUIRE(rec.colliders.size() == body.size());
  CHECK(app.collider_groups.size() == (version == 1 ? 1 : body.size()));
  CHECK(app.colliders.size() == (version == 1 ? body.size() : 0));
  CHECK(rec.collider_groups.size() == app.collider_groups.size());
  CHECK(rec.springs[0].collider_groups.back() < rec.collider_groups.front()); // not the tail's
  const Json& capsules = r.report["characters"][0]["hair"]["colliders"]["body_capsules"];
  for (const Json& b : capsules) CHECK(b["exported"] == b["added"]);
  for (std::size_t i = 0; i < body.size(); ++i) {
    INFO(body[i]->bone);
    CHECK(rec.colliders[i].name == body[i]->bone);
    CHECK(rec.colliders[i].node == body[i]->node);
    const Eigen::Matrix4d bind = c.bind_world[std::size_t(c.joint_index(body[i]->node))];
    const Eigen::Matrix4d inv = bind.inverse();
    const Eigen::Vector3d a = (inv * body[i]->capsule.a.homogeneous()).head<3>();
    const Eigen::Vector3d b = (inv * body[i]->capsule.b.homogeneous()).head<3>();
    const double radius = body[i]->capsule.radius_m / mean_scale(bind);
    if (version == 1) {
      const Json& col = app.colliders[i];
      CHECK(col["node"] == body[i]->node);
      const Json& cap = col["shape"]["capsule"];
      CHECK((vec3(cap["offset"], false) - a).norm() < 1e-5);
      CHECK((vec3(cap["tail"], false) - b).norm() < 1e-5);
      CHECK(cap["radius"].get<double>() == Approx(radius).margin(1e-5));
      CHECK(app.collider_groups[0]["colliders"][i] ==
            out.gltf["extensions"]["VRMC_springBone"]["colliders"].size() - body.size() + i);
      continue;
    }
    const Json& g = app.collider_groups[i]; // one bone per node here
    CHECK(g["node"] == body[i]->node);
    const Json& spheres = g["colliders"];
    REQUIRE(spheres.size() == std::size_t(std::ceil((b - a).norm() / radius)) + 1);
    CHECK((vec3(spheres.front()["offset"], true) - a).norm() < 1e-5);
    CHECK((vec3(spheres.back()["offset"], true) - b).norm() < 1e-5);
    for (std::size_t k = 0; k < spheres.size(); ++k) {
      CHECK(spheres[k]["radius"].get<double>() == Approx(radius).margin(1e-5));
      if (k > 0)
        CHECK((vec3(spheres[k]["offset"], true) - vec3(spheres[k - 1]["offset"], true)).norm() <=
              radius + 1e-9);
    }
  }
  const VrmSprings back = read_vrm_springs(out, m); // the readers' view: the groups as planned
  for (std::size_t g = 0; g < rec.collider_groups.size(); ++g)
    CHECK(std::size_t(rec.collider_groups[g]) ==
          back.groups.size() - rec.collider_groups.size() + g);
}

RigOptions vrm_rig(int version) {
  RigOptions o;
  o.vrm = version;
  o.ponytail = true;
  return o;
}

RunParams quick() {
  RunParams p;
  p.clips = {"Walk"};
  p.threads = 2;
  return p;
}

Bytes file_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return Bytes(std::istreambuf_iterator<char>(f), {});
}

} // namespace

TEST_CASE("vrm springs: a generated tailed VRM 0 and VRM 1 gain one spring per grown chain, "
          "everything they had kept",
          "[vrm][cli]") {
  for (int version : {0, 1}) {
    INFO("VRM " << version);
    GeneratedRig rig = test::make_rig(vrm_rig(version));
    const std::string dir = test::temp_dir();
    write_document(rig.doc, dir + "/in.vrm");
    RunParams params = quick();
    params.hair.hair = {"Ponytail"};
    RunResult r = run(dir + "/in.vrm", dir + "/out.vrm", params);
    Document in = read_document(dir + "/in.vrm"), out = read_document(dir + "/out.vrm");
    const Appended app = appended(in, out);
    const Json& added = app.springs;
    REQUIRE(r.characters.size() == 1);
    REQUIRE(r.characters[0].chains.size() == 1);
    REQUIRE(r.hair[0].chains.size() == 1);
    REQUIRE(added.size() == 2); // the tail, then the ponytail
    REQUIRE(r.vrm_springs.size() == 1);
    const VrmSpringRecord& rec = r.vrm_springs[0];
    CHECK(rec.status == "written");
    REQUIRE(rec.springs.size() == 2);
    CHECK(rec.springs[0].joints == r.characters[0].chains[0].nodes);
    CHECK(rec.springs[1].joints == r.hair[0].chains[0].nodes);
    // The collider rule: the tail respects the hips' and legs' groups, the ponytail the head's
    // group the file's own tuft uses (generator: VRM 0 one group per node, VRM 1 two groups).
    CHECK(rec.springs[0].collider_groups ==
          (version == 0 ? std::vector<int>{1, 2, 3} : std::vector<int>{1}));
    CHECK(rec.springs[1].collider_groups == std::vector<int>{0} + rec.collider_groups);
    check_body_colliders(r, out, app, version);
    // The ponytail's spring from its chain's k and c (hair_rig.h): ω² = k, c = 2ζω.
    const HairChainResult& hp = r.hair[0].chains[0];
    for (double f : rec.springs[1].frequency_hz)
      CHECK(f == Approx(std::sqrt(hp.stiffness_per_s2) / (2 * M_PI)).epsilon(1e-12));
    CHECK(rec.springs[1].damping_ratio ==
          Approx(hp.damping_per_s / (2 * std::sqrt(hp.stiffness_per_s2))).epsilon(1e-12));
    CHECK(r.report["characters"][0]["vrm_springs"]["count"] == 2);
    // Read back: the file's tuft, then the two new chains with the bake's parameters.
    Model m = parse_model(out);
    VrmSprings back = read_vrm_springs(out, m);
    const auto world = world_matrices(m);
    const VrmSpringChain* tail = nullptr;
    for (const auto& c : back.chains)
      if (c.joints.front() == rec.springs[0].joints.front()) tail = &c;
    REQUIRE(tail != nullptr);
    CHECK(tail->joints == rec.springs[0].joints);
    CHECK(tail->collider_groups == rec.springs[0].collider_groups);
    const SpringParams& sp = params.bake.spring;
    const std::size_t links = rec.springs[0].joints.size() - 1;
    REQUIRE(links >= 2);
    for (std::size_t i = 0; i < links; ++i) {
      const double len = (world[std::size_t(tail->joints[i + 1])].col(3) -
                          world[std::size_t(tail->joints[i])].col(3))
                             .head<3>()
                             .norm();
      HairLink l = vrm_link_params(tail->links[i], len, 1.0);
      if (version == 1) { // per joint: f from the root frequency to the tip's
        const double f = sp.root_frequency_hz + (sp.tip_frequency_hz - sp.root_frequency_hz) *
                                                    double(i) / double(links - 1);
        CHECK(l.stiffness_per_s2 == Approx(std::pow(2 * M_PI * f, 2)).epsilon(1e-9));
        CHECK(l.damping_per_s == Approx(2 * sp.damping_ratio * 2 * M_PI * f).epsilon(1e-9));
      }
      CHECK(l.gravity_mps2.y() == Approx(-sp.gravity_mps2 * r.facts[0].scale).epsilon(1e-9));
    }
    // --no-vrm-springs: the VRM metadata exactly as it was.
    params.vrm_springs = false;
    RunResult off = run(dir + "/in.vrm", dir + "/off.vrm", params);
    Document doff = read_document(dir + "/off.vrm");
    CHECK(appended_springs(in, doff).empty());
    CHECK(off.vrm_springs[0].status == "off");
    CHECK(off.report["characters"][0]["vrm_springs"] == "off");
  }
}

TEST_CASE("vrm springs: a file that is not a VRM is written exactly as with --no-vrm-springs",
          "[vrm][cli]") {
  GeneratedRig rig = test::make_rig();
  const std::string dir = test::temp_dir();
  write_document(rig.doc, dir + "/in.glb");
  RunParams params = quick();
  RunResult on = run(dir + "/in.glb", dir + "/on.glb", params);
  params.vrm_springs = false;
  run(dir + "/in.glb", dir + "/off.glb", params);
  REQUIRE(on.characters[0].chains.size() == 1);
  CHECK(file_bytes(dir + "/on.glb") == file_bytes(dir + "/off.glb"));
  CHECK(on.vrm_springs[0].status == "not a VRM");
  CHECK(on.report["characters"][0]["vrm_springs"] == "not a VRM");
  Document out = read_document(dir + "/on.glb");
  CHECK_FALSE(out.gltf.contains("extensions"));
}

namespace {

/// godette's VRM 0.x metadata as VRM 1: VRMC_vrm (meta, humanoid) and VRMC_springBone (its
/// colliders, groups and chains as read_vrm_springs expands them) instead of VRM.
Document godette_as_vrm1(const Document& d) {
  Document v1 = d;
  Model m = parse_model(d);
  VrmSprings s = read_vrm_springs(d, m);
  REQUIRE(!s.chains.empty());
  Json bones = Json::object();
  for (const auto& b : d.gltf["extensions"]["VRM"]["humanoid"]["humanBones"])
    bones[b["bone"].get<std::string>()] = {{"node", b["node"]}};
  Json colliders = Json::array(), groups = Json::array(), springs = Json::array();
  for (const VrmCollider& c : s.colliders)
    colliders.push_back(
        {{"node", c.node},
         {"shape",
          {{"sphere",
            {{"offset", {c.offset.x(), c.offset.y(), c.offset.z()}}, {"radius", c.radius_m}}}}}});
  for (const VrmColliderGroup& g : s.groups) groups.push_back({{"colliders", g.colliders}});
  for (const VrmSpringChain& c : s.chains) {
    Json joints = Json::array();
    for (std::size_t j = 0; j < c.joints.size(); ++j) {
      Json joint = {{"node", c.joints[j]}};
      if (j < c.links.size()) {
        const VrmJointSettings& l = c.links[j];
        joint["hitRadius"] = l.hit_radius_m;
        joint["stiffness"] = l.stiffness;
        joint["gravityPower"] = l.gravity_power;
        joint["gravityDir"] = {l.gravity_dir.x(), l.gravity_dir.y(), l.gravity_dir.z()};
        joint["dragForce"] = l.drag_force;
      }
      joints.push_back(joint);
    }
    springs.push_back({{"joints", joints}, {"colliderGroups", c.collider_groups}});
  }
  Json& ext = v1.gltf["extensions"];
  ext.erase("VRM");
  ext["VRMC_vrm"] = {{"specVersion", "1.0"},
                     {"meta",
                      {{"name", "godette"},
                       {"authors", {"SirRichard94", "Lyuma"}},
                       {"licenseUrl", "https://vrm.dev/licenses/1.0/"}}},
                     {"humanoid", {{"humanBones", bones}}}};
  ext["VRMC_springBone"] = {{"specVersion", "1.0"},
                            {"colliders", colliders},
                            {"colliderGroups", groups},
                            {"springs", springs}};
  Json used = Json::array({"VRMC_vrm", "VRMC_springBone"});
  for (const auto& u : v1.gltf["extensionsUsed"])
    if (u != "VRM") used.push_back(u);
  v1.gltf["extensionsUsed"] = used;
  return v1;
}

} // namespace

TEST_CASE("vrm springs: godette.vrm, its VRM 1 form and the springbone fixtures round-trip "
          "untouched when nothing grows",
          "[vrm][cli][shared]") {
  const std::string data = test::shared_data();
  if (data.empty()) return;
  const std::string dir = test::temp_dir();
  std::vector<std::string> files;
  const std::string godette = data + "/originals/godette.vrm";
  if (std::filesystem::exists(godette)) {
    files.push_back(godette);
    Document v1 = godette_as_vrm1(read_document(godette));
    write_document(v1, dir + "/godette-vrm1.vrm");
    files.push_back(dir + "/godette-vrm1.vrm");
  }
  for (const auto& f : test::model_files(data + "/springbone-fixtures")) files.push_back(f);
  if (files.empty()) WARN("SKIPPED: no VRM file under " << data);
  for (std::size_t i = 0; i < files.size(); ++i) {
    INFO(files[i]);
    const std::string out_path =
        dir + "/out" + std::to_string(i) + std::filesystem::path(files[i]).extension().string();
    RunResult r = run(files[i], out_path, RunParams{});
    Document in = read_document(files[i]), out = read_document(out_path);
    std::size_t grown = 0;
    for (const auto& c : r.characters) grown += c.chains.size();
    Json added = appended_springs(in, out);
    CHECK(added.size() == grown);
    for (const auto& v : r.vrm_springs) CHECK(v.status == "written");
    if (grown == 0) CHECK(out.gltf == in.gltf);
  }
}

} // namespace test_vrm_spring_run
