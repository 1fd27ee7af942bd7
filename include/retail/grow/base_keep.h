// retail — a tail's base keeps a share of its own limb weights: the skin of a chain piece near
// its root, where a tail's wide base lies against the haunches, moves partly with the limb of
// its own side as the input has it, the share falling off along the tail (docs/detection.md
// section 7, "A base that keeps its own limb weights").
#pragma once

#include "retail/detect/detect.h"
#include "retail/rig/mesh.h"
#include "retail/rig/skeleton.h"

#include <utility>
#include <vector>

namespace retail {

struct BaseKeepParams {
  /// Falloff length along the chain coordinate, in root radii (Chain::root_radius); 0: off.
  double radii = 0;
  void validate() const; ///< Failure: Error(Usage)
};

/// Per vertex of `piece` (its order): the influences (node, weight) it keeps from its input
/// (its first original's weights), summing to less than 1; empty where it keeps none. A vertex
/// keeps its weight on the limb joints (limb_sides) of its own side of the body's midline plane
/// (through the upper-leg joints' midpoint, normal right -> left thigh), each times
/// max(0, 1 - c / (params.radii × root_radius)), c its chain coordinate (`coordinate`, piece
/// order). Weight on the other side's limb (an auto-rigger's left-right mix) is not kept.
/// Everything empty when params.radii is 0, the character has no upper-leg roles or
/// root_radius is not positive.
std::vector<std::vector<std::pair<int, double>>>
base_keep(const WeldedMesh& mesh, const SkinWeights& weights, const Character& character,
          const Piece& piece, const std::vector<double>& coordinate, double root_radius,
          const BaseKeepParams& params);

/// `chain` (summing to 1) scaled by 1 - the sum of `keep`, plus `keep`, merged by node; the
/// four largest (ties: the lower node), renormalised, nodes ascending. `chain` itself when
/// `keep` is empty.
std::vector<std::pair<int, double>> with_kept(const std::vector<std::pair<int, double>>& chain,
                                              const std::vector<std::pair<int, double>>& keep);

std::vector<std::pair<int, double>> own_limbs_exp(const WeldedMesh& mesh, const SkinWeights& sw,
                                                  const Character& c, int w, double root_radius);
} // namespace retail
