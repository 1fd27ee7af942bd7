// Chains as VRM springs in a file's own metadata: vrm_spring_write.h.
#include "retail/vrm/vrm_spring_write.h"

#include "retail/base/error.h"
#include "retail/rig/transform.h"

#include <algorithm>
#include <cmath>

namespace retail {
namespace {

[[noreturn]] void fail_export(const std::string& what) {
  throw Error(ExitCode::Usage, "VRM spring export: " + what);
}

/// Checks one grown spring against the model; its per-link world lengths.
std::vector<double> link_lengths(const Model& model, const std::vector<Eigen::Matrix4d>& world,
                                 const GrownSpring& s, std::size_t groups) {
  const std::size_t n = s.joints.size();
  if (n < 2) fail_export("chain '" + s.name + "' has fewer than two joints");
  if (s.radius_m.size() != n - 1 || s.frequency_hz.size() != n - 1)
    fail_export("chain '" + s.name + "': one radius and one frequency per link");
  for (int g : s.collider_groups)
    if (g < 0 || std::size_t(g) >= groups)
      fail_export("chain '" + s.name + "': collider group " + std::to_string(g) +
                  " does not exist");
  std::vector<double> out;
  for (std::size_t i = 0; i < n; ++i) {
    const int node = s.joints[i];
    if (node < 0 || std::size_t(node) >= model.nodes.size())
      fail_export("chain '" + s.name + "': node " + std::to_string(node) + " out of range");
    if (i == 0) continue;
    if (model.nodes[std::size_t(node)].parent != s.joints[i - 1])
      fail_export("chain '" + s.name + "': nodes[" + std::to_string(node) +
                  "] is not the child of the joint before it");
    out.push_back((world[std::size_t(node)].col(3) - world[std::size_t(s.joints[i - 1])].col(3))
                      .head<3>()
                      .norm());
  }
  return out;
}

/// The file's spring-metadata array `key` for `target` ("colliders", "colliderGroups"), or null.
const Json* spring_array(const Document& doc, const std::string& target, const char* key) {
  if (!doc.gltf.contains("extensions") || !doc.gltf["extensions"].is_object()) return nullptr;
  const Json& ext = doc.gltf["extensions"];
  const Json* owner = nullptr;
  if (target == "VRMC_springBone" && ext.contains("VRMC_springBone"))
    owner = &ext["VRMC_springBone"];
  else if (target != "VRMC_springBone" && ext.contains("VRM") && ext["VRM"].is_object() &&
           ext["VRM"].contains("secondaryAnimation"))
    owner = &ext["VRM"]["secondaryAnimation"];
  if (!owner || !owner->is_object() || !owner->contains(key)) return nullptr;
  const Json* a = &(*owner)[key];
  return a->is_array() ? a : nullptr;
}

/// How many entries the file has in its spring-metadata array `key` for `target`.
std::size_t array_size(const Document& doc, const std::string& target, const char* key) {
  const Json* a = spring_array(doc, target, key);
  return a ? a->size() : 0;
}

/// The distinct nodes of a set, in the order they first appear.
std::vector<int> set_nodes(const GrownColliderSet& set) {
  std::vector<int> out;
  for (const GrownCollider& c : set.colliders)
    if (std::find(out.begin(), out.end(), c.node) == out.end()) out.push_back(c.node);
  return out;
}

constexpr std::size_t kMaxSpheres = 64; ///< per capsule written as VRM 0.x spheres

void check_collider(const Model& model, const GrownCollider& c) {
  if (c.node < 0 || std::size_t(c.node) >= model.nodes.size())
    fail_export("collider '" + c.name + "': node " + std::to_string(c.node) + " out of range");
  if (!(c.radius_local > 0) || !std::isfinite(c.radius_local) || !c.head_local.allFinite() ||
      !c.tail_local.allFinite())
    fail_export("collider '" + c.name + "': radius not positive or a point not finite");
  if ((c.tail_local - c.head_local).norm() / c.radius_local > double(kMaxSpheres - 1))
    fail_export("collider '" + c.name + "': too long for its radius");
}

/// The centres of the spheres covering capsule `c` (VRM 0.x): n = ceil(length / radius) + 1,
/// evenly spaced from head to tail (spacing at most the radius).
std::vector<Eigen::Vector3d> sphere_centres(const GrownCollider& c) {
  const Eigen::Vector3d d = c.tail_local - c.head_local;
  const std::size_t n = std::size_t(std::ceil(d.norm() / c.radius_local)) + 1;
  std::vector<Eigen::Vector3d> out;
  for (std::size_t i = 0; i < n; ++i)
    out.push_back(n > 1 ? Eigen::Vector3d(c.head_local + (double(i) / double(n - 1)) * d)
                        : c.head_local);
  return out;
}

/// Appends `entries` to `owner[key]` (created as an array when absent); nothing when empty.
void append_all(Json& owner, const char* key, const Json& entries) {
  if (entries.empty()) return;
  Json& a = owner[key];
  if (!a.is_array()) a = Json::array();
  for (const auto& e : entries) a.push_back(e);
}

Json array3(const Eigen::Vector3d& v) {
  return Json::array({v.x(), v.y(), v.z()});
}

/// The collider and group entries for `sets` (VRM 1: colliders numbered after `first`).
void plan_colliders(const std::vector<GrownColliderSet>& sets, bool vrm1, std::size_t first,
                    VrmSpringPlan& plan) {
  for (const GrownColliderSet& set : sets) {
    if (set.colliders.empty()) continue;
    if (vrm1) {
      Json members = Json::array();
      for (const GrownCollider& c : set.colliders) {
        members.push_back(first + plan.colliders.size());
        plan.colliders.push_back({{"node", c.node},
                                  {"shape",
                                   {{"capsule",
                                     {{"offset", array3(c.head_local)},
                                      {"radius", c.radius_local},
                                      {"tail", array3(c.tail_local)}}}}}});
      }
      plan.collider_groups.push_back({{"name", set.name}, {"colliders", members}});
      continue;
    }
    for (int node : set_nodes(set)) {
      Json spheres = Json::array();
      for (const GrownCollider& c : set.colliders)
        if (c.node == node)
          for (const Eigen::Vector3d& p : sphere_centres(c)) // VRM 0 stores Unity's Z
            spheres.push_back({{"offset", {{"x", p.x()}, {"y", p.y()}, {"z", -p.z()}}},
                               {"radius", c.radius_local}});
      plan.collider_groups.push_back({{"node", node}, {"colliders", spheres}});
    }
  }
}

Json vrm1_spring(const GrownSpring& s, const std::vector<VrmJointSettings>& js) {
  Json joints = Json::array();
  for (std::size_t i = 0; i < js.size(); ++i)
    joints.push_back({{"node", s.joints[i]},
                      {"hitRadius", js[i].hit_radius_m},
                      {"stiffness", js[i].stiffness},
                      {"gravityPower", js[i].gravity_power},
                      {"gravityDir", {0.0, -1.0, 0.0}},
                      {"dragForce", js[i].drag_force}});
  joints.push_back({{"node", s.joints.back()}});
  Json spring = {{"name", s.name}, {"joints", joints}};
  if (!s.collider_groups.empty()) spring["colliderGroups"] = s.collider_groups;
  return spring;
}

Json vrm0_group(const GrownSpring& s, const std::vector<VrmJointSettings>& js) {
  VrmJointSettings mean;
  mean.hit_radius_m = mean.stiffness = mean.gravity_power = mean.drag_force = 0;
  for (const auto& j : js) {
    mean.hit_radius_m += j.hit_radius_m / double(js.size());
    mean.stiffness += j.stiffness / double(js.size());
    mean.gravity_power += j.gravity_power / double(js.size());
    mean.drag_force += j.drag_force / double(js.size());
  }
  return {{"comment", s.name},
          {"stiffiness", mean.stiffness}, // sic: VRM 0.x spelling
          {"gravityPower", mean.gravity_power},
          {"gravityDir", {{"x", 0.0}, {"y", -1.0}, {"z", 0.0}}},
          {"dragForce", mean.drag_force},
          {"center", -1},
          {"hitRadius", mean.hit_radius_m},
          {"bones", Json::array({s.joints.front()})},
          {"colliderGroups", s.collider_groups}};
}

} // namespace

std::vector<std::vector<int>> vrm_added_groups(const Document& doc,
                                               const std::vector<GrownColliderSet>& sets) {
  const std::string target = vrm_spring_target(doc);
  std::vector<std::vector<int>> out(sets.size());
  if (target.empty()) return out;
  int next = int(array_size(doc, target, "colliderGroups"));
  for (std::size_t s = 0; s < sets.size(); ++s) {
    if (sets[s].colliders.empty()) continue;
    const std::size_t n = target == "VRMC_springBone" ? 1 : set_nodes(sets[s]).size();
    for (std::size_t i = 0; i < n; ++i) out[s].push_back(next++);
  }
  return out;
}

std::string vrm_spring_target(const Document& doc) {
  if (!doc.gltf.contains("extensions") || !doc.gltf["extensions"].is_object()) return "";
  const Json& ext = doc.gltf["extensions"];
  if (ext.contains("VRMC_vrm") || ext.contains("VRMC_springBone")) return "VRMC_springBone";
  if (ext.contains("VRM")) return "VRM 0.x secondaryAnimation";
  return "";
}

VrmJointSettings vrm_settings_for(double frequency_hz, double damping_ratio, double gravity_mps2,
                                  double length_m, double radius_m, double scale,
                                  const VrmMapping& mapping) {
  mapping.validate();
  if (!(length_m > 0) || !(scale > 0) || !std::isfinite(length_m) || !std::isfinite(scale) ||
      !std::isfinite(frequency_hz) || !std::isfinite(damping_ratio) ||
      !std::isfinite(gravity_mps2) || !std::isfinite(radius_m) || frequency_hz < 0 ||
      damping_ratio < 0 || radius_m < 0)
    fail_export("link parameters out of range");
  const double dt = 1 / mapping.reference_rate_hz, omega = 2 * M_PI * frequency_hz;
  VrmJointSettings s;
  s.stiffness = omega * omega * dt * length_m;
  s.drag_force = -std::expm1(-2 * damping_ratio * omega * dt);
  s.gravity_power = gravity_mps2 * dt;
  s.gravity_dir = Eigen::Vector3d(0, -1, 0);
  s.hit_radius_m = radius_m / scale;
  return s;
}

VrmSpringPlan vrm_spring_plan(const Document& doc, const Model& model,
                              const std::vector<Eigen::Matrix4d>& world,
                              const std::vector<GrownSpring>& springs,
                              const std::vector<GrownColliderSet>& colliders,
                              const VrmMapping& mapping) {
  VrmSpringPlan plan;
  plan.target = vrm_spring_target(doc);
  plan.entries = plan.colliders = plan.collider_groups = Json::array();
  if (plan.target.empty()) return plan;
  const bool vrm1 = plan.target == "VRMC_springBone";
  for (const GrownColliderSet& set : colliders)
    for (const GrownCollider& c : set.colliders) check_collider(model, c);
  plan_colliders(colliders, vrm1, array_size(doc, plan.target, "colliders"), plan);
  const std::size_t groups =
      array_size(doc, plan.target, "colliderGroups") + plan.collider_groups.size();
  for (const GrownSpring& s : springs) {
    std::vector<double> lengths = link_lengths(model, world, s, groups);
    std::vector<VrmJointSettings> js;
    for (std::size_t i = 0; i < lengths.size(); ++i)
      js.push_back(vrm_settings_for(s.frequency_hz[i], s.damping_ratio, s.gravity_mps2, lengths[i],
                                    s.radius_m[i], mean_scale(world[std::size_t(s.joints[i])]),
                                    mapping));
    plan.entries.push_back(vrm1 ? vrm1_spring(s, js) : vrm0_group(s, js));
  }
  plan.summary = std::to_string(springs.size()) + " chain(s) written as " +
                 (vrm1 ? "VRMC_springBone springs" : "VRM 0.x secondaryAnimation bone groups");
  if (!plan.collider_groups.empty())
    plan.summary += ", " + std::to_string(plan.collider_groups.size()) + " collider group(s) added";
  return plan;
}

void apply_vrm_spring_plan(Document& doc, const VrmSpringPlan& plan) {
  if (plan.target.empty() || (plan.entries.empty() && plan.collider_groups.empty())) return;
  Json& ext = doc.gltf["extensions"];
  if (plan.target != "VRMC_springBone") {
    Json& owner = ext["VRM"]["secondaryAnimation"];
    append_all(owner, "colliderGroups", plan.collider_groups);
    append_all(owner, "boneGroups", plan.entries);
    return;
  }
  if (!ext.contains("VRMC_springBone")) {
    ext["VRMC_springBone"] = {{"specVersion", "1.0"}};
    Json& used = doc.gltf["extensionsUsed"];
    if (!used.is_array()) used = Json::array();
    if (std::find(used.begin(), used.end(), "VRMC_springBone") == used.end())
      used.push_back("VRMC_springBone");
  }
  Json& owner = ext["VRMC_springBone"];
  append_all(owner, "colliders", plan.colliders);
  append_all(owner, "colliderGroups", plan.collider_groups);
  append_all(owner, "springs", plan.entries);
}

} // namespace retail
