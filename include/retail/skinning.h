// retail — a primitive's skin influences as stored (JOINTS_n / WEIGHTS_n, glTF 2.0 §3.7.3.3).
#pragma once

#include "retail/accessor.h"
#include "retail/document.h"
#include "retail/model.h"

#include <Eigen/Core>
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

} // namespace retail
