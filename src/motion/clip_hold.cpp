// clip_pass's held clips (clip_pass_internal.h): the output judged in one clip, and a chain held
// at rest in a clip where its spring would tear skin and mend none.
#include "motion/clip_pass_internal.h"

#include <utility>

namespace retail {
namespace clip_detail {

OutputJudged judge_output(const CharacterWork& w, const std::vector<ClipStretch>& in_rigs,
                          const ClipSampler& input_clip, const ClipSampler& output_clip, int clip,
                          StretchScratch& scratch) {
  OutputJudged out;
  out.output_rig = w.output_rig->measure(output_clip, clip, scratch)[0];
  for (const auto& tiers : w.judge) {
    out.judge.emplace_back();
    out.edge_net.emplace_back();
    for (std::size_t t = 0; t < 2; ++t) {
      std::vector<ClipStretch> own_in;
      ClipStretch own_out;
      if (!tiers[t].shared) {
        own_in = tiers[t].input->measure(input_clip, clip, scratch);
        own_out = tiers[t].output->measure(output_clip, clip, scratch)[0];
      }
      const std::vector<ClipStretch>& ins = tiers[t].shared ? in_rigs : own_in;
      const ClipStretch& result = tiers[t].shared ? out.output_rig : own_out;
      out.judge.back()[t] = {count_flips(ins[0].tail_torn, result.tail_torn),
                             count_flips(ins[0].tail_torn, ins[1].tail_torn)};
      const StretchMeter& meter = tiers[t].shared ? *w.input_rigs : *tiers[t].input;
      std::vector<std::int32_t>& net = out.edge_net.back()[t];
      net.assign(meter.tail_edges(0).size(), 0);
      add_edge_net_harm(ins[0].tail_torn, result.tail_torn, net.size(), net);
    }
  }
  std::vector<std::uint8_t>().swap(out.output_rig.tail_torn);
  return out;
}

/// The output's clip: the input's channels, then every chain's baked keys as the file will hold
/// them (works', then hair's).
ClipSampler output_sampler(const ClipPassInput& in, const Rigged& rigged,
                           const std::vector<CharacterWork>& works,
                           const std::vector<HairWork>& hair_works, const ClipOutcome& out,
                           int clip) {
  ClipSampler sampler(*in.doc, rigged.model, clip);
  for (std::size_t wi = 0; wi < works.size(); ++wi)
    for (std::size_t j = 0; j < works[wi].chains.size(); ++j)
      add_baked_tracks(out.baked[wi][j], works[wi].chains[j], sampler);
  for (std::size_t hi = 0; hi < hair_works.size(); ++hi)
    for (std::size_t j = 0; j < hair_works[hi].chains.size(); ++j)
      add_baked_tracks(out.hair[hi][j], hair_works[hi].chains[j], sampler);
  return sampler;
}

namespace {

/// Judged chain j's edge-samples (both tiers) newly torn, healed and torn on the output.
std::size_t newly_torn(const OutputJudged& o, std::size_t j) {
  return o.judge[j][0][0].newly_torn + o.judge[j][1][0].newly_torn;
}
std::size_t healed(const OutputJudged& o, std::size_t j) {
  return o.judge[j][0][0].healed + o.judge[j][1][0].healed;
}
std::size_t output_torn(const OutputJudged& o, std::size_t j) {
  return o.judge[j][0][0].output_torn + o.judge[j][1][0].output_torn;
}
/// Whether judged chain j passes the harm check's rule in the clip (harm.h's harmless_clip).
bool harmless(const OutputJudged& o, std::size_t j, const HarmParams& harm) {
  return harmless_clip(o.judge[j][0][0], o.judge[j][1][0], o.output_rig.body.torn_percent, harm);
}

/// The chain held at rest over `spring`'s key times: every bone not authored keyed at its bind
/// local rotation (the tail carried rigidly by its anchor, as the input carried it).
BakedClip held_at_rest(const BakedClip& spring, const ChainBake& chain, const Model& model) {
  BakedClip held = spring;
  held.bake.held = true;
  held.bake.converged = true;
  held.bake.tip_swing_deg = 0;
  held.bake.loop_closure_deg = 0;
  held.bake.seam_spread_deg = 0;
  held.bake.floor_penetration = 0;
  held.bake.collider_depth = 0;
  held.bake.collider_contact_share = 0;
  held.bake.skin_try = 0; // its skin depth is measured again (measure_held_skin)
  for (std::size_t b = 0; b < held.values.size(); ++b) {
    if (b < held.authored.size() && held.authored[b]) continue;
    const auto& r = model.nodes[std::size_t(chain.nodes[b])].rotation;
    for (std::size_t k = 0; k + 3 < held.values[b].size(); k += 4)
      for (std::size_t c = 0; c < 4; ++c) held.values[b][k + c] = float(r[c]);
  }
  return held;
}

} // namespace

void hold_where_harmful(const ClipPassInput& in, const Rigged& rigged,
                        const std::vector<CharacterWork>& works,
                        const std::vector<HairWork>& hair_works, std::size_t wi, int clip,
                        const ClipSampler& input_clip, const HarmParams& harm, OutputJudged& m,
                        ClipOutcome& out, StretchScratch& scratch) {
  const CharacterWork& w = works[wi];
  const CharacterResult& cr = (*in.results)[w.character];
  std::size_t b = 0; // the chain's index among the baked (a rigid fallback has no bones)
  for (std::size_t j = 0; j < w.judge.size() && j < cr.chains.size(); ++j) {
    if (cr.chains[j].nodes.empty()) continue;
    const std::size_t bi = b++;
    if (bi >= w.chains.size() || w.chains[bi].arc()) continue;
    const bool mends_none = healed(m, j) == 0 && newly_torn(m, j) > 0;
    const bool fails = cr.chains[j].hold_harmful && !harmless(m, j, harm); // the hold step
    if (!mends_none && !fails) continue;
    BakedClip spring = out.baked[wi][bi];
    out.baked[wi][bi] = held_at_rest(spring, w.chains[bi], rigged.model);
    out.baked[wi][bi].bake.spring_newly_torn = newly_torn(m, j);
    const ClipSampler held_clip = output_sampler(in, rigged, works, hair_works, out, clip);
    OutputJudged h = judge_output(w, out.input_rigs[wi], input_clip, held_clip, clip, scratch);
    if ((newly_torn(h, j) < newly_torn(m, j) && output_torn(h, j) <= output_torn(m, j)) ||
        (fails && harmless(h, j, harm)))
      m = std::move(h);
    else
      out.baked[wi][bi] = std::move(spring);
  }
}

void warn_held(const std::vector<ClipBake>& bakes, const ChainBake& chain, bool hold_step,
               std::vector<std::string>& warnings) {
  std::string clips;
  std::size_t count = 0;
  for (const ClipBake& b : bakes)
    if (b.held)
      clips += std::string(count++ ? ", '" : "'") + b.name + "' (" +
               std::to_string(b.spring_newly_torn) + ")";
  if (count == 0) return;
  if (hold_step) {
    warnings.push_back("chain " + chain.bones.front() + ": held at rest in " + clips +
                       ": there its spring would newly tear that many edge-samples, past what the "
                       "harm check allows or mending none, so the clip carries the tail rigidly "
                       "(the harm check's hold step; --no-hold: no such step)");
    return;
  }
  warnings.push_back("chain " + chain.bones.front() + ": held at rest in " + clips +
                     ": there its spring would newly tear that many edge-samples and mend none, so "
                     "the clip carries the tail rigidly, as the input did (--no-hold: keep the "
                     "spring's motion)");
}

} // namespace clip_detail
} // namespace retail
