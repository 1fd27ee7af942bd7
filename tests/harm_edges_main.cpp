// harm_edges ORIGINAL|prims:MESH/P,...|NAME.truth.json INPUT OUTPUT: where a re-rig newly tears or
// heals. Per edge with an end whose influences changed, per clip and sample, torn on INPUT vs
// OUTPUT; summed by the edge's class (both ends in the truth, one end, none) and printed as CSV per
// edge on stdout (diagnostics).
#include "retail/app/pipeline.h"
#include "retail/qa/skin_sampler.h"
#include "retail/rig/animation.h"
#include "support.h"
#include "tail_eval.h"

#include <cstdio>
#include <map>
#include <string>

namespace {

std::vector<std::map<int, double>> influences(const retail::Input& in) {
  const auto& c = in.characters.at(0);
  retail::WeldedMesh m = retail::weld_character(in.doc, in.model, c, retail::WeldParams{});
  retail::SkinWeights sw = retail::read_skin_weights(in.doc, in.model, c, m);
  std::vector<std::map<int, double>> out(sw.joint.size());
  for (std::size_t v = 0; v < sw.joint.size(); ++v)
    for (int k = 0; k < retail::SkinWeights::kMax; ++k)
      if (sw.joint[v][std::size_t(k)] >= 0 && sw.weight[v][std::size_t(k)] > 0)
        out[v][c.joints[std::size_t(sw.joint[v][std::size_t(k)])]] += sw.weight[v][std::size_t(k)];
  return out;
}

} // namespace

int main(int argc, char** argv) {
  if (argc != 4) return 1;
  const std::vector<bool> truth = test::read_tail_truth(argv[1], argv[2]).vertices;
  std::vector<retail::StageStat> st;
  retail::Input a = retail::load_input(argv[2], retail::BindParams{}, st),
                b = retail::load_input(argv[3], retail::BindParams{}, st);
  auto wa = influences(a), wb = influences(b);
  retail::SkinSampler sa(a.doc, a.model, a.characters.at(0)),
      sb(b.doc, b.model, b.characters.at(0));
  auto edges = retail::mesh_edges(a.doc, a.model, sa);
  std::vector<bool> changed(wa.size());
  for (std::size_t v = 0; v < wa.size(); ++v) {
    changed[v] = wa[v].size() != wb[v].size();
    for (auto& [n, w] : wb[v]) changed[v] = changed[v] || std::abs(wa[v][n] - w) > 2e-3;
  }
  auto bones = [&](const retail::Model& model, const std::map<int, double>& w) {
    std::string out;
    for (auto& [n, x] : w) {
      if (x < 0.05) continue;
      char buf[96];
      std::snprintf(buf, sizeof buf, "%s%s:%.2f", out.empty() ? "" : " ",
                    model.nodes[std::size_t(n)].name.c_str(), x);
      out += buf;
    }
    return out;
  };
  std::printf("a,b,class,clip,newly,healed,ax,ay,az,a_input,a_output\n");
  const auto& bind = sa.bind();
  for (std::size_t clip = 0; clip < a.model.animations.size(); ++clip) {
    retail::ClipSampler ca(a.doc, a.model, int(clip)), cb(b.doc, b.model, int(clip));
    std::vector<int> newly(edges.size()), healed(edges.size());
    std::size_t judged = 0, judged_cls[3] = {0, 0, 0};
    for (int s = 0; s < 24; ++s) {
      double t = ca.duration() * s / 23.0;
      auto pa = sa.pose(retail::compose_world(a.model, ca.locals(a.model, t)));
      auto pb = sb.pose(retail::compose_world(b.model, cb.locals(b.model, t)));
      for (std::size_t k = 0; k < edges.size(); ++k) {
        auto [u, v] = edges[k];
        if (!changed[std::size_t(u)] && !changed[std::size_t(v)]) continue;
        ++judged;
        ++judged_cls[int(truth[std::size_t(u)]) + int(truth[std::size_t(v)])];
        double l0 = (bind[std::size_t(u)] - bind[std::size_t(v)]).norm();
        double ra = (pa[std::size_t(u)] - pa[std::size_t(v)]).norm() / l0,
               rb = (pb[std::size_t(u)] - pb[std::size_t(v)]).norm() / l0;
        bool ta = ra > 1.5 || ra<0.67, tb = rb> 1.5 || rb < 0.67;
        newly[k] += tb && !ta;
        healed[k] += ta && !tb;
      }
    }
    std::fprintf(stderr, "clip %zu %s judged %zu %zu %zu %zu\n", clip,
                 a.model.animations[clip].name.c_str(), judged, judged_cls[0], judged_cls[1],
                 judged_cls[2]);
    for (std::size_t k = 0; k < edges.size(); ++k) {
      if (!newly[k] && !healed[k]) continue;
      auto [u, v] = edges[k];
      int cls = int(truth[std::size_t(u)]) + int(truth[std::size_t(v)]);
      std::printf("%d,%d,%d,%zu,%d,%d,%.4f,%.4f,%.4f,%s,%s\n", u, v, cls, clip, newly[k], healed[k],
                  bind[std::size_t(u)].x(), bind[std::size_t(u)].y(), bind[std::size_t(u)].z(),
                  bones(a.model, wa[std::size_t(u)]).c_str(),
                  bones(b.model, wb[std::size_t(u)]).c_str());
    }
  }
  return 0;
}
