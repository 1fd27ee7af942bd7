// retail — the head-turn QA of the chains `--hair` grew (docs/hair.md): after the re-rig,
// head_turn.h's controlled sequence (HairQaParams::turn: head turns, then the head still; the
// skinned mesh sampled at its sample rate) run on each character's hair chains as the bake
// solves them (bake.h's hair_bake_rig on clip_pass.h's hair_chain_spec, against the same
// colliders: the file's VRM colliders and the torso capsule when those miss the trunk).
// Plain data in, a value out; single-threaded, deterministic; no logging, no I/O.
#pragma once

#include "retail/base/document.h"
#include "retail/grow/hair_rig.h"
#include "retail/motion/bake.h"
#include "retail/motion/head_turn.h"
#include "retail/rig/skeleton.h"

#include <string>
#include <vector>

namespace retail {

struct HairQaParams {
  HeadTurnParams turn;   ///< the sequence (hair_measure.h)
  HairBakeParams solver; ///< the hair chains' k, c, g and radius scale (as the bake's)
  BindParams bind;       ///< as the run's: the characters are rebuilt from `doc`
  void validate() const; ///< Failure: Error(Usage) naming the field
};

/// The head turn on every character's hair chains, on the re-rigged rig: `model` and `held`
/// from rig_edit.h's planned_rig (the input document `doc` with the plan held in memory), or
/// parse_model of the re-rigged document and null. hair[k] is plan_hair's result for character
/// k of build_characters(doc, model, params.bind, held). Post: one report per entry of `hair`, its
/// chains in hair[k].chains' order; its `torso` the capsule the chains respect (hair_colliders'),
/// placed at the saved pose, `fitted` false when none was added; an empty report (head -1, samples
/// 0) for a character without hair chains; nothing is parsed when no character has one. Failure:
/// Error(Usage) for bad params; as hair_colliders, hair_bake_rig and head_turn_chains.
std::vector<HeadTurnReport> hair_head_turn(const Document& doc, const Model& model,
                                           const HeldSkins* held,
                                           const std::vector<HairResult>& hair,
                                           const HairQaParams& params = {});

/// `retail report IN --head-turn` on any file: the file's own VRM springs (head_turn_report)
/// when it has any, else the hair chains retail grew as the file holds them (joints
/// `Hair_<n>_1 .. Hair_<n>_End` under the head, each the parent of the next) on the first
/// character with such chains, solved as the bake solves them, their skin radius, L, k and c
/// read back from the skin (the file holds none of them: per bone the farthest vertex whose
/// largest weight is on it, the polyline's length, hair_stiffness), against the torso capsule
/// head_turn_chains adds; `springs` "retail Hair_<n> chains". Failure: as head_turn_report and
/// head_turn_chains.
HeadTurnReport head_turn_report_grown(const Document& doc, const Model& model,
                                      const std::vector<Character>& characters,
                                      const HeadTurnReportParams& params = {});

/// One line for the log: the chain count and the worst of each figure over all chains
/// ("2 hair chain(s), worst: edge-max p99 3.1%, ...").
std::string hair_head_turn_summary(const std::vector<HeadTurnReport>& reports,
                                   const HeadTurnParams& turn);

} // namespace retail
