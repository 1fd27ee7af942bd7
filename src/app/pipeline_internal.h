// retail — the driver's private parts (src/app only): the QA page's share (pipeline_page.cpp),
// the harm check's (pipeline_harm.cpp) and the stages after the re-rig (pipeline_hair.cpp).
// What `--html` adds to a run: the page's path checked up front, the input's and the rigid
// reference's views built before the re-rig is written and the output's after, and the page
// written after the report. The head turn on the hair chains (before anything is written), the
// stages after the re-rig (springs, the VRM export) and the judgement of the hair clumps.
#pragma once

#include "retail/app/pipeline.h"
#include "retail/grow/rig_edit.h"
#include "retail/motion/clip_pass.h"
#include "retail/motion/spring_bake.h"
#include "retail/qa/harm_ladder.h"
#include "retail/record/html_page.h"
#include "retail/vrm/vrm_spring_write.h"

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace retail {

using Clock = std::chrono::steady_clock;

/// Wall milliseconds from `t0` to now.
inline double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

/// The re-rig as judged: every character's plan, the clip pass on the rig they make, and that
/// rig (rig_edit.h's planned_rig) held for the stages after the clip pass that read it (the
/// head turn on hair chains, the VRM spring export, the page's output view); none when no
/// such stage runs.
struct Judged {
  RigEdit plans;
  ClipPassResult pass;
  std::optional<PlannedRig> rig;
};

/// Plans every character of `in`, each against the plans before it, runs the clip pass on the
/// rig the plans make in memory, and judges every grown piece against the input under its own
/// clips (harm check); where one does harm, plans again with it stepped down (harm_review, up
/// to kHarmReviews times); holds the judged plans' rig when a later stage reads it (Judged::rig).
/// Nothing is written into in.doc. Fills result.characters, hair, stretch, bakes, floors, chain
/// records, judge, failures and the stage lines. Failure: Error(Usage) for a selector that names
/// nothing; what the stages throw.
Judged plan_and_judge(const Input& in, const std::vector<int>& clips, const RunParams& params,
                      RunResult& result);

/// The one write of the run's changes into `in.doc`, in this order: the judged plans
/// (apply_rig_edit), the clip pass's keys (write_clip_pass), the input's springs' keys
/// (write_spring_bake, from result.spring_bake, which keeps their figures) and the VRM spring
/// entries (apply_vrm_spring_plan); its stage line "apply" (none when there is nothing to
/// write). `threads`: apply_rig_edit's workers.
void apply_rerig(Input& in, const Judged& judged, const VrmSpringPlan& vrm, int threads,
                 RunResult& result);

/// The keys apply_rerig writes, as values (bake.h's append_baked_tracks), in its order: the
/// clip pass's, then the spring bake's (`springs`).
std::vector<RotationTrack> written_tracks(const Judged& judged, const SpringBakeResult& springs);

/// How many times plan_and_judge reviews a pass (harm_review): one for each chain it can plan
/// (the first chain, the peel, the wider band, the wider band over the lower legs, bending less,
/// the band over the lower legs, one link fewer), so every chain it plans is judged; the pass
/// after the last review can only hold a piece rigid (judged in the pass before) or left as it
/// was.
constexpr int kHarmReviews = kLadderRungs;

/// The harm check (SPEC §13, harm.h): every grown piece must be harmless in every clip of the
/// pass, lower the weighted bone distance, and hold at most half the character's vertices. A
/// chain that is not steps down, one step a pass: the chain without the vertices it tore more
/// than it healed (PieceJudge::vertex_net > 0, when at most half of it; they keep their input
/// weights); then a root band and its seam twice as wide; then that band also crossing the
/// lower legs' skin (PieceOverride::band_legs); then bending less (HarmParams::
/// bend_less_skin_ratio) with the band twice as wide, off the legs; then the band as first
/// planned over the lower legs, still bending less; then one link fewer (PieceOverride::
/// max_bones; from 2 links or more), everything else as first planned: longer links spread the
/// weights' blends and the seam over more skin; then rigid on the hips when the pass found rigid
/// harmless in every clip, else left as it was. Returns true when any piece stepped down (the
/// job must run again); `verdicts` keeps each stepped piece's figures and reason.
bool harm_review(const std::vector<std::vector<PieceJudge>>& judge,
                 const std::vector<CharacterResult>& characters, const HarmParams& params,
                 std::vector<std::map<int, PieceOverride>>& overrides,
                 std::vector<std::map<int, PieceJudge>>& verdicts);

/// The final pass's judgement of every piece, and the earlier verdicts of pieces stepped down,
/// into result.judge; one warning per stepped piece.
void record_verdicts(const std::vector<std::map<int, PieceJudge>>& verdicts,
                     const std::vector<std::vector<PieceJudge>>& judge, RunResult& result);

/// Never silent: the torn skin retail leaves as it was, into result.left_torn, one warning each,
/// and the --fail-on left_torn checks into result.failures: a tail piece the harm check left
/// whose own edge-samples the input tears at least params.left_torn_percent in some clip, and a
/// part of the evidence not taken, hanging from the hips or a thigh across the midline, weighted
/// at least half to the legs and less than a tenth to bones of its own, that tears at least that
/// share over every clip and
/// params.left_torn_ratio times the rest of the character (or, with no clip to measure by, that
/// detection would have taken as a tail). Returns how many welded vertices were left torn.
std::size_t find_left_torn(const Input& in, const RunParams& params, RunResult& result);

/// The records of kinds left as they are (the ears, ears.h) appended, then every chain record
/// of `result` judged (chain_record.h's judge_chain, at its character's H),
/// the head turn's figures copied into its hair chains' records first; the --fail-on
/// chain_fail checks against the chains that failed into result.failures.
void judge_chain_records(const Input& in, const RunParams& params, RunResult& result);

/// The head turn on the hair chains (--hair and found; hair_qa.h) of the judged rig in memory
/// (Judged::rig): result.hair_head_turn and one stage line; nothing without hair chains.
void hair_qa_stage(const Input& in, const Judged& judged, const RunParams& params,
                   RunResult& result);

/// The stages after the re-rig is judged, planned and not written: the input's own VRM springs
/// baked into `clips` (spring_bake.h; result.spring_bake keeps the keys for apply_rerig), the
/// grown chains as entries of its springs (vrm_spring_export.h, on the judged rig's model;
/// returned for apply_rerig), then every chain judged (judge_chain_records, after
/// hair_qa_stage); results, stage lines and warnings into `result`.
VrmSpringPlan stages_after_rerig(const Input& in, const Judged& judged,
                                 const std::vector<int>& clips, const RunParams& params,
                                 RunResult& result);

/// A hair clump (--hair or found) left as it was, and its character.
struct HairLeftIn {
  std::size_t character = 0;
  HairLeft left;
  double p99_percent = 0; ///< its head turn's edge-max p99 (torn_hair)
};

/// The hair chains of `result` (after hair_qa_stage; --hair and found) whose head turn tears
/// their skin (HarmParams::hair_torn_p99_percent), to be left as they were; none when the harm
/// check is off.
std::vector<HairLeftIn> torn_hair(const RunResult& result, const RunParams& params);

/// `params` without the --hair selectors of `left`; its found clumps in hair.left_found (their
/// pieces then HairRejected, rerig.h's hair_left).
RunParams without_hair(const RunParams& params, const std::vector<HairLeftIn>& left);

/// What the hair's harm check settled (judge_hair_turns): the parameters the run goes on with
/// and the clumps left as they were.
struct HairTurns {
  RunParams used;
  std::vector<HairLeftIn> torn;
};

/// Do no harm, hair (after plan_and_judge and hair_qa_stage on `params`, `judged` and `result`):
/// the chains whose head turn tears (torn_hair) are planned again with their k times each of
/// HarmParams::hair_stiffer's factors in turn (not when --hair-stiffness sets k), from `before`
/// (the result before the first plan); those still tearing after the last are left as they
/// were (without_hair) and the run planned once more. `judged` and `result` end as the last
/// plan's; each chain kept stiffer gets a note. Deterministic.
HairTurns judge_hair_turns(const Input& in, const std::vector<int>& clips, const RunParams& params,
                           const RunResult& before, Judged& judged, RunResult& result);

/// Records `left` in result.hair (one entry per character at least) with a warning each.
void record_hair_left(const std::vector<HairLeftIn>& left, std::size_t characters,
                      RunResult& result);

/// The page with the run's report (its timings left out: the page is deterministic), written
/// atomically to `path`; the time it took is added to result.page_ms.
void write_page(PageData& page, const Json& report, const std::string& path, RunResult& result);

/// --html PAGE: three.js is built in, PAGE's folder exists and PAGE is no folder.
/// Failure: Error(Unsupported) without three.js, Error(OutputFailed) for the path.
void check_page_path(const std::string& page);

/// The QA page of `retail IN OUT --html` before anything is written (its report is added once
/// written): the input as read (in.doc) and the rigid reference (every character planned in
/// mode rigid, each after the ones before; its heat map from that plan's rig in memory, its
/// model from the plan written into a copy of in.doc), each with its heat map under `clips`.
/// Pre: in.doc, in.model and in.characters as read.
PageData page_before_rerig(const Input& in, const std::vector<int>& clips, const RunParams& params);

/// The page's last view, after everything is written: the output's model (in.doc as written),
/// its heat map from the judged rig in memory (Judged::rig) with `tracks` (every key written,
/// as values: heat_map.h) added to its clips, never parsed back; the tail (every chain's
/// re-weighted vertices) and the output's chain nodes.
void page_output_view(const Input& in, const Judged& judged,
                      const std::vector<RotationTrack>& tracks, const std::vector<int>& clips,
                      const RunParams& params, const RunResult& result, PageData& page);

/// The QA page of `retail report IN --html`: the one rig with its heat map; "tail motion off"
/// holds the joints whose names match `region_bones` still; the tail box covers `regions`.
std::string report_page(const Input& in, const std::vector<int>& clips,
                        const StretchParams& stretch, int threads,
                        const std::vector<std::vector<std::size_t>>& regions,
                        const std::string& region_bones, const Json& report);

} // namespace retail
