// retail — welding a character's skinned primitives into one graph (rig/mesh.h's WeldedMesh;
// SPEC §3), and the small helpers on that graph.
#pragma once

#include "retail/base/document.h"
#include "retail/base/model.h"
#include "retail/rig/mesh.h"
#include "retail/rig/skeleton.h"

#include <utility>
#include <vector>

namespace retail {

struct WeldParams {
  double weld_tolerance_h = 1e-5; ///< positions closer than this × H are one vertex
  /// Worker threads for the neighbour search (0: one per core); the weld does not depend on it.
  int threads = 0;
  void validate() const; ///< Failure: Error(Usage) when either is negative
};

/// Welds `mesh.positions` (#N by 3, metres): each vertex in index order joins the lowest welded
/// vertex within `tolerance_m` of it, else starts one at its own position. Post: `weld_of` (#N,
/// welded ids ascending in order of first use) and `welded` (#W by 3). The neighbour search runs
/// on `threads` workers (0: one per core) and the result does not depend on their number.
/// Crowded positions (over 8 earlier vertices within the tolerance of one, or 32 in a grid
/// cell: many copies of a point) take a serial search instead, with the same result. Pre:
/// tolerance_m > 0. Time and memory linear in the vertices (at most ~150 bytes a vertex).
void weld_positions(double tolerance_m, int threads, WeldedMesh& mesh);

/// Per welded vertex: its first (lowest) original vertex, or -1 when none maps to it.
std::vector<int> first_originals(const WeldedMesh& mesh);

/// Sorts edges (pairs a < b, both < `vertices`) ascending and drops repeats, in linear time: a
/// counting pass by a, then each a's short list of b sorted. The same result as std::sort and
/// std::unique.
void sort_unique_edges(std::vector<std::pair<int, int>>& edges, std::size_t vertices);

/// The character's skinned primitives as weld_character concatenates them (mesh.sources): in
/// the character's primitive order, each numbered after the ones before. Never fails.
std::vector<SourcePrimitive> character_sources(const Character& character);

/// Gathers, welds and connects the character's skinned primitives. Deterministic: welded ids
/// are assigned in primitive, then vertex order; a vertex joins the first earlier welded vertex
/// within tolerance. Pre: model from parse_model(doc); character from build_characters.
WeldedMesh weld_character(const Document& doc, const Model& model, const Character& character,
                          const WeldParams& params);

} // namespace retail
