// Chains retail grows as VRM springs: vrm_spring_export.h.
#include "retail/motion/vrm_spring_export.h"

#include "retail/io/validate.h"
#include "retail/rig/transform.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace retail {
namespace {

/// `node` is `top` or below it.
bool at_or_below(const Model& model, int node, int top) {
  for (int n = node; n >= 0 && top >= 0; n = model.nodes[std::size_t(n)].parent)
    if (n == top) return true;
  return false;
}

/// The groups (ascending) with a collider riding one of `nodes` or a node below one of `below`.
std::vector<int> groups_on(const VrmSprings& existing, const Model& model,
                           const std::vector<int>& nodes, const std::vector<int>& below) {
  std::vector<int> out;
  for (std::size_t g = 0; g < existing.groups.size(); ++g) {
    bool on = false;
    for (int c : existing.groups[g].colliders) {
      const int n = existing.colliders[std::size_t(c)].node;
      on = on || std::find(nodes.begin(), nodes.end(), n) != nodes.end();
      for (int b : below) on = on || at_or_below(model, n, b);
    }
    if (on) out.push_back(int(g));
  }
  return out;
}

/// f and ζ of a spring with stiffness k (1/s²) and damping c (1/s): ω² = k, c = 2ζω.
std::pair<double, double> frequency_and_ratio(double k, double c) {
  if (!(k > 0)) return {0.0, 0.0};
  const double w = std::sqrt(k);
  return {w / (2 * M_PI), c / (2 * w)};
}

} // namespace

std::vector<int> grown_collider_groups(const VrmSprings& existing, const Model& model,
                                       const Character& character, bool hair) {
  const Roles& r = character.roles;
  if (!hair) {
    std::vector<int> nodes = r.pelvis;
    nodes.push_back(r.hips);
    return groups_on(existing, model, nodes, {r.upper_leg[0], r.upper_leg[1]});
  }
  std::set<int> used;
  for (const VrmSpringChain& ch : existing.chains)
    if (!ch.joints.empty() && at_or_below(model, ch.joints.front(), r.head))
      used.insert(ch.collider_groups.begin(), ch.collider_groups.end());
  if (!used.empty()) return {used.begin(), used.end()};
  std::vector<int> trunk = r.spine;
  trunk.insert(trunk.end(), r.pelvis.begin(), r.pelvis.end());
  trunk.insert(trunk.end(), {r.hips, r.chest, r.neck});
  return groups_on(existing, model, trunk, {r.head});
}

std::vector<GrownSpring> grown_springs(const VrmSprings& existing, const Model& model,
                                       const Character& character, const CharacterResult& tails,
                                       const HairResult* hair, const BakeParams& params,
                                       const std::vector<int>& hair_groups) {
  std::vector<GrownSpring> out;
  const SpringParams& sp = params.spring;
  for (const ChainResult& ch : tails.chains) {
    if (ch.rigid || ch.nodes.size() < 2) continue;
    GrownSpring s;
    s.name = "retail " + ch.bones.front();
    s.joints = ch.nodes;
    const std::size_t n = ch.nodes.size() - 1; // links, as spring.cpp counts them
    for (std::size_t i = 0; i < n; ++i) {
      s.frequency_hz.push_back(n > 1 ? sp.root_frequency_hz +
                                           (sp.tip_frequency_hz - sp.root_frequency_hz) *
                                               double(i) / double(n - 1)
                                     : sp.root_frequency_hz);
      s.radius_m.push_back(i < ch.chain.radius.size() ? ch.chain.radius[i] : 0.0);
    }
    s.damping_ratio = sp.damping_ratio;
    s.gravity_mps2 = sp.gravity_mps2 * character.scale;
    s.collider_groups = grown_collider_groups(existing, model, character, false);
    out.push_back(std::move(s));
  }
  if (!hair) return out;
  const HairBakeParams& hp = params.hair;
  for (const HairChainResult& ch : hair->chains) {
    if (ch.nodes.size() < 2) continue;
    const auto [f, zeta] = frequency_and_ratio(
        std::isnan(ch.stiffness_per_s2) ? hp.stiffness_per_s2 : ch.stiffness_per_s2,
        std::isnan(ch.damping_per_s) ? hp.damping_per_s : ch.damping_per_s);
    GrownSpring s;
    s.name = "retail " + ch.bones.front();
    s.joints = ch.nodes;
    for (std::size_t i = 0; i + 1 < ch.nodes.size(); ++i) {
      s.frequency_hz.push_back(f);
      s.radius_m.push_back(hp.radius_scale *
                           (i < ch.chain.radius.size() ? ch.chain.radius[i] : 0.0));
    }
    s.damping_ratio = zeta;
    s.gravity_mps2 = hp.gravity_mps2 * character.scale;
    s.collider_groups = grown_collider_groups(existing, model, character, true);
    s.collider_groups.insert(s.collider_groups.end(), hair_groups.begin(), hair_groups.end());
    out.push_back(std::move(s));
  }
  return out;
}

GrownColliderSet body_collider_set(const HairColliders& colliders, const std::string& name) {
  GrownColliderSet set;
  set.name = name;
  for (const BodyCapsule& b : colliders.body) {
    if (!b.added || b.proxy < 0 || std::size_t(b.proxy) >= colliders.proxies.size()) continue;
    const auto& [node, p] = colliders.proxies[std::size_t(b.proxy)];
    set.colliders.push_back({b.bone, node, p.head_local, p.tail_local, p.radius_m});
  }
  return set;
}

VrmSpringStage plan_vrm_spring_export(const Document& doc, const Model& model,
                                      const std::vector<Character>& characters,
                                      const std::vector<CharacterResult>& tails,
                                      const std::vector<HairResult>& hair,
                                      const std::vector<HairColliders>& hair_colliders,
                                      const BakeParams& params, bool enabled) {
  VrmSpringStage out;
  const std::string target = vrm_spring_target(doc);
  const std::string status = target.empty() ? "not a VRM" : enabled ? "written" : "off";
  out.characters.assign(characters.size(), VrmSpringRecord{status, target, {}, {}, {}});
  if (target.empty()) return out;
  out.summary = "off (--no-vrm-springs)";
  if (!enabled) return out;
  std::size_t grown = 0;
  for (const CharacterResult& r : tails)
    for (const ChainResult& ch : r.chains) grown += ch.nodes.size() >= 2 && !ch.rigid;
  for (const HairResult& h : hair) grown += h.chains.size();
  out.summary = "0 chain(s): nothing grew, " + target + " left as it was";
  if (grown == 0) return out;
  const VrmSprings existing = usable_vrm_springs(doc, model);
  if (!existing.unusable.empty()) // the file's own springs cannot be used: ours respect no collider
    out.warnings.push_back("VRM springs: the file's spring metadata cannot be used (" +
                           existing.unusable + "): the grown chains are written without colliders");
  std::vector<GrownColliderSet> sets(characters.size()); // the hair's body capsules
  for (std::size_t k = 0; k < sets.size() && existing.unusable.empty(); ++k)
    if (k < hair_colliders.size() && k < hair.size() && !hair[k].chains.empty())
      sets[k] = body_collider_set(hair_colliders[k],
                                  k == 0 ? "retail body" : "retail body " + std::to_string(k));
  const std::vector<std::vector<int>> added = vrm_added_groups(doc, sets);
  std::vector<GrownSpring> all;
  std::size_t colliders = 0;
  for (std::size_t k = 0; k < characters.size() && k < tails.size(); ++k) {
    VrmSpringRecord& rec = out.characters[k];
    rec.springs = grown_springs(existing, model, characters[k], tails[k],
                                k < hair.size() ? &hair[k] : nullptr, params, added[k]);
    rec.colliders = sets[k].colliders;
    rec.collider_groups = added[k];
    colliders += rec.colliders.size();
    all.insert(all.end(), rec.springs.begin(), rec.springs.end());
  }
  out.plan = vrm_spring_plan(doc, model, world_matrices(model), all, sets);
  std::size_t joints = 0;
  for (const GrownSpring& s : all) joints += s.joints.size();
  out.summary = std::to_string(all.size()) + " chain(s), " + std::to_string(joints) +
                " joints appended to " + target;
  if (colliders > 0)
    out.summary += ", " + std::to_string(colliders) + " body capsule(s) as colliders in " +
                   std::to_string(out.plan.collider_groups.size()) + " new group(s)";
  return out;
}

} // namespace retail
