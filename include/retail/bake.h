// retail — baking the spring into every clip (SPEC §8).
//
// Per selected clip: play the body motion, run the spring at the fixed substep, warm up cycle
// after cycle from rest until the chain's state at the clip start repeats (every bone within
// loop_tolerance_deg between consecutive cycle starts; a cycle cap with a warning), then record
// each tail bone's local rotation as LINEAR keys at `fps` covering the clip exactly. Keys are
// interpolated from the fixed-substep states, so the output rate never changes the motion.
// One-shot clips (is_one_shot, or --no-loop) are recorded from rest without looping. A clip that
// already animates a chain bone keeps that track. Only new channels are added to the clip.
#pragma once

#include "retail/document.h"
#include "retail/model.h"
#include "retail/rerig.h"
#include "retail/skeleton.h"
#include "retail/spring.h"

#include <cmath>
#include <string>
#include <vector>

namespace retail {

struct BakeParams {
  SpringParams spring;
  double fps = 30;
  int max_warmup_cycles = 12;
  double loop_tolerance_deg = 0.5;
  std::vector<std::string> no_loop; ///< clips baked from rest without looping
  std::vector<std::string> loop;    ///< clips forced to loop
  double floor_y = NAN;             ///< g_0 override (world Y); NaN: measured from the body's skin
  void validate() const;            ///< Failure: Error(Usage)
};

struct ClipBake {
  int clip = -1;
  std::string name;
  bool one_shot = false;
  int warmup_cycles = 0;        ///< cycles run before recording (0 for one-shot clips)
  bool converged = true;        ///< the start state repeated within tolerance
  double loop_closure_deg = 0;  ///< largest angle between a bone's first and last key
  double tip_swing_deg = 0;     ///< range of the tip's direction relative to the hips over the clip
  double floor_penetration = 0; ///< deepest a tail joint went below the floor (world units):
                                ///< where the skin's limit won over the floor (spring.h)
  std::size_t keys = 0;
  std::vector<std::string> kept_authored; ///< chain bones this clip already animated
};

/// Clip names that read as one-shot: a token death/die/dead/jump/attack/hit/punch/kick/slash/
/// land/fall/flip/throw/react/spawn/to (a transition "A_ToB"), unless a token says it loops
/// (idle, loop, cycle, walk, run). Tokens as for bone names (camelCase, '_', '|', digits).
bool is_one_shot(const std::string& clip_name);

/// Bakes every chain of one character into `clips`. Pre: `model` = parse_model(doc) of the
/// re-rigged document, `character` its character (chain joints included), `chains` from
/// rerig_character. Appends samplers/channels to doc's animations; returns one entry per
/// (chain, clip). Clips are solved on up to `threads` worker threads (0: one per core) and
/// written in clip order: the document does not depend on the count.
/// `floor_y`: g_0, the lowest bind point of the body's skin with tail-dominated skin excluded
/// (a tail hanging below the feet must not define the ground), unless params set it.
std::vector<ClipBake> bake_chains(Document& doc, const Model& model, const Character& character,
                                  const std::vector<ChainResult>& chains,
                                  const std::vector<int>& clips, double floor_y,
                                  const BakeParams& params, std::vector<std::string>& warnings,
                                  int threads = 1);

/// The spring rig of a chain of bones from the character's bind pose, which comes from the
/// inverse bind matrices (never the nodes' saved TRS: a file can hold an animated frame there).
/// `bones`: the chain's bone nodes root first (each a joint of the character, parented in that
/// order under the hips); `end`: the weightless end node (a joint), or -1 when there is none, in
/// which case the last link extends the incoming bone (its direction in the parent's frame,
/// carried into the last bone's own frame, at the same length). `skin_radius`: per link, as
/// Chain::radius (may be empty). Failure: Error(Unsupported) when a bone is not a joint.
SpringRig spring_rig(const Character& character, const std::vector<int>& bones, int end,
                     const std::vector<double>& skin_radius, double floor_y);

} // namespace retail
