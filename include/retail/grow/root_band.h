// retail — the tail's root band: where the re-weighted tail meets the body (SPEC §6, extended;
// why and what it costs: docs/spring.md).
//
// The welded vertices within `width` of the piece (geodesic, outside it) get the harmonic blend
// between the hips (on the piece's side: the root blends into them) and the body's own
// weights just past the band: per joint the graph-harmonic function with those boundary values
// (edge weights 1 / length), so smooth, summing to 1, within [0, 1].
#pragma once

#include "retail/detect/graph.h"
#include "retail/rig/mesh.h"

#include <map>
#include <utility>
#include <vector>

namespace retail {

/// Influences as (node index, weight) pairs.
using Influences = std::vector<std::pair<int, double>>;

struct RootBandParams {
  double width_radii = 3.0; ///< band width in root radii (Chain::root_radius); 0: no band
  int max_influences = 4;   ///< per band vertex (largest kept, ties to the lower node)
  int max_iterations = 5000;
  double tolerance = 1e-10; ///< stop when no weight moves more than this in a sweep
  /// The band also crosses skin the input moves with a lower leg or a foot (rerig.cpp's
  /// hip_skin; off: only skin the hips, the thighs or the low spine hold most of).
  bool lower_legs = false;
  void validate() const; ///< Failure: Error(Usage)
};

struct RootBand {
  std::vector<int> vertices;          ///< welded ids in the band, ascending
  std::vector<Influences> influences; ///< per band vertex, summing to 1, nodes ascending
  int iterations = 0;
  bool converged = true;
};

/// Welded vertices outside `inside` within `width` of it along welded edges that stay on
/// `passable` vertices (empty: all), ascending.
std::vector<int> band_vertices(const WeldedMesh& mesh, const std::vector<bool>& inside,
                               double width, const std::vector<bool>& passable = {});

/// The harmonic weights of `band` (welded ids) given `boundary`: the fixed influences of every
/// vertex adjacent to the band and not in it. Gauss-Seidel sweeps in the order of `band`
/// (deterministic) until no weight moves more than params.tolerance. Pre: every boundary list
/// sums to 1. Failure: Error(Usage) for bad params; a neighbour of the band missing from
/// `boundary` is a precondition violation (std::out_of_range).
RootBand solve_root_band(const WeldedMesh& mesh, const std::vector<int>& band,
                         const std::map<int, Influences>& boundary, const RootBandParams& params);

/// The root band of a piece: band_vertices(mesh, inside, width), with boundary values
/// `fixed(w)` for every neighbour outside the band (inside the piece: the hips;
/// outside: the body's own).
template <class Fixed>
RootBand root_band(const WeldedMesh& mesh, const std::vector<bool>& inside, double width,
                   const Fixed& fixed, const RootBandParams& params,
                   const std::vector<bool>& passable = {}) {
  std::vector<int> band = band_vertices(mesh, inside, width, passable);
  std::map<int, Influences> boundary;
  for (int n : welded_ring(mesh, band)) boundary[n] = fixed(n);
  return solve_root_band(mesh, band, boundary, params);
}

} // namespace retail
