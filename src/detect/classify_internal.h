// retail — what the classification shares with the evidence's pieces (private to src/detect:
// classify.cpp and evidence.cpp).
#pragma once

#include "retail/detect/detect.h"
#include "retail/detect/graph.h"

#include <Eigen/Core>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

namespace retail {

/// What judge_hair reads about the character's head (head_frame), computed once.
struct HeadFrame {
  int head = -1;              ///< the head role's joint index (-1: none, no hair is found)
  double head_y = 0;          ///< its bind height (world Y)
  std::vector<Segment> bones; ///< the segments of joints of region "head"
  /// Welded vertices nearest a head bone: (height above the head joint, id), highest first
  /// (ties: the lower id).
  std::vector<std::pair<double, int>> rise;
};

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
  std::vector<Segment> torso;  ///< the pelvis's bones, else the spine's (collar_of)
  std::vector<bool> own;       ///< per joint: a bone of its own (own_bones)
  std::vector<bool> head_neck; ///< per joint: of region "head" or "neck" (Piece::head_skin)
  std::vector<bool> hips;      ///< per joint: of region "hips"
  HeadFrame head;              ///< head_frame
  std::vector<int> first;      ///< per welded vertex: its first original (first_originals)
};

/// The head's joint, height, bones and skin (HeadFrame) of character `c`; `region` from
/// joint_regions, `det` with its segments and field. No head or hips role, or a character that
/// is not upright (hips -> head more than 30 degrees from world up: an animal's horizontal body,
/// whose jaw does not hang below its head joint by height): head -1, nothing else (no hair).
HeadFrame head_frame(const WeldedMesh& m, const Character& c, const Detection& det,
                     const std::vector<std::string>& region);

/// Hair found from the model (DetectParams::find_hair; docs/hair.md): a piece that is not a
/// tail chain, not selected, not from the evidence and not a piece from the hips carrying the
/// head's skin (tail_head_skin_max: the body), touching the head (its vertices or collar
/// within the field's far distance of a head bone), hanging from the head or neck (region) or
/// weighted at least hair_head_weight to them, gets its hair cues measured (Piece::head_size ..
/// head_weight) and is decided Hair when it passes every cue; a piece from the head or neck that
/// fails one is Head with the cue in its reason; any other piece keeps its decision.
void judge_hair(const Classifier& x, Piece& p);

/// `p` joins `into`: its vertices are appended to into's (unsorted: the caller sorts), its id to
/// into.merged; `p` is left empty, Small, its reason "merged into piece N (`why`)". Its collar
/// and measures are left as they were.
void merge_piece(Piece& into, Piece& p, const std::string& why);

/// A piece decided Hair that took its separate shell takes the rest of the shell too: the pieces
/// lying wholly on it that are neither tail, hair nor selected (a strand of hair passing a
/// shoulder bone has its far skin cut in two by the near band there, and its tip becomes a piece
/// of its own) join it, listed in its `merged`, emptied and decided Small ("merged into piece
/// N"); the grown piece is classified again (classify_piece). Tails and every other piece are
/// untouched. Never fails.
void hair_takes_its_shell(const Classifier& x, std::vector<Piece>& pieces);

/// Hair lying close to the body, or long enough to reach the hips (docs/hair.md "Hair lying
/// close to the body"): a separate shell (at most half the welded vertices) holding a vertex
/// nearest a head bone, not the shell holding the vertex nearest a head bone (the head's own
/// skin), with no piece on it that is a tail chain, hair, selected or from the evidence, and no
/// --not-tail vertex (`excluded`, empty: none), is classified whole as a piece (its collar: its
/// vertices nearest the head's bones); when that is Hair and the shell rises at least
/// hair_shell_rise_heads head sizes above the head joint, the pieces on it join it (merged,
/// emptied, Small) and it is appended with the next id. Shells in order of their highest vertex
/// nearest a head bone (HeadFrame::rise). Anything else is left as it was. Never fails.
void hair_shells(const Classifier& x, const std::vector<bool>& excluded,
                 std::vector<Piece>& pieces);

/// A piece's collar, attachment, measures and decision, as piece `id` (a --tail piece is a tail
/// chain whatever the tests say).
void classify_piece(const Classifier& x, int id, Piece& p);

/// The joints the skin of welded `vertices` is weighted to, most first (at most 3), with their
/// shares of its weight (`first`: first_originals). Ties: the lower joint index.
std::vector<std::pair<int, double>>
weighted_to(const SkinWeights& sw, const std::vector<int>& first, const std::vector<int>& vertices);

/// Share of the weight of welded `vertices` (`first`: first_originals) on the joints marked in
/// `joints` (per character joint: own_bones, or the head and neck); 0 when they carry no weight.
double joint_share(const SkinWeights& sw, const std::vector<int>& first,
                   const std::vector<bool>& joints, const std::vector<int>& vertices);

/// Per joint: of one of the regions `names` (`region` from joint_regions).
std::vector<bool> region_joints(const std::vector<std::string>& region,
                                std::initializer_list<const char*> names);

/// A piece from the hips or a thigh weighted more than tail_head_skin_max to the head and neck
/// (Piece::head_skin): the body's other end, neither a tail nor hair.
bool carries_head_skin(const DetectParams& params, const Piece& p);

/// The core (vertices less base) of every piece that grew a base and is not a tail chain, when
/// some piece is a tail chain, and of every broad piece from the hips or a thigh that grew one
/// (its base may be what made it broad); else empty (nothing to isolate again). `vertices`:
/// welded count.
std::vector<char> bases_not_for_tails(std::size_t vertices, const std::vector<Piece>& pieces);

/// The input's tearing as detection asks about it: measured (`probe`) for every vertex asked
/// about so far. A question about vertices an earlier one did not cover measures again, over
/// all of them; a vertex's share does not depend on what else is asked about, the rest's share
/// does (it is the latest measure's). Without a probe, an empty TearEvidence.
class TearCache {
public:
  TearCache(const TearProbe& probe, std::size_t vertices);
  /// The tearing with every vertex marked in `want` (#welded) measured.
  const TearEvidence& covering(const std::vector<char>& want);

private:
  const TearProbe& probe_;
  std::vector<char> focus_;
  TearEvidence got_;
  bool asked_ = false;
};

/// Pieces the centroid rule called body skin (a hips or leftover bone lies in them), hanging
/// from the hips or a thigh, are judged by their skin instead when at least evidence_body_share
/// of their welded vertices is evidence skin (`ev`, evidence_skin's 1): classified as an evidence
/// part is (centroid rule waived), a piece passing the evidence parts' gate (evidence_pieces)
/// whose skin outside the evidence also tears evidence_tear_ratio times the rest's share becomes
/// a tail chain (its reason says why); any other stays as it was. The tearing (`tear`) is asked
/// about only when a piece gets that far.
void judge_by_skin(const Classifier& x, const std::vector<char>& ev, TearCache& tear,
                   std::vector<Piece>& pieces);

/// Pieces from the evidence (evidence_skin): each connected part of evidence skin of at least
/// evidence_min_vertices welded vertices that no tail, worn, head or selected piece holds and
/// --not-tail leaves (`excluded`), with the single vertices it encloses, is classified as a piece
/// of its own, and kept (its vertices leave the pieces that held them) only when it passes the
/// gate above (`tear`, asked once about every candidate part). Ids continue after the existing
/// pieces, in order of each part's lowest vertex. The parts not kept go to `left`, with their
/// tear (NaN without a probe).
void evidence_pieces(const Classifier& x, const std::vector<char>& ev,
                     const std::vector<bool>& excluded, TearCache& tear, std::vector<Piece>& pieces,
                     std::vector<Piece>& left);

/// Drops from `left` (evidence_pieces' parts not kept) every part whose welded vertices a tail
/// chain piece of `pieces` all holds: shells that rode along with a tail (ride_along) after the
/// parts were cut are re-weighted with it, not left as they were. `n`: welded vertices.
void drop_ridden_evidence(const std::vector<Piece>& pieces, std::size_t n,
                          std::vector<Piece>& left);

/// The axis-aligned box of welded `ids` (world units at bind); lo +inf, hi -inf when empty.
void box_of(const WeldedMesh& m, const std::vector<int>& ids, Eigen::Vector3d& lo,
            Eigen::Vector3d& hi);

/// Volume of the two pieces' boxes' intersection over the smaller box's (0..1; 0 when apart or
/// either is empty), the boxes taken along `a`'s principal axes (turning the model turns them).
double box_overlap(const WeldedMesh& m, const Piece& a, const Piece& b);

/// A piece's measures from its vertices: reach, centroid distance, elongation, geodesic and L,
/// area, slenderness, open border and its reach (the Piece fields of those names).
void measure(const WeldedMesh& m, const DistanceField& f, const std::vector<Segment>& segs,
             const std::vector<double>& areas, Piece& p);

/// Shells riding on each tail chain piece (plates, spikes, fins modelled as their own closed
/// shells and sunk into it) join it (docs/detection.md, "Riders"): a whole-shell piece not from
/// the head, not hair, not worn and not --tail, at most a quarter of the tail's size, inside its
/// box (overlap > merge_overlap of its own box) or closed and touching it past its root quarter
/// (a vertex nearer a tail vertex there than any of its vertices lies to a bone); a worn piece,
/// closed and at most a quarter, only inside it (a vertex behind the tail's surface at its
/// nearest tail vertex) and touching it or clear (no other surface nearer with that vertex behind
/// it). A loose shell (no piece holds it; skin near the skeleton: a spike on a short tail by the
/// hips), closed, of at least 3 and at most a quarter of the tail's vertices, none excluded by
/// --not-tail (`excluded`, #welded or empty), touching it or inside it and clear, joins too
/// (Piece::riding_shells). Each rider vertex takes the geodesic coordinate of
/// the nearest (Euclidean) tail vertex that is not a rider, among those in its shell's box grown
/// by the shell's least distance to one (a spike's apex follows the tail under its base; ties:
/// the first in the tail's order). Pieces ridden become Small with a reason naming the tail.
/// Never fails.
void ride_along(const WeldedMesh& m, const DistanceField& f, const std::vector<Segment>& segs,
                const std::vector<double>& areas, const DetectParams& params,
                const std::vector<bool>& excluded, std::vector<Piece>& pieces);

} // namespace retail
