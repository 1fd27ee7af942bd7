// The driver's stages after the re-rig (pipeline_internal.h): the input's VRM springs baked, the
// grown chains exported into them, the --hair head turn, and the judgement that leaves a --hair
// clump as it was when its head turn tears its skin.
#include "app/pipeline_internal.h"

#include "retail/detect/selector.h"
#include "retail/grow/rig_edit.h"
#include "retail/motion/hair_qa.h"
#include "retail/motion/spring_bake.h"
#include "retail/motion/vrm_spring_export.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <utility>

namespace retail {

void hair_qa_stage(const Input& in, const Judged& judged, const RunParams& params,
                   RunResult& result) {
  std::size_t chains = 0;
  for (const HairResult& h : result.hair) chains += h.chains.size();
  if (chains == 0) return;
  auto t0 = Clock::now();
  result.hair_qa.solver = params.bake.hair;
  result.hair_qa.bind = params.bind;
  const PlannedRig& rig = *judged.rig;
  result.hair_head_turn = hair_head_turn(in.doc, rig.model, &rig.held, result.hair, result.hair_qa);
  result.stages.push_back({"head-turn", ms_since(t0),
                           hair_head_turn_summary(result.hair_head_turn, result.hair_qa.turn)});
}

VrmSpringPlan stages_after_rerig(const Input& in, const Judged& judged,
                                 const std::vector<int>& clips, const RunParams& params,
                                 RunResult& result) {
  auto t0 = Clock::now(); // the input's own VRM springs baked into its clips (spring_bake.h)
  SpringBakeParams sb;
  sb.bake = params.bake;
  sb.stretch = params.stretch;
  sb.harm_check = params.harm_check;
  sb.threads = params.threads;
  sb.enabled = params.spring_bake && params.bake_enabled && params.rerig.mode == Mode::Chain;
  result.spring_bake = spring_bake(in.doc, in.model, in.characters, clips, sb);
  const auto& sbw = result.spring_bake.warnings;
  result.warnings.insert(result.warnings.end(), sbw.begin(), sbw.end());
  if (!result.spring_bake.status.empty())
    result.stages.push_back({"spring_bake", ms_since(t0), spring_bake_summary(result.spring_bake)});
  t0 = Clock::now(); // grown chains into the VRM's own springs (vrm_spring_export.h)
  const Model none;  // no VRM target: the export reads no model
  VrmSpringStage vrm = plan_vrm_spring_export(
      in.doc, judged.rig ? judged.rig->model : none, in.characters, result.characters, result.hair,
      result.hair_colliders, params.bake, params.vrm_springs);
  result.vrm_springs = vrm.characters;
  result.warnings.insert(result.warnings.end(), vrm.warnings.begin(), vrm.warnings.end());
  if (!vrm.summary.empty()) result.stages.push_back({"vrm_springs", ms_since(t0), vrm.summary});
  judge_chain_records(in, params, result);
  return std::move(vrm.plan);
}

void judge_chain_records(const Input& in, const RunParams& params, RunResult& result) {
  for (std::size_t k = 0; k < result.characters.size(); ++k) // kinds left as they are
    for (const EarsPair& ears : result.characters[k].ears) {
      if (result.chain_records.size() <= k) result.chain_records.resize(k + 1);
      result.chain_records[k].push_back(ears_record(ears));
    }
  result.chain_verdicts.assign(result.chain_records.size(), {});
  std::size_t failed = 0;
  for (std::size_t k = 0; k < result.chain_records.size(); ++k) {
    const double height = k < in.characters.size() ? in.characters[k].height : 0;
    std::size_t hair = 0;
    for (ChainRecord& chain : result.chain_records[k]) {
      if (chain.kind == ChainKind::Hair && k < result.hair_head_turn.size()) {
        const auto& turned = result.hair_head_turn[k].chains;
        if (hair < turned.size()) {
          chain.head_turn_edge_p99_percent = turned[hair].edge_max_p99_percent;
          chain.head_turn_penetration = turned[hair].penetration_m;
        }
        ++hair;
      }
      result.chain_verdicts[k].push_back(judge_chain(chain, height, result.chain_targets));
      failed += result.chain_verdicts[k].back().verdict == "fail";
    }
  }
  for (const auto& f : evaluate_chain_fail(params.fail_on, failed)) result.failures.push_back(f);
}

std::vector<HairLeftIn> torn_hair(const RunResult& result, const RunParams& params) {
  std::vector<HairLeftIn> out;
  if (!params.harm_check) return out;
  for (std::size_t k = 0; k < result.hair.size() && k < result.hair_head_turn.size(); ++k) {
    const HairResult& h = result.hair[k];
    const auto& turned = result.hair_head_turn[k].chains;
    for (std::size_t i = 0; i < h.chains.size() && i < turned.size(); ++i) {
      const double p99 = turned[i].edge_max_p99_percent;
      const double limit = h.chains[i].found ? std::min(params.harm.hair_torn_p99_percent,
                                                        params.harm.found_hair_torn_p99_percent)
                                             : params.harm.hair_torn_p99_percent;
      if (!(p99 > limit)) continue;
      char why[200];
      std::snprintf(why, sizeof why,
                    "the head turn tears its skin (edge-max p99 %.4g%%, above %.4g%%; on the "
                    "head as it was, about 0%%)",
                    p99, limit);
      out.push_back({k, {h.chains[i].selector, h.chains[i].found, h.chains[i].vertices, why}, p99});
    }
  }
  return out;
}

RunParams without_hair(const RunParams& params, const std::vector<HairLeftIn>& left) {
  RunParams out = params;
  auto& sel = out.hair.hair;
  for (const HairLeftIn& l : left) {
    int id = -1;
    if (l.left.found && parse_piece_selector(l.left.selector, id)) {
      auto& by_character = out.hair.left_found;
      if (by_character.size() <= l.character) by_character.resize(l.character + 1);
      by_character[l.character][id] = l.left.reason;
      continue;
    }
    sel.erase(std::remove(sel.begin(), sel.end(), l.left.selector), sel.end());
  }
  return out;
}

namespace {

using HairKey = std::pair<std::size_t, std::string>; ///< character, selector

/// The notes for the chains of `result` kept stiffer, each with what it tore at its own k
/// (`own`: the clumps torn_hair found at their own k).
void note_stiffened(const std::map<HairKey, HairLeftIn>& own, RunResult& result) {
  for (std::size_t k = 0; k < result.hair.size(); ++k)
    for (std::size_t i = 0; i < result.hair[k].chains.size(); ++i) {
      const HairChainResult& c = result.hair[k].chains[i];
      const auto was = own.find({k, c.selector});
      if (c.stiffness_scale == 1 || was == own.end()) continue;
      double now = NAN;
      if (k < result.hair_head_turn.size() && i < result.hair_head_turn[k].chains.size())
        now = result.hair_head_turn[k].chains[i].edge_max_p99_percent;
      char note[240];
      std::snprintf(note, sizeof note,
                    "%s%s: the head turn tore its skin at its own k (edge-max p99 %.4g%%): kept "
                    "stiffer, k x %.4g (%.4g%%)",
                    c.found ? "hair " : "--hair ", c.selector.c_str(), was->second.p99_percent,
                    c.stiffness_scale, now);
      result.notes.push_back(note);
    }
}

} // namespace

HairTurns judge_hair_turns(const Input& in, const std::vector<int>& clips, const RunParams& params,
                           const RunResult& before, Judged& judged, RunResult& result) {
  HairTurns out{params, torn_hair(result, params)};
  auto replan = [&] { // the run planned again from `before` on out.used
    result = before;
    judged = plan_and_judge(in, clips, out.used, result);
    hair_qa_stage(in, judged, out.used, result);
    return torn_hair(result, out.used);
  };
  std::map<HairKey, HairLeftIn> own; // each torn clump as torn_hair found it at its own k
  for (const HairLeftIn& t : out.torn) own.emplace(HairKey{t.character, t.left.selector}, t);
  double factor = 1; // the last factor tried
  if (std::isnan(params.hair.stiffness_per_s2))
    for (double f : params.harm.hair_stiffer) {
      if (out.torn.empty()) break;
      for (const HairLeftIn& t : out.torn) {
        auto& by = out.used.hair.stiffened;
        if (by.size() <= t.character) by.resize(t.character + 1);
        by[t.character][t.left.selector] = factor = f;
      }
      out.torn = replan();
    }
  if (factor != 1)
    for (HairLeftIn& t : out.torn) { // said at its own k, and at the stiffest tried
      const auto first = own.find({t.character, t.left.selector});
      char tried[120];
      std::snprintf(tried, sizeof tried, "; stiffer, k x %.4g, %.4g%%", factor, t.p99_percent);
      t.left.reason = (first != own.end() ? first->second.left.reason : t.left.reason) + tried;
    }
  if (!out.torn.empty()) {
    out.used = without_hair(out.used, out.torn);
    replan();
  }
  note_stiffened(own, result);
  return out;
}

void record_hair_left(const std::vector<HairLeftIn>& left, std::size_t characters,
                      RunResult& result) {
  if (result.hair.size() < characters) result.hair.resize(characters);
  for (const HairLeftIn& l : left) {
    result.hair[l.character].left.push_back(l.left);
    result.warnings.push_back((l.left.found ? "hair " : "--hair ") + l.left.selector + ": " +
                              l.left.reason + ": left as it was");
  }
}

} // namespace retail
