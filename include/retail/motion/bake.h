// retail — baking the spring into every clip (SPEC §8).
//
// Per selected clip: play the body motion, run the spring at the fixed substep, warm up cycle
// after cycle from rest until the chain's state at the clip start repeats (every bone within
// loop_tolerance_deg between consecutive cycle starts; a cycle cap with a warning), then record
// each tail bone's local rotation as LINEAR keys at `fps` covering the clip exactly (a seam still
// wider than the tolerance spread over the loop, loop_seam.h). Keys are
// interpolated from the fixed-substep states, so the output rate never changes the motion.
// One-shot clips (is_one_shot, or --no-loop) are recorded from rest without looping. A clip that
// already animates a chain bone keeps that track. Only new channels are added to the clip.
#pragma once

#include "retail/base/document.h"
#include "retail/base/model.h"
#include "retail/grow/chain.h"
#include "retail/motion/hair_solver.h"
#include "retail/motion/spring.h"
#include "retail/rig/animation.h"
#include "retail/rig/skeleton.h"

#include <cmath>
#include <string>
#include <vector>

namespace retail {

/// The SPEC §10 solver's settings for chains retail grows on hair (hair_solver.h's HairLink):
/// per link k, c and g (metres: g scales by H / 1.8 with the character's scale).
struct HairBakeParams {
  double stiffness_per_s2 = 120; ///< k
  double damping_per_s = 10;     ///< c
  double gravity_mps2 = 1;       ///< |g|, down
  double radius_scale = 1;       ///< r_h = this × the chain's skin radius at the link's root
  void validate() const;         ///< Failure: Error(Usage)
};

/// One more way to bake a tail in a clip where its skin goes into the legs (BakeParams::
/// skin_tries): the links keep `skin_share` of their skin radius out of the limb colliders
/// (ChainSpec::collider_skin_share), a joint turned out of one may bend `bend_scale` times
/// the run's share of its skin limit (SpringParams::collider_skin_share), and, where
/// `min_skin_ratio` > 0, no joint bends so far that a tail edge keeps less than that ratio of its
/// length (ChainSpec::min_skin_ratio: the larger of it and the chain's own; 0: the chain's own).
struct SkinTry {
  double skin_share = 1;
  double bend_scale = 1;
  double min_skin_ratio = 0;
};

struct BakeParams {
  SpringParams spring; ///< tails; its substep_s is every solver's (hair too)
  HairBakeParams hair;
  double fps = 30;
  int max_warmup_cycles = 12;
  double loop_tolerance_deg = 0.5;
  /// A loop whose first and last keys still differ by more than loop_tolerance_deg after its
  /// warm-up has that seam spread over the loop (loop_seam.h; --keep-seam: off).
  bool spread_seam = true;
  std::vector<std::string> no_loop; ///< clips baked from rest without looping
  std::vector<std::string> loop;    ///< clips forced to loop
  double floor_y = NAN;             ///< g_0 override (world Y); NaN: measured from the body's skin
  /// Tails are turned out of their ChainSpec::limb_colliders as they move (--no-colliders:
  /// not; docs/spring.md "Limb colliders"). The depth is measured either way
  /// (ClipBake::collider_depth).
  bool colliders = true;
  /// A tail's links keep this share of their own skin radius out of the limb colliders too
  /// (--collider-skin; 0: the centreline only. docs/spring.md "Limb colliders" has the trade).
  double collider_skin_share = 0;
  /// A tail whose skin (its chain's vertices), in a clip, goes into its limb colliders deeper
  /// than skin_depth_bound_h x H beyond its depth at bind (ClipBake::skin_depth) is baked again
  /// there with each of these in turn; the first that brings it within the bound without
  /// tearing more is kept, else the spring as configured (docs/spring.md "Skin kept out of the
  /// legs"). `try_skin` false (--no-skin-tries):
  /// none is tried (the depth is measured and reported either way).
  std::vector<SkinTry> skin_tries = {{0.75, 1}, {1, 1},         {1.5, 1},
                                     {2, 1},    {0.75, 1, 0.9}, {1, 1, 0.9}};
  bool try_skin = true;
  double skin_depth_bound_h = 0.01;
  /// A skin try is kept only where its tip swings at most this much wider than the spring's
  /// (ClipBake::tip_swing_deg): the skin out of the legs is not bought with a flailing tail.
  double skin_try_swing_deg = 15;
  /// A tail whose spring, in a clip, newly tears skin it touches and heals none (harm.h's
  /// judged edges) is held at rest in that clip instead when that tears less (--no-hold:
  /// never; docs/spring.md "Held clips").
  bool hold_harmful = true;
  void validate() const; ///< Failure: Error(Usage)
};

struct ClipBake {
  int clip = -1;
  std::string name;
  bool one_shot = false;
  int warmup_cycles = 0;        ///< cycles run before recording (0 for one-shot clips)
  bool converged = true;        ///< the start state repeated within tolerance
  double loop_closure_deg = 0;  ///< largest angle between a bone's first and last key
  double seam_spread_deg = 0;   ///< the seam spread over the loop before that (0: none)
  double tip_swing_deg = 0;     ///< range of the tip's direction relative to the hips over the clip
  double floor_penetration = 0; ///< deepest a tail joint went below the floor (world units):
                                ///< where the skin's limit won over the floor (spring.h)
  /// Tails: deepest a link went into its limb colliders beyond its depth at bind (world units),
  /// and the share of the recorded substeps in which some link touched one (0..1).
  double collider_depth = 0;
  double collider_contact_share = 0;
  /// Tails with limb colliders: deepest a vertex of the chain's skin went into them beyond its
  /// depth at bind (world units), at the stretch's sample times (StretchParams::samples); NaN:
  /// not measured (the character has no leg capsules).
  double skin_depth = 0;
  /// 0: baked as configured; k > 0: BakeParams::skin_tries[k - 1] was kept (its skin went less
  /// deep and tore no more).
  int skin_try = 0;
  std::size_t keys = 0;
  std::vector<std::string> kept_authored; ///< chain bones this clip already animated
  /// Keyed at rest (BakeParams::hold_harmful): in this clip the spring newly tore
  /// `spring_newly_torn` edge-samples and healed none, and holding tore fewer.
  bool held = false;
  std::size_t spring_newly_torn = 0;
};

/// Clip names that read as one-shot: a token death/die/dead/jump/attack/hit/punch/kick/slash/
/// land/fall/flip/throw/react/spawn/to (a transition "A_ToB"), unless a token says it loops
/// (idle, loop, cycle, walk, run). Tokens as for bone names (camelCase, '_', '|', digits).
bool is_one_shot(const std::string& clip_name);

/// How a chain is solved: the tail spring (spring.h, SPEC §7) or the SPEC §10 arc-preserving
/// solver (hair_solver.h).
enum class ChainSolver { Spring, Arc };

/// The solver's name as the report writes it: "spring", "arc".
const char* chain_solver_name(ChainSolver solver);

/// A chain of bones to bake, whatever grew it (a tail chain, a hair chain, a VRM spring): the
/// joint it hangs from, its bones, and the constraints it obeys.
struct ChainSpec {
  ChainKind kind = ChainKind::Tail; ///< what grew it (a VRM spring of the file: Hair)
  int anchor = -1;                  ///< node the first bone hangs from (a joint of the character)
  std::vector<int> bones;           ///< bone nodes, root first (joints of the character)
  int end = -1;                     ///< weightless end node (a joint), or -1
  std::vector<std::string> names;   ///< the bones' names, then the end's when there is one
  std::vector<double> skin_radius;  ///< per link, as Chain::radius (may be empty)
  /// Tails: per link the bend the skin's weights allow by direction (skin_bend.h; world axes at
  /// bind; may be empty). spring_rig turns them into the anchor's axes.
  std::vector<JointBend> weighted_limit;
  /// Tails: the skin limit's ratio for this chain (SpringParams::min_skin_ratio; the harm
  /// check's "bend less" step); NaN: the run's.
  double min_skin_ratio = NAN;
  bool forward_plane = true; ///< stays behind the anchor's forward plane (tails)
  bool floor = true;         ///< touches the floor (tails)
  /// Capsules the rest arc clears (SpringParams::carry_as_needed; a tail: the legs), world
  /// space at bind; spring_rig places them in the anchor's axes from the chain's root.
  std::vector<RestObstacle> clear_of;
  /// Arc: solved by the SPEC §10 arc-preserving solver (hair_solver.h) instead of the tail
  /// spring (no forward plane, no floor: the two flags above are ignored), against `colliders`.
  ChainSolver solver = ChainSolver::Spring;
  /// Tails: capsules fitted to the limbs (body_capsules.h's leg_capsules: world at bind, each
  /// running between two joints) the links stay out of as the clip moves those joints;
  /// `limb_collider_joints` holds the two joint nodes of each, in order.
  std::vector<RestObstacle> limb_colliders;
  std::vector<int> limb_collider_joints;
  /// The links keep this share of their skin radius (skin_radius) outside the capsules too (0:
  /// only their centreline; BakeParams::collider_skin_share).
  double collider_skin_share = 0;
  /// Hair: collision proxies, each in the bind frame of a joint node it rides (its shape's
  /// `proxy` field is ignored): at time t it is placed by that node's world transform.
  std::vector<std::pair<int, HairProxy>> colliders;
  /// Hair: this chain's k and c (a grown clump's, hair_rig.h); NaN: HairBakeParams'.
  double hair_stiffness_per_s2 = NAN, hair_damping_per_s = NAN;
};

/// One chain ready to bake: its nodes and its spring rig.
struct ChainBake {
  int anchor = -1;                          ///< as ChainSpec
  std::vector<int> nodes;                   ///< the chain's bones root first, then its end if any
  std::vector<std::string> bones;           ///< their names
  SpringRig rig;                            ///< tails
  double carry_deg = 0;                     ///< tails: the carry the rest arc took (spring.h)
  bool clears = false;                      ///< tails: that arc clears the legs and the floor
  ChainSolver solver = ChainSolver::Spring; ///< Arc: solved by hair_rig (ChainSpec::solver)
  bool arc() const { return solver == ChainSolver::Arc; }
  HairRig hair_rig; ///< one chain on anchor 0, proxies 0.. on proxy_nodes
  /// Hair: the anchor's bind frame is a reflection (a mirrored armature); bind directions and
  /// the anchor's frame are then taken with local X reversed, as SpringRig::mirrored's.
  bool mirrored = false;
  /// Per proxy pose: the node it rides (hair); a tail's: its limb colliders' joints, two per
  /// capsule (ChainSpec::limb_collider_joints).
  std::vector<int> proxy_nodes;
  std::vector<Eigen::Vector3d> bind_direction; ///< hair: per bone, unit, in its own bind frame
  /// Hair: per bone its rest local rotation (a VRM spring joint's saved rotation); a bone is read
  /// back as the shortest arc taking its rest direction onto its link, applied after this
  /// rotation. Empty: identity for every bone (the bones retail grows).
  std::vector<Eigen::Quaterniond> rest_rotation;
};

/// The chains of one character ready to bake. Pre: `character` is the re-rigged document's
/// (chain joints included). `floor_y`: g_0 as the springs will use it - params.floor_y when
/// set, else the lowest bind point of the body's skin with tail-dominated skin excluded (a tail
/// hanging below the feet must not define the ground); the caller decides, since it reports it
/// (clip_pass.cpp). Failure: Error(Usage) for bad params; as spring_rig.
std::vector<ChainBake> prepare_bakes(const Character& character,
                                     const std::vector<ChainSpec>& chains, double floor_y,
                                     const BakeParams& params);

/// One chain baked into one clip: its figures and keys, nothing written yet.
struct BakedClip {
  ClipBake bake;
  std::vector<float> times;               ///< key times, seconds: [0, duration] at params.fps
  std::vector<std::vector<float>> values; ///< per bone: x y z w per key
  std::vector<bool> authored;             ///< per bone: the clip animates it already (kept)
  std::vector<std::string> warnings;      ///< this clip's (the warm-up cap)
  /// Tails: deepest the links' skin, taken as a tube of their skin radius round them, went into
  /// the limb colliders beyond its depth at bind over the recorded cycle (world units): where it
  /// never did, the skin is not measured (ClipBake::skin_depth stays 0).
  double skin_tube_depth = 0;
};

/// Bakes `chain` into clip `clip` of `model` (see the top of this header). Reads only its
/// arguments: clips bake independently, on any thread, to the same bits.
BakedClip bake_clip(const Document& doc, const Model& model, const ChainBake& chain, int clip,
                    const BakeParams& params);

/// The baked keys as the clip holds them once written (write_baked_clip): one LINEAR rotation
/// track per bone the clip did not animate, added to `sampler` (a sampler of the same clip).
void add_baked_tracks(const BakedClip& baked, const ChainBake& chain, ClipSampler& sampler);

/// The same tracks as values, appended to `out` in the order write_baked_clip writes them
/// (`nodes`: per bone its node, as write_baked_clip's).
void append_baked_tracks(const BakedClip& baked, const std::vector<int>& nodes,
                         std::vector<RotationTrack>& out);

/// Appends the baked clip to doc's animation: one shared input accessor (the key times), then
/// per bone not authored a VEC4 output accessor, a LINEAR sampler and a rotation channel.
/// `nodes`: the chain's (ChainBake::nodes).
void write_baked_clip(Document& doc, const BakedClip& baked, const std::vector<int>& nodes);

/// The clip of `bakes` whose `figure` is largest among those past `above`, and how many are past
/// it (`count`); null when none is. The first of equals.
const ClipBake* deepest_past(const std::vector<ClipBake>& bakes, double ClipBake::*figure,
                             double above, std::size_t& count);

/// One warning for the chain when its tail dipped below the floor deeper than `tolerance` in
/// some of `bakes` (its clips): where holding the floor would have bent a joint past its skin
/// limit. The deepest dip is given in metres and as a share of `height` (the character's H).
void warn_floor_penetration(const std::vector<ClipBake>& bakes, const ChainBake& chain,
                            double tolerance, double height, std::vector<std::string>& warnings);

/// One warning naming every looping clip of `chain` whose warm-up did not settle (ClipBake::
/// converged false after its warm-up cycles, the cap), or none. A tail's names its first bone
/// ("chain Tail_1: the tail's loop ..."), a hair chain's its first and last bones ("hair chain
/// Hair_1_1 .. Hair_1_End: the hair's loop ...").
void warn_unsettled(const std::vector<ClipBake>& bakes, const ChainBake& chain,
                    std::vector<std::string>& warnings);

/// The spring rig of a chain of bones from the character's bind pose, which comes from the
/// inverse bind matrices (never the nodes' saved TRS: a file can hold an animated frame there),
/// in the frame of `spec.anchor`. `spec.bones`: root first, each a joint of the character,
/// parented in that order under the anchor; `spec.end`: the weightless end node (a joint), or
/// -1 when there is none, in which case the last link extends the incoming bone (its direction
/// in the parent's frame, carried into the last bone's own frame, at the same length).
/// Failure: Error(Unsupported) when the anchor or a bone is not a joint.
SpringRig spring_rig(const Character& character, const ChainSpec& spec, double floor_y);

/// The hair solver's rig of `spec` (solver Arc) from the bind pose (IBMs), in the anchor's bind
/// frame: root and rest arc from the joints, lengths in world units, r_h from spec.skin_radius,
/// k, c, g from params (g × character.scale), one proxy per spec.colliders entry; fills
/// `out.hair_rig`, `out.proxy_nodes` and `out.bind_direction`. Failure: as spring_rig;
/// Error(InvalidInput) for a zero-length link.
void hair_bake_rig(const Character& character, const ChainSpec& spec, double substep_s,
                   const HairBakeParams& params, ChainBake& out);

} // namespace retail
