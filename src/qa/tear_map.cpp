// Where the input tears, on the skin asked about (tear_map.h).
#include "retail/qa/tear_map.h"

#include "retail/base/parallel.h"
#include "retail/rig/animation.h"

#include <algorithm>
#include <cmath>

namespace retail {
namespace {

/// The edges measured: those with an end in `focus` (kind 0), then a deterministic sample of
/// the rest (kind 1): every stride-th run of consecutive edges, at most `most` edges in all.
struct Measured {
  std::vector<std::pair<int, int>> ends;
  std::vector<double> inv_rest_sq; ///< 1 / bind length^2 (finite: degenerate edges left out)
  std::vector<char> kind;
  std::vector<int> skinned; ///< the vertices they touch that are skinned (representatives)
  std::vector<std::pair<int, int>> copies; ///< (vertex, its representative): posed by copying
};

Measured choose_edges(const SkinSampler& skin, const std::vector<std::pair<int, int>>& edges,
                      const std::vector<bool>& focus, std::size_t most) {
  const auto& bind = skin.bind();
  auto in_focus = [&](int v) { return std::size_t(v) < focus.size() && focus[std::size_t(v)]; };
  std::size_t rest = 0;
  for (const auto& e : edges) rest += !in_focus(e.first) && !in_focus(e.second);
  const std::size_t run = std::max<std::size_t>(1, most / 1024);
  const std::size_t runs = (rest + run - 1) / run, kept = std::max<std::size_t>(1, most / run);
  const std::size_t stride = most == 0 || rest <= most ? 1 : (runs + kept - 1) / kept;
  Measured m;
  std::vector<char> touched(skin.size(), 0);
  std::size_t seen = 0;
  for (const auto& e : edges) {
    const double inv =
        1.0 / (bind[std::size_t(e.first)] - bind[std::size_t(e.second)]).squaredNorm();
    const bool focused = in_focus(e.first) || in_focus(e.second);
    if (!focused && (seen++ / run) % stride != 0) continue;
    if (!std::isfinite(inv)) continue;
    m.ends.push_back(e);
    m.inv_rest_sq.push_back(inv);
    m.kind.push_back(focused ? 0 : 1);
    touched[std::size_t(e.first)] = touched[std::size_t(e.second)] = 1;
  }
  std::vector<int> needed;
  for (std::size_t v = 0; v < touched.size(); ++v)
    if (touched[v]) needed.push_back(int(v));
  // Vertices split at seams and flat-shaded corners pose to the same bits: each distinct one is
  // skinned once and copied to the others.
  SkinSampler::Distinct distinct = skin.distinct(needed);
  m.skinned = std::move(distinct.skinned);
  m.copies = std::move(distinct.copies);
  return m;
}

} // namespace

TearMap measure_tears(const Document& doc, const Model& model, const SkinEdges& skin_edges,
                      const std::vector<int>& clips, const std::vector<bool>& focus,
                      const StretchParams& params, int threads) {
  params.validate();
  const SkinSampler& skin = skin_edges.skin;
  TearMap out;
  out.torn.assign(skin.size(), 0);
  out.samples.assign(skin.size(), 0);
  if (clips.empty()) return out;
  const Measured m = choose_edges(skin, skin_edges.edges, focus, params.max_body_edges);
  const std::vector<int> slots = skin.slots_used(&m.skinned);
  const double above = params.torn_above * params.torn_above,
               below = params.torn_below * params.torn_below;
  std::vector<std::vector<std::uint32_t>> per_clip(clips.size()); // torn samples per edge
  parallel_for_workers(clips.size(), threads, [&](std::size_t c, std::size_t) {
    const ClipSampler sampler(doc, model, clips[c]);
    std::vector<std::uint32_t>& torn = per_clip[c];
    torn.assign(m.ends.size(), 0);
    std::vector<Eigen::Vector3d> p;
    for (int s = 0; s < params.samples; ++s) {
      const double t = sampler.duration() * s / (params.samples - 1);
      skin.pose_into(compose_world(model, sampler.locals(model, t)), &m.skinned, p, true, &slots);
      for (const auto& [v, r] : m.copies) p[std::size_t(v)] = p[std::size_t(r)];
      for (std::size_t k = 0; k < m.ends.size(); ++k) {
        double r =
            (p[std::size_t(m.ends[k].first)] - p[std::size_t(m.ends[k].second)]).squaredNorm() *
            m.inv_rest_sq[k];
        if (!(r == r)) r = INFINITY;
        torn[k] += (r >= above || r < below) ? 1u : 0u;
      }
    }
  });
  const std::uint32_t samples = std::uint32_t(params.samples) * std::uint32_t(clips.size());
  for (std::size_t k = 0; k < m.ends.size(); ++k) {
    std::uint32_t t = 0;
    for (const auto& torn : per_clip) t += torn[k];
    if (m.kind[k] == 1) {
      out.rest_torn += t, out.rest_samples += samples;
      continue;
    }
    for (int v : {m.ends[k].first, m.ends[k].second})
      out.torn[std::size_t(v)] += t, out.samples[std::size_t(v)] += samples;
  }
  return out;
}

} // namespace retail
