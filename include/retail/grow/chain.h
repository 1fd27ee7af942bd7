// retail — growing a bone chain along a tail piece and weighting its skin (SPEC §5, §6).
#pragma once

#include "retail/detect/detect.h"
#include "retail/rig/mesh.h"
#include "retail/rig/skeleton.h"

#include <Eigen/Core>
#include <array>
#include <string>
#include <vector>

namespace retail {

struct ChainParams {
  double segment_h = 0.1; ///< K = clamp(round(L / (segment_h × H)), min_bones, max_bones)
  int min_bones = 3;
  double short_tail_h = 0; ///< L below this × H: K = clamp(round(L / segment), 1, max_bones)
  int max_bones = 8;
  int smoothing_passes = 2;
  void validate() const; ///< Failure: Error(Usage)
};

/// A grown chain in world space at bind: joints J_0 (collar centroid) .. J_K (Tail_End).
struct Chain {
  int piece = -1;
  int bones = 0;                       ///< K
  double length = 0;                   ///< L
  std::vector<Eigen::Vector3d> joints; ///< K + 1 positions, world units
  std::vector<int> empty_bands;        ///< bands that had no vertex (interpolated)
  /// Skin radius at joints J_0 .. J_{K-1}, world units: the largest distance from the chain
  /// polyline of the piece vertices whose weights blend across that joint
  /// (|K g / L - i| <= 1/4; the collar counts for J_0). 0 where no vertex blends there.
  std::vector<double> radius;
};

/// Number of bones for a tail of length L: clamp(round(L / (segment_h H)), min, max); a tail
/// shorter than short_tail_h × H may have fewer than min_bones (at least 1).
int chain_bone_count(double length, double height, const ChainParams& params);

/// J_0 = collar centroid, J_i = centroid of the piece vertices with |g - iL/K| <= L/(2K),
/// centroids weighted by vertex_areas (the centroid of the skin, not of its tessellation),
/// empty bands interpolated linearly between their nearest filled neighbours (extended with
/// the last step past the end), then `smoothing_passes` passes of
/// J_i <- J_i/2 + (J_{i-1} + J_{i+1})/4 for interior joints (each pass reads the previous one).
/// Then the skin radius at each joint (Chain::radius).
/// Pre: piece.geodesic and piece.length computed (detect_pieces). Never NaN.
Chain grow_chain(const WeldedMesh& mesh, const Piece& piece, double height,
                 const ChainParams& params);

/// Influences of one vertex on chain bones: bone index b (0 = the parent/hips, 1..K = Tail_b)
/// with weight; at most three, summing to 1.
struct ChainWeight {
  std::array<int, 3> bone{0, 0, 0};
  std::array<double, 3> weight{0, 0, 0};
  int count = 0;
};

/// SPEC §6: s = K g / L clamped to [0, K), k = floor(s), f = s - k; owner bone k+1;
/// w_prev = clamp(0.5 - 2f, 0, 0.5) on bone k (0 = hips), w_next = clamp(2f - 1.5, 0, 0.5) on
/// bone k+2 (folded into the owner on the last segment), w_self = 1 - w_prev - w_next.
ChainWeight chain_weight(double g, double length, int bones);

} // namespace retail
