// retail — finding appendages: far pieces, where they attach, and what they are (SPEC §2–§4).
//
// Pipeline inside detect_pieces():
//   1. far welded vertices (skeleton distance > far_fraction_h × H) and their connected pieces;
//   2. thick bodies: each far piece is searched for a junction where a protrusion (the tail)
//      meets the body, from the isoline perimeter profile of the geodesic distance from the
//      protrusion's tip (docs/detection.md); the protrusion, base included, becomes its own
//      piece and the rest of the far skin stays body;
//   3. a piece that is most of a separate shell takes the whole shell (its root ring too);
//   4. collar, attachment joint (torso/thigh bias, thigh -> hips; never the collar's weights),
//      centroid test, elongation, decision; overlapping shells on one attachment merge.
#pragma once

#include "retail/detect/distance.h"
#include "retail/detect/weld.h"
#include "retail/rig/mesh.h"
#include "retail/rig/skeleton.h"

#include <cmath>
#include <functional>
#include <string>
#include <vector>

namespace retail {

struct DetectParams {
  DistanceParams distance;
  double centroid_ratio = 0.375; ///< appendage: centroid distance >= this × reach
  double elongation_min = 1.6;   ///< long: sqrt(l1/l2) >= this, or
  /// Also long (curled tails, whose elongation is low): pi L^2 / area >= this and open like a
  /// tube, not a sheet (see tube_border_reach). 0: off.
  double slenderness_min = 2.0;
  /// A slender piece is open like a tube when its open border is shorter than L, or lies within
  /// this share of L from its collar (Piece::border_reach: a short fat tube's root ring may be
  /// longer than the tube; a sheet's border runs down to its hem, near 1). 0: off (the
  /// border's length alone).
  double tube_border_reach = 0.5;
  double attach_bias = 1.5;        ///< torso/thigh joints within this × nearest distance win
  double merge_overlap = 0.5;      ///< merge pieces whose box overlap / smaller box > this
  double junction_slope = 2.5;     ///< isoline growth (length per length) where a body begins
  double junction_window_h = 0.03; ///< slope measured over this × H of geodesic distance
  double junction_growth = 0.10;   ///< cut where the loop is this much longer than the neck
  double level_step_h = 0.0025;    ///< isoline sampling step, × H
  double min_protrusion_h = 0.08;  ///< a junction needs this × H of protrusion before it
  /// Mis-weighted skin: its weighted bone distance (sum of w_j × distance to bone j) exceeds
  /// misweight_ratio × its skeleton distance + misweight_slack_h × H (skin weighted to bones it
  /// is far from: what an auto-rigger does to a tail it has no bone for).
  double misweight_ratio = 2.5;
  double misweight_slack_h = 0.02;
  /// A protrusion's base grows past the cut over connected mis-weighted skin, at most this many
  /// neck radii (neck perimeter / 2 pi) further from the tip; skin it encloses comes too. A
  /// whole far component grows as far from itself over mis-weighted near skin, in collar radii.
  double base_zone_radii = 6.0;
  /// A piece whose grown base reaches more than this many times as far from its cut as its tip
  /// part does (geodesic over the piece) meets the body where the base ends: its collar is the
  /// ring around the whole piece, not the cut (a stub with a joint inside it; collar_of). 0: never.
  double base_collar_reach = 2.0;
  /// The base also grows over skin weighted at least half to the legs that lies within this
  /// many neck (or collar) radii of the body's midline (BaseCues::leg_midline): the flare of a
  /// tail's base between the thighs; a haunch lies to one side. 0: off.
  double leg_midline_radii = 2.0;
  /// Leg-weighted skin nearest a lower leg or foot bone still counts for leg_midline_radii when
  /// it is weighted to the left and the right limb at once (limbs_mixed, evidence_mix): a shin's
  /// own skin is weighted to its own side only; a tail base between the hind legs mixes both.
  bool base_mixed_shin = false;
  /// A base also grows over mixed-limb skin (BaseCues::limbs_mixed) anywhere in its zone, and
  /// over skin whose mirror across the midline is such skin, matched within this × H (0: the
  /// cue off; the sweep: docs/detection.md section 8).
  double base_mixed_mirror_h = 0.02;
  double shell_fraction = 0.5; ///< a piece that is this much of its shell takes the shell, and
  /// so does one that is at least small_shell_far of a small shell (at most small_shell of the
  /// character's welded vertices): a thin tail modelled on its own, mostly near the leg bones.
  double small_shell = 0.5;
  /// A broad piece is still a tail when it is a closed stub: open_border^2 / (4 pi area) at most
  /// stub_closure (0: closed, 0.5: a hemispherical cap, 1: a flat disc), at least
  /// stub_leg_weight of its weight on the legs (the auto-rigger's mark on a tail; a pouch on the
  /// hips is not), hanging from the hips across the midline.
  double stub_closure = 0.6;
  double stub_leg_weight = 0.5;
  double peel_fraction = 0.1; ///< see BaseCues::beyond_end
  double small_shell_far = 0.1;
  /// A whole far component grown over mis-weighted skin that then covers at least this share of
  /// a small shell takes the shell (a thin tail whose far skin is a few vertices at its tip;
  /// docs/detection.md section 2, "A shell found by its weights"). Above 1: never.
  double grown_shell_fraction = 0.25;
  double min_tail_length_h =
      0.04; ///< a tail chain needs L (P99 geodesic from the collar) >= this × H
  /// Evidence (evidence_skin): weighted to limbs of both sides when the smaller side's share is
  /// at least this; a connected part of such skin of at least evidence_min_vertices welded
  /// vertices not yet in a tail is classified as a piece of its own (0: off), kept when it is
  /// weighted at least stub_leg_weight to the legs...
  double evidence_mix = 0.1;
  int evidence_min_vertices = 3;
  /// ...and kept as a tail only when its skin tears under the input's own clips at least this
  /// many times as much as the rest of the character does (mean share of torn edge-samples per
  /// vertex, tear_map.h): a part an artist weighted that way on purpose does not tear.
  double evidence_tear_ratio = 14.0;
  /// ...and weighted less than this to bones of its own (Piece::own_bones): an auto-rigger has
  /// no bone for what it missed, so skin already blended onto one is an artist's.
  double evidence_own_bones = 0.1;
  /// A piece the centroid rule calls body skin (a hips or leftover bone lies in it) is judged
  /// by its skin instead when at least this share of its welded vertices is evidence skin
  /// (evidence_skin's mark), it passes the evidence parts' gate, and its other skin tears
  /// evidence_tear_ratio times the rest too (docs/detection.md section 8). Above 1 (the
  /// default): never.
  double evidence_body_share = 2;
  /// A piece that would be a tail chain but is weighted at least this to bones of its own
  /// (Piece::own_bones) is rigged already (an artist's tail, or its tip beyond the skeleton's
  /// reach; retail's own output): left alone (docs/detection.md section 8).
  double rigged_own_bones = 0.5;
  /// A tail chain's three links (the least a chain has) need skin to bend: at least three welded
  /// vertices a link.
  int min_tail_vertices = 12;
  /// A piece hanging from the hips that carries more than this share of its weight on the head
  /// and neck (Piece::head_skin) is the body's other end, not a tail: a torso modelled as its
  /// own shell with the neck and head, read whole (docs/detection.md section 3). Above 1: never.
  double tail_head_skin_max = 0.2;
  bool rigid_worn = false; ///< worn pieces go rigid on their attachment bone
  /// Hair found from the model (docs/hair.md "Hair found from the model"): a piece that touches
  /// the head (within the far distance of a head bone), weighted at least hair_head_weight to the
  /// head and neck and less than evidence_own_bones to bones of its own, that hangs at least
  /// hair_drop_heads head sizes below the head joint and is at least hair_length_heads head sizes
  /// long (L from its collar), is hair: a chain under the head. Head size: how far the head's
  /// skin rises above the head joint. find_hair false: no piece is.
  bool find_hair = true;
  double hair_length_heads = 1.0;
  double hair_drop_heads = 0.3;
  double hair_head_weight = 0.2;
  /// Hair lying close to the body (no far skin of its own long enough): a separate shell that
  /// passes the cues above whole must also rise this many head sizes above the head joint
  /// (rooted on the scalp, not a hood or scarf at the neck). Above any head: never.
  double hair_shell_rise_heads = 0.2;
  /// Worker threads for the per-vertex skeleton distance and the mirror cue (0: one per core);
  /// detection does not depend on it.
  int threads = 0;
  void validate() const; ///< Failure: Error(Usage)
};

enum class Decision {
  TailChain,
  TailRigid,    ///< a tail the harm check put on the hips rigidly (a chain tore more)
  TailRejected, ///< a tail the harm check left as it was (neither chain nor rigid helped)
  Worn,
  WornRigid,
  Hair,         ///< hair found from the model: a chain under the head (docs/hair.md)
  HairRejected, ///< found hair the head-turn harm check left as it was
  Head,
  Limb,
  Broad,
  BodyLike,
  Small,
  Rigged ///< a piece that would be a tail, on bones of its own: an artist rigged it
};

/// Short name used in reports: "tail_chain", "tail_rigid", "tail_rejected", "worn",
/// "worn_rigid", "hair", "hair_rejected", "head", "limb", "broad", "body", "small", "rigged".
const char* decision_name(Decision d);

struct Piece {
  int id = 0;
  std::vector<int> vertices; ///< welded ids, ascending
  std::vector<int> collar;   ///< welded ids adjacent to the piece, not in it (or its bottom 5%)
  bool collar_from_shell = false; ///< no outside neighbours: collar_of's 5% nearest the torso
  bool separate_shell = false;    ///< the piece took its whole shell
  double junction = -1;           ///< geodesic distance from the tip where it was cut, or -1
  std::size_t base_added = 0;     ///< welded vertices past the cut taken as base (marked skin,
                                  ///< or the rest of a shell that closes past the cut)
  std::vector<int> base;          ///< those vertices, ascending (the collar stays at the cut)
  int tip = -1;                   ///< welded id of the remote end
  int attachment = -1;            ///< character joint index
  std::string region;             ///< "hips", "spine", "head", "leg", "arm", "other"
  double reach = 0;               ///< max skeleton distance of its vertices
  double centroid_distance = 0;   ///< skeleton distance of its centroid
  double elongation = 0;
  double slenderness = 0; ///< pi L^2 / A: its length over its mean girth diameter (A its area)
  double open_border = 0; ///< length of its open border (tube: its root ring; sheet: all round)
  /// How far along the piece its open border reaches: the largest geodesic distance from the
  /// collar of a border vertex, over L (a tube's border is its root ring, near 0; a cape's or
  /// skirt's runs down its sides to its hem, near 1). 0 for a closed shell or L = 0.
  double border_reach = 0;
  double area = 0; ///< surface area (model units squared)
  /// Share of its vertices' weight on leg joints (regions "thigh" and "leg"), mean over them.
  double leg_weight = 0;
  bool crosses_midline = false; ///< spans the hips' left-right position (a tail does)
  double length = 0;            ///< L: P99 of the geodesic distance from the collar (SPEC §6)
  std::vector<double> geodesic; ///< g per vertex of `vertices` (same order)
  Decision decision = Decision::Small;
  std::string reason;
  std::vector<int> merged; ///< ids of pieces merged into this one
  /// Shells no piece held that joined it as riders (ride_along: spikes by the hips).
  int riding_shells = 0;
  std::string selected; ///< the --tail selector that made it, or ""
  /// Found from the evidence (evidence_skin), not from far skin: its skin is weighted wrongly,
  /// so its shape only has to stick out (the centroid test), not be long or a closed stub.
  bool evidence = false;
  /// From the evidence: the mean share of its vertices' edge-samples torn under the input's
  /// clips, and the rest of the character's (TearEvidence); NaN when not measured.
  double tear = NAN, rest_tear = NAN;
  /// The joints its skin is weighted to, most first (at most 3): character joint index and share
  /// of the piece's weight (its welded vertices' first originals).
  std::vector<std::pair<int, double>> weighted_to;
  /// Share of its weight on joints without a role outside the limbs (bones of their own: a
  /// tail's, an ear's); an auto-rigger has none for what it missed.
  double own_bones = 0;
  /// Share of its weight (first originals) on joints of region "head" or "neck"; measured on
  /// every piece.
  double head_skin = 0;
  /// Hair cues, measured on a piece that touches the head (else NaN): the head size (how far the
  /// head's skin other than this piece rises above the head joint, world Y, model units), how
  /// far its lowest point lies below the head joint and its length L, both in head sizes, and the
  /// share of its weight on the head and neck (joints of region "head" or "neck").
  double head_size = NAN, hair_drop = NAN, hair_length = NAN, head_weight = NAN;
  /// A whole shell judged as hair lying close to the body (hair_shells): its highest point above
  /// the head joint, in head sizes; NaN for every other piece.
  double hair_rise = NAN;
};

/// What the user said the tail is (SPEC §13), per welded vertex.
struct PieceSelection {
  std::vector<std::string> tail_names; ///< the --tail selectors, one piece each
  std::vector<std::vector<int>> tail;  ///< their welded vertices (ascending, may be empty)
  std::vector<bool> excluded;          ///< --not-tail: never in a piece (empty: none)
};

struct Detection {
  DistanceField field; ///< per welded vertex
  std::vector<Segment> segments;
  std::vector<Piece> pieces; ///< every far vertex is in exactly one piece
  /// Parts of the evidence classified but not taken (not a tail, or not tearing enough to show
  /// it is one), with their tear: what retail leaves as it was, said when it tears (pipeline).
  std::vector<Piece> evidence_left;
};

/// Where the input tears under its own clips, as detection reads it: per welded vertex the share
/// of its edge-samples torn (NaN where not measured), and the share over the rest of the
/// character.
struct TearEvidence {
  std::vector<double> share;
  double rest = NAN;
};

/// Measures the tearing of the welded vertices marked in its argument (and a sample of the
/// rest); supplied by the driver (tear_map.h measures, detection only reads). Empty: no clips
/// to measure by.
using TearProbe = std::function<TearEvidence(const std::vector<char>& focus)>;

/// Runs the detection for one character. Pure; deterministic (ids in order of each piece's
/// lowest welded vertex; ties documented in docs/detection.md).
/// `selection`: geometry the user named (--tail pieces are tail chains whatever the tests say;
/// --not-tail vertices are in no piece); --tail wins over --not-tail and over detection.
/// `tear`: asked about the evidence's candidate parts (evidence_pieces); without it no piece is
/// found from the evidence alone (the parts go to evidence_left, their tear unknown).
Detection detect_pieces(const Model& model, const Character& character, const WeldedMesh& mesh,
                        const SkinWeights& weights, const DetectParams& params,
                        const PieceSelection& selection = {}, const TearProbe& tear = {});

/// Where a protrusion meets a body, as geodesic distance from its tip along `u` (distances
/// from the tip over the welded mesh), or -1 when the isoline perimeter never turns steeply up
/// after a tube of at least min_protrusion_h × H (docs/detection.md).
/// `neck_perimeter`, when given, receives the narrowest loop's length there (0 when none).
double find_junction(const WeldedMesh& mesh, const std::vector<double>& u, double height,
                     const DetectParams& params, double* neck_perimeter = nullptr);

/// Per welded vertex: is its skin mis-weighted (DetectParams::misweight_ratio)? Judged on the
/// weights of its first original vertex, against `segments` and `field` (its skeleton distance).
/// Vertices are judged in blocks on params.threads workers (the result does not depend on it).
std::vector<char> misweighted_skin(const WeldedMesh& mesh, const SkinWeights& weights,
                                   const Character& character, const std::vector<Segment>& segments,
                                   const DistanceField& field, const DetectParams& params);

/// Per welded vertex: the share of its weight (first original vertex) on joints of region
/// "thigh" or "leg"; NaN where no original vertex with weights maps to it. `region` from
/// joint_regions.
std::vector<double> leg_share(const WeldedMesh& mesh, const SkinWeights& weights,
                              const std::vector<std::string>& region);

/// Per welded vertex: its distance from the body's midline plane (through the upper-leg joints'
/// midpoint, normal right -> left thigh) where `legs` (leg_share) is at least one half; +infinity
/// elsewhere, and everywhere when the character has no upper-leg roles.
std::vector<double> leg_midline_distance(const WeldedMesh& mesh, const std::vector<double>& legs,
                                         const Character& character);

/// Per welded vertex (its first original): at least half its weight on limbs (limb joints as
/// evidence_skin reads them), the smaller side's share at least `mix`: skin weighted to the left
/// and the right limb of a pair at once, which no limb's own skin is.
std::vector<char> limbs_mixed(const WeldedMesh& mesh, const SkinWeights& weights,
                              const Character& character, double mix);

/// What marks skin an auto-rigger weighted wrongly, per welded vertex: a piece's base grows over
/// it. Either vector may be empty (that cue off); both empty: no base growth.
struct BaseCues {
  std::vector<char> misweighted; ///< misweighted_skin
  /// leg_midline_distance: leg-weighted skin counts within DetectParams::leg_midline_radii of the
  /// growing piece's neck (or collar) radius of the midline; never skin lying nearest a lower
  /// leg or foot bone (region "leg": a shin or foot is not a tail's base, however wide the tail).
  std::vector<double> leg_midline;
  /// Far skin whose nearest skeleton point is a joint (a bone's end, not its interior): skin
  /// beyond where the skeleton reaches (a tail past the hips, the back and the hind feet). A
  /// protrusion cut at a junction with fewer than peel_fraction of its component's vertices (a
  /// spike or plate at the end of a tail) whose tip is such skin is cut again where the skin
  /// around the tip stops being such skin, when that is farther out (docs/detection.md).
  std::vector<char> beyond_end;
  /// mixed_base_skin: leg-weighted skin weighted to the left and the right limb at once (or the
  /// mirror image of such skin across the midline): a tail's base between the legs, wherever in
  /// the zone it lies. Empty: off.
  std::vector<char> limbs_mixed;
};

/// Per welded vertex: weighted at least half to the legs (`legs`) and `mixed` (limbs_mixed), or
/// leg-weighted and within `tolerance` of the mirror image (across the midline plane of
/// leg_midline_distance) of such a vertex: an auto-rigger splits a symmetric base's weights
/// unevenly between the sides. Looked up on `threads` workers (0: one per core); the result
/// does not depend on their number.
std::vector<char> mixed_base_skin(const WeldedMesh& mesh, const std::vector<double>& legs,
                                  const std::vector<char>& mixed, const Character& character,
                                  double tolerance, int threads = 1);

/// Raw pieces of far skin before classification: connected far components; a protrusion split
/// off where it meets a body (find_junction), its base grown past the cut over connected
/// `cues` skin within base_zone_radii neck radii (and the skin that growth encloses); a piece
/// that is most of a separate shell takes the shell; a whole far component (no junction, not a
/// shell) grows over connected `cues` skin that is not far within base_zone_radii collar radii,
/// all such components at once, contested skin to the geodesically nearer (ties: the component
/// found first, then the lower vertex). Ids unset, vertices ascending, pieces in order of their
/// lowest vertex. A far component with a vertex marked in `no_base` (empty: none) grows no base.
std::vector<Piece> isolate_pieces(const WeldedMesh& mesh, const DistanceField& field, double height,
                                  const DetectParams& params, const BaseCues& cues,
                                  const std::vector<char>& no_base = {});

/// Region of every character joint: its role, or the region of its nearest roled ancestor
/// ("hips", "spine", "head", "leg" (upper legs: "thigh"), "arm", "other").
std::vector<std::string> joint_regions(const Character& character);

/// Geodesic coordinate of a piece (SPEC §6): multi-source Dijkstra from its collar over welded
/// edges, restricted to the piece and its collar. Returns g per piece vertex (in `vertices`
/// order) and L = P99(g) (nearest-rank percentile).
std::vector<double> piece_geodesic(const WeldedMesh& mesh, const Piece& piece, double& length);

/// How far along piece p the welded vertices `border` reach (Piece::border_reach): the largest
/// p.geodesic of those among p.vertices, over p.length; vertices not in the piece are ignored.
/// Pre: p.geodesic aligned with p.vertices (piece_geodesic). 0 when none is in the piece, when L
/// is not positive, or when the geodesic is not aligned. Never fails.
double border_reach(const Piece& p, const std::vector<int>& border);

/// Per character joint: a bone of its own (a tail's, an ear's, a helper's): no role, and not of
/// a limb (evidence.cpp's limb sides: a joint between the hips and one side's limb top is the
/// limb's).
std::vector<bool> own_bones(const Character& character);

/// Per welded vertex: skin the input rigs wrongly, by its own weights (docs/detection.md
/// section 2): mis-weighted (`misweighted`, misweighted_skin), weighted mostly to the limbs and
/// to both sides' (the smaller of its left and right limb shares at least
/// DetectParams::evidence_mix), or
/// weighted at least half to the legs while lying nearest a torso bone (a hips or spine
/// segment of `field`: leg skin lies around its own bones): 1. Skin weighted at least half to
/// joints without a role outside the limbs (a tail's or an ear's own bones) is rigged on
/// purpose: 2, never evidence. Else 0. Judged on each welded vertex's first original vertex; 0
/// where none has weights.
std::vector<char> evidence_skin(const WeldedMesh& mesh, const SkinWeights& weights,
                                const Character& character, const std::vector<Segment>& segments,
                                const DistanceField& field, const std::vector<std::string>& region,
                                const std::vector<char>& misweighted, const DetectParams& params);

/// The welded positions of `ids` (#ids by 3), in that order.
Eigen::MatrixX3d welded_rows(const WeldedMesh& mesh, const std::vector<int>& ids);

/// Mean distance of the welded vertices `collar` from their centroid (a collar's radius).
/// Pre: `collar` not empty.
double collar_radius(const WeldedMesh& mesh, const std::vector<int>& collar);

/// The collar of `piece` (welded vertex ids, sorted): the welded vertices adjacent to it, not
/// counting its grown base (the collar of a grown piece stays at its cut), unless the base
/// reaches more than `base_reach` times as far from the cut as the rest of the piece (geodesic
/// over the piece; DetectParams::base_collar_reach, 0: never): then the cut is the tail's end and
/// the collar is the ring around the whole piece. A separate shell has
/// none (`from_shell` set): then its 5% of vertices (at least one) nearest `torso` (the pelvis's
/// bone segments; the field's skeleton distance when empty), kept in one place (a tail coiled
/// back to the spine is near the skeleton at both ends; docs/detection.md section 3). Ties: the
/// lower position in `piece.vertices`. Pre: `piece.vertices` not empty.
std::vector<int> collar_of(const WeldedMesh& mesh, const std::vector<Segment>& torso,
                           const DistanceField& field, const Piece& piece, bool& from_shell,
                           double base_reach = 0);

/// sqrt(l1 / l2) of the covariance of `points` (#P by 3); 0 for fewer than 3 points.
double elongation(const Eigen::MatrixX3d& points);

} // namespace retail
