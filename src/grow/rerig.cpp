// plan_character: detection, chains, root bands and weights as a RigEdit (rig_edit.h).
#include "retail/grow/rerig.h"

#include "retail/base/error.h"
#include "retail/detect/distance.h"
#include "retail/detect/graph.h"
#include "retail/detect/selector.h"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace retail {
namespace {

/// The name prefix of chain `chain_number` ("Tail_", then "Tail_A_", ...): the first whose
/// `1` and `End` names neither the document nor `planned` (nodes planned, not yet written) has.
std::string unique_prefix(const Json& gltf, const RigEdit& prior,
                          const std::vector<NewNode>& planned, std::size_t chain_number) {
  std::set<std::string> names;
  for (const auto& n : gltf["nodes"])
    if (n.contains("name") && n["name"].is_string()) names.insert(n["name"].get<std::string>());
  for (const auto& n : prior.nodes) names.insert(n.name);
  for (const auto& n : planned) names.insert(n.name);
  for (std::size_t attempt = chain_number;; ++attempt) {
    std::string prefix = attempt == 0
                             ? "Tail_"
                             : "Tail_" + std::string(1, char('A' + (attempt - 1) % 26)) +
                                   (attempt > 26 ? std::to_string((attempt - 1) / 26) : "") + "_";
    if (!names.count(prefix + "1") && !names.count(prefix + "End")) return prefix;
  }
}

/// Node of chain bone b: 0 the hips, 1..K Tail_b (`nodes` from plan_chain_nodes).
int chain_node(int b, int hips, const std::vector<int>& nodes) {
  return b == 0 ? hips : nodes[std::size_t(b - 1)];
}

/// Per welded vertex: does the input move it with the hips? Its weight (`first`: its first
/// original vertex, first_originals) is summed by joint region (detect.h's joint_regions), the
/// thighs and the spine joint next to the hips counting as the hips; it is hip skin when the
/// hips hold at least as much as any other region (an unweighted vertex counts). A tail's root
/// band never enters other skin: what the input moves with a shin, a foot, an arm, the upper
/// spine, the neck or the head is not blended into the tail's root, however thick the tail.
/// With `lower_legs` (RootBandParams::lower_legs) the lower legs and feet count as the hips too.
std::vector<bool> hip_skin(const WeldedMesh& mesh, const SkinWeights& sw, const Character& c,
                           const std::vector<int>& first, bool lower_legs) {
  const std::vector<std::string> regions = joint_regions(c);
  const int low_spine = low_spine_joint(c);
  std::vector<std::string> names = {"hips"}; // region ids: 0 the hips'
  std::vector<std::size_t> id(regions.size(), 0);
  for (std::size_t j = 0; j < regions.size(); ++j) {
    if (regions[j] == "hips" || regions[j] == "thigh" || int(j) == low_spine) continue;
    if (lower_legs && regions[j] == "leg") continue;
    id[j] = std::size_t(std::find(names.begin(), names.end(), regions[j]) - names.begin());
    if (id[j] == names.size()) names.push_back(regions[j]);
  }
  std::vector<bool> out(mesh.size(), true);
  std::vector<double> share(names.size());
  for (std::size_t w = 0; w < mesh.size(); ++w) {
    const int v = first[w];
    if (v < 0 || std::size_t(v) >= sw.joint.size()) continue;
    std::fill(share.begin(), share.end(), 0.0);
    for (int k = 0; k < SkinWeights::kMax; ++k)
      if (sw.joint[std::size_t(v)][std::size_t(k)] >= 0)
        share[id[std::size_t(sw.joint[std::size_t(v)][std::size_t(k)])]] +=
            sw.weight[std::size_t(v)][std::size_t(k)];
    out[w] = std::none_of(share.begin() + 1, share.end(), [&](double x) { return x > share[0]; });
  }
  return out;
}

/// The seam between the piece and its band blended (root_band.h's blend_seam) over `scale` x
/// params.seam_links first links (scale: PieceOverride::band_scale): the band's weights in `band`,
/// the piece's near it written into `changed` (their original vertices). Nothing when seam_links is
/// 0 or the chain has no link.
template <class EachOriginal>
void blend_root_seam(const WeldedMesh& mesh, const Character& c, const Piece& piece,
                     const ChainResult& r, const RootBandParams& params, double scale,
                     const std::vector<bool>& inside, const EachOriginal& each_original,
                     std::map<std::size_t, NodeInfluences>& changed, RootBand& band) {
  if (!(params.seam_links > 0) || r.chain.joints.size() < 2) return;
  std::vector<int> slot(mesh.size(), -1); // welded id -> index in piece.vertices
  for (std::size_t i = 0; i < piece.vertices.size(); ++i)
    slot[std::size_t(piece.vertices[i])] = int(i);
  auto chain_influences = [&](int w) { // SPEC §6's weights at piece vertex w
    const ChainWeight cw = chain_weight(r.chain.coordinate[std::size_t(slot[std::size_t(w)])],
                                        piece.length, r.chain.bones);
    Influences inf;
    for (int k = 0; k < cw.count; ++k)
      inf.push_back(
          {chain_node(cw.bone[std::size_t(k)], c.roles.hips, r.nodes), cw.weight[std::size_t(k)]});
    return inf;
  };
  const double link = (r.chain.joints[1] - r.chain.joints[0]).norm();
  const auto piece_side = blend_seam(mesh, inside, scale * params.seam_links * link,
                                     chain_influences, params.max_influences, band);
  for (const auto& entry : piece_side) // (welded id, influences)
    each_original(entry.first, [&](std::size_t v) { changed[v] = entry.second; });
}

/// Blends the body's weights beyond the piece's collar into the tail's root (root_band.h), then
/// the seam between them (blend_root_seam); writes the band's original vertices into `changed`
/// (never one already changed; the piece's own near the band are rewritten) and returns how
/// many band vertices it wrote.
template <class EachOriginal>
std::size_t
blend_root_band(const WeldedMesh& mesh, const SkinWeights& sw, const Character& c,
                const Piece& piece, const ChainResult& r, const RootBandParams& params,
                const EachOriginal& each_original, std::map<std::size_t, NodeInfluences>& changed,
                std::vector<std::size_t>& band_originals, std::vector<std::string>& warnings,
                double band_scale, const std::vector<bool>& excluded) {
  double width = band_scale * params.width_radii * r.chain.root_radius;
  if (!(width > 0)) return 0;
  std::vector<bool> inside(mesh.size(), false);
  for (int w : piece.vertices) inside[std::size_t(w)] = true;
  const std::vector<int> first = first_originals(mesh); // they share the weld's weights
  auto fixed = [&](int w) {
    Influences inf;
    if (inside[std::size_t(w)]) { // the tail's side: the hips (the root blends into them)
      inf.push_back({c.roles.hips, 1.0});
      return inf;
    }
    const std::size_t v = std::size_t(first[std::size_t(w)]);
    for (int k = 0; k < SkinWeights::kMax; ++k)
      if (sw.joint[v][std::size_t(k)] >= 0 && sw.weight[v][std::size_t(k)] > 0)
        inf.push_back(
            {c.joints[std::size_t(sw.joint[v][std::size_t(k)])], sw.weight[v][std::size_t(k)]});
    if (inf.empty()) inf.push_back({c.roles.hips, 1.0}); // an unweighted vertex: rigid to hips
    return inf;
  };
  std::vector<bool> passable = hip_skin(mesh, sw, c, first, params.lower_legs);
  for (std::size_t w = 0; w < excluded.size() && w < passable.size(); ++w)
    if (excluded[w]) passable[w] = false; // --not-tail geometry keeps its weights
  RootBand band = root_band(mesh, inside, width, fixed, params, passable);
  blend_root_seam(mesh, c, piece, r, params, band_scale, inside, each_original, changed, band);
  if (!band.converged)
    warnings.push_back("tail root band: weights still moving after " +
                       std::to_string(band.iterations) + " sweeps; written as they were");
  std::size_t count = 0;
  for (std::size_t i = 0; i < band.vertices.size(); ++i)
    each_original(band.vertices[i], [&](std::size_t v) {
      if (changed.count(v)) return;
      changed[v] = band.influences[i];
      band_originals.push_back(v);
      ++count;
    });
  std::sort(band_originals.begin(), band_originals.end());
  return count;
}

/// The original vertices of each welded vertex (CSR), ascending.
struct Originals {
  std::vector<int> start, ids;
  explicit Originals(const WeldedMesh& mesh) : start(mesh.size() + 1, 0), ids(mesh.weld_of.size()) {
    for (int w : mesh.weld_of) ++start[std::size_t(w) + 1];
    for (std::size_t i = 0; i < mesh.size(); ++i) start[i + 1] += start[i];
    std::vector<int> fill(start.begin(), start.end() - 1);
    for (std::size_t v = 0; v < mesh.weld_of.size(); ++v)
      ids[std::size_t(fill[std::size_t(mesh.weld_of[v])]++)] = int(v);
  }
  template <class Fn> void each(int w, Fn fn) const {
    for (int k = start[std::size_t(w)]; k < start[std::size_t(w) + 1]; ++k)
      fn(std::size_t(ids[std::size_t(k)]));
  }
};

/// The welded vertices `sel` names, ascending: a piece selector's those of the piece of `found`
/// with that id (none without `found`), any other's those of the geometry it names.
std::vector<int> selected_welded(const Document& doc, const WeldedMesh& mesh,
                                 const std::string& sel, const std::vector<Piece>* found) {
  std::vector<int> welded;
  int id = -1;
  if (parse_piece_selector(sel, id)) {
    if (found)
      for (const Piece& p : *found)
        if (p.id == id) welded = p.vertices;
    return welded;
  }
  std::vector<bool> hit = select_geometry(doc, mesh, sel);
  for (std::size_t v = 0; v < hit.size(); ++v)
    if (hit[v]) welded.push_back(mesh.weld_of[v]);
  std::sort(welded.begin(), welded.end());
  welded.erase(std::unique(welded.begin(), welded.end()), welded.end());
  return welded;
}

/// The user's --tail / --not-tail selections on this character's welded vertices; `matched`
/// says whether each selector named any of them (tail selectors first). `found`: the pieces a
/// detection without the piece selectors numbered, for those (nullptr: they name nothing).
PieceSelection read_selection(const Document& doc, const WeldedMesh& mesh,
                              const RerigParams& params, const std::vector<Piece>* found,
                              std::vector<bool>& matched) {
  PieceSelection selection;
  matched.clear();
  for (const auto& sel : params.tail) {
    std::vector<int> welded = selected_welded(doc, mesh, sel, found);
    matched.push_back(!welded.empty());
    selection.tail_names.push_back(sel);
    selection.tail.push_back(std::move(welded));
  }
  for (const auto& sel : params.not_tail) {
    const std::vector<int> welded = selected_welded(doc, mesh, sel, found);
    selection.excluded.resize(mesh.size(), false);
    for (int w : welded) selection.excluded[std::size_t(w)] = true;
    matched.push_back(!welded.empty());
  }
  return selection;
}

/// Per piece selector of `params` that names a piece of `found`: its original vertices.
void piece_originals(const WeldedMesh& mesh, const RerigParams& params,
                     const std::vector<Piece>& found,
                     std::map<std::string, std::vector<bool>>& out) {
  int id = -1;
  for (const auto* list : {&params.tail, &params.not_tail})
    for (const auto& sel : *list)
      for (const Piece& p : found)
        if (parse_piece_selector(sel, id) && p.id == id && !p.vertices.empty()) {
          std::vector<char> in(mesh.size(), 0);
          for (int w : p.vertices) in[std::size_t(w)] = 1;
          std::vector<bool>& mine = out[sel];
          mine.assign(mesh.weld_of.size(), false);
          for (std::size_t v = 0; v < mine.size(); ++v) mine[v] = in[std::size_t(mesh.weld_of[v])];
        }
}

/// Does any --tail / --not-tail selector name a piece (piece:N)?
bool names_pieces(const RerigParams& params) {
  int id = -1;
  for (const auto* list : {&params.tail, &params.not_tail})
    for (const auto& sel : *list)
      if (parse_piece_selector(sel, id)) return true;
  return false;
}

/// What one character's plan reads: its welded surface, weights, detection and skeleton.
struct PlanContext {
  const Document& doc;
  const Model& model;
  const Character& c;
  const WeldedMesh& mesh;
  const SkinWeights& sw;
  const Detection& det;
  const Originals& originals;
  const RerigParams& params;
  const std::vector<bool>& excluded; ///< --not-tail welded vertices (empty: none)
  int hips = -1;                     ///< the hips' joint index
  const RigEdit& prior;              ///< the edits planned before this one (plan_character)

  /// Mean weighted bone distance of original vertex v under its input weights.
  double distance_before(std::size_t v) const {
    double d = 0;
    Eigen::Vector3d p = mesh.positions.row(Eigen::Index(v)).transpose();
    for (int k = 0; k < SkinWeights::kMax; ++k)
      if (sw.joint[v][std::size_t(k)] >= 0 && sw.weight[v][std::size_t(k)] > 0)
        d += sw.weight[v][std::size_t(k)] *
             bone_distance(p, sw.joint[v][std::size_t(k)], det.segments, c);
    return d;
  }
};

/// A piece with weight 1 on one bone: the hips (rigid tail) or its own (worn, --rigid-worn).
ChainResult plan_rigid(const PlanContext& x, const Piece& piece, int bone,
                       std::map<std::size_t, NodeInfluences>& changed) {
  ChainResult r;
  r.piece = piece.id;
  r.rigid = true;
  for (int w : piece.vertices)
    x.originals.each(w, [&](std::size_t v) {
      r.distance_before += x.distance_before(v);
      r.distance_after += bone_distance(x.mesh.positions.row(Eigen::Index(v)).transpose(), bone,
                                        x.det.segments, x.c);
      changed[v] = {{x.c.joints[std::size_t(bone)], 1.0}};
      r.original_vertices.push_back(v);
      ++r.vertices;
    });
  if (r.vertices) r.distance_before /= double(r.vertices), r.distance_after /= double(r.vertices);
  return r;
}

/// A chain along the piece: its nodes planned into `edit` (with their world binds in
/// `new_joints`), the piece's vertices weighted by SPEC §6, then the root band.
ChainResult plan_chain(const PlanContext& x, const Piece& piece, std::size_t chain_number,
                       const PieceOverride& o, RigEdit& edit,
                       std::vector<std::pair<int, Eigen::Matrix4d>>& new_joints,
                       std::map<std::size_t, NodeInfluences>& changed,
                       std::vector<std::string>& warnings) {
  ChainResult r;
  r.piece = piece.id;
  r.min_skin_ratio = o.min_skin_ratio, r.hold_harmful = o.hold_harmful;
  ChainParams chain_params = x.params.chain;
  if (o.max_bones > 0) {
    chain_params.max_bones = std::min(chain_params.max_bones, o.max_bones);
    chain_params.min_bones = std::min(chain_params.min_bones, chain_params.max_bones);
  }
  r.chain = grow_chain(x.mesh, piece, x.c.height, chain_params);
  std::string prefix = unique_prefix(x.doc.gltf, x.prior, edit.nodes, chain_number);
  r.nodes = plan_chain_nodes(x.c, x.c.roles.hips, r.chain, prefix, edit.first_node, edit, r.bones,
                             new_joints);
  // Bone b of the chain: 0 the hips, 1..K Tail_b with segment J_{b-1} -> J_b.
  auto chain_bone_distance = [&](const Eigen::Vector3d& p, int b) {
    if (b == 0) return bone_distance(p, x.hips, x.det.segments, x.c);
    return segment_distance(p, r.chain.joints[std::size_t(b - 1)], r.chain.joints[std::size_t(b)]);
  };
  for (std::size_t i = 0; i < piece.vertices.size(); ++i) {
    ChainWeight cw = chain_weight(r.chain.coordinate[i], piece.length, r.chain.bones);
    x.originals.each(piece.vertices[i], [&](std::size_t v) {
      Eigen::Vector3d p = x.mesh.positions.row(Eigen::Index(v)).transpose();
      NodeInfluences nw;
      double after = 0;
      for (int k = 0; k < cw.count; ++k) {
        int b = cw.bone[std::size_t(k)];
        nw.push_back({chain_node(b, x.c.roles.hips, r.nodes), cw.weight[std::size_t(k)]});
        after += cw.weight[std::size_t(k)] * chain_bone_distance(p, b);
      }
      r.distance_before += x.distance_before(v);
      r.distance_after += after;
      changed[v] = nw;
      r.original_vertices.push_back(v);
      ++r.vertices;
    });
  }
  if (r.vertices) r.distance_before /= double(r.vertices), r.distance_after /= double(r.vertices);
  std::sort(r.original_vertices.begin(), r.original_vertices.end());
  auto each_original = [&](int w, auto fn) { x.originals.each(w, fn); };
  RootBandParams band = x.params.root_band;
  band.lower_legs = band.lower_legs || o.band_legs;
  r.band_vertices = blend_root_band(x.mesh, x.sw, x.c, piece, r, band, each_original, changed,
                                    r.band_originals, warnings, o.band_scale, x.excluded);
  return r;
}

/// Applies the harm check's override to a tail piece; returns it (the default: a whole chain).
PieceOverride apply_override(const RerigParams& params, Piece& piece) {
  auto over = params.overrides.find(piece.id);
  if (piece.decision != Decision::TailChain || over == params.overrides.end()) return {};
  const PieceOverride& o = over->second;
  if (o.kind == PieceOverride::Kind::Leave) piece.decision = Decision::TailRejected;
  if (o.kind == PieceOverride::Kind::Rigid) piece.decision = Decision::TailRigid;
  if (!o.reason.empty()) piece.reason = o.reason;
  return o;
}

/// The welded vertices an override leaves as they were (PieceOverride::peel): those whose
/// originals' net harm adds up above 0 and that reach skin outside `piece` (or its collar, a
/// separate shell's root ring) through such vertices only, so the piece shrinks from its border
/// and no island of input weights is left inside the chain. Visits in ascending welded order from
/// every seed (deterministic; the set does not depend on the order). Empty when the override peels
/// nothing.
std::vector<bool> peeled_welded(const WeldedMesh& mesh, const Piece& piece,
                                const PieceOverride& o) {
  if (o.peel.empty()) return {};
  std::vector<long long> net(mesh.size(), 0);
  for (const auto& [v, n] : o.peel)
    if (v < mesh.weld_of.size()) net[std::size_t(mesh.weld_of[v])] += n;
  std::vector<bool> in_piece(mesh.size(), false), reached(mesh.size(), false);
  for (int w : piece.vertices) in_piece[std::size_t(w)] = true;
  std::vector<int> seeds, peeled; // untouched skin, and a separate shell's root ring
  for (std::size_t w = 0; w < mesh.size(); ++w)
    if (!in_piece[w] && !(net[w] > 0)) seeds.push_back(int(w));
  for (int w : piece.collar) // a separate shell's collar is its own root ring: its border too
    if (net[std::size_t(w)] > 0 && !reached[std::size_t(w)])
      reached[std::size_t(w)] = true, peeled.push_back(w);
  seeds.insert(seeds.end(), peeled.begin(), peeled.end());
  const std::vector<int> inward =
      flood_welded(mesh, seeds, reached, [&](int v) { return net[std::size_t(v)] > 0; });
  std::vector<bool> out(mesh.size(), false);
  for (int w : peeled) out[std::size_t(w)] = true;
  for (int w : inward) out[std::size_t(w)] = true;
  return out;
}

/// `piece` without the `peeled` welded vertices (its vertices, their geodesic and its base; the
/// collar and length stay), and `excluded` (any size) with them added, sized to the mesh: what
/// a peeled chain is planned from.
std::pair<Piece, std::vector<bool>> without_peeled(const Piece& piece,
                                                   const std::vector<bool>& peeled,
                                                   const std::vector<bool>& excluded) {
  std::pair<Piece, std::vector<bool>> out{piece, peeled};
  Piece& p = out.first;
  p.vertices.clear(), p.geodesic.clear(), p.base.clear();
  for (std::size_t i = 0; i < piece.vertices.size(); ++i)
    if (!peeled[std::size_t(piece.vertices[i])]) {
      p.vertices.push_back(piece.vertices[i]);
      if (i < piece.geodesic.size()) p.geodesic.push_back(piece.geodesic[i]);
    }
  for (int w : piece.base)
    if (!peeled[std::size_t(w)]) p.base.push_back(w);
  for (std::size_t w = 0; w < excluded.size() && w < out.second.size(); ++w)
    if (excluded[w]) out.second[w] = true;
  return out;
}

/// plan_chain on `piece` less what the override peels (peeled_welded): the peeled vertices
/// keep their input weights, out of the piece and of its root band (counted in the result's
/// peeled_vertices).
ChainResult plan_peeled_chain(const PlanContext& x, const Piece& piece, std::size_t chain_number,
                              const PieceOverride& o, RigEdit& edit,
                              std::vector<std::pair<int, Eigen::Matrix4d>>& new_joints,
                              std::map<std::size_t, NodeInfluences>& changed,
                              std::vector<std::string>& warnings) {
  const std::vector<bool> peeled = peeled_welded(x.mesh, piece, o);
  if (peeled.empty())
    return plan_chain(x, piece, chain_number, o, edit, new_joints, changed, warnings);
  const auto [kept, excluded] = without_peeled(piece, peeled, x.excluded);
  const PlanContext y{x.doc,       x.model,  x.c,      x.mesh, x.sw,   x.det,
                      x.originals, x.params, excluded, x.hips, x.prior};
  ChainResult r = plan_chain(y, kept, chain_number, o, edit, new_joints, changed, warnings);
  for (std::size_t w = 0; w < peeled.size(); ++w)
    if (peeled[w]) x.originals.each(int(w), [&](std::size_t) { ++r.peeled_vertices; });
  return r;
}

/// Hair found by detection, settled: a piece with a vertex a --not-hair selector names is left
/// alone (Head), one the harm check left (params.hair_left) is HairRejected; the rest, outside
/// mode detect, go to out.found_hair with their original vertices. Sets not_hair_matched.
void settle_found_hair(const Document& doc, const WeldedMesh& mesh, const RerigParams& params,
                       CharacterResult& out) {
  std::vector<std::vector<int>> named;
  for (const auto& sel : params.not_hair) {
    named.push_back(selected_welded(doc, mesh, sel, &out.detection.pieces));
    out.not_hair_matched.push_back(!named.back().empty());
  }
  for (Piece& p : out.detection.pieces) {
    if (p.decision != Decision::Hair) continue;
    std::string by;
    for (std::size_t i = 0; i < named.size() && by.empty(); ++i)
      for (int w : named[i])
        if (std::binary_search(p.vertices.begin(), p.vertices.end(), w)) {
          by = params.not_hair[i];
          break;
        }
    const auto left = params.hair_left.find(p.id);
    if (!by.empty()) {
      p.decision = Decision::Head;
      p.reason = "--not-hair '" + by + "': left alone (detection alone: " + p.reason + ")";
    } else if (left != params.hair_left.end()) {
      p.decision = Decision::HairRejected;
      p.reason = p.reason + "; " + left->second + ": left as it was";
    } else if (params.mode != Mode::Detect) {
      std::vector<char> in(mesh.size(), 0);
      for (int w : p.vertices) in[std::size_t(w)] = 1;
      std::vector<bool> mine(mesh.weld_of.size(), false);
      for (std::size_t v = 0; v < mine.size(); ++v) mine[v] = in[std::size_t(mesh.weld_of[v])];
      out.found_hair.push_back({"piece:" + std::to_string(p.id), std::move(mine)});
    }
  }
}

/// Skins: the new joints (and the hips, if a skin lacks it) appended with IBMs in its space.
/// Returns each skin's node -> joint index after the edit.
std::map<int, std::map<int, int>>
plan_skins(const Model& model, const Character& c, int hips, const RigEdit& prior,
           const std::vector<std::pair<int, Eigen::Matrix4d>>& new_joints, RigEdit& edit) {
  std::map<int, std::map<int, int>> skin_index;
  for (std::size_t k = 0; k < c.skins.size(); ++k) {
    int s = c.skins[k];
    auto& index = skin_index[s];
    const Skin& skin = model.skins[std::size_t(s)];
    int count = 0;
    for (const int j : skin.joints) index[j] = count++;
    for (const SkinJoints& p : prior.skins)
      if (p.skin == s)
        for (const auto& a : p.add) index[a.first] = count++;
    SkinJoints add{s, c.skin_to_world[k], {}};
    if (!index.count(c.roles.hips))
      add.add.push_back({c.roles.hips, c.bind_world[std::size_t(hips)]});
    for (const auto& nj : new_joints) add.add.push_back(nj);
    for (const auto& a : add.add) index[a.first] = count++;
    if (!add.add.empty()) edit.skins.push_back(std::move(add));
  }
  return skin_index;
}

/// Weights: each touched primitive once (a mesh drawn by several skinned nodes must agree).
void plan_weights(const WeldedMesh& mesh, const Character& c,
                  const std::map<int, std::map<int, int>>& skin_index,
                  std::map<std::size_t, NodeInfluences> changed, RigEdit& edit,
                  std::vector<std::string>& warnings) {
  std::map<std::pair<int, int>, const SourcePrimitive*> done;
  for (const auto& src : mesh.sources) {
    std::map<std::size_t, NodeInfluences> mine; // the source's entries, moved (not copied)
    for (auto it = changed.lower_bound(src.first);
         it != changed.end() && it->first < src.first + src.count;)
      mine.insert(mine.end(), changed.extract(it++));
    if (mine.empty()) continue;
    auto key = std::make_pair(src.where.mesh, src.where.primitive);
    if (done.count(key)) {
      if (skin_index.at(done[key]->where.skin) != skin_index.at(src.where.skin))
        warnings.push_back(
            "meshes[" + std::to_string(key.first) + "].primitives[" + std::to_string(key.second) +
            "] is drawn with two skins whose joint lists differ: re-weighted for the first only");
      continue;
    }
    done[key] = &src;
    edit.primitives.push_back({src, skin_index.at(src.where.skin), c.roles.hips, std::move(mine)});
  }
}

} // namespace

void RerigParams::validate() const {
  weld.validate();
  detect.validate();
  chain.validate();
  root_band.validate();
  ears.validate();
}

CharacterPlan plan_character(const Document& doc, const Model& model, const Character& c,
                             const RerigParams& params, const TearProbe& tear,
                             const RigEdit& prior) {
  params.validate();
  CharacterPlan plan;
  CharacterResult& out = plan.result;
  RigEdit& edit = plan.edit;
  const int doc_nodes = int(doc.gltf.contains("nodes") ? doc.gltf["nodes"].size() : 0);
  if (!prior.empty() && prior.first_node != doc_nodes)
    throw Error(ExitCode::InvalidInput, "the prior re-rig was planned for another document");
  edit.first_node = doc_nodes + int(prior.nodes.size());
  std::pair<WeldedMesh, SkinWeights> weighed = weld_and_weigh(doc, model, c, params.weld);
  const WeldedMesh& mesh = weighed.first;
  const SkinWeights& sw = weighed.second;
  out.welded_vertices = mesh.size();
  out.source_vertices = std::size_t(mesh.positions.rows());
  TearProbe welded_tear; // the probe on welded ids: a welded vertex tears as its worst original
  if (tear)
    welded_tear = [&](const std::vector<char>& focus) {
      std::vector<char> originals(mesh.weld_of.size(), 0);
      for (std::size_t v = 0; v < originals.size(); ++v)
        originals[v] = focus[std::size_t(mesh.weld_of[v])];
      const TearEvidence t = tear(originals);
      TearEvidence out_w;
      out_w.rest = t.rest;
      out_w.share.assign(mesh.size(), NAN);
      for (std::size_t v = 0; v < t.share.size() && v < mesh.weld_of.size(); ++v) {
        double& w = out_w.share[std::size_t(mesh.weld_of[v])];
        if (std::isfinite(t.share[v])) w = std::isfinite(w) ? std::max(w, t.share[v]) : t.share[v];
      }
      return out_w;
    };
  PieceSelection selection = read_selection(doc, mesh, params, nullptr, out.selector_matched);
  if (names_pieces(params)) { // piece:N: the pieces as detection numbers them without those
    const Detection first =
        detect_pieces(model, c, mesh, sw, params.detect, selection, welded_tear);
    for (const Piece& p : first.pieces)
      if (!p.vertices.empty()) out.piece_ids.push_back(p.id);
    selection = read_selection(doc, mesh, params, &first.pieces, out.selector_matched);
    piece_originals(mesh, params, first.pieces, out.piece_originals);
  }
  out.detection = detect_pieces(model, c, mesh, sw, params.detect, selection, welded_tear);
  settle_found_hair(doc, mesh, params, out);
  out.ears = plan_ears(model, mesh, c, out.detection.pieces, params.ears);
  const Originals originals(mesh);
  const PlanContext x{doc,
                      model,
                      c,
                      mesh,
                      sw,
                      out.detection,
                      originals,
                      params,
                      selection.excluded,
                      c.joint_index(c.roles.hips),
                      prior};

  std::map<std::size_t, NodeInfluences> changed;           // original vertex -> new influences
  std::vector<std::pair<int, Eigen::Matrix4d>> new_joints; // node, world bind
  std::size_t chain_number = 0;
  for (Piece& piece : out.detection.pieces) {
    const PieceOverride o = apply_override(params, piece);
    const bool force_rigid = o.kind == PieceOverride::Kind::Rigid;
    bool tail = piece.decision == Decision::TailChain || force_rigid,
         worn = piece.decision == Decision::WornRigid;
    if ((!tail && !worn) || params.mode == Mode::Detect) continue;
    if (worn || force_rigid || params.mode == Mode::Rigid) {
      ChainResult r = plan_rigid(x, piece, worn ? piece.attachment : x.hips, changed);
      if (tail) out.chains.push_back(std::move(r));
      continue;
    }
    out.chains.push_back(
        plan_peeled_chain(x, piece, chain_number++, o, edit, new_joints, changed, out.warnings));
  }
  if (changed.empty()) return plan;
  auto skin_index = plan_skins(model, c, x.hips, prior, new_joints, edit);
  plan_weights(mesh, c, skin_index, std::move(changed), edit, out.warnings);
  return plan;
}

CharacterResult rerig_character(Document& doc, const Model& model, const Character& c,
                                const RerigParams& params) {
  CharacterPlan plan = plan_character(doc, model, c, params);
  apply_rig_edit(doc, model, plan.edit);
  return std::move(plan.result);
}

} // namespace retail
