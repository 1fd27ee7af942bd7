// retail — a primitive's skin influences as stored (JOINTS_n / WEIGHTS_n, glTF 2.0 §3.7.3.3).
#pragma once

#include "retail/base/document.h"
#include "retail/base/model.h"
#include "retail/io/accessor.h"

#include <Eigen/Core>
#include <array>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

namespace retail {

/// Calls fn(vertex, slot, skin_joint, weight) for every positive weight of the primitive's
/// JOINTS_0/WEIGHTS_0 (slots 0-3) and JOINTS_1/WEIGHTS_1 (slots 4-7), in vertex then slot order.
/// Joint indices are as stored (the caller checks them against its skin).
template <class Fn>
void for_each_influence(const Document& doc, const Model& model, const Primitive& p, Fn fn) {
  for (int set = 0; set < 2; ++set) {
    auto jt = p.attributes.find("JOINTS_" + std::to_string(set));
    auto wt = p.attributes.find("WEIGHTS_" + std::to_string(set));
    if (jt == p.attributes.end() || wt == p.attributes.end()) continue;
    std::vector<std::uint32_t> j = read_accessor_uint(doc, model, jt->second);
    AccessorData w = read_accessor(doc, model, wt->second);
    for (Eigen::Index v = 0; v < w.rows(); ++v)
      for (int k = 0; k < 4; ++k)
        if (w(v, k) > 0)
          fn(std::size_t(v), set * 4 + k, j[std::size_t(v) * 4 + std::size_t(k)], w(v, k));
  }
}

/// A primitive's influences held in memory in place of its accessors: per weight set (0:
/// JOINTS_0/WEIGHTS_0, 1: JOINTS_1/WEIGHTS_1), 4 joint indices and 4 weights per vertex, the
/// weights as read_accessor decodes the stored values (normalized integers divided by their
/// maximum); a set left empty is absent.
struct HeldInfluences {
  std::array<std::vector<std::uint32_t>, 2> joints;
  std::array<std::vector<double>, 2> weights;
};

/// Skin data held in memory in place of the document's accessors (a planned re-rig not written
/// yet, rig_edit.h): per skin, every inverse bind matrix as the file would hold it; per
/// (mesh, primitive), its influences. What is not listed is read from the document.
struct HeldSkins {
  std::map<int, std::vector<Eigen::Matrix4d>> ibms;
  std::map<std::pair<int, int>, HeldInfluences> influences;
};

/// for_each_influence over held influences: the same calls in the same order as for the
/// accessors they stand for.
template <class Fn> void for_each_influence(const HeldInfluences& held, Fn fn) {
  for (std::size_t set = 0; set < 2; ++set) {
    const std::vector<std::uint32_t>& j = held.joints[set];
    const std::vector<double>& w = held.weights[set];
    for (std::size_t v = 0; v * 4 < w.size(); ++v)
      for (std::size_t k = 0; k < 4; ++k)
        if (w[v * 4 + k] > 0) fn(v, int(set * 4 + k), j[v * 4 + k], w[v * 4 + k]);
  }
}

/// for_each_influence on primitive `primitive` of mesh `mesh`: from `held` when it holds that
/// primitive's influences (a planned re-rig), else from the document's accessors.
template <class Fn>
void for_each_influence(const Document& doc, const Model& model, const HeldSkins* held, int mesh,
                        int primitive, Fn fn) {
  if (held) {
    const auto it = held->influences.find({mesh, primitive});
    if (it != held->influences.end()) return for_each_influence(it->second, fn);
  }
  const Primitive& p = model.meshes[std::size_t(mesh)].primitives[std::size_t(primitive)];
  for_each_influence(doc, model, p, fn);
}

} // namespace retail
