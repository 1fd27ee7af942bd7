// The edge-stretch heat map: per vertex, the worst ratio of its edges over a clip (heat_map.h).
#include "retail/qa/heat_map.h"

#include "retail/base/error.h"
#include "retail/base/parallel.h"
#include "retail/qa/stretch.h"
#include "retail/rig/animation.h"

#include <algorithm>
#include <cmath>

namespace retail {

std::vector<double> worst_vertex_ratios(const Document& doc, const Model& model,
                                        const SkinSampler& skin,
                                        const std::vector<std::pair<int, int>>& edges, int clip,
                                        int samples, const std::vector<RotationTrack>* tracks) {
  const std::size_t n = skin.size();
  const auto& bind = skin.bind();
  std::vector<double> rest(edges.size());
  for (std::size_t k = 0; k < edges.size(); ++k)
    rest[k] = (bind[std::size_t(edges[k].first)] - bind[std::size_t(edges[k].second)]).norm();
  std::vector<double> hi(n, -INFINITY), lo(n, INFINITY);
  ClipSampler sampler(doc, model, clip);
  if (tracks)
    for (const RotationTrack& t : *tracks)
      if (t.clip == clip) sampler.add_rotation_track(t.node, t.times, t.xyzw);
  std::vector<Eigen::Vector3d> pos;
  for (int i = 0; i < samples; ++i) {
    const double t = sampler.duration() * double(i) / double(samples - 1);
    skin.pose_into(compose_world(model, sampler.locals(model, t)), nullptr, pos);
    for (std::size_t k = 0; k < edges.size(); ++k) {
      if (!(rest[k] > 0) || !std::isfinite(rest[k])) continue; // degenerate at bind: no ratio
      const std::size_t a = std::size_t(edges[k].first), b = std::size_t(edges[k].second);
      double r = (pos[a] - pos[b]).norm() / rest[k];
      if (std::isnan(r)) r = INFINITY; // a pose beyond double range: infinitely stretched
      hi[a] = std::max(hi[a], r), hi[b] = std::max(hi[b], r);
      lo[a] = std::min(lo[a], r), lo[b] = std::min(lo[b], r);
    }
  }
  std::vector<double> worst(n, 1.0);
  for (std::size_t v = 0; v < n; ++v) {
    if (hi[v] < lo[v]) continue; // on no measured edge
    // Farther from 1 on a log scale: hi against 1 / lo, i.e. hi * lo >= 1 (ties: the stretch).
    worst[v] = hi[v] * lo[v] >= 1 ? hi[v] : lo[v];
  }
  return worst;
}

std::vector<CharacterHeat> heat_map(const Document& doc, const Model& model,
                                    const std::vector<Character>& characters,
                                    const std::vector<int>& clips, int samples, int threads,
                                    const HeldSkins* held,
                                    const std::vector<RotationTrack>* tracks) {
  if (samples < 2) throw Error(ExitCode::Usage, "the heat map needs at least 2 samples per clip");
  std::vector<CharacterHeat> out;
  for (const Character& c : characters) {
    const SkinSampler skin(doc, model, c, held);
    const std::vector<std::pair<int, int>> edges = mesh_edges(doc, model, skin);
    CharacterHeat heat;
    heat.sources = skin.sources();
    heat.worst.resize(clips.size());
    parallel_for(clips.size(), threads, [&](std::size_t i) {
      heat.worst[i] = worst_vertex_ratios(doc, model, skin, edges, clips[i], samples, tracks);
    });
    out.push_back(std::move(heat));
  }
  return out;
}

std::uint8_t heat_code(double ratio) {
  if (std::isnan(ratio)) return 128;
  if (!(ratio > 0)) return 0;
  const double code = std::round(128.0 + 64.0 * std::log2(ratio));
  return std::uint8_t(std::min(255.0, std::max(0.0, code)));
}

double heat_ratio(std::uint8_t code) {
  return std::exp2((double(code) - 128.0) / 64.0);
}

} // namespace retail
