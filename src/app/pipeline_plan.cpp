// The driver's re-rig (pipeline_internal.h): every character planned against the ones before it,
// the clip pass on the rig the plans make in memory, the harm check's judgement (planning again
// with a piece stepped down), and the one step that writes the judged re-rig.
#include "app/pipeline_internal.h"

#include "retail/base/error.h"
#include "retail/detect/selector.h"
#include "retail/grow/rig_edit.h"
#include "retail/motion/clip_pass.h"
#include "retail/qa/tear_map.h"

#include <cmath>
#include <cstdio>
#include <future>
#include <map>
#include <memory>
#include <system_error>

namespace retail {
namespace {

using SkinList = std::vector<std::shared_ptr<const SkinEdges>>;

/// Per input character, its skin and mesh edges (SkinEdges) for the tear probe and the clip
/// pass's input rigs. When there are clips to measure by they are built on a thread of their
/// own from the start of planning (the weld and detection read none of them); `get` and `all`
/// wait for that thread. A character whose build failed there (or every one, when no thread
/// could be started) is built where it is first read, failing as it did before.
class InputSkins {
public:
  InputSkins(const Input& in, bool wanted) : in_(in), built_(in.characters.size()) {
    if (!wanted) return;
    try {
      pending_ = std::async(std::launch::async, [&in] {
        SkinList out(in.characters.size());
        for (std::size_t k = 0; k < out.size(); ++k) try {
            out[k] = std::make_shared<const SkinEdges>(in.doc, in.model, in.characters[k]);
          } catch (...) { // left null: built again, and failing, where it is read
          }
        return out;
      });
    } catch (const std::system_error&) { // no thread to be had: built where read
    }
  }
  /// Character k's (its build's failure is thrown here).
  const std::shared_ptr<const SkinEdges>& get(std::size_t k) {
    collect();
    if (!built_[k])
      built_[k] = std::make_shared<const SkinEdges>(in_.doc, in_.model, in_.characters[k]);
    return built_[k];
  }
  /// Every character's that was built (null where a build failed: the clip pass builds it).
  const SkinList& all() {
    collect();
    return built_;
  }

private:
  void collect() {
    if (!pending_.valid()) return;
    SkinList done = pending_.get();
    for (std::size_t k = 0; k < done.size(); ++k)
      if (!built_[k]) built_[k] = std::move(done[k]);
  }
  const Input& in_;
  SkinList built_;
  std::future<SkinList> pending_;
};

/// The clip pass's share of `result` emptied for `characters` characters (before a pass).
void clear_clip_results(std::size_t characters, RunResult& result) {
  result.stretch.assign(characters, {});
  result.bakes.assign(characters, {});
  result.floors.assign(characters, NAN);
  result.rests.assign(characters, {});
  result.failures.clear();
  result.work.clear();
  result.chain_records.clear();
  result.chain_verdicts.clear();
  result.hair_colliders.clear();
}

/// The clip pass (clip_pass.h) on the planned rig `plans` of every character of `in`: fills
/// result's stretch, bakes, floors, rests, hair bakes, --fail-on failures and the stage line.
ClipPassResult measure_clips(const Input& in, const std::vector<int>& clips,
                             const RunParams& params, const RigEdit& plans, bool hair,
                             InputSkins& skins, RunResult& result) {
  const auto t0 = Clock::now();
  ClipPassInput pin;
  pin.doc = &in.doc;
  pin.input_model = &in.model;
  pin.plan = &plans;
  pin.input_characters = &in.characters;
  pin.results = &result.characters;
  pin.hair = hair ? &result.hair : nullptr;
  pin.input_skins = &skins.all();
  pin.clips = clips;
  ClipPassParams pp;
  pp.bind = params.bind;
  pp.bake = params.bake_enabled && params.rerig.mode == Mode::Chain;
  pp.bake_params = params.bake;
  pp.harm = params.harm;
  pp.stretch = params.stretch;
  pp.threads = params.threads;
  ClipPassResult pass = clip_pass(pin, pp);
  result.stretch = pass.stretch;
  result.bakes = pass.bakes;
  result.floors = pass.floors;
  result.rests = pass.rests;
  result.chain_records = pass.chains;
  for (auto& character : result.chain_records)
    for (ChainRecord& chain : character) std::vector<BakedClip>().swap(chain.keys);
  result.hair_colliders = pass.hair_colliders;
  result.warnings.insert(result.warnings.end(), pass.warnings.begin(), pass.warnings.end());
  for (const auto& rows : result.stretch)
    for (const auto& f : evaluate_fail_on(params.fail_on, rows)) result.failures.push_back(f);
  char split[96];
  std::snprintf(split, sizeof split, " (worker time: bake %.1f ms, stretch %.1f ms)", pass.bake_ms,
                pass.stretch_ms);
  result.stages.push_back({"clips", ms_since(t0),
                           std::to_string(clips.size()) + " clip(s): " +
                               std::to_string(pass.baked) + " baked, stretch of 3 rigs at " +
                               std::to_string(params.stretch.samples) + " samples" + split});
  result.work = {{"bake", pass.bake_ms, ""}, {"stretch", pass.stretch_ms, ""}};
  return pass;
}

/// Plans the re-rig of every character of `in` (with the harm check's overrides), each against
/// the plans before it, into `plans`, and runs the clip pass on the rig they make in memory;
/// fills result.characters, stretch, bakes, floors, failures and the stage lines. Writes
/// nothing into the document: the plans and the returned keys are applied once, after the harm
/// check (apply_rerig).
ClipPassResult rerig_and_measure(const Input& in, const std::vector<int>& clips,
                                 const RunParams& params,
                                 const std::vector<std::map<int, PieceOverride>>& overrides,
                                 const std::vector<TearProbe>& tears, InputSkins& skins,
                                 RigEdit& plans, RunResult& result) {
  auto t0 = Clock::now();
  std::size_t chains = 0, pieces = 0, hair_chains = 0;
  result.hair.clear();
  result.tear_ms = 0;
  plans = RigEdit{}; // every character's plan, one after the other: what the clip pass reads
  plans.first_node = int(in.model.nodes.size());
  std::vector<HairResult> hair(in.characters.size()); // kept when --hair or any hair was found
  bool any_hair = !params.hair.hair.empty();
  for (std::size_t k = 0; k < in.characters.size(); ++k) {
    RerigParams rp = params.rerig;
    rp.weld.threads = rp.detect.threads = params.threads;
    rp.overrides = overrides[k];
    if (k < params.hair.left_found.size()) rp.hair_left = params.hair.left_found[k];
    // --hair geometry is never a tail piece (its selectors after the user's --not-tail ones).
    rp.not_tail.insert(rp.not_tail.end(), params.hair.hair.begin(), params.hair.hair.end());
    // Planned against the plans of the characters before it (nothing is written until the
    // harm check is done); the hair chains are planned after the tail's, into one edit.
    CharacterPlan plan = plan_character(in.doc, in.model, in.characters[k], rp,
                                        k < tears.size() ? tears[k] : TearProbe{}, plans);
    const std::vector<std::pair<std::string, std::vector<bool>>>& found = plan.result.found_hair;
    any_hair = any_hair || !found.empty() || !rp.hair_left.empty();
    if ((!params.hair.hair.empty() || !found.empty()) && params.rerig.mode != Mode::Detect) {
      HairRigParams hp = params.hair;
      hp.weld.threads = params.threads;
      hp.judge = params.harm_check; // implausible clumps left as they were, as tails are
      if (k < params.hair.stiffened.size()) hp.stiffen = params.hair.stiffened[k];
      HairPlan h = plan_hair(in.doc, in.model, in.characters[k], merge_rig_edits(plans, plan.edit),
                             hp, plan.result.piece_originals, found);
      plan.edit = merge_rig_edits(std::move(plan.edit), std::move(h.edit));
      hair_chains += h.result.chains.size();
      for (const auto& w : h.result.warnings) result.warnings.push_back(w);
      hair[k] = std::move(h.result);
    } else if (!params.hair.hair.empty()) {
      hair[k].matched.assign(params.hair.hair.size(), true); // detect: not planned
    }
    plans = merge_rig_edits(std::move(plans), std::move(plan.edit));
    result.characters.push_back(std::move(plan.result));
    const CharacterResult& r = result.characters.back();
    chains += r.chains.size();
    pieces += r.detection.pieces.size();
    for (const auto& w : r.warnings) result.warnings.push_back(w);
  }
  if (any_hair) result.hair = std::move(hair);
  char torn_ms[64] = "";
  if (result.tear_ms > 0)
    std::snprintf(torn_ms, sizeof torn_ms, " (tearing measured in %.1f ms)", result.tear_ms);
  result.stages.push_back(
      {"rerig", ms_since(t0),
       std::to_string(pieces) + " far pieces, " + std::to_string(chains) + " tail chain(s)" +
           torn_ms + (!any_hair ? "" : ", " + std::to_string(hair_chains) + " hair chain(s)")});
  clear_clip_results(in.characters.size(), result);
  if (chains + hair_chains == 0 || clips.empty()) return {};
  return measure_clips(in, clips, params, plans, hair_chains > 0, skins, result);
}

/// A piece selector that named no piece: Error(Usage) listing the pieces there are.
[[noreturn]] void unknown_piece(const std::string& sel, const std::string& what,
                                const std::vector<CharacterResult>& characters) {
  std::string ids;
  for (std::size_t k = 0; k < characters.size(); ++k) {
    std::string mine;
    for (int id : characters[k].piece_ids) mine += (mine.empty() ? "" : ", ") + std::to_string(id);
    if (characters.size() > 1)
      mine = "character " + std::to_string(k) + ": " + (mine.empty() ? "none" : mine);
    ids += (ids.empty() ? "" : "; ") + mine;
  }
  throw Error(ExitCode::Usage, what + " '" + sel + "' names no piece detection found (pieces: " +
                                   (ids.empty() ? "none" : ids) +
                                   "; the report's characters[].pieces[].id)");
}

/// Every --hair selector must name geometry (or a piece) of some character (Error(Usage)).
void check_hair_selectors(const HairRigParams& p, const std::vector<HairResult>& hair,
                          const std::vector<CharacterResult>& characters) {
  for (std::size_t i = 0; i < p.hair.size(); ++i) {
    bool matched = false;
    for (const auto& h : hair) matched = matched || (i < h.matched.size() && h.matched[i]);
    int id = -1;
    if (!matched && parse_piece_selector(p.hair[i], id))
      unknown_piece(p.hair[i], "--hair", characters);
    require_selected(p.hair[i], "--hair", matched);
  }
}

/// Every --tail / --not-tail / --not-hair selector must name geometry of some character
/// (Error(Usage)).
void check_selectors(const RerigParams& p, const std::vector<CharacterResult>& characters) {
  const std::size_t n = p.tail.size() + p.not_tail.size();
  for (std::size_t i = 0; i < n; ++i) {
    bool matched = false;
    for (const auto& c : characters)
      matched = matched || (i < c.selector_matched.size() && c.selector_matched[i]);
    const bool tail = i < p.tail.size();
    const std::string& sel = tail ? p.tail[i] : p.not_tail[i - p.tail.size()];
    int id = -1;
    if (!matched && parse_piece_selector(sel, id))
      unknown_piece(sel, tail ? "--tail" : "--not-tail", characters);
    require_selected(sel, tail ? "--tail" : "--not-tail", matched);
  }
  for (std::size_t i = 0; i < p.not_hair.size(); ++i) { // --not-hair: the same rule
    bool matched = false;
    for (const auto& c : characters)
      matched = matched || (i < c.not_hair_matched.size() && c.not_hair_matched[i]);
    int id = -1;
    if (!matched && parse_piece_selector(p.not_hair[i], id))
      unknown_piece(p.not_hair[i], "--not-hair", characters);
    require_selected(p.not_hair[i], "--not-hair", matched);
  }
}

/// Are there clips for the tear probe (and later the clip pass) to measure the input by?
bool probed(const std::vector<int>& clips, const RunParams& params) {
  return !clips.empty() && params.rerig.mode != Mode::Detect;
}

/// Per character of the input: a probe of where it tears under the clips (tear_map.h) for the
/// planner's evidence, measuring each focus once (the harm check re-plans with the same one).
/// Empty probes when there is no clip to measure by.
std::vector<TearProbe> tear_probes(const Input& in, const std::vector<int>& clips,
                                   const RunParams& params, InputSkins& skins, RunResult& result) {
  std::vector<TearProbe> out(in.characters.size());
  if (!probed(clips, params)) return out;
  struct Cache {
    std::vector<char> focus;
    TearEvidence tears;
    bool filled = false;
  };
  for (std::size_t k = 0; k < in.characters.size(); ++k) {
    auto cache = std::make_shared<Cache>();
    out[k] = [&in, &params, &skins, &result, clips, k, cache](const std::vector<char>& focus) {
      if (cache->filled && cache->focus == focus) return cache->tears;
      const auto t0 = Clock::now();
      const std::vector<bool> marked(focus.begin(), focus.end());
      const TearMap map = measure_tears(in.doc, in.model, *skins.get(k), clips, marked,
                                        params.stretch, params.threads);
      TearEvidence e;
      e.rest = map.rest_share();
      e.share.assign(map.samples.size(), NAN);
      for (std::size_t v = 0; v < e.share.size(); ++v)
        if (map.samples[v]) e.share[v] = map.share(v);
      *cache = {focus, e, true};
      result.tear_ms += ms_since(t0);
      return e;
    };
  }
  return out;
}

} // namespace

Judged plan_and_judge(const Input& in, const std::vector<int>& clips, const RunParams& params,
                      RunResult& result) {
  std::vector<std::map<int, PieceOverride>> overrides(in.characters.size());
  std::vector<std::map<int, PieceJudge>> verdicts(in.characters.size());
  InputSkins skins(in, probed(clips, params));
  const std::vector<TearProbe> tears = tear_probes(in, clips, params, skins, result);
  const std::size_t stages_before = result.stages.size(), warnings_before = result.warnings.size();
  const bool judged = params.harm_check && params.rerig.mode == Mode::Chain;
  HarmParams harm = params.harm; // the hold step only where the clip pass holds clips
  harm.hold_step = harm.hold_step && params.bake_enabled && params.bake.hold_harmful;
  Judged out;
  for (int attempt = 0;; ++attempt) {
    if (attempt > 0) {
      result.stages.resize(stages_before);
      result.warnings.resize(warnings_before);
      result.characters.clear();
    }
    out.pass = rerig_and_measure(in, clips, params, overrides, tears, skins, out.plans, result);
    if (attempt == 0) check_selectors(params.rerig, result.characters);
    if (attempt == 0) check_hair_selectors(params.hair, result.hair, result.characters);
    if (judged && attempt < kHarmReviews &&
        harm_review(out.pass.judge, result.characters, harm, overrides, verdicts))
      continue;
    if (judged) record_verdicts(verdicts, out.pass.judge, result);
    bool hair = false; // a stage after the clip pass reads the rig: hold it once for them all
    for (const HairResult& h : result.hair) hair = hair || !h.chains.empty();
    if (hair || !vrm_spring_target(in.doc).empty() || !params.html_path.empty())
      out.rig = planned_rig(in.doc, in.model, out.plans, params.threads);
    return out;
  }
}

std::vector<RotationTrack> written_tracks(const Judged& judged, const SpringBakeResult& springs) {
  std::vector<RotationTrack> out;
  for (const auto& character : judged.pass.chains)
    for (const ChainRecord& chain : character)
      for (const BakedClip& b : chain.keys) append_baked_tracks(b, chain.nodes, out);
  for (std::size_t c = 0; c < springs.chains.size() && c < springs.keys.size(); ++c)
    if (springs.chains[c].baked)
      for (const BakedClip& b : springs.keys[c])
        append_baked_tracks(b, springs.chains[c].nodes, out);
  return out;
}

void apply_rerig(Input& in, const Judged& judged, const VrmSpringPlan& vrm, int threads,
                 RunResult& result) {
  std::size_t keyed = 0, spring_keyed = 0;
  for (const auto& character : judged.pass.chains)
    for (const ChainRecord& chain : character) keyed += chain.keys.size();
  for (std::size_t c = 0; c < result.spring_bake.chains.size(); ++c)
    if (c < result.spring_bake.keys.size() && result.spring_bake.chains[c].baked)
      spring_keyed += result.spring_bake.keys[c].size();
  const bool springs = !vrm.target.empty() && !vrm.entries.empty();
  if (judged.plans.empty() && keyed + spring_keyed == 0 && !springs) return;
  const auto t0 = Clock::now();
  apply_rig_edit(in.doc, in.model, judged.plans, threads);
  write_clip_pass(in.doc, judged.pass);
  write_spring_bake(in.doc, result.spring_bake);
  apply_vrm_spring_plan(in.doc, vrm);
  std::size_t vertices = 0;
  for (const PrimitiveWeights& p : judged.plans.primitives) vertices += p.vertices.size();
  result.stages.push_back({"apply", ms_since(t0),
                           std::to_string(judged.plans.nodes.size()) + " nodes, " +
                               std::to_string(vertices) + " vertices re-weighted, " +
                               std::to_string(keyed) + " chain clip(s) and " +
                               std::to_string(spring_keyed) + " spring clip(s) keyed" +
                               (springs ? ", VRM springs appended" : "")});
}

} // namespace retail
