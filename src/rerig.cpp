// rerig_character: bones, skins, inverse bind matrices and weights written into the document.
#include "retail/rerig.h"

#include "retail/accessor.h"
#include "retail/builder.h"
#include "retail/distance.h"
#include "retail/error.h"
#include "retail/selector.h"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace retail {
namespace {

/// New influences for one original vertex: character joint -> weight, or chain bone slots.
struct NewWeights {
  std::vector<std::pair<int, double>> joints; ///< (node index, weight)
};

std::string unique_prefix(const Json& gltf, std::size_t chain_number) {
  std::set<std::string> names;
  for (const auto& n : gltf["nodes"])
    if (n.contains("name") && n["name"].is_string()) names.insert(n["name"].get<std::string>());
  for (std::size_t attempt = chain_number;; ++attempt) {
    std::string prefix = attempt == 0
                             ? "Tail_"
                             : "Tail_" + std::string(1, char('A' + (attempt - 1) % 26)) +
                                   (attempt > 26 ? std::to_string((attempt - 1) / 26) : "") + "_";
    if (!names.count(prefix + "1") && !names.count(prefix + "End")) return prefix;
  }
}

/// Adds the chain's nodes under the hips; returns their node indices (Tail_1..Tail_K, End).
std::vector<int> add_chain_nodes(Document& doc, const Character& c, const Chain& chain,
                                 const std::string& prefix, std::vector<std::string>& names) {
  int hips_node = c.roles.hips;
  const Eigen::Matrix4d& hips_bind = c.bind_world[std::size_t(c.joint_index(hips_node))];
  Eigen::Matrix3d inv = hips_bind.topLeftCorner<3, 3>().inverse();
  std::vector<int> nodes;
  Eigen::Vector3d prev = hips_bind.topRightCorner<3, 1>();
  for (int i = 0; i <= chain.bones; ++i) {
    std::string name = i < chain.bones ? prefix + std::to_string(i + 1) : prefix + "End";
    Eigen::Vector3d t = inv * (chain.joints[std::size_t(i)] - prev);
    prev = chain.joints[std::size_t(i)];
    Json node = {{"name", name}, {"translation", {t.x(), t.y(), t.z()}}};
    int index = append_to_array(doc.gltf, "nodes", node);
    int parent = nodes.empty() ? hips_node : nodes.back();
    Json& p = doc.gltf["nodes"][std::size_t(parent)];
    if (!p.contains("children")) p["children"] = Json::array();
    p["children"].push_back(index);
    nodes.push_back(index);
    names.push_back(name);
  }
  return nodes;
}

/// Appends joints (node, world bind transform) to skin `s` with IBMs in its skin space; the
/// skin's IBM accessor is replaced by a new one holding the old matrices then the new ones.
void extend_skin(Document& doc, const Model& model, int s, const Eigen::Matrix4d& skin_to_world,
                 const std::vector<std::pair<int, Eigen::Matrix4d>>& add) {
  const Skin& skin = model.skins[std::size_t(s)];
  Json& js = doc.gltf["skins"][std::size_t(s)];
  std::size_t old = js["joints"].size();
  AccessorData ibm = read_accessor(doc, model, skin.inverse_bind_matrices);
  std::vector<float> data;
  data.reserve((old + add.size()) * 16);
  for (std::size_t k = 0; k < old; ++k)
    for (int e = 0; e < 16; ++e) data.push_back(float(ibm(Eigen::Index(k), e)));
  for (const auto& [node, world] : add) {
    Eigen::Matrix4d m = world.inverse() * skin_to_world;
    for (int e = 0; e < 16; ++e) data.push_back(float(m.data()[e]));
    js["joints"].push_back(node);
  }
  js["inverseBindMatrices"] = add_float_accessor(doc, data, "MAT4", 0, false);
}

/// Rewrites JOINTS_n/WEIGHTS_n of one primitive with `changed` vertices replaced.
void write_weights(Document& doc, const Model& model, const SourcePrimitive& src,
                   const std::map<int, int>& skin_index, int hips_node,
                   const std::map<std::size_t, NewWeights>& changed) {
  const Primitive& prim =
      model.meshes[std::size_t(src.where.mesh)].primitives[std::size_t(src.where.primitive)];
  Json& attrs = doc.gltf["meshes"][std::size_t(src.where.mesh)]["primitives"]
                        [std::size_t(src.where.primitive)]["attributes"];
  int sets = prim.attributes.count("JOINTS_1") && prim.attributes.count("WEIGHTS_1") ? 2 : 1;
  for (int set = 0; set < sets; ++set) {
    std::string js = "JOINTS_" + std::to_string(set), ws = "WEIGHTS_" + std::to_string(set);
    const Accessor& ja = model.accessors[std::size_t(prim.attributes.at(js))];
    const Accessor& wa = model.accessors[std::size_t(prim.attributes.at(ws))];
    std::vector<std::uint32_t> joints = read_accessor_uint(doc, model, prim.attributes.at(js));
    AccessorData w = read_accessor(doc, model, prim.attributes.at(ws));
    std::uint32_t wmax = wa.component_type == kUnsignedByte    ? 255u
                         : wa.component_type == kUnsignedShort ? 65535u
                                                               : 0u;
    std::vector<std::uint32_t> wq; // quantised weights (normalized integer types)
    std::vector<float> wf;         // float weights
    for (std::size_t v = 0; v < src.count; ++v) {
      auto it = changed.find(src.first + v);
      std::vector<double> vals(4, 0.0);
      if (it == changed.end()) {
        for (int k = 0; k < 4; ++k) vals[std::size_t(k)] = w(Eigen::Index(v), k);
      } else {
        for (int k = 0; k < 4; ++k) joints[v * 4 + std::size_t(k)] = 0;
        if (set == 0) {
          // Influences on joints this primitive's skin lacks (a root band blending across two
          // skins of one character) are dropped and the rest renormalised; hips is in every skin.
          std::size_t slot = 0;
          double sum = 0;
          for (const auto& [node, weight] : it->second.joints) {
            auto found = skin_index.find(node);
            if (found == skin_index.end() || slot == 4) continue;
            joints[v * 4 + slot] = std::uint32_t(found->second);
            vals[slot++] = weight, sum += weight;
          }
          if (sum > 0)
            for (double& x : vals) x /= sum;
          else
            joints[v * 4] = std::uint32_t(skin_index.at(hips_node)), vals[0] = 1;
        }
      }
      if (wmax == 0) {
        for (double x : vals) wf.push_back(float(x));
      } else if (it == changed.end()) {
        for (double x : vals)
          wq.push_back(std::uint32_t(std::lround(x * wmax))); // exact for stored values
      } else {
        std::vector<std::uint32_t> q =
            set == 0 ? quantize_weights(vals, wmax) : std::vector<std::uint32_t>(4, 0);
        wq.insert(wq.end(), q.begin(), q.end());
      }
    }
    std::uint32_t max_joint = joints.empty() ? 0 : *std::max_element(joints.begin(), joints.end());
    int jtype = ja.component_type == kUnsignedByte && max_joint > 255 ? int(kUnsignedShort)
                                                                      : ja.component_type;
    attrs[js] = add_uint_accessor(doc, joints, jtype, "VEC4", 34962, false);
    attrs[ws] = wmax == 0 ? add_float_accessor(doc, wf, "VEC4", 34962, false)
                          : add_uint_accessor(doc, wq, wa.component_type, "VEC4", 34962, true);
  }
}

} // namespace

void RerigParams::validate() const {
  weld.validate();
  detect.validate();
  chain.validate();
  root_band.validate();
}

std::vector<std::uint32_t> quantize_weights(const std::vector<double>& weights, std::uint32_t max) {
  double sum = 0;
  for (double w : weights) sum += w;
  std::vector<std::uint32_t> q(weights.size(), 0);
  if (!(sum > 0)) return q;
  std::vector<std::pair<double, std::size_t>> rest;
  std::uint32_t total = 0;
  for (std::size_t i = 0; i < weights.size(); ++i) {
    double exact = weights[i] / sum * max;
    q[i] = std::uint32_t(std::floor(exact));
    total += q[i];
    rest.push_back({-(exact - q[i]), i});
  }
  std::sort(rest.begin(), rest.end());
  for (std::size_t k = 0; total < max; ++k, ++total) ++q[rest[k % rest.size()].second];
  return q;
}

namespace {

/// Node of chain bone b: 0 the hips, 1..K Tail_b (`nodes` from add_chain_nodes).
int chain_node(int b, int hips, const std::vector<int>& nodes) {
  return b == 0 ? hips : nodes[std::size_t(b - 1)];
}

/// Blends the body's weights beyond the piece's collar into the tail's root (root_band.h);
/// writes the band's original vertices into `changed` (never one already changed) and returns
/// how many.
template <class EachOriginal>
std::size_t blend_root_band(const WeldedMesh& mesh, const SkinWeights& sw, const Character& c,
                            const Piece& piece, const ChainResult& r, const RootBandParams& params,
                            const EachOriginal& each_original,
                            std::map<std::size_t, NewWeights>& changed,
                            std::vector<std::size_t>& band_originals,
                            std::vector<std::string>& warnings, double band_scale) {
  double width =
      band_scale * params.width_radii * (r.chain.radius.empty() ? 0.0 : r.chain.radius[0]);
  if (!(width > 0)) return 0;
  std::vector<bool> inside(mesh.size(), false);
  for (int w : piece.vertices) inside[std::size_t(w)] = true;
  auto fixed = [&](int w) {
    Influences inf;
    if (inside[std::size_t(w)]) { // the tail's side: the hips (the root blends into them)
      inf.push_back({c.roles.hips, 1.0});
      return inf;
    }
    std::size_t v = SIZE_MAX; // its first original vertex (they share the weld's weights)
    each_original(w, [&](std::size_t o) { v = std::min(v, o); });
    for (int k = 0; k < SkinWeights::kMax; ++k)
      if (sw.joint[v][std::size_t(k)] >= 0 && sw.weight[v][std::size_t(k)] > 0)
        inf.push_back(
            {c.joints[std::size_t(sw.joint[v][std::size_t(k)])], sw.weight[v][std::size_t(k)]});
    if (inf.empty()) inf.push_back({c.roles.hips, 1.0}); // an unweighted vertex: rigid to hips
    return inf;
  };
  RootBand band = root_band(mesh, inside, width, fixed, params);
  if (!band.converged)
    warnings.push_back("tail root band: weights still moving after " +
                       std::to_string(band.iterations) + " sweeps; written as they were");
  std::size_t count = 0;
  for (std::size_t i = 0; i < band.vertices.size(); ++i)
    each_original(band.vertices[i], [&](std::size_t v) {
      if (changed.count(v)) return;
      changed[v].joints = band.influences[i];
      band_originals.push_back(v);
      ++count;
    });
  std::sort(band_originals.begin(), band_originals.end());
  return count;
}

} // namespace

CharacterResult rerig_character(Document& doc, const Model& model, const Character& c,
                                const RerigParams& params) {
  params.validate();
  CharacterResult out;
  WeldedMesh mesh = weld_character(doc, model, c, params.weld);
  SkinWeights sw = read_skin_weights(doc, model, c, mesh);
  out.welded_vertices = mesh.size();
  out.source_vertices = std::size_t(mesh.positions.rows());
  PieceSelection selection;
  for (const auto& sel : params.tail) {
    std::vector<bool> hit = select_geometry(doc, mesh, sel);
    std::vector<int> welded;
    for (std::size_t v = 0; v < hit.size(); ++v)
      if (hit[v]) welded.push_back(mesh.weld_of[v]);
    std::sort(welded.begin(), welded.end());
    welded.erase(std::unique(welded.begin(), welded.end()), welded.end());
    out.selector_matched.push_back(!welded.empty());
    selection.tail_names.push_back(sel);
    selection.tail.push_back(std::move(welded));
  }
  for (const auto& sel : params.not_tail) {
    std::vector<bool> hit = select_geometry(doc, mesh, sel);
    selection.excluded.resize(mesh.size(), false);
    bool any = false;
    for (std::size_t v = 0; v < hit.size(); ++v)
      if (hit[v]) selection.excluded[std::size_t(mesh.weld_of[v])] = any = true;
    out.selector_matched.push_back(any);
  }
  out.detection = detect_pieces(model, c, mesh, sw, params.detect, selection);
  const Detection& det = out.detection;
  int hips = c.joint_index(c.roles.hips);

  std::map<std::size_t, NewWeights> changed;               // original vertex -> new influences
  std::vector<std::pair<int, Eigen::Matrix4d>> new_joints; // node, world bind
  std::vector<int> originals_of_welded_start(mesh.size() + 1, 0);
  std::vector<int> originals; // welded -> original vertices (CSR)
  for (int w : mesh.weld_of) ++originals_of_welded_start[std::size_t(w) + 1];
  for (std::size_t i = 0; i < mesh.size(); ++i)
    originals_of_welded_start[i + 1] += originals_of_welded_start[i];
  originals.resize(mesh.weld_of.size());
  {
    std::vector<int> fill(originals_of_welded_start.begin(), originals_of_welded_start.end() - 1);
    for (std::size_t v = 0; v < mesh.weld_of.size(); ++v)
      originals[std::size_t(fill[std::size_t(mesh.weld_of[v])]++)] = int(v);
  }
  auto each_original = [&](int w, auto fn) {
    for (int k = originals_of_welded_start[std::size_t(w)];
         k < originals_of_welded_start[std::size_t(w) + 1]; ++k)
      fn(std::size_t(originals[std::size_t(k)]));
  };
  auto distance_before = [&](std::size_t v) {
    double d = 0;
    Eigen::Vector3d p = mesh.positions.row(Eigen::Index(v)).transpose();
    for (int k = 0; k < SkinWeights::kMax; ++k)
      if (sw.joint[v][std::size_t(k)] >= 0 && sw.weight[v][std::size_t(k)] > 0)
        d += sw.weight[v][std::size_t(k)] *
             bone_distance(p, sw.joint[v][std::size_t(k)], det.segments, c);
    return d;
  };

  std::size_t chain_number = 0;
  for (Piece& piece : out.detection.pieces) {
    double band_scale = 1;
    bool force_rigid = false;
    auto over = params.overrides.find(piece.id);
    if (piece.decision == Decision::TailChain && over != params.overrides.end()) {
      const PieceOverride& o = over->second;
      if (o.kind == PieceOverride::Kind::Leave) piece.decision = Decision::TailRejected;
      if (o.kind == PieceOverride::Kind::Rigid) piece.decision = Decision::TailRigid;
      if (!o.reason.empty()) piece.reason = o.reason;
      band_scale = o.band_scale;
      force_rigid = o.kind == PieceOverride::Kind::Rigid;
    }
    bool tail = piece.decision == Decision::TailChain || force_rigid,
         worn = piece.decision == Decision::WornRigid;
    if ((!tail && !worn) || params.mode == Mode::Detect) continue;
    if (worn || force_rigid || params.mode == Mode::Rigid) {
      int bone = worn ? piece.attachment : hips;
      ChainResult r;
      r.piece = piece.id;
      r.rigid = true;
      for (int w : piece.vertices)
        each_original(w, [&](std::size_t v) {
          r.distance_before += distance_before(v);
          r.distance_after +=
              bone_distance(mesh.positions.row(Eigen::Index(v)).transpose(), bone, det.segments, c);
          changed[v].joints = {{c.joints[std::size_t(bone)], 1.0}};
          r.original_vertices.push_back(v);
          ++r.vertices;
        });
      if (r.vertices)
        r.distance_before /= double(r.vertices), r.distance_after /= double(r.vertices);
      if (tail) out.chains.push_back(r);
      continue;
    }
    ChainResult r;
    r.piece = piece.id;
    r.chain = grow_chain(mesh, piece, c.height, params.chain);
    std::string prefix = unique_prefix(doc.gltf, chain_number++);
    r.nodes = add_chain_nodes(doc, c, r.chain, prefix, r.bones);
    const Eigen::Matrix4d& hips_bind = c.bind_world[std::size_t(hips)];
    for (std::size_t i = 0; i < r.nodes.size(); ++i) {
      Eigen::Matrix4d w = hips_bind;
      w.topRightCorner<3, 1>() = r.chain.joints[i];
      new_joints.push_back({r.nodes[i], w});
    }
    // Bone b of the chain: 0 the hips, 1..K Tail_b with segment J_{b-1} -> J_b.
    auto chain_bone_distance = [&](const Eigen::Vector3d& p, int b) {
      if (b == 0) return bone_distance(p, hips, det.segments, c);
      return segment_distance(p, r.chain.joints[std::size_t(b - 1)],
                              r.chain.joints[std::size_t(b)]);
    };
    for (std::size_t i = 0; i < piece.vertices.size(); ++i) {
      ChainWeight cw = chain_weight(piece.geodesic[i], piece.length, r.chain.bones);
      each_original(piece.vertices[i], [&](std::size_t v) {
        Eigen::Vector3d p = mesh.positions.row(Eigen::Index(v)).transpose();
        NewWeights nw;
        double after = 0;
        for (int k = 0; k < cw.count; ++k) {
          int b = cw.bone[std::size_t(k)];
          nw.joints.push_back({chain_node(b, c.roles.hips, r.nodes), cw.weight[std::size_t(k)]});
          after += cw.weight[std::size_t(k)] * chain_bone_distance(p, b);
        }
        r.distance_before += distance_before(v);
        r.distance_after += after;
        changed[v] = nw;
        r.original_vertices.push_back(v);
        ++r.vertices;
      });
    }
    if (r.vertices) r.distance_before /= double(r.vertices), r.distance_after /= double(r.vertices);
    std::sort(r.original_vertices.begin(), r.original_vertices.end());
    r.band_vertices = blend_root_band(mesh, sw, c, piece, r, params.root_band, each_original,
                                      changed, r.band_originals, out.warnings, band_scale);
    out.chains.push_back(std::move(r));
  }
  if (changed.empty()) return out;

  // Skins: append the new joints (and the hips, if a skin lacks it) with IBMs in its space.
  std::map<int, std::map<int, int>> skin_index; // skin -> node -> joint index in that skin
  for (std::size_t k = 0; k < c.skins.size(); ++k) {
    int s = c.skins[k];
    auto& index = skin_index[s];
    const Skin& skin = model.skins[std::size_t(s)];
    for (std::size_t j = 0; j < skin.joints.size(); ++j) index[skin.joints[j]] = int(j);
    std::vector<std::pair<int, Eigen::Matrix4d>> add;
    if (!index.count(c.roles.hips)) add.push_back({c.roles.hips, c.bind_world[std::size_t(hips)]});
    for (const auto& nj : new_joints) add.push_back(nj);
    for (std::size_t a = 0; a < add.size(); ++a) index[add[a].first] = int(skin.joints.size() + a);
    if (!add.empty()) extend_skin(doc, model, s, c.skin_to_world[k], add);
  }
  // Weights: each touched primitive once (a mesh drawn by several skinned nodes must agree).
  std::map<std::pair<int, int>, const SourcePrimitive*> done;
  for (const auto& src : mesh.sources) {
    std::map<std::size_t, NewWeights> mine;
    for (auto it = changed.lower_bound(src.first);
         it != changed.end() && it->first < src.first + src.count; ++it)
      mine.insert(*it);
    if (mine.empty()) continue;
    auto key = std::make_pair(src.where.mesh, src.where.primitive);
    if (done.count(key)) {
      if (skin_index[done[key]->where.skin] != skin_index[src.where.skin])
        out.warnings.push_back(
            "meshes[" + std::to_string(key.first) + "].primitives[" + std::to_string(key.second) +
            "] is drawn with two skins whose joint lists differ: re-weighted for the first only");
      continue;
    }
    done[key] = &src;
    write_weights(doc, model, src, skin_index[src.where.skin], c.roles.hips, mine);
  }
  return out;
}

} // namespace retail
