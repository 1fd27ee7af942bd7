// Test support: an independent judge of a re-rigged tail against ground truth (issue 14's
// acceptance). Used by the shared-model tests and by tools/tail_eval (docs/detection.md figures).
//
// Truth: the artist's tail as original vertices (character primitives concatenated, the file's
// first character): the vertices whose largest weight is on a joint named "Tail" in the artist's
// file, or, for a grafted tail with no artist bones, every vertex of named primitives.
// Re-rigged: the output's vertices whose influences changed from the input's and that carry at
// least a quarter of their weight on nodes retail added (a chain, its root band's inner half) or
// all of it on the hips (the rigid fallback). The outer root band, body skin blended towards the
// tail's root, does not count.
// Torn share: SPEC §9 on the edges with both ends in the truth, per clip (matched by name).
#pragma once

#include <string>
#include <vector>

namespace test {

struct TailClipRow {
  std::string clip;
  double artist_torn = -1; ///< percent; -1 when there is no artist rig
  double input_torn = 0, output_torn = 0;
  double input_p99 = 1, output_p99 = 1, artist_p99 = -1;
  /// Edge-samples of the truth's edges: torn on the output and not on the input (newly torn),
  /// torn on the input and not on the output (healed), and all of them (edges x samples).
  std::size_t newly_torn = 0, healed = 0, edge_samples = 0;
  /// How deep the bones that own the truth go into capsules fitted to the leg bones' skin
  /// beyond their depth at bind, percent of H, deepest of 121 samples (tail_eval.cpp leg_depths);
  /// the artist's -1 when there is no artist rig.
  double output_leg_depth = 0, artist_leg_depth = -1;
  /// The same for the truth's own skin vertices (the tail's surface, not its bones).
  double output_skin_leg_depth = 0, artist_skin_leg_depth = -1;
};

/// The noise floor of the harm check (retail's PieceJudge rule, docs/detection.md section 5):
/// at most this many newly torn edge-samples out of `edge_samples` count as noise.
std::size_t noise_floor(std::size_t edge_samples);

struct TailEval {
  std::size_t truth = 0, rerigged = 0, both = 0;
  double recall = 0, precision = 0; ///< both / truth, both / rerigged (1 when none re-rigged)
  /// Truth vertices that still carry >= 5% of their weight on an input bone other than the
  /// hips (a leg, the spine: issue 14's "the whole tail owns its weights").
  std::size_t kept_other = 0;
  std::size_t false_major = 0; ///< re-rigged by majority, not the artist's tail (detection)
  std::size_t false_band = 0;  ///< re-rigged (band blend), not by majority, not the artist's tail
  /// Body skin taken off its bones: vertices outside the truth that the input moves mostly with
  /// a foot, a hand, the neck or the head (or a joint below one) whose output's largest weight
  /// is on a node retail added, or all of it on the hips. A tail's re-rig never owns them.
  std::size_t extremity_taken = 0;
  /// The same with both sides by majority: the output's largest weight on a node retail added
  /// (or all on the hips) against the artist's largest on a tail bone; the root band's blend
  /// then counts on neither side.
  double recall_major = 0, precision_major = 0;
  std::vector<TailClipRow> clips; ///< the input's clips, in its order
};

/// Truth from an artist rig: largest weight on a joint whose name contains "Tail".
std::vector<bool> artist_tail(const std::string& original);

/// Truth as every vertex of the primitives `prims` ("mesh/primitive" pairs by mesh name).
std::vector<bool> primitive_tail(const std::string& path,
                                 const std::vector<std::pair<std::string, int>>& prims);

/// Truth from a generated rig's `.truth.json` (retail.truth/1, make_test_rig): the vertices of
/// its "tail" piece, every primitive in order. Failure: std::runtime_error (no tail piece).
std::vector<bool> generated_tail(const std::string& truth_json);

/// The truth a tool names on its command line: `prims:MESH/P,...` (primitive_tail of `input`),
/// `NAME.truth.json` (generated_tail), else an artist's original (artist_tail; `artist` is then
/// that path, else ""). Failure: as those functions.
struct TailTruth {
  std::vector<bool> vertices;
  std::string artist;
};
TailTruth read_tail_truth(const std::string& arg, const std::string& input);

/// Judges `output` (retail's result for `input`) against `truth`; `artist` ("" when none) is
/// measured on the same edges. `legs` false: no leg depths (they stay 0 / -1; they are most of
/// the evaluation's time). Pre: the three files share vertex order.
TailEval evaluate_tail(const std::vector<bool>& truth, const std::string& input,
                       const std::string& output, const std::string& artist, bool legs = true);

} // namespace test
