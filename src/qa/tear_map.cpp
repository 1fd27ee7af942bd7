// Where the input tears, vertex by vertex (tear_map.h).
#include "retail/qa/tear_map.h"

#include "retail/base/parallel.h"
#include "retail/rig/animation.h"

namespace retail {

std::vector<double> vertex_tear_share(const Document& doc, const Model& model,
                                      const SkinSampler& skin, const std::vector<int>& clips,
                                      const StretchParams& params, int threads) {
  std::vector<double> share(skin.size(), 0.0);
  if (clips.empty()) return share;
  const std::vector<std::pair<int, int>> edges = mesh_edges(doc, model, skin);
  const std::vector<bool> all(skin.size(), true);
  const StretchMeter meter({{&model, &skin, false, true}}, edges, all, params);
  // The meter leaves degenerate edges out of its mask: keep the measured ones, in order.
  const auto& bind = skin.bind();
  std::vector<std::pair<int, int>> measured;
  for (const auto& e : edges)
    if (std::isfinite(1.0 /
                      (bind[std::size_t(e.first)] - bind[std::size_t(e.second)]).squaredNorm()))
      measured.push_back(e);
  std::vector<std::vector<std::uint32_t>> torn(clips.size());
  std::vector<StretchScratch> scratch(std::min(std::size_t(worker_count(threads)), clips.size()));
  parallel_for_workers(clips.size(), threads, [&](std::size_t c, std::size_t worker) {
    const ClipSampler sampler(doc, model, clips[c]);
    const ClipStretch cs = meter.measure(sampler, clips[c], scratch[worker])[0];
    std::vector<std::uint32_t>& mine = torn[c];
    mine.assign(measured.size(), 0);
    const std::size_t n = measured.size();
    for (std::size_t i = 0; i < cs.tail_torn.size(); ++i) mine[i % n] += cs.tail_torn[i];
  });
  std::vector<double> seen(skin.size(), 0.0);
  const double samples = double(params.samples) * double(clips.size());
  for (std::size_t k = 0; k < measured.size(); ++k) {
    double t = 0;
    for (const auto& per_clip : torn) t += per_clip[k];
    for (int v : {measured[k].first, measured[k].second}) {
      share[std::size_t(v)] += t;
      seen[std::size_t(v)] += samples;
    }
  }
  for (std::size_t v = 0; v < share.size(); ++v) share[v] = seen[v] > 0 ? share[v] / seen[v] : 0;
  return share;
}

} // namespace retail
