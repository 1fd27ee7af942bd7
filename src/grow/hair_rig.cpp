// plan_hair: a selected clump rebuilt as a chain under the head, as a RigEdit (hair_rig.h).
#include "retail/grow/hair_rig.h"

#include "retail/base/error.h"
#include "retail/detect/distance.h"
#include "retail/detect/geodesic.h"
#include "retail/detect/selector.h"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <set>
#include <tuple>

namespace retail {

void HairRigParams::validate() const {
  if (joints < 1 || joints > 32) throw Error(ExitCode::Usage, "--hair-joints must be 1..32");
  if (!(attach_fraction > 0 && attach_fraction <= 0.5))
    throw Error(ExitCode::Usage, "hair attachment fraction must be in (0, 0.5]");
  if (!(pin_fraction >= 0 && pin_fraction < 0.5))
    throw Error(ExitCode::Usage, "hair pin fraction must be in [0, 0.5)");
  if (smoothing_passes < 0) throw Error(ExitCode::Usage, "hair smoothing passes must be >= 0");
  if (!(stiffness_ref_per_s2 > 0) || !std::isfinite(stiffness_ref_per_s2) || !(aspect_ref > 0) ||
      !std::isfinite(aspect_ref) || !(damping_ratio >= 0) || !std::isfinite(damping_ratio))
    throw Error(ExitCode::Usage, "hair stiffness reference and damping ratio out of range");
  if (!std::isnan(stiffness_per_s2) && !(stiffness_per_s2 > 0 && std::isfinite(stiffness_per_s2)))
    throw Error(ExitCode::Usage, "--hair-stiffness must be a positive number");
  if (!std::isnan(damping_per_s) && !(damping_per_s >= 0 && std::isfinite(damping_per_s)))
    throw Error(ExitCode::Usage, "--hair-damping must be a non-negative number");
  auto check_factors = [](const std::map<std::string, double>& factors) {
    for (const auto& [sel, factor] : factors)
      if (!(factor > 0 && std::isfinite(factor)))
        throw Error(ExitCode::Usage, "hair stiffness factor for '" + sel + "' out of range");
  };
  for (const auto& by_character : stiffened) check_factors(by_character);
  check_factors(stiffen);
  weld.validate();
}

ChainWeight hair_chain_weight(double g, double length, int bones, double pin) {
  const double s = std::clamp(bones * g / length, 0.0, std::nextafter(double(bones), 0.0));
  if (s >= 1) return chain_weight(g, length, bones);
  ChainWeight w;
  const double sp = std::clamp(bones * pin / length, 0.0, 0.5);
  const double end = std::min(sp + 0.5, 0.75);
  const double head = s <= sp ? 1.0 : std::clamp((end - s) / (end - sp), 0.0, 1.0);
  const double next = bones > 1 ? std::clamp(2 * s - 1.5, 0.0, 0.5) : 0.0;
  w.bone = {0, 1, 2};
  w.weight = {head, 1 - head - next, next};
  w.count = next > 0 ? 3 : 2;
  if (head >= 1) w.count = 1, w.weight = {1, 0, 0};
  return w;
}

std::pair<double, double> hair_stiffness(const HairRigParams& p, double length, double radius) {
  double k = p.stiffness_ref_per_s2;
  if (length > 0 && radius > 0)
    k = std::clamp(p.stiffness_ref_per_s2 * (radius / length) / p.aspect_ref,
                   p.stiffness_ref_per_s2 / 4, 4 * p.stiffness_ref_per_s2);
  if (!std::isnan(p.stiffness_per_s2)) k = p.stiffness_per_s2;
  const double c =
      std::isnan(p.damping_per_s) ? 2 * p.damping_ratio * std::sqrt(k) : p.damping_per_s;
  return {k, c};
}

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

/// The unique prefix `Hair_<n>_` of chain `number` (1-based): the first n >= number whose `1`
/// and `End` names neither the document nor a planned node has.
std::string hair_prefix(const Json& gltf, const RigEdit& prior, const std::vector<NewNode>& mine,
                        std::size_t number) {
  std::set<std::string> names;
  for (const auto& n : gltf["nodes"])
    if (n.contains("name") && n["name"].is_string()) names.insert(n["name"].get<std::string>());
  for (const auto& n : prior.nodes) names.insert(n.name);
  for (const auto& n : mine) names.insert(n.name);
  for (std::size_t k = number;; ++k) {
    std::string p = "Hair_" + std::to_string(k) + "_";
    if (!names.count(p + "1") && !names.count(p + "End")) return p;
  }
}

/// What every chain of one character reads.
struct HairContext {
  const Document& doc;
  const Character& c;
  const WeldedMesh& mesh;
  const HairRigParams& params;
  int head = -1;                                   ///< the head's joint index
  std::vector<Segment> segments;                   ///< every bone, for the distance to the head's
  std::vector<std::vector<std::size_t>> originals; ///< per welded vertex, ascending
};

/// The clump's welded vertices (any original selected), ascending.
std::vector<int> clump_of(const HairContext& x, const std::vector<bool>& selected) {
  std::vector<int> clump;
  for (std::size_t v = 0; v < selected.size(); ++v)
    if (selected[v]) clump.push_back(x.mesh.weld_of[v]);
  std::sort(clump.begin(), clump.end());
  clump.erase(std::unique(clump.begin(), clump.end()), clump.end());
  return clump;
}

/// The attachment band: the clump's attach_fraction nearest the head bone (ties: lower id).
std::vector<int> attachment_band(const HairContext& x, const std::vector<int>& clump) {
  std::vector<std::pair<double, int>> by;
  for (int w : clump)
    by.push_back({bone_distance(x.mesh.welded.row(w).transpose(), x.head, x.segments, x.c), w});
  std::sort(by.begin(), by.end());
  std::size_t n = std::max<std::size_t>(
      1, std::size_t(std::ceil(x.params.attach_fraction * double(clump.size()))));
  std::vector<int> band;
  for (std::size_t i = 0; i < n && i < by.size(); ++i) band.push_back(by[i].second);
  std::sort(band.begin(), band.end());
  return band;
}

/// The clump as a piece: its reached vertices with g, L = P99(g), the band as collar.
Piece clump_piece(const HairContext& x, const std::vector<int>& clump, const std::vector<int>& band,
                  std::vector<double>& g) {
  std::vector<bool> allowed(x.mesh.size(), false);
  for (int w : clump) allowed[std::size_t(w)] = true;
  g = geodesic_distance(x.mesh, band, allowed, kInf);
  Piece piece;
  std::vector<double> sorted;
  for (int w : clump)
    if (std::isfinite(g[std::size_t(w)])) {
      piece.vertices.push_back(w);
      piece.geodesic.push_back(g[std::size_t(w)]);
      sorted.push_back(g[std::size_t(w)]);
    }
  std::sort(sorted.begin(), sorted.end());
  piece.length =
      sorted.empty() ? 0 : sorted[std::size_t(std::ceil(0.99 * double(sorted.size()))) - 1];
  piece.collar = band;
  return piece;
}

/// One selector's chain (`what` names it in warnings): nodes into `edit`, the clump's influences
/// into `changed`. Returns false (and a warning) when the clump has no length to grow along.
bool plan_one(const HairContext& x, const std::string& sel, const std::string& what,
              const std::vector<bool>& selected, std::size_t number, const RigEdit& prior,
              RigEdit& edit, HairChainResult& r,
              std::vector<std::pair<int, Eigen::Matrix4d>>& binds,
              std::map<std::size_t, NodeInfluences>& changed, std::vector<std::string>& warnings) {
  r.selector = sel;
  const std::vector<int> clump = clump_of(x, selected);
  const std::vector<int> band = attachment_band(x, clump);
  std::vector<double> g;
  Piece piece = clump_piece(x, clump, band, g);
  if (!(piece.length > 0)) {
    warnings.push_back(what + ": the clump has no length to grow a chain along; left " +
                       "as it was");
    return false;
  }
  ChainParams cp;
  cp.min_bones = cp.max_bones = x.params.joints;
  cp.smoothing_passes = x.params.smoothing_passes;
  cp.coordinate = ChainParams::Coordinate::Geodesic; // hair weights read g (hair_chain_weight)
  r.chain = grow_chain(x.mesh, piece, x.c.height, cp);
  double radius = 0; // the chain's mean skin radius over its joints
  for (double rj : r.chain.radius) radius += rj / double(r.chain.radius.size());
  std::tie(r.stiffness_per_s2, r.damping_per_s) = hair_stiffness(x.params, r.chain.length, radius);
  const auto stiffer = x.params.stiffen.find(sel); // the harm check's stiffer try
  if (stiffer != x.params.stiffen.end() && std::isnan(x.params.stiffness_per_s2)) {
    r.stiffness_scale = stiffer->second;
    r.stiffness_per_s2 *= stiffer->second;
    if (std::isnan(x.params.damping_per_s))
      r.damping_per_s = 2 * x.params.damping_ratio * std::sqrt(r.stiffness_per_s2);
  }
  const std::string prefix = hair_prefix(x.doc.gltf, prior, edit.nodes, number);
  const std::size_t first = edit.nodes.size();
  r.nodes = plan_chain_nodes(x.c, x.c.roles.head, r.chain, prefix,
                             prior.first_node + int(prior.nodes.size()), edit, r.bones, binds);
  // The solver's k and c on the chain's first node: a reader re-simulating the chain (report
  // --head-turn) takes them instead of deriving its own (docs/using-the-output.md).
  edit.nodes[first].extras = {
      {"retail_hair",
       {{"stiffness_per_s2", r.stiffness_per_s2}, {"damping_per_s", r.damping_per_s}}}};
  const double pin = x.params.pin_fraction * piece.length;
  for (std::size_t v = 0; v < selected.size(); ++v) {
    if (!selected[v]) continue;
    const double gv = g[std::size_t(x.mesh.weld_of[v])];
    NodeInfluences nw;
    if (!std::isfinite(gv) || gv <= pin) {
      nw.push_back({x.c.roles.head, 1.0});
      r.pinned_vertices.push_back(v);
      r.unreached += std::isfinite(gv) ? 0 : 1;
    } else {
      ChainWeight cw = hair_chain_weight(gv, piece.length, r.chain.bones, pin);
      for (int k = 0; k < cw.count; ++k) {
        int b = cw.bone[std::size_t(k)];
        if (!(cw.weight[std::size_t(k)] > 0)) continue;
        nw.push_back(
            {b == 0 ? x.c.roles.head : r.nodes[std::size_t(b - 1)], cw.weight[std::size_t(k)]});
      }
    }
    changed[v] = std::move(nw);
    r.original_vertices.push_back(v);
  }
  for (int w : band) r.band_vertices += x.originals[std::size_t(w)].size();
  r.vertices = r.original_vertices.size();
  r.pinned = r.pinned_vertices.size();
  return true;
}

/// Do no harm (`what` names the clump in the warning): a clump with more than half the character's
/// welded vertices is left as it was (recorded in `out`), and so is a `--hair` clump that would
/// take the clumps rebuilt so far (`taken`) past half. A found clump is not held to that sum:
/// each passed the hair cues on its own, and hair built of many strands or cards is often
/// denser than the body it hangs from. Otherwise its vertices join `taken`.
bool implausible_clump(const HairContext& x, const std::string& sel, const std::string& what,
                       bool found, const std::vector<bool>& selected, std::vector<bool>& taken,
                       std::size_t& taken_count, HairResult& out) {
  const std::vector<int> clump = clump_of(x, selected);
  std::size_t added = 0;
  for (int w : clump) added += taken[std::size_t(w)] ? 0 : 1;
  const std::size_t all = x.mesh.size();
  if (2 * clump.size() <= all && (found || 2 * (taken_count + added) <= all)) {
    for (int w : clump) taken[std::size_t(w)] = true;
    taken_count += added;
    return false;
  }
  char why[200];
  if (2 * clump.size() > all)
    std::snprintf(why, sizeof why, "implausible for a hair clump (%zu of %zu vertices)",
                  clump.size(), all);
  else
    std::snprintf(why, sizeof why,
                  "implausible for a hair clump (%zu of %zu vertices, with the clumps before it "
                  "%zu)",
                  clump.size(), all, taken_count + added);
  out.left.push_back({sel, found, clump.size(), why});
  out.warnings.push_back(what + ": " + why + ": left as it was");
  return true;
}

/// Per skin: its joints, the prior edit's, then the head (if missing) and `binds` appended.
/// Returns each skin's node -> joint index after both edits.
std::map<int, std::map<int, int>>
plan_hair_skins(const Model& model, const Character& c, const RigEdit& prior,
                const std::vector<std::pair<int, Eigen::Matrix4d>>& binds, RigEdit& edit) {
  std::map<int, std::map<int, int>> skin_index;
  const int head = c.joint_index(c.roles.head);
  for (std::size_t k = 0; k < c.skins.size(); ++k) {
    const int s = c.skins[k];
    auto& index = skin_index[s];
    const Skin& skin = model.skins[std::size_t(s)];
    int count = 0;
    for (const int j : skin.joints) index[j] = count++;
    for (const SkinJoints& p : prior.skins)
      if (p.skin == s)
        for (const auto& a : p.add) index[a.first] = count++;
    SkinJoints add{s, c.skin_to_world[k], {}};
    if (!index.count(c.roles.head))
      add.add.push_back({c.roles.head, c.bind_world[std::size_t(head)]});
    for (const auto& b : binds) add.add.push_back(b);
    for (const auto& a : add.add) index[a.first] = count++;
    if (!add.add.empty()) edit.skins.push_back(std::move(add));
  }
  return skin_index;
}

/// Weights: each touched primitive once (a mesh drawn by several skinned nodes: the first).
void plan_hair_weights(const WeldedMesh& mesh, const Character& c,
                       const std::map<int, std::map<int, int>>& skin_index,
                       const std::map<std::size_t, NodeInfluences>& changed, RigEdit& edit) {
  std::set<std::pair<int, int>> done;
  for (const auto& src : mesh.sources) {
    std::map<std::size_t, NodeInfluences> mine;
    for (auto it = changed.lower_bound(src.first);
         it != changed.end() && it->first < src.first + src.count; ++it)
      mine.insert(*it);
    if (mine.empty() || !done.insert({src.where.mesh, src.where.primitive}).second) continue;
    edit.primitives.push_back({src, skin_index.at(src.where.skin), c.roles.head, std::move(mine)});
  }
}

/// Vertex v's joint node of largest weight (the first of equal ones), -1 when none.
int dominant_joint(const Character& c, const SkinWeights& sw, std::size_t v) {
  int best = -1;
  double most = 0;
  for (int k = 0; k < SkinWeights::kMax; ++k) {
    const int j = sw.joint[v][std::size_t(k)];
    if (j >= 0 && sw.weight[v][std::size_t(k)] > most)
      best = c.joints[std::size_t(j)], most = sw.weight[v][std::size_t(k)];
  }
  return best;
}

/// The joints whose skin sizes the body capsules (hair_capsules.h).
std::set<int> body_joints(const Roles& r) {
  std::set<int> out(r.spine.begin(), r.spine.end());
  for (int n :
       {r.chest, r.neck, r.head, r.shoulder[0], r.shoulder[1], r.upper_arm[0], r.upper_arm[1]})
    out.insert(n);
  out.erase(-1);
  return out;
}

/// The trunk skin (hips, spine, chest weight) outside every clump, for the torso capsule, and
/// the body skin for the body capsules.
TrunkSkin trunk_skin(const Document& doc, const Model& model, const Character& c,
                     const WeldedMesh& mesh, const std::map<std::size_t, NodeInfluences>& changed) {
  TrunkSkin t;
  const Roles& r = c.roles;
  const std::set<int> trunk = trunk_joints(r), body = body_joints(r);
  t.hips = c.bind_position(c.joint_index(r.hips));
  const int top = r.neck >= 0 ? r.neck : r.head;
  t.neck = c.bind_position(c.joint_index(top));
  t.carrier = trunk_carrier(r);
  SkinWeights sw = read_skin_weights(doc, model, c, mesh.sources);
  for (std::size_t v = 0; v < sw.joint.size(); ++v) {
    if (changed.count(v)) continue;
    double w = 0;
    for (int k = 0; k < SkinWeights::kMax; ++k) {
      const int j = sw.joint[v][std::size_t(k)];
      if (j >= 0 && trunk.count(c.joints[std::size_t(j)])) w += sw.weight[v][std::size_t(k)];
    }
    const int dominant = dominant_joint(c, sw, v);
    if (body.count(dominant)) {
      t.body_positions.push_back(mesh.positions.row(Eigen::Index(v)).transpose());
      t.body_node.push_back(dominant);
    }
    if (w <= 0) continue;
    t.positions.push_back(mesh.positions.row(Eigen::Index(v)).transpose());
    t.trunk_weight.push_back(w);
  }
  return t;
}

} // namespace

HairPlan plan_hair(const Document& doc, const Model& model, const Character& c,
                   const RigEdit& prior, const HairRigParams& params,
                   const std::map<std::string, std::vector<bool>>& pieces,
                   const std::vector<std::pair<std::string, std::vector<bool>>>& found) {
  params.validate();
  HairPlan plan;
  plan.edit.first_node = prior.first_node + int(prior.nodes.size());
  if (params.hair.empty() && found.empty()) return plan;
  const WeldedMesh mesh = weld_character(doc, model, c, params.weld);
  std::vector<std::vector<bool>> selected;
  std::vector<std::string> names = params.hair; // the selectors, then the found clumps
  std::vector<bool> matched;
  for (const std::string& sel : params.hair) {
    const auto piece = pieces.find(sel); // piece:N, resolved by plan_character
    selected.push_back(piece != pieces.end() ? piece->second : select_geometry(doc, mesh, sel));
    matched.push_back(std::count(selected.back().begin(), selected.back().end(), true) > 0);
  }
  plan.result.matched = matched;
  for (const auto& [name, mine] : found) {
    names.push_back(name);
    selected.push_back(mine);
    matched.push_back(std::count(mine.begin(), mine.end(), true) > 0);
  }
  if (std::count(matched.begin(), matched.end(), true) == 0) return plan;
  if (c.roles.head < 0 || c.joint_index(c.roles.head) < 0)
    fail_unsupported("--hair: the character has no head joint to hang the hair from");
  HairContext x{doc, c, mesh, params, c.joint_index(c.roles.head), {}, {}};
  x.segments = bone_segments(c, std::vector<bool>(c.joints.size(), true), DistanceParams{});
  x.originals.resize(mesh.size());
  for (std::size_t v = 0; v < mesh.weld_of.size(); ++v)
    x.originals[std::size_t(mesh.weld_of[v])].push_back(v);
  std::map<std::size_t, NodeInfluences> changed;
  std::vector<std::pair<int, Eigen::Matrix4d>> binds;
  std::vector<bool> taken(mesh.size(), false); // welded vertices of the clumps rebuilt so far
  std::size_t taken_count = 0;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (!matched[i]) continue;
    const bool is_found = i >= params.hair.size();
    const std::string what = (is_found ? "hair " : "--hair ") + names[i];
    if (params.judge && implausible_clump(x, names[i], what, is_found, selected[i], taken,
                                          taken_count, plan.result))
      continue;
    HairChainResult r;
    r.found = is_found;
    if (plan_one(x, names[i], what, selected[i], plan.result.chains.size() + 1, prior, plan.edit, r,
                 binds, changed, plan.result.warnings))
      plan.result.chains.push_back(std::move(r));
  }
  if (changed.empty()) return plan;
  auto skin_index = plan_hair_skins(model, c, prior, binds, plan.edit);
  plan_hair_weights(mesh, c, skin_index, changed, plan.edit);
  plan.result.trunk = trunk_skin(doc, model, c, mesh, changed);
  return plan;
}

} // namespace retail
