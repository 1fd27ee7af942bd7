// apply_rig_edit: a planned re-rig (rig_edit.h) written into the document.
#include "retail/grow/rig_edit.h"

#include "retail/base/error.h"
#include "retail/base/parallel.h"
#include "retail/io/accessor.h"
#include "retail/io/builder.h"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>

namespace retail {

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

/// Skin `s`'s inverse bind matrices after appending joints (node, world bind transform): the
/// old matrices, then the new ones in its skin space, as the floats the file holds.
std::vector<float> planned_ibms(const Document& doc, const Model& model, int s,
                                const Eigen::Matrix4d& skin_to_world,
                                const std::vector<std::pair<int, Eigen::Matrix4d>>& add) {
  const Skin& skin = model.skins[std::size_t(s)];
  const std::size_t old = skin.joints.size();
  AccessorData ibm = read_accessor(doc, model, skin.inverse_bind_matrices);
  std::vector<float> data;
  data.reserve((old + add.size()) * 16);
  for (std::size_t k = 0; k < old; ++k)
    for (int e = 0; e < 16; ++e) data.push_back(float(ibm(Eigen::Index(k), e)));
  for (const auto& add_joint : add) {
    Eigen::Matrix4d m = add_joint.second.inverse() * skin_to_world;
    for (int e = 0; e < 16; ++e) data.push_back(float(m.data()[e]));
  }
  return data;
}

/// Appends joints (node, world bind transform) to skin `s` with IBMs in its skin space; the
/// skin's IBM accessor is replaced by a new one holding the old matrices then the new ones.
void extend_skin(Document& doc, const Model& model, int s, const Eigen::Matrix4d& skin_to_world,
                 const std::vector<std::pair<int, Eigen::Matrix4d>>& add) {
  Json& js = doc.gltf["skins"][std::size_t(s)];
  const std::vector<float> data = planned_ibms(doc, model, s, skin_to_world, add);
  for (const auto& add_joint : add) js["joints"].push_back(add_joint.first);
  js["inverseBindMatrices"] = add_float_accessor(doc, data, "MAT4", 0, false);
}

/// One weight set (JOINTS_n/WEIGHTS_n) of a primitive as the edit writes it.
struct PlannedSet {
  std::vector<std::uint32_t> joints;
  int joint_type = kUnsignedByte;
  std::uint32_t wmax = 0;        ///< the normalized weights' maximum; 0: float weights
  int weight_type = kFloat;      ///< the weights' component type
  std::vector<std::uint32_t> wq; ///< quantised weights (wmax > 0)
  std::vector<float> wf;         ///< float weights (wmax == 0)
};

/// The new influences of one vertex in the edit's skin indices, renormalised (weight set 0).
/// Influences on joints this primitive's skin lacks (a root band blending across two skins of
/// one character) are dropped and the rest renormalised; hips is in every skin.
void planned_vertex(const NodeInfluences& influences, const std::map<int, int>& skin_index,
                    int hips_node, std::uint32_t* joints, std::vector<double>& vals) {
  std::size_t slot = 0;
  double sum = 0;
  for (const auto& [node, weight] : influences) {
    auto found = skin_index.find(node);
    if (found == skin_index.end() || slot == 4) continue;
    joints[slot] = std::uint32_t(found->second);
    vals[slot++] = weight, sum += weight;
  }
  if (sum > 0)
    for (double& x : vals) x /= sum;
  else
    joints[0] = std::uint32_t(skin_index.at(hips_node)), vals[0] = 1;
}

/// Vertices [lo, hi) of one weight set: `joints` (4 a vertex) rewritten in place where the edit
/// changes a vertex, ps.wf or ps.wq (sized 4 a vertex, by ps.wmax) filled for each.
void planned_block(const PrimitiveWeights& pw, int set, const AccessorData& w, std::size_t lo,
                   std::size_t hi, std::vector<std::uint32_t>& joints, PlannedSet& ps) {
  const std::size_t first = pw.source.first;
  std::vector<double> vals(4, 0.0);
  // The edit's vertices in id order, walked beside v (a map keyed by id: ascending).
  auto next = pw.vertices.lower_bound(first + lo);
  for (std::size_t v = lo; v < hi; ++v) {
    auto it = pw.vertices.end();
    if (next != pw.vertices.end() && next->first == first + v) it = next++;
    std::fill(vals.begin(), vals.end(), 0.0);
    if (it == pw.vertices.end()) {
      for (int k = 0; k < 4; ++k) vals[std::size_t(k)] = w(Eigen::Index(v), k);
    } else {
      for (int k = 0; k < 4; ++k) joints[v * 4 + std::size_t(k)] = 0;
      if (set == 0) planned_vertex(it->second, pw.skin_index, pw.hips_node, &joints[v * 4], vals);
    }
    if (ps.wmax == 0) {
      for (std::size_t k = 0; k < 4; ++k) {
        if (it != pw.vertices.end() && float(vals[k]) == 0) joints[v * 4 + k] = 0;
        ps.wf[v * 4 + k] = float(vals[k]);
      }
    } else if (it == pw.vertices.end()) {
      for (std::size_t k = 0; k < 4; ++k) // exact for stored values
        ps.wq[v * 4 + k] = std::uint32_t(std::lround(vals[k] * ps.wmax));
    } else {
      std::vector<std::uint32_t> q =
          set == 0 ? quantize_weights(vals, ps.wmax) : std::vector<std::uint32_t>(4, 0);
      // A weight that quantises to nothing names no joint (glTF-Validator's
      // ACCESSOR_JOINTS_USED_ZERO_WEIGHT): the slot is unused, joint 0 as any empty one.
      for (std::size_t k = 0; k < 4; ++k) {
        if (q[k] == 0) joints[v * 4 + k] = 0;
        ps.wq[v * 4 + k] = q[k];
      }
    }
  }
}

/// JOINTS_n/WEIGHTS_n of one primitive with `changed` vertices replaced, as written. Blocks of
/// vertices run on `threads` workers, each writing its own (the result does not depend on it).
std::vector<PlannedSet> planned_weights(const Document& doc, const Model& model,
                                        const PrimitiveWeights& pw, int threads) {
  const SourcePrimitive& src = pw.source;
  const Primitive& prim =
      model.meshes[std::size_t(src.where.mesh)].primitives[std::size_t(src.where.primitive)];
  int sets = prim.attributes.count("JOINTS_1") && prim.attributes.count("WEIGHTS_1") ? 2 : 1;
  std::vector<PlannedSet> out(static_cast<std::size_t>(sets));
  for (int set = 0; set < sets; ++set) {
    PlannedSet& ps = out[std::size_t(set)];
    std::string js = "JOINTS_" + std::to_string(set), ws = "WEIGHTS_" + std::to_string(set);
    const Accessor& ja = model.accessors[std::size_t(prim.attributes.at(js))];
    const Accessor& wa = model.accessors[std::size_t(prim.attributes.at(ws))];
    std::vector<std::uint32_t> joints = read_accessor_uint(doc, model, prim.attributes.at(js));
    AccessorData w = read_accessor(doc, model, prim.attributes.at(ws));
    ps.wmax = wa.component_type == kUnsignedByte    ? 255u
              : wa.component_type == kUnsignedShort ? 65535u
                                                    : 0u;
    (ps.wmax == 0 ? ps.wf.resize(4 * src.count) : ps.wq.resize(4 * src.count));
    constexpr std::size_t kBlock = 1 << 14;
    parallel_for((src.count + kBlock - 1) / kBlock, threads, [&](std::size_t b) {
      planned_block(pw, set, w, b * kBlock, std::min(src.count, (b + 1) * kBlock), joints, ps);
    });
    std::uint32_t max_joint = joints.empty() ? 0 : *std::max_element(joints.begin(), joints.end());
    ps.joint_type = ja.component_type == kUnsignedByte && max_joint > 255 ? int(kUnsignedShort)
                                                                          : ja.component_type;
    ps.joints = std::move(joints);
    ps.weight_type = wa.component_type;
  }
  return out;
}

/// Rewrites JOINTS_n/WEIGHTS_n of one primitive with the edit's vertices replaced.
void write_weights(Document& doc, const Model& model, const PrimitiveWeights& pw, int threads) {
  const std::vector<PlannedSet> sets = planned_weights(doc, model, pw, threads);
  Json& attrs = doc.gltf["meshes"][std::size_t(pw.source.where.mesh)]["primitives"]
                        [std::size_t(pw.source.where.primitive)]["attributes"];
  for (std::size_t set = 0; set < sets.size(); ++set) {
    const PlannedSet& ps = sets[set];
    std::string js = "JOINTS_" + std::to_string(set), ws = "WEIGHTS_" + std::to_string(set);
    attrs[js] = add_uint_accessor(doc, ps.joints, ps.joint_type, "VEC4", 34962, false);
    attrs[ws] = ps.wmax == 0 ? add_float_accessor(doc, ps.wf, "VEC4", 34962, false)
                             : add_uint_accessor(doc, ps.wq, ps.weight_type, "VEC4", 34962, true);
  }
}

/// Appends the edit's nodes, each under its parent.
void add_nodes(Document& doc, const RigEdit& edit) {
  for (const NewNode& n : edit.nodes) {
    Json node = {{"name", n.name},
                 {"translation", {n.translation.x(), n.translation.y(), n.translation.z()}}};
    if (!n.extras.is_null()) node["extras"] = n.extras;
    int index = append_to_array(doc.gltf, "nodes", node);
    Json& p = doc.gltf["nodes"][std::size_t(n.parent)];
    if (!p.contains("children")) p["children"] = Json::array();
    p["children"].push_back(index);
  }
}

} // namespace

RigEdit merge_rig_edits(RigEdit first, RigEdit later) {
  if (later.empty()) return first;
  if (later.first_node != first.first_node + int(first.nodes.size()))
    throw Error(ExitCode::InvalidInput, "a later re-rig plan is not numbered after the first");
  first.nodes.insert(first.nodes.end(), std::make_move_iterator(later.nodes.begin()),
                     std::make_move_iterator(later.nodes.end()));
  for (SkinJoints& s : later.skins) {
    auto it = std::find_if(first.skins.begin(), first.skins.end(),
                           [&](const SkinJoints& f) { return f.skin == s.skin; });
    if (it == first.skins.end())
      first.skins.push_back(std::move(s));
    else
      it->add.insert(it->add.end(), s.add.begin(), s.add.end());
  }
  for (PrimitiveWeights& p : later.primitives) {
    auto it = std::find_if(first.primitives.begin(), first.primitives.end(),
                           [&](const PrimitiveWeights& f) {
                             return f.source.where.mesh == p.source.where.mesh &&
                                    f.source.where.primitive == p.source.where.primitive;
                           });
    if (it == first.primitives.end()) {
      first.primitives.push_back(std::move(p));
      continue;
    }
    it->skin_index = p.skin_index;
    for (auto& [v, inf] : p.vertices) it->vertices[v] = std::move(inf);
  }
  return first;
}

std::vector<int> plan_chain_nodes(const Character& c, int anchor, const Chain& chain,
                                  const std::string& prefix, int first_node, RigEdit& edit,
                                  std::vector<std::string>& names,
                                  std::vector<std::pair<int, Eigen::Matrix4d>>& binds) {
  const Eigen::Matrix4d& anchor_bind = c.bind_world[std::size_t(c.joint_index(anchor))];
  const Eigen::Matrix3d inv = anchor_bind.topLeftCorner<3, 3>().inverse();
  std::vector<int> nodes;
  Eigen::Vector3d prev = anchor_bind.topRightCorner<3, 1>();
  for (int i = 0; i <= chain.bones; ++i) {
    NewNode n;
    n.name = i < chain.bones ? prefix + std::to_string(i + 1) : prefix + "End";
    n.translation = inv * (chain.joints[std::size_t(i)] - prev);
    n.parent = nodes.empty() ? anchor : nodes.back();
    prev = chain.joints[std::size_t(i)];
    nodes.push_back(first_node + int(edit.nodes.size()));
    names.push_back(n.name);
    Eigen::Matrix4d w = anchor_bind;
    w.topRightCorner<3, 1>() = chain.joints[std::size_t(i)];
    binds.push_back({nodes.back(), w});
    edit.nodes.push_back(std::move(n));
  }
  return nodes;
}

void apply_rig_edit(Document& doc, const Model& model, const RigEdit& edit, int threads) {
  if (edit.empty()) return;
  if (doc.gltf["nodes"].size() != std::size_t(edit.first_node))
    throw Error(ExitCode::InvalidInput, "the document changed since its re-rig was planned");
  add_nodes(doc, edit);
  for (const SkinJoints& s : edit.skins) extend_skin(doc, model, s.skin, s.skin_to_world, s.add);
  for (const PrimitiveWeights& p : edit.primitives) write_weights(doc, model, p, threads);
}

PlannedRig planned_rig(const Document& doc, const Model& model, const RigEdit& edit, int threads) {
  PlannedRig out;
  out.model = model;
  if (edit.empty()) return out;
  if (model.nodes.size() != std::size_t(edit.first_node))
    throw Error(ExitCode::InvalidInput, "the document changed since its re-rig was planned");
  for (const NewNode& n : edit.nodes) { // as parse_model reads the nodes add_nodes writes
    Node node;
    node.name = n.name;
    node.parent = n.parent;
    node.translation = {n.translation.x(), n.translation.y(), n.translation.z()};
    out.model.nodes[std::size_t(n.parent)].children.push_back(int(out.model.nodes.size()));
    out.model.nodes.push_back(std::move(node));
  }
  for (const SkinJoints& s : edit.skins) {
    const std::vector<float> data = planned_ibms(doc, model, s.skin, s.skin_to_world, s.add);
    std::vector<Eigen::Matrix4d>& ibms = out.held.ibms[s.skin];
    for (std::size_t k = 0; k * 16 < data.size(); ++k) { // as read_accessor gives them
      Eigen::Matrix4d m;
      for (int e = 0; e < 16; ++e) m.data()[e] = double(data[k * 16 + std::size_t(e)]);
      ibms.push_back(m);
    }
    for (const auto& add_joint : s.add)
      out.model.skins[std::size_t(s.skin)].joints.push_back(add_joint.first);
  }
  for (const PrimitiveWeights& p : edit.primitives) {
    const std::vector<PlannedSet> sets = planned_weights(doc, model, p, threads);
    HeldInfluences& held = out.held.influences[{p.source.where.mesh, p.source.where.primitive}];
    for (std::size_t set = 0; set < sets.size(); ++set) {
      const PlannedSet& ps = sets[set];
      held.joints[set] = ps.joints;
      if (ps.wmax == 0)
        held.weights[set].assign(ps.wf.begin(), ps.wf.end());
      else // as read_accessor decodes normalized integers
        for (std::uint32_t q : ps.wq) held.weights[set].push_back(q / double(ps.wmax));
    }
  }
  return out;
}

} // namespace retail
