// retail — what the classification shares with the evidence's pieces (private to src/detect:
// classify.cpp and evidence.cpp).
#pragma once

#include "retail/detect/detect.h"

#include <string>
#include <utility>
#include <vector>

namespace retail {

/// What classify_pieces reads.
struct Classifier {
  const WeldedMesh& m;
  const SkinWeights& sw;
  const Character& c;
  const Detection& det;
  const DetectParams& params;
  const std::vector<bool>& deforming;
  const std::vector<std::string>& region;
  const std::vector<double>& legs;
  std::vector<double> areas;
  std::vector<Segment> torso; ///< the pelvis's bones, else the spine's (collar_of)
  std::vector<bool> own;      ///< per joint: a bone of its own (own_bones)
};

/// A piece's collar, attachment, measures and decision, as piece `id` (a --tail piece is a tail
/// chain whatever the tests say).
void classify_piece(const Classifier& x, int id, Piece& p);

/// The joints the skin of welded `vertices` is weighted to, most first (at most 3), with their
/// shares of its weight (first originals). Ties: the lower joint index.
std::vector<std::pair<int, double>> weighted_to(const WeldedMesh& m, const SkinWeights& sw,
                                                const std::vector<int>& vertices);

/// Share of the weight of welded `vertices` (first originals) on joints marked in `own` (bones
/// of their own: no role, outside the limbs).
double own_bone_share(const WeldedMesh& m, const SkinWeights& sw, const std::vector<bool>& own,
                      const std::vector<int>& vertices);

/// Pieces from the evidence (evidence_skin): each connected part of evidence skin of at least
/// evidence_min_vertices welded vertices that no tail, worn, head or selected piece holds and
/// --not-tail leaves (`excluded`), with the single vertices it encloses, is classified as a piece
/// of its own, and kept (its vertices leave the pieces that held them) only when it is a tail
/// chain weighted at least stub_leg_weight to the legs (the auto-rigger's mark), less than
/// evidence_own_bones to bones of its own, whose skin tears evidence_tear_ratio times as much as
/// the rest's (`probe`, asked once about every candidate part). Ids continue after the existing
/// pieces, in order of each part's lowest vertex. The parts not kept go to `left`, with their
/// tear (NaN without a probe).
void evidence_pieces(const Classifier& x, const std::vector<char>& ev,
                     const std::vector<bool>& excluded, const TearProbe& probe,
                     std::vector<Piece>& pieces, std::vector<Piece>& left);

} // namespace retail
