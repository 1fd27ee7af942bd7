// retail — the QA side of stretch: before/after tables, --fail-on checks (SPEC §9, §11).
#pragma once

#include "retail/qa/harm.h"
#include "retail/qa/stretch.h"

#include <string>
#include <vector>

namespace retail {

/// One clip's row of the stretch table: the tail before (input rig), as the rigid reference
/// (computed, not written), after (output rig), and the body of the output as the baseline.
struct StretchRow {
  int clip = -1;
  std::string name;
  double duration = 0;
  RegionStretch original, rigid, result, body;
  bool has_original = false, has_rigid = false;
};

/// The harm check's figures for one re-rigged piece (harm.h): per clip of the pass, in clip
/// order, its judged edge-samples (every edge with an end it re-weighted, chain or root band,
/// at every stretch sample) in two tiers, the piece's own and its seam, on the input rig
/// against the output rig and against the rigid reference (the piece wholly on the hips,
/// measured in the same pass), and the output body's torn share (the seam's allowance).
struct PieceJudge {
  int piece = -1;
  std::string verdict; ///< "kept", or what the harm check did and why (pipeline.cpp)
  std::vector<std::string> clips;
  std::vector<double> input_torn, output_torn; ///< percent of every judged edge-sample
  std::vector<EdgeFlips> flips, seam_flips;    ///< per clip: output against input
  /// Per clip: rigid on the hips against input (empty when the piece is rigid already).
  std::vector<EdgeFlips> rigid_flips, rigid_seam_flips;
  std::vector<double> body_torn; ///< per clip: percent of the output body's edge-samples
  /// Per vertex the change re-weighted (original ids, ascending; zeros left out): over every
  /// clip, the newly torn minus healed edge-samples of the judged edges at it. Above 0: the
  /// change tore more there than it healed.
  std::vector<std::pair<std::size_t, long long>> vertex_net;
};

/// `--fail-on` check on the tail region: METRIC OP VALUE or METRIC OP body.METRIC, with METRIC
/// one of p95, p99, max, torn (percent), edge_p99 (percent) and OP one of > >= < <=; or
/// left_torn OP VALUE: the vertices of torn skin retail left as it was (evaluate_left_torn); or
/// chain_fail OP VALUE: the grown chains whose verdict is "fail" (evaluate_chain_fail).
/// Examples: "torn>0", "p99>body.p99", "max>=2". Failure to parse: Error(Usage).
struct FailCheck {
  std::string text, metric, op, against_metric;
  double value = 0;
  bool against_body = false;
};
FailCheck parse_fail_on(const std::string& text);

/// The checks on metric left_torn (the vertices of skin retail left torn as it was, pipeline.h's
/// LeftTorn) against `left_torn`; one line per failing check.
std::vector<std::string> evaluate_left_torn(const std::vector<FailCheck>& checks,
                                            std::size_t left_torn);

/// The checks on metric chain_fail (the grown chains whose verdict failed, chain_record.h)
/// against `failed`; one line per failing check.
std::vector<std::string> evaluate_chain_fail(const std::vector<FailCheck>& checks,
                                             std::size_t failed);

/// Checks every row's result (or, for `retail report`, its only) tail against the checks;
/// returns one line per failure naming the clip, e.g.
/// "Walk: tail p99 1.42 > body.p99 1.29 (p99>body.p99)".
std::vector<std::string> evaluate_fail_on(const std::vector<FailCheck>& checks,
                                          const std::vector<StretchRow>& rows);

/// The rows as readable text, at most 100 columns wide.
std::string format_stretch_table(const std::vector<StretchRow>& rows);

} // namespace retail
