// Chains as VRM springs in a file's own metadata: vrm_spring_write.h.
#include "retail/vrm/vrm_spring_write.h"

#include "retail/base/error.h"
#include "retail/rig/transform.h"

#include <algorithm>
#include <cmath>

namespace retail {
namespace {

[[noreturn]] void usage(const std::string& what) {
  throw Error(ExitCode::Usage, "VRM spring export: " + what);
}

/// Checks one grown spring against the model; its per-link world lengths.
std::vector<double> link_lengths(const Model& model, const std::vector<Eigen::Matrix4d>& world,
                                 const GrownSpring& s, std::size_t groups) {
  const std::size_t n = s.joints.size();
  if (n < 2) usage("chain '" + s.name + "' has fewer than two joints");
  if (s.radius_m.size() != n - 1 || s.frequency_hz.size() != n - 1)
    usage("chain '" + s.name + "': one radius and one frequency per link");
  for (int g : s.collider_groups)
    if (g < 0 || std::size_t(g) >= groups)
      usage("chain '" + s.name + "': collider group " + std::to_string(g) + " does not exist");
  std::vector<double> out;
  for (std::size_t i = 0; i < n; ++i) {
    const int node = s.joints[i];
    if (node < 0 || std::size_t(node) >= model.nodes.size())
      usage("chain '" + s.name + "': node " + std::to_string(node) + " out of range");
    if (i == 0) continue;
    if (model.nodes[std::size_t(node)].parent != s.joints[i - 1])
      usage("chain '" + s.name + "': nodes[" + std::to_string(node) +
            "] is not the child of the joint before it");
    out.push_back((world[std::size_t(node)].col(3) - world[std::size_t(s.joints[i - 1])].col(3))
                      .head<3>()
                      .norm());
  }
  return out;
}

/// The collider groups the file has for `target`.
std::size_t group_count(const Document& doc, const std::string& target) {
  const Json& ext = doc.gltf.contains("extensions") ? doc.gltf["extensions"] : Json::object();
  const Json* groups = nullptr;
  if (target == "VRMC_springBone" && ext.contains("VRMC_springBone"))
    groups = ext["VRMC_springBone"].contains("colliderGroups")
                 ? &ext["VRMC_springBone"]["colliderGroups"]
                 : nullptr;
  else if (target != "VRMC_springBone" && ext.contains("VRM") &&
           ext["VRM"].contains("secondaryAnimation"))
    groups = ext["VRM"]["secondaryAnimation"].contains("colliderGroups")
                 ? &ext["VRM"]["secondaryAnimation"]["colliderGroups"]
                 : nullptr;
  return groups && groups->is_array() ? groups->size() : 0;
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
    usage("link parameters out of range");
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
                              const std::vector<GrownSpring>& springs, const VrmMapping& mapping) {
  VrmSpringPlan plan;
  plan.target = vrm_spring_target(doc);
  plan.entries = Json::array();
  if (plan.target.empty() || springs.empty()) return plan;
  const std::size_t groups = group_count(doc, plan.target);
  for (const GrownSpring& s : springs) {
    std::vector<double> lengths = link_lengths(model, world, s, groups);
    std::vector<VrmJointSettings> js;
    for (std::size_t i = 0; i < lengths.size(); ++i)
      js.push_back(vrm_settings_for(s.frequency_hz[i], s.damping_ratio, s.gravity_mps2, lengths[i],
                                    s.radius_m[i], mean_scale(world[std::size_t(s.joints[i])]),
                                    mapping));
    plan.entries.push_back(plan.target == "VRMC_springBone" ? vrm1_spring(s, js)
                                                            : vrm0_group(s, js));
  }
  plan.summary = std::to_string(springs.size()) + " chain(s) written as " +
                 (plan.target == "VRMC_springBone" ? "VRMC_springBone springs"
                                                   : "VRM 0.x secondaryAnimation bone groups");
  return plan;
}

void apply_vrm_spring_plan(Document& doc, const VrmSpringPlan& plan) {
  if (plan.target.empty() || plan.entries.empty()) return;
  Json& ext = doc.gltf["extensions"];
  if (plan.target == "VRMC_springBone") {
    if (!ext.contains("VRMC_springBone")) {
      ext["VRMC_springBone"] = {{"specVersion", "1.0"}};
      Json& used = doc.gltf["extensionsUsed"];
      if (!used.is_array()) used = Json::array();
      if (std::find(used.begin(), used.end(), "VRMC_springBone") == used.end())
        used.push_back("VRMC_springBone");
    }
    Json& springs = ext["VRMC_springBone"]["springs"];
    if (!springs.is_array()) springs = Json::array();
    for (const auto& e : plan.entries) springs.push_back(e);
  } else {
    Json& groups = ext["VRM"]["secondaryAnimation"]["boneGroups"];
    if (!groups.is_array()) groups = Json::array();
    for (const auto& e : plan.entries) groups.push_back(e);
  }
}

} // namespace retail
