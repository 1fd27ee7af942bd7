// retail — one record per grown chain, whatever its kind: what grew it, how it is solved, its
// bake per clip, the keys to write, and its verdict against stated targets (docs/report-schema.md
// `chain_records`, docs/pipeline.md "Kinds of chain").
#pragma once

#include "retail/grow/chain.h"
#include "retail/grow/ears.h"
#include "retail/motion/bake.h"

#include <cmath>
#include <string>
#include <vector>

namespace retail {

/// One grown chain of a character and what the run did with it.
struct ChainRecord {
  ChainKind kind = ChainKind::Tail;
  ChainSolver solver = ChainSolver::Spring;
  bool baked = true;              ///< false: the kind is left as it is (`note` says how)
  std::string note;               ///< a kind not baked: what was done ("left rigid: ...")
  std::vector<std::string> bones; ///< the bones' names, then the end's
  std::vector<int> nodes;         ///< the bones' nodes, then the end's
  std::vector<ClipBake> bakes;    ///< per clip, in the pass's clip order
  /// Per clip (as `bakes`): the deepest collider penetration, world units; NaN: not measured
  /// (the slot a per-clip collider measurement fills).
  std::vector<double> penetration;
  std::vector<BakedClip> keys; ///< per clip: the keys to write (empty once written)
  /// Hair: the head turn's figures for this chain (hair_qa.h's HeadTurnChainReport): its
  /// per-edge-worst p99 (percent) and deepest penetration (world units); NaN: not run.
  double head_turn_edge_p99_percent = NAN, head_turn_penetration = NAN;
  std::string label; ///< a kind without bones of its own: its name ("Ears")
  /// The name the report and the log give the chain: its label, else its first bone's.
  std::string name() const {
    return !label.empty() ? label : bones.empty() ? std::string() : bones.front();
  }
};

/// The targets a chain is judged against (docs/report-schema.md).
struct ChainTargets {
  double hair_edge_p99_percent = 8; ///< rebuilt hair: head-turn per-edge-worst p99 (the article)
  double penetration_mm = 1;        ///< at the reference height below (scaled by H / it)
  double reference_height_m = 1.8;  ///< the character's H the millimetres are stated at
  double loop_seam_deg = 1;         ///< a looping clip's first and last keys
  /// A tail's skin into the legs beyond its depth at bind (ClipBake::skin_depth), % of H
  double tail_skin_depth_percent_h = 1;
  void validate() const; ///< Failure: Error(Usage)
};

/// One check of a chain: what was measured, against what, and the outcome.
struct ChainCheck {
  /// "edge_p99_percent", "penetration_mm", "settled", "loop_seam_deg", "skin_depth_percent_h"
  std::string check;
  std::string clip;    ///< the clip, "" for a check over the whole chain
  double value = NAN;  ///< NaN: not measured (settled: 1 when a loop's warm-up settled, else 0)
  double limit = NAN;  ///< the target (settled: 1)
  std::string verdict; ///< "pass", "fail" or "not measured"
};

/// A chain's checks and its verdict: "fail" when any check failed, "pass" otherwise ("left
/// rigid" and the like for a kind not baked: its note's first word group).
struct ChainVerdict {
  std::string verdict;
  std::vector<ChainCheck> checks; ///< chain-wide checks first, then per clip in clip order
  std::size_t failed = 0;         ///< checks that failed
};

/// Judges `record` against `targets` for a character of height `height` (world units, H):
/// per looping clip its warm-up settled and its seam below loop_seam_deg, per clip its
/// penetration when measured, for a tail its skin's depth into the legs (% of H); for hair the
/// head turn's per-edge-worst p99 and its penetration (not measured without a head turn). Pure.
ChainVerdict judge_chain(const ChainRecord& record, double height, const ChainTargets& targets);

/// The record of a pair of ears (ears.h): kind Ears, not baked, the bone they ride as its bones
/// and nodes, ears_note as its note.
ChainRecord ears_record(const EarsPair& pair);

/// How many chains failed among `verdicts` (per character, per chain).
std::size_t chains_failed(const std::vector<std::vector<ChainVerdict>>& verdicts);

} // namespace retail
