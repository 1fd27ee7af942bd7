// retail — the pass over the clips: the bake (SPEC §8) and the edge stretch (SPEC §9) of every
// selected clip, clip by clip.
//
// Both are independent from clip to clip, and a clip's stretch on the output rig needs only that
// clip's bake, so each clip is one work item: measure the input rig and the rigid reference
// under the input's clip, bake every chain into the clip, then measure the output rig under the
// clip as it will be written (the baked keys added as tracks, the float values the file will
// hold). Items run on worker threads, longest clip first; nothing is written to the document
// until write_clip_pass, which appends the keys in character, chain and clip order. So the
// output and the report do not depend on the thread count, and no worker waits for a stage to
// end on every clip before starting the next.
#pragma once

#include "retail/base/document.h"
#include "retail/base/model.h"
#include "retail/grow/hair_rig.h"
#include "retail/grow/rerig.h"
#include "retail/grow/rig_edit.h"
#include "retail/motion/bake.h"
#include "retail/motion/chain_record.h"
#include "retail/motion/hair_capsules.h"
#include "retail/qa/harm.h"
#include "retail/qa/qa.h"
#include "retail/qa/stretch.h"
#include "retail/rig/skeleton.h"

#include <memory>
#include <vector>

namespace retail {

/// A tail chain as a ChainSpec: under the hips, its end Tail_End, both constraints.
/// Pre: chain.nodes holds the bones then the end (a chain with bones).
ChainSpec tail_chain_spec(const Character& character, const ChainResult& chain);

/// The colliders a character's hair chains respect: those the file's VRM springs define (every
/// collider of the file), plus a torso capsule fitted to the trunk skin (hair_measure.h) when
/// they leave the trunk uncovered (fit_torso_capsule), then the body capsules (hair_capsules.h)
/// the file's colliders do not cover and the chains leave room for, each riding its bone.
struct HairColliders {
  std::vector<std::pair<int, HairProxy>> proxies; ///< node ridden, shape in its frame
  std::size_t vrm = 0;                            ///< of them, from the file's VRM springs
  bool torso_fitted = false;                      ///< enough trunk skin to fit a capsule
  bool torso_added = false;                       ///< the capsule was added (trunk uncovered)
  double torso_radius = 0;                        ///< world units
  double covered_fraction = 0;                    ///< of the trunk axis, by the VRM colliders
  int torso_node = -1;                            ///< the node the capsule rides
  std::vector<BodyCapsule> body;                  ///< every body capsule fitted, added or not
  std::vector<std::string> warnings;              ///< the file's springs not used, and why
};

/// The colliders for a character's hair chains (see HairColliders). Pre: doc/model/character
/// the re-rigged ones; trunk from plan_hair; `chains` the character's hair chains (the body
/// capsules leave them room; `params` which are fitted). Springs that cannot be used
/// (usable_vrm_springs): no VRM colliders, a warning.
HairColliders hair_colliders(const Document& doc, const Model& model, const Character& character,
                             const TrunkSkin& trunk, const std::vector<HairChainResult>& chains,
                             const HairCapsuleParams& params = {});

/// A hair chain as a ChainSpec: under the head, its end Hair_<n>_End, the hair solver, no
/// forward plane, no floor, `colliders`. Pre: chain.nodes holds the bones then the end.
ChainSpec hair_chain_spec(const Character& character, const HairChainResult& chain,
                          const HairColliders& colliders);

/// The rest a baked tail chain took: its first bone, the carry (degrees) and whether that rest
/// clears the legs and the floor (spring.h's carry_as_needed); the colliders it stays out of.
struct ChainRest {
  std::string bone;
  double carry_deg = 0;
  bool clears = false;
  std::vector<std::string> colliders; ///< its limb colliders: "joint -> joint" per capsule
};

/// What the pass reads. `doc` holds the input's accessors (the input document, or the
/// re-rigged one: applying a plan only appends), read only during the pass, through
/// `input_model`; `input_characters` are the input's. The output rig comes from the input and
/// `plan` in memory (rig_edit.h's planned_rig, then build_characters and SkinSampler with its
/// held skins): the re-rigged document is never read back.
struct ClipPassInput {
  const Document* doc = nullptr;
  const Model* input_model = nullptr;
  /// Every character's plan as one edit (merge_rig_edits, in character order), numbered from
  /// input_model's node count (null: none).
  const RigEdit* plan = nullptr;
  const std::vector<Character>* input_characters = nullptr;
  const std::vector<CharacterResult>* results = nullptr; ///< per character, from the rerig
  /// Per character, its --hair chains (hair_rig.h), baked with the hair solver; null: none.
  const std::vector<HairResult>* hair = nullptr;
  /// Per input character, its skin and mesh edges when already built (the tear probe's); null,
  /// or a null entry: built here.
  const std::vector<std::shared_ptr<const SkinEdges>>* input_skins = nullptr;
  std::vector<int> clips; ///< clip indices (select_clips)
};

struct ClipPassParams {
  BindParams bind;  ///< for the re-rigged document's characters (as the input's)
  bool bake = true; ///< bake the chains (mode chain and not --no-bake), else only measure
  BakeParams bake_params;
  /// Held clips of a chain at the harm check's hold step (ChainResult::hold_harmful) are judged
  /// by its rule (harm.h's harmless_clip).
  HarmParams harm;
  StretchParams stretch;
  int threads = 0; ///< worker threads (parallel.h; 0: one per core)
  void validate() const {
    bind.validate();
    bake_params.validate();
    harm.validate();
    stretch.validate();
  }
};

struct ClipPassResult {
  std::vector<std::vector<PieceJudge>> judge; ///< per character: per chain (ChainResult order)
  /// Per character: one row per clip (original, rigid and result tail, result body), or none
  /// when the character has no chain.
  std::vector<std::vector<StretchRow>> stretch;
  std::vector<std::vector<ClipBake>> bakes; ///< per character: per chain, per clip
  std::vector<double> floors;               ///< per character: g_0 the bake used (NaN: none)
  /// Per character, per baked chain: the rest its spring took (spring.h's carry_as_needed).
  std::vector<std::vector<ChainRest>> rests;
  std::vector<std::string> warnings;  ///< in character, chain, clip order
  std::size_t baked = 0;              ///< (chain, clip) pairs baked
  double bake_ms = 0, stretch_ms = 0; ///< worker time in each, summed over the clips
  /// Per character, per baked chain (its tail chains, then its hair chains): its record with
  /// its bakes and the keys to write (chain_record.h).
  std::vector<std::vector<ChainRecord>> chains;
  /// Per character: the colliders its hair chains respect (empty without hair).
  std::vector<HairColliders> hair_colliders;
};

/// Runs the pass (see the top). Failure: Error(Usage) for bad params; what planned_rig and
/// build_characters throw for the planned rig; else the first failing clip's error in
/// the pass's order (longest clip first, ties in clip order), as bake_clip and the stretch throw
/// them.
ClipPassResult clip_pass(const ClipPassInput& in, const ClipPassParams& params);

/// Appends every baked clip of `pass` to the document in character, chain, clip order (per
/// character its tail chains, then its hair chains: ClipPassResult::chains).
/// Pre: `doc` is the input document with the pass's plan applied.
void write_clip_pass(Document& doc, const ClipPassResult& pass);

} // namespace retail
