// clip_pass's internals shared by its files (clip_pass.cpp, clip_hold.cpp): the prepared
// characters, one clip's outcome, and the held clips' step. Not a public header.
#pragma once

#include "retail/motion/bake.h"
#include "retail/motion/clip_pass.h"
#include "retail/motion/hair_measure.h"
#include "retail/qa/harm.h"
#include "retail/qa/stretch.h"
#include "retail/rig/animation.h"

#include <array>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace retail {
namespace clip_detail {

using Clock = std::chrono::steady_clock;

/// One tail chain's skin against its character's limb colliders, prepared once
/// (skin_depth_probe): what skin_depth poses and measures.
struct SkinDepthProbe {
  const SkinSampler* skin = nullptr;  ///< the result rig's
  std::vector<int> vertices;          ///< the chain's vertices, one per distinct skinning input
  std::vector<int> slots;             ///< the joint slots they read (SkinSampler::slots_used)
  std::vector<int> nodes;             ///< the nodes to sample: those slots' and the capsules'
  std::vector<RestObstacle> capsules; ///< world at bind (body_capsules.h's leg_capsules)
  std::vector<int> capsule_joints;    ///< two joint nodes per capsule
  std::vector<double> bind_depth;     ///< per vertex: its depth into them at bind, at least 0
};

/// One character with a chain, prepared for the pass: its three rigs' meters and its chains'
/// springs. The skins are held here (the meters point at them).
struct CharacterWork {
  std::size_t character = 0;
  std::shared_ptr<const SkinEdges> input; ///< the input's skin and mesh edges
  const SkinSampler* original = nullptr;  ///< input->skin
  std::unique_ptr<SkinSampler> rigid, result;
  std::unique_ptr<StretchMeter> input_rigs; ///< the original rig and the rigid reference
  std::unique_ptr<StretchMeter> output_rig; ///< the result rig, tail and body
  std::vector<ChainBake> chains;            ///< empty when not baking
  /// Per chain of `chains` that is a tail: its skin against the legs (empty probes without leg
  /// capsules).
  std::vector<SkinDepthProbe> skin_probes;
  /// [try][chain]: `chains` prepared with BakeParams::skin_tries[try]'s skin share (a chain
  /// with no nodes: that try is the chain as configured, or the chain is no tail).
  std::vector<std::vector<ChainBake>> skin_tries;
  double floor = NAN;
  std::vector<bool> tail; ///< per vertex of the skin: in a re-rigged piece
  const std::vector<std::pair<int, int>>& edges() const { return input->edges; }
  /// The harm check, per chain and tier (0 the piece's own edges, 1 its seam; harm.h): the
  /// judged edges on the input rig and the rigid reference, and on the output rig, each
  /// keeping its torn mask.
  struct Tier {
    std::vector<std::pair<int, int>> edges;
    std::vector<bool> ends; ///< the edges' vertices
    std::unique_ptr<StretchMeter> input, output;
    /// The tier's edges are the tail region's and its rigid reference the character's: its
    /// masks are those of input_rigs and output_rig (no meters of its own).
    bool shared = false;
  };
  std::vector<std::array<Tier, 2>> judge;
  /// Per chain, when the character has several: the input with only that chain's piece pinned
  /// to the hips (its own rigid fallback); with one chain the rigid reference is that already.
  std::vector<std::unique_ptr<SkinSampler>> piece_rigid;
};

/// One character's hair chains, ready to bake.
struct HairWork {
  std::size_t character = 0;
  HairColliders colliders;
  std::vector<ChainBake> chains;
};

/// What one clip gave, per character with a chain (index into the works).
struct ClipOutcome {
  std::vector<std::vector<BakedClip>> hair;         ///< [hair work][chain]
  std::vector<std::vector<ClipStretch>> input_rigs; ///< [work][0 original, 1 rigid]
  std::vector<ClipStretch> output_rig;              ///< [work]
  /// [work][chain][tier]: the output, then the rigid reference, against the input.
  std::vector<std::vector<std::array<std::array<EdgeFlips, 2>, 2>>> judge;
  /// [work][chain][tier]: per judged edge (its input meter's tail_edges order), the output's
  /// newly torn samples minus its healed ones (harm.h's add_edge_net_harm).
  std::vector<std::vector<std::array<std::vector<std::int32_t>, 2>>> edge_net;
  std::vector<std::vector<BakedClip>> baked; ///< [work][chain]
  double bake_ms = 0, stretch_ms = 0;
};

/// The output rig, from the input and the plan in memory (rig_edit.h's PlannedRig).
struct Rigged {
  Model model;
  HeldSkins held;
  std::vector<Character> characters;
};

/// Work w's output rig in one clip, its baked tracks in the output clip: the rig's figures, and
/// per judged chain and tier the flips against the input and the per-edge net harm (as
/// ClipOutcome's entries for w).
struct OutputJudged {
  ClipStretch output_rig;
  std::vector<std::array<std::array<EdgeFlips, 2>, 2>> judge;
  std::vector<std::array<std::vector<std::int32_t>, 2>> edge_net;
};

/// Work w's OutputJudged in one clip: `in_rigs` w's input rigs measured in it (torn masks
/// kept), `output_clip` the output's clip with every baked track (output_sampler). Reads only
/// its arguments (any thread).
OutputJudged judge_output(const CharacterWork& w, const std::vector<ClipStretch>& in_rigs,
                          const ClipSampler& input_clip, const ClipSampler& output_clip, int clip,
                          StretchScratch& scratch);

/// The output's clip: the input's channels, then every chain's baked keys in `out` as the file
/// will hold them (works' chains, then hair's).
ClipSampler output_sampler(const ClipPassInput& in, const Rigged& rigged,
                           const std::vector<CharacterWork>& works,
                           const std::vector<HairWork>& hair_works, const ClipOutcome& out,
                           int clip);

/// Do no harm, clip by clip (BakeParams::hold_harmful): for each tail chain of work wi whose
/// spring, in this clip, newly tears edge-samples of its judged skin and heals none (there is
/// nothing it mends there), the clip is keyed with the chain held at rest (its bones at their
/// bind rotations, carried by the anchor as the input carried the tail) when that newly tears
/// fewer and leaves no more torn. A chain at the harm check's hold step (ChainResult::
/// hold_harmful) is also held in a clip its spring fails the harm check's rule in (`harm`:
/// harm.h's harmless_clip), kept held when that passes it. `m` (the work's judgement) and
/// `out.baked` hold what is kept. Pre: out.input_rigs[wi] keeps its torn masks.
void hold_where_harmful(const ClipPassInput& in, const Rigged& rigged,
                        const std::vector<CharacterWork>& works,
                        const std::vector<HairWork>& hair_works, std::size_t wi, int clip,
                        const ClipSampler& input_clip, const HarmParams& harm, OutputJudged& m,
                        ClipOutcome& out, StretchScratch& scratch);

/// `params` as skin try `t` bakes with: its skin share, and the collider share scaled by its
/// bend_scale (at most SpringParams' limit of 4).
BakeParams skin_try_params(const BakeParams& params, const SkinTry& t);

/// The probe of a tail whose skin is `skin` (the result rig's) and whose chain holds
/// `vertices`, against `capsules` (world at bind) between `capsule_joints` (two nodes each).
/// Empty (no vertices) without capsules.
SkinDepthProbe skin_depth_probe(const SkinSampler& skin, const std::vector<std::size_t>& vertices,
                                const std::vector<RestObstacle>& capsules,
                                const std::vector<int>& capsule_joints);

/// How deep the probe's skin goes into its capsules beyond each vertex's depth at bind, the
/// deepest over `samples` evenly spaced times of `clip` (a sampler of the result rig's model,
/// both ends included), world units, at least 0; NaN when the probe has no capsules (no legs
/// to measure against: not measured). `positions`: scratch. Past `stop_above` it returns after
/// that sample (a depth past it, not the deepest). Pre: samples >= 2.
double skin_depth(const SkinDepthProbe& probe, const Model& model, const ClipSampler& clip,
                  int samples, std::vector<Eigen::Vector3d>& positions,
                  double stop_above = INFINITY);

/// Skin kept out of the legs, clip by clip (BakeParams::skin_tries): sets each tail chain of
/// work wi's ClipBake::skin_depth in this clip (`output_clip`: the output's clip with every
/// baked track); where it is past skin_depth_bound_h x H, bakes the chain with each try in turn
/// and keeps the first that brings it within the bound, tears no more than the spring where it
/// is judged (clip_skin.cpp's tears_no_more), swings its tip at most skin_try_swing_deg wider
/// and goes no deeper below the floor than the spring or 1e-3 x H, else the spring. `m` (the work's
/// judgement) and `out.baked` hold what is kept; ClipBake::skin_try says which try. Pre:
/// out.input_rigs[wi] keeps its torn masks.
void keep_skin_clear(const ClipPassInput& in, const Rigged& rigged,
                     const std::vector<CharacterWork>& works,
                     const std::vector<HairWork>& hair_works, std::size_t wi, int clip,
                     const ClipSampler& input_clip, const ClipSampler& output_clip,
                     const ClipPassParams& params, OutputJudged& m, ClipOutcome& out,
                     StretchScratch& scratch);

/// After hold_where_harmful: ClipBake::skin_depth measured again for each chain of work wi held
/// at rest in this clip.
void measure_held_skin(const ClipPassInput& in, const Rigged& rigged,
                       const std::vector<CharacterWork>& works,
                       const std::vector<HairWork>& hair_works, std::size_t wi, int clip,
                       const ClipPassParams& params, ClipOutcome& out, StretchScratch& scratch);

/// One warning when `chain`'s skin went into the legs deeper than `bound` (world units) in some
/// of `bakes`, naming the deepest (metres and a share of `height`); `tried`: skin tries were on.
void warn_skin_depth(const std::vector<ClipBake>& bakes, const ChainBake& chain, double bound,
                     double height, bool tried, std::vector<std::string>& warnings);

/// One warning naming every clip of `chain` held at rest (ClipBake::held) with the edge-samples
/// its spring newly tore there, or none; `hold_step`: the chain is at the harm check's hold step.
void warn_held(const std::vector<ClipBake>& bakes, const ChainBake& chain, bool hold_step,
               std::vector<std::string>& warnings);

} // namespace clip_detail
} // namespace retail
