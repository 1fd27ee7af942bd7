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

/// One warning naming every clip of `chain` held at rest (ClipBake::held) with the edge-samples
/// its spring newly tore there, or none; `hold_step`: the chain is at the harm check's hold step.
void warn_held(const std::vector<ClipBake>& bakes, const ChainBake& chain, bool hold_step,
               std::vector<std::string>& warnings);

} // namespace clip_detail
} // namespace retail
