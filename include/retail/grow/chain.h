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

/// What a grown chain is: the planner that grew it (grow/) and what the run does with it. A
/// kind's solver is chosen in motion/ (bake.h's ChainSolver); docs/pipeline.md lists the files
/// a new kind touches.
enum class ChainKind {
  Tail, ///< a tail piece (rerig.h), baked with the tail spring
  Hair, ///< a hair clump (hair_rig.h), baked with the arc-preserving solver
  Ears, ///< a pair of ear pieces, left rigid on the head bone (not baked)
};

/// The kind as the report writes it: "tail", "hair", "ears".
const char* chain_kind_name(ChainKind kind);

struct ChainParams {
  double segment_h = 0.1; ///< K = clamp(round(L / (segment_h × H)), min_bones, max_bones)
  int min_bones = 3;
  double short_tail_h = 0; ///< L below this × H: K = clamp(round(L / segment), 1, max_bones)
  int max_bones = 8;
  int smoothing_passes = 2;
  /// The chain coordinate the weights and skin radii read (Chain::coordinate): the geodesic g
  /// from the collar (SPEC §6), or g held within axis_tolerance × L/K of the axis coordinate
  /// (axis_coordinate: where the skin lies along the grown joints).
  enum class Coordinate { Geodesic, Axis } coordinate = Coordinate::Axis;
  double axis_tolerance = 0.25; ///< segments; 0: the axis coordinate itself
  void validate() const;        ///< Failure: Error(Usage)
};

/// A grown chain in world space at bind: joints J_0 (collar centroid) .. J_K (Tail_End).
struct Chain {
  int piece = -1;
  int bones = 0;                       ///< K
  double length = 0;                   ///< L
  std::vector<Eigen::Vector3d> joints; ///< K + 1 positions, world units
  std::vector<int> empty_bands;        ///< bands that had no vertex (interpolated)
  /// Per vertex of the piece (its order): the coordinate along the chain the weights read, in
  /// the geodesic's units (0 at the collar, L at the tip): the piece's g, or g held near the
  /// axis coordinate (ChainParams::coordinate).
  std::vector<double> coordinate;
  /// Skin radius at joints J_0 .. J_{K-1}, world units: the largest distance from the chain
  /// polyline of the piece vertices whose weights blend across that joint
  /// (|K c / L - i| <= 1/4 with c the coordinate; the collar counts for J_0) and of both ends of
  /// every piece edge that spans that blend (one end below it, one above); where neither
  /// exists, linear between the nearest measured joints.
  std::vector<double> radius;
  /// The tail's radius at its root, world units: the largest distance from the polyline of the
  /// collar and of the vertices with K g / L <= 1/4 (g the geodesic, whatever the coordinate):
  /// the ring where the tail meets the body, which sizes the root band (root_band.h).
  double root_radius = 0;
};

/// Number of bones for a tail of length L: clamp(round(L / (segment_h H)), min, max); a tail
/// shorter than short_tail_h × H may have fewer than min_bones (at least 1).
int chain_bone_count(double length, double height, const ChainParams& params);

/// J_0 = collar centroid, J_i = centroid of the piece vertices with |g - iL/K| <= L/(2K),
/// centroids weighted by vertex_areas (the centroid of the skin, not of its tessellation),
/// empty bands interpolated linearly between their nearest filled neighbours (extended with
/// the last step past the end), then `smoothing_passes` passes of
/// J_i <- J_i/2 + (J_{i-1} + J_{i+1})/4 for interior joints (each pass reads the previous one).
/// Then the chain coordinate (params.coordinate) and the skin radius at each joint.
/// Pre: piece.geodesic and piece.length computed (detect_pieces). Never NaN.
Chain grow_chain(const WeldedMesh& mesh, const Piece& piece, double height,
                 const ChainParams& params);

/// The axis coordinate of each piece vertex along the polyline `joints` (K + 1 points), in
/// geodesic units: K + 1 section planes, plane i through J_i with its normal the mean of the
/// unit directions of the segments meeting there (the first and last: their segment's); a
/// vertex between planes i and i+1 at signed distances a >= 0 and b < 0 has coordinate
/// (i + a / (a - b)) L / K, continuous across each plane. Only segments within one of the
/// vertex's geodesic segment (floor(K g / L)) are candidates, so a curl's far side never
/// claims it; of several slabs holding it, the nearest segment wins (ties: the lower index).
/// Before the first plane: 0; past the last: L; in no candidate slab (the outside of a
/// bend's sharp corner): the nearest candidate segment's clamped projection. Near the root the
/// geodesic is kept as a floor: the value is never below min(g, L / (2K)), so skin arching
/// back over the root before the first segment's chord stays with Tail_1, not the hips.
/// Shapes: joints K + 1 >= 2 points, world units. Returns piece.vertices.size() values in
/// [0, L]. Degenerate (zero-length) segments are skipped; a vertex with no usable candidate
/// keeps min(g, L).
std::vector<double> axis_coordinate(const WeldedMesh& mesh, const Piece& piece,
                                    const std::vector<Eigen::Vector3d>& joints);

/// `g` held within `tolerance` of `axis`: clamp(g, axis - tolerance, axis + tolerance). The
/// surface distance's smooth spread is kept where it agrees with the skin's place along the
/// axis; skin it carries further than that (a flap under a thick root) is pulled back.
inline double held_near(double g, double axis, double tolerance) {
  return g < axis - tolerance ? axis - tolerance : g > axis + tolerance ? axis + tolerance : g;
}

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
