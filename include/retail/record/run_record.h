// retail — the record of one `retail IN OUT` run: what every stage found and did, per
// character, with the stages' times. The JSON report (report.h) is built from it alone, after it
// is complete; the log reads the same record.
#pragma once

#include "retail/grow/hair_rig.h"
#include "retail/grow/rerig.h"
#include "retail/motion/bake.h"
#include "retail/motion/chain_record.h"
#include "retail/motion/clip_pass.h"
#include "retail/motion/hair_qa.h"
#include "retail/motion/spring_bake.h"
#include "retail/motion/vrm_spring_export.h"
#include "retail/qa/qa.h"
#include "retail/qa/stretch.h"

#include <cmath>
#include <string>
#include <vector>

namespace retail {

/// `v` rounded to 6 decimals: how figures are written into reports, summaries and `retail info`
/// (deterministic text).
inline double round6(double v) {
  return std::round(v * 1e6) / 1e6;
}

/// One stage's wall time and a short summary for the log.
struct StageStat {
  std::string stage;
  double ms = 0;
  std::string summary;
};

/// What the record keeps of an input character (skeleton.h's Character): the report's figures
/// and the names of its joints (pieces name the joint they hang from).
struct CharacterFacts {
  std::vector<int> skins;
  double height = 0, scale = 0;
  std::vector<int> joints;              ///< node indices
  std::vector<std::string> joint_names; ///< per joint: its node's name
};

/// Skin the input tears under its own clips that retail left as it was (never silent): a piece
/// the harm check left, or a part of the evidence not taken as a tail.
struct LeftTorn {
  int piece = -1;           ///< the piece's id, or -1 for a part of the evidence
  std::size_t vertices = 0; ///< welded vertices
  std::vector<std::pair<std::string, double>> bones; ///< the joints its skin is weighted to, shares
  double torn_percent = NAN; ///< its torn edge-samples (NaN: no clip to measure by)
  std::string clip;          ///< the clip where, or "" for the mean over every clip
  std::string reason;        ///< why it was left as it was
};

/// One run, as values. Per-character vectors are indexed like `facts` (the input's characters);
/// `characters` has one entry per character once the rerig ran, the clip figures are empty for
/// a character without a chain.
struct RunRecord {
  std::string input_path, input_sha256;   ///< as given; of the exact bytes read
  std::string output_path, output_sha256; ///< as given; of the exact bytes written
  bool dry_run = false; ///< --dry-run: nothing written; output_sha256 of what would have been
  std::string mode;     ///< "chain", "rigid" or "detect"
  StretchParams stretch_params;
  HarmParams harm;               ///< the harm check's noise floor (harm.h)
  std::vector<StageStat> stages; ///< in the order they ran, `write` last
  /// Worker time inside the `clips` stage, summed over its clips: `bake` and `stretch` (with
  /// one worker, the stage's wall time split in two). Empty when the stage did not run.
  std::vector<StageStat> work;
  std::vector<std::string> warnings;
  std::vector<CharacterFacts> facts;
  std::vector<CharacterResult> characters;      ///< per character: detection, chains, weights
  std::vector<std::vector<StretchRow>> stretch; ///< per character (empty without a chain)
  std::vector<std::vector<ClipBake>> bakes;     ///< per character (empty without a chain)
  std::vector<double> floors;                   ///< per character: g_0 the bake used (NaN: none)
  std::vector<std::vector<ChainRest>> rests;    ///< per character: each baked chain's rest
  std::vector<std::vector<PieceJudge>> judge;   ///< per character: the harm check, per piece
  std::vector<std::string> failures;            ///< --fail-on checks that failed
  std::vector<std::vector<LeftTorn>> left_torn; ///< per character: torn skin left as it was
  /// --hair (hair_rig.h): per character its hair chains (empty without --hair) and the
  /// colliders they respect; their bakes are in chain_records.
  std::vector<HairResult> hair;
  std::vector<HairColliders> hair_colliders;
  /// Per character, per grown chain (tails, then hair, then kinds left as they are): its
  /// record without its keys (chain_record.h), and its verdict against `chain_targets`.
  std::vector<std::vector<ChainRecord>> chain_records;
  std::vector<std::vector<ChainVerdict>> chain_verdicts;
  ChainTargets chain_targets;
  /// Per character: what the VRM spring export wrote (status "written", "off" or "not a VRM").
  std::vector<VrmSpringRecord> vrm_springs;
  /// --hair: per character, the head turn on its hair chains (hair_qa.h; empty entries for a
  /// character without, none without --hair) and how it ran (the sequence, the solver).
  std::vector<HeadTurnReport> hair_head_turn;
  HairQaParams hair_qa;
  /// The input's own VRM spring chains baked into its clips (spring_bake.h; its keys dropped
  /// once written). status "": the file has no VRM springs.
  SpringBakeResult spring_bake;
};

} // namespace retail
