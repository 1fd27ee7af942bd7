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
#include <tuple>
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
  /// The seam between the piece and its band blended over this many first links (the chain's
  /// J_0 -> J_1) on either side of their border: each side takes up to half of the other's
  /// weights, falling linearly to none (blend_seam); 0: off (the band meets the piece with the
  /// hips alone).
  double seam_links = 0.25;
  /// A band whose far side (the welded vertices just past it, outside the piece) has fewer
  /// vertices than this share of its near side (the piece's vertices beside it) is grown again
  /// at twice the width (grown_band_vertices); 0: never.
  double min_far_share = 0.5;
  void validate() const; ///< Failure: Error(Usage)
};

struct RootBand {
  std::vector<int> vertices;          ///< welded ids in the band, ascending
  std::vector<Influences> influences; ///< per band vertex, summing to 1, nodes ascending
  int iterations = 0;
  bool converged = true;
  double width = 0; ///< the width it was grown to (grown_band_vertices), m
};

/// Welded vertices outside `inside` within `width` of it along welded edges that stay on
/// `passable` vertices (empty: all), ascending.
std::vector<int> band_vertices(const WeldedMesh& mesh, const std::vector<bool>& inside,
                               double width, const std::vector<bool>& passable = {});

/// The band a piece's root gets: band_vertices(mesh, inside, grown, passable), where `grown` is
/// `width`, or twice it when the welded vertices outside `inside` that border the band at
/// `width` (its far side) are fewer than params.min_far_share times the piece's vertices that
/// border it (its near side). The harmonic blend takes the band's far values from its far side
/// alone: a band that closes over a cap whose pole is all that joins it to the rest of the body
/// (a tail modelled as its own tube, welded at one vertex), or that narrows to a neck of a few
/// vertices, would carry those few vertices' weights over the whole band; at twice the width it
/// crosses them and ends on the body's skin. A band with no vertex keeps `width`. Each band is
/// grown once. Never fails.
std::vector<int> grown_band_vertices(const WeldedMesh& mesh, const std::vector<bool>& inside,
                                     double width, const RootBandParams& params,
                                     const std::vector<bool>& passable, double& grown);

/// The harmonic weights of `band` (welded ids) given `boundary`: the fixed influences of every
/// vertex adjacent to the band and not in it. Gauss-Seidel sweeps in the order of `band`
/// (deterministic) until no weight moves more than params.tolerance. Pre: every boundary list
/// sums to 1. Failure: Error(Usage) for bad params; a neighbour of the band missing from
/// `boundary` is a precondition violation (std::out_of_range).
RootBand solve_root_band(const WeldedMesh& mesh, const std::vector<int>& band,
                         const std::map<int, Influences>& boundary, const RootBandParams& params);

/// The seam blend (RootBandParams::seam_links), on both sides of the border between a piece
/// and its band. A band vertex at geodesic distance d < `width` from the piece (over band
/// vertices; its nearest piece vertex p, ties to the lower id) takes (1 - d / width) / 2 of
/// `piece_influences(p)`; a piece vertex at distance d < `width` from the band (over piece
/// vertices; its nearest band vertex b) takes (1 - d / width) / 2 of b's band weights (as
/// solved, before this blend). Influences are merged by node, the max_influences largest kept
/// and renormalised. A piece vertex whose weights jump against the band vertex beside it (a
/// thick tail's side, where the piece's border runs along the tail rather than across it) then
/// changes over `width` on either side instead of across one edge: a band vertex never takes
/// more of the piece's weights than it keeps of its own, a piece vertex keeps at least half of
/// its own. Returns the piece vertices' new influences (welded id, influences),
/// ascending; updates band.influences. Pre: band from root_band over the same mesh and
/// `inside`; `piece_influences(p)` sums to 1. width <= 0: nothing changes. Never fails.
template <class PieceInfluences>
std::vector<std::pair<int, Influences>>
blend_seam(const WeldedMesh& mesh, const std::vector<bool>& inside, double width,
           const PieceInfluences& piece_influences, int max_influences, RootBand& band);

/// The root band of a piece: grown_band_vertices(mesh, inside, width, params, passable), with
/// boundary values `fixed(w)` for every neighbour outside the band (inside the piece: the hips;
/// outside: the body's own).
template <class Fixed>
RootBand root_band(const WeldedMesh& mesh, const std::vector<bool>& inside, double width,
                   const Fixed& fixed, const RootBandParams& params,
                   const std::vector<bool>& passable = {}) {
  double grown = width;
  std::vector<int> band = grown_band_vertices(mesh, inside, width, params, passable, grown);
  std::map<int, Influences> boundary;
  for (int n : welded_ring(mesh, band)) boundary[n] = fixed(n);
  RootBand out = solve_root_band(mesh, band, boundary, params);
  out.width = grown;
  return out;
}

/// Influences a and b blended: (1 - t) a + t b merged by node, the `most` largest kept (ties to
/// the lower node), renormalised, nodes ascending. Pre: each sums to 1. Never fails.
Influences mix_influences(const Influences& a, const Influences& b, double t, int most);

/// Where each side of the seam is nearest the other (blend_seam), within `width`.
struct SeamSources {
  /// Per band vertex (band.vertices order): its geodesic distance from the piece over band
  /// vertices, and the nearest piece vertex (welded id; -1 where none is within `width`).
  std::vector<std::pair<double, int>> band;
  /// Piece vertices within `width` of the band over piece vertices, ascending: (welded id,
  /// distance, index into band.vertices of the nearest band vertex).
  std::vector<std::tuple<int, double, int>> piece;
};
SeamSources seam_sources(const WeldedMesh& mesh, const std::vector<bool>& inside,
                         const RootBand& band, double width);

template <class PieceInfluences>
std::vector<std::pair<int, Influences>>
blend_seam(const WeldedMesh& mesh, const std::vector<bool>& inside, double width,
           const PieceInfluences& piece_influences, int max_influences, RootBand& band) {
  std::vector<std::pair<int, Influences>> piece;
  if (!(width > 0) || band.vertices.empty()) return piece;
  const SeamSources near = seam_sources(mesh, inside, band, width);
  for (const auto& [w, d, b] : near.piece) // b: index into band.vertices
    piece.push_back({w, mix_influences(piece_influences(w), band.influences[std::size_t(b)],
                                       0.5 * (1.0 - d / width), max_influences)});
  for (std::size_t i = 0; i < band.vertices.size(); ++i) {
    const auto [d, p] = near.band[i];
    if (p >= 0)
      band.influences[i] = mix_influences(band.influences[i], piece_influences(p),
                                          0.5 * (1.0 - d / width), max_influences);
  }
  return piece;
}

} // namespace retail
