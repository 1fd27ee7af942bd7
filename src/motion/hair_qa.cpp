// The head-turn QA of --hair chains (include/retail/motion/hair_qa.h; docs/hair.md).
#include "retail/motion/hair_qa.h"

#include "retail/detect/distance.h"
#include "retail/detect/weld.h"
#include "retail/io/validate.h"
#include "retail/motion/clip_pass.h"
#include "retail/rig/transform.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <regex>
#include <tuple>
#include <utility>

namespace retail {

void HairQaParams::validate() const {
  turn.validate();
  solver.validate();
  bind.validate();
}

namespace {

/// One character's hair chains as the head turn runs them: one rig on the head (anchor 0), the
/// colliders as its proxies, each chain as hair_bake_rig builds it for the bake.
HeadTurnChains hair_turn_chains(const Character& c, const HairResult& hair,
                                const HairColliders& colliders, const HairQaParams& params) {
  HeadTurnChains out;
  out.anchor_nodes = {c.roles.head};
  for (const auto& proxy : colliders.proxies) out.proxy_nodes.push_back(proxy.first);
  out.rig.anchor_count = 1;
  out.rig.proxy_count = out.proxy_nodes.size();
  out.rig.substep_s = 1 / params.turn.solver_hz;
  for (const HairChainResult& chain : hair.chains) {
    ChainBake bake;
    hair_bake_rig(c, hair_chain_spec(c, chain, colliders), out.rig.substep_s, params.solver, bake);
    out.rig.proxies = bake.hair_rig.proxies; // the same colliders, numbered alike, every chain
    out.rig.chains.push_back(std::move(bake.hair_rig.chains.front()));
    out.joints.push_back(chain.nodes); // bones, then the end: node k+1 ends link k
    out.end_local.push_back(Eigen::Vector3d::Zero());
  }
  return out;
}

/// The chains retail grew on the hair of character `c` as the file holds them: per prefix
/// `<p>Hair_<n>_`, joints <p>Hair_<n>_1 .. _N each the parent of the next, then _End, the first
/// hanging from the head (k, c and the skin radius: read_back_clumps).
std::vector<HairChainResult> grown_hair_chains(const Model& model, const Character& c) {
  static const std::regex name(R"(^(.*Hair_[0-9]+_)([0-9]+|End)$)");
  std::map<std::string, std::map<int, int>> found; // prefix -> number (0: End) -> node
  for (int node : c.joints) {
    std::smatch m;
    const std::string& n = model.nodes[std::size_t(node)].name;
    if (!std::regex_match(n, m, name)) continue;
    found[m[1]][m[2] == "End" ? 0 : std::atoi(m[2].str().c_str())] = node;
  }
  std::vector<HairChainResult> out;
  for (const auto& [prefix, by_number] : found) {
    HairChainResult r;
    int parent = c.roles.head;
    for (int i = 1; by_number.count(i); ++i) {
      const int node = by_number.at(i);
      if (model.nodes[std::size_t(node)].parent != parent) break;
      r.nodes.push_back(node);
      parent = node;
    }
    const auto end = by_number.find(0);
    if (r.nodes.empty() || end == by_number.end() ||
        model.nodes[std::size_t(end->second)].parent != parent)
      continue;
    r.nodes.push_back(end->second);
    for (int node : r.nodes) r.bones.push_back(model.nodes[std::size_t(node)].name);
    r.chain.bones = int(r.nodes.size()) - 1;
    out.push_back(std::move(r));
  }
  return out;
}

/// Distance from `p` to the polyline `joints`.
double polyline_distance(const std::vector<Eigen::Vector3d>& joints, const Eigen::Vector3d& p) {
  double best = INFINITY;
  for (std::size_t i = 0; i + 1 < joints.size(); ++i) {
    const Eigen::Vector3d a = joints[i], ab = joints[i + 1] - a;
    const double t =
        ab.squaredNorm() > 0 ? std::clamp((p - a).dot(ab) / ab.squaredNorm(), 0.0, 1.0) : 0.0;
    best = std::min(best, (a + t * ab - p).norm());
  }
  return best;
}

/// The k and c retail wrote on chain `r`'s first node (`extras.retail_hair`), when both are there
/// and plausible (k positive, c non-negative, both finite); otherwise `r` keeps its own.
void read_solver_extras(const Document& doc, HairChainResult& r) {
  const auto nodes = doc.gltf.find("nodes");
  if (r.nodes.empty() || nodes == doc.gltf.end() || !nodes->is_array() || r.nodes[0] < 0 ||
      std::size_t(r.nodes[0]) >= nodes->size())
    return;
  const Json& node = (*nodes)[std::size_t(r.nodes[0])];
  if (!node.is_object() || !node.contains("extras") || !node["extras"].is_object()) return;
  const Json& e = node["extras"];
  if (!e.contains("retail_hair") || !e["retail_hair"].is_object()) return;
  const Json& h = e["retail_hair"];
  if (!h.contains("stiffness_per_s2") || !h.contains("damping_per_s") ||
      !h["stiffness_per_s2"].is_number() || !h["damping_per_s"].is_number())
    return;
  const double k = h["stiffness_per_s2"].get<double>(), c = h["damping_per_s"].get<double>();
  if (!(k > 0 && std::isfinite(k) && c >= 0 && std::isfinite(c))) return;
  r.stiffness_per_s2 = k;
  r.damping_per_s = c;
}

/// What the file does not hold of the grown `chains` of `c`, read back from its skin: per bone
/// the skin radius (the farthest vertex from the chain's polyline among those whose largest
/// weight is on the bone), the length L (the polyline's) and k, c from them (hair_stiffness, as
/// plan_hair takes them from the clump).
void read_back_clumps(const Document& doc, const Model& model, const Character& c,
                      std::vector<HairChainResult>& chains) {
  const WeldedMesh mesh = weld_character(doc, model, c, WeldParams{});
  const SkinWeights sw = read_skin_weights(doc, model, c, mesh);
  std::map<int, std::pair<std::size_t, std::size_t>> bone_of; // joint index -> chain, bone
  for (std::size_t j = 0; j < chains.size(); ++j) {
    Chain& ch = chains[j].chain;
    for (std::size_t b = 0; b < chains[j].nodes.size(); ++b) {
      const int joint = c.joint_index(chains[j].nodes[b]);
      ch.joints.push_back(c.bind_position(joint));
      if (b + 1 < chains[j].nodes.size()) bone_of[joint] = {j, b};
    }
    ch.radius.assign(chains[j].nodes.size() - 1, 0.0);
  }
  for (std::size_t v = 0; v < sw.joint.size(); ++v) {
    int k = 0;
    for (int i = 1; i < SkinWeights::kMax; ++i)
      if (sw.weight[v][std::size_t(i)] > sw.weight[v][std::size_t(k)]) k = i;
    const auto it = bone_of.find(sw.joint[v][std::size_t(k)]);
    if (it == bone_of.end()) continue;
    Chain& ch = chains[it->second.first].chain;
    const double d = polyline_distance(ch.joints, mesh.positions.row(Eigen::Index(v)).transpose());
    ch.radius[it->second.second] = std::max(ch.radius[it->second.second], d);
  }
  for (HairChainResult& r : chains) {
    r.chain.length = 0;
    for (std::size_t i = 0; i + 1 < r.chain.joints.size(); ++i)
      r.chain.length += (r.chain.joints[i + 1] - r.chain.joints[i]).norm();
    double radius = 0;
    for (double rj : r.chain.radius) radius += rj / double(r.chain.radius.size());
    std::tie(r.stiffness_per_s2, r.damping_per_s) =
        hair_stiffness(HairRigParams{}, r.chain.length, radius);
    read_solver_extras(doc, r);
  }
}

} // namespace

HeadTurnReport head_turn_report_grown(const Document& doc, const Model& model,
                                      const std::vector<Character>& characters,
                                      const HeadTurnReportParams& params) {
  HeadTurnReport vrm = head_turn_report(doc, model, characters, params);
  if (!vrm.springs.empty() || !vrm.warnings.empty()) return vrm; // the file's own springs
  for (std::size_t k = 0; k < characters.size(); ++k) {
    if (characters[k].roles.head < 0) continue;
    HairResult grown;
    grown.chains = grown_hair_chains(model, characters[k]);
    if (grown.chains.empty()) continue;
    read_back_clumps(doc, model, characters[k], grown.chains);
    HairQaParams qa;
    qa.turn = params.turn;
    HeadTurnReport out = head_turn_chains(doc, model, characters, k,
                                          hair_turn_chains(characters[k], grown, {}, qa), params);
    out.springs = "retail Hair_<n> chains";
    return out;
  }
  return vrm;
}

std::vector<HeadTurnReport> hair_head_turn(const Document& doc, const Model& model,
                                           const HeldSkins* held,
                                           const std::vector<HairResult>& hair,
                                           const HairQaParams& params) {
  params.validate();
  std::vector<HeadTurnReport> out(hair.size());
  bool any = false;
  for (const HairResult& h : hair) any = any || !h.chains.empty();
  if (!any) return out;
  const std::vector<Character> characters = build_characters(doc, model, params.bind, held);
  HeadTurnReportParams turn;
  turn.turn = params.turn;
  turn.torso_capsule = false; // hair_colliders added it where the file's colliders miss the trunk
  const std::vector<Eigen::Matrix4d> world = world_matrices(model);
  for (std::size_t k = 0; k < hair.size() && k < characters.size(); ++k) {
    if (hair[k].chains.empty()) continue;
    const HairColliders colliders =
        hair_colliders(doc, model, characters[k], hair[k].trunk, hair[k].chains);
    out[k] =
        head_turn_chains(doc, model, characters, k,
                         hair_turn_chains(characters[k], hair[k], colliders, params), turn, held);
    // The torso capsule the chains respect (head_turn_chains added none), placed at rest.
    out[k].torso = TorsoFit{};
    if (!colliders.torso_added) continue;
    const auto& [node, shape] = colliders.proxies[colliders.vrm]; // the torso's, after the file's
    out[k].torso.fitted = out[k].torso.uncovered = true;
    out[k].torso.covered_fraction = colliders.covered_fraction;
    out[k].torso.capsule = place(shape, Eigen::Affine3d(world[std::size_t(node)]));
  }
  return out;
}

std::string hair_head_turn_summary(const std::vector<HeadTurnReport>& reports,
                                   const HeadTurnParams& turn) {
  std::size_t chains = 0;
  double p99 = 0, pen = 0, quiet = 0, curl = 0;
  for (const HeadTurnReport& r : reports)
    for (const HeadTurnChainReport& c : r.chains) {
      ++chains;
      p99 = std::max(p99, c.edge_max_p99_percent);
      pen = std::max(pen, c.penetration_m);
      quiet = std::max(quiet, c.quiet_tip_movement_m);
      curl = std::max(curl, c.tip_curl_deg);
    }
  char line[256];
  std::snprintf(line, sizeof line,
                "%zu hair chain(s), worst: edge-max p99 %.3f%%, penetration %.3f mm, tip "
                "movement in the last %g s %.6f mm, tip curl at rest %.3f deg",
                chains, p99, 1e3 * pen, turn.quiet_window_s, 1e3 * quiet, curl);
  return line;
}

} // namespace retail
