// retail — far pieces and the separate shells they lie on (private to src/detect: classify.cpp
// settles, after the pieces are isolated, which grown ones take their whole shell, and measures
// a piece's reach and centroid as a shell's are measured here).
#pragma once

#include "retail/detect/detect.h"
#include "retail/detect/distance.h"

#include <utility>
#include <vector>

namespace retail {

/// The largest skeleton distance (`f`) of `vertices` and their centroid's distance to `segs`:
/// Piece::reach and Piece::centroid_distance of a piece of those vertices. Pre: not empty.
std::pair<double, double> reach_and_centroid(const WeldedMesh& m, const DistanceField& f,
                                             const std::vector<Segment>& segs,
                                             const std::vector<int>& vertices);

/// Each piece that grew whole over mis-weighted near skin (no junction, not a separate shell,
/// base_added > 0) and lies wholly on a small separate shell (a welded component of at most
/// params.small_shell of the mesh's vertices) covering at least params.grown_shell_fraction of
/// it takes the rest of that shell, as a far component that is enough of its shell does
/// (separate_shell; its base cleared, as that one's) - when the whole shell sticks out as an
/// appendage does (its centroid's skeleton distance at least params.centroid_ratio of its
/// vertices' largest; a limb's shell holds its bone). A thin tail modelled on its own, whose far
/// skin is a few vertices at its tip when H grows (a hat), is found by its weights. Pieces lying
/// wholly on that shell join it (removed from `pieces`); a piece reaching off the shell keeps it
/// from being taken. `field` and `segments` as detect_pieces measured them. Post: `pieces` ordered
/// by their first vertex, as isolate_pieces leaves them. Never fails.
void take_grown_shells(const WeldedMesh& m, const DistanceField& field,
                       const std::vector<Segment>& segments, const DetectParams& params,
                       std::vector<Piece>& pieces);

} // namespace retail
