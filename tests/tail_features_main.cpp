// tail_features TRUTH INPUT: per welded vertex of INPUT's first character, the evidence detection
// can read (skeleton distance, weights against the bones they name, left/right mixing, tearing
// under the input's own clips) beside the truth (tests/tail_eval.h), as CSV on stdout. For the
// sweeps behind detection's thresholds (bench/, docs/detection.md).
#include "retail/app/pipeline.h"
#include "retail/detect/detect.h"
#include "retail/qa/skin_sampler.h"
#include "retail/rig/animation.h"
#include "support.h"
#include "tail_eval.h"

#include <cstdio>
#include <iostream>
#include <sstream>

namespace {

/// Per joint: 0 left, 1 right (a leg or arm role at or above it), -1 neither.
std::vector<int> joint_sides(const retail::Character& c) {
  const retail::Roles& r = c.roles;
  std::vector<int> side(c.joints.size(), -1);
  for (std::size_t j = 0; j < c.joints.size(); ++j)
    for (int k = int(j); k >= 0 && side[j] < 0; k = c.parent[std::size_t(k)]) {
      int n = c.joints[std::size_t(k)];
      for (int s = 0; s < 2; ++s)
        if (n == r.upper_leg[s] || n == r.lower_leg[s] || n == r.foot[s] || n == r.shoulder[s] ||
            n == r.upper_arm[s] || n == r.lower_arm[s] || n == r.hand[s])
          side[j] = s;
    }
  return side;
}

/// Tearing under the input's clips (24 samples each): per original vertex, its torn edge-samples
/// (`torn`) and edge-samples (`seen`).
void input_tears(const retail::Input& in, const retail::Character& c, std::vector<double>& torn,
                 std::vector<double>& seen) {
  retail::SkinSampler skin(in.doc, in.model, c);
  auto edges = retail::mesh_edges(in.doc, in.model, skin);
  torn.assign(skin.size(), 0);
  seen.assign(skin.size(), 0);
  const auto& bind = skin.bind();
  for (std::size_t a = 0; a < in.model.animations.size(); ++a) {
    retail::ClipSampler clip(in.doc, in.model, int(a));
    for (int s = 0; s < 24; ++s) {
      double t = clip.duration() * s / 23.0;
      auto world = retail::compose_world(in.model, clip.locals(in.model, t));
      auto pos = skin.pose(world);
      for (const auto& [u, v] : edges) {
        double b = (bind[std::size_t(u)] - bind[std::size_t(v)]).norm();
        if (!(b > 0)) continue;
        double r = (pos[std::size_t(u)] - pos[std::size_t(v)]).norm() / b;
        double bad = r > 1.5 || r < 0.67;
        torn[std::size_t(u)] += bad, torn[std::size_t(v)] += bad;
        seen[std::size_t(u)] += 1, seen[std::size_t(v)] += 1;
      }
    }
  }
}

/// Per joint: the median distance to its segments of the welded vertices it weighs most (its
/// skin radius; 0 for a joint that weighs no vertex most), so a vertex's distance to its weighted
/// bones can be read against it.
std::vector<double> joint_skin_radii(const retail::WeldedMesh& m, const retail::SkinWeights& sw,
                                     const retail::Character& c, const retail::Detection& det,
                                     const std::vector<std::vector<int>>& of_joint,
                                     const std::vector<int>& first) {
  auto joint_distance = [&](const Eigen::Vector3d& p, int j) {
    double d = INFINITY;
    for (int s : of_joint[std::size_t(j)])
      d = std::min(d, retail::segment_distance(p, det.segments[std::size_t(s)].a,
                                               det.segments[std::size_t(s)].b));
    return std::isfinite(d) ? d : (p - c.bind_position(j)).norm();
  };
  std::vector<std::vector<double>> dominated(c.joints.size());
  for (std::size_t w = 0; w < m.size(); ++w) {
    if (first[w] < 0) continue;
    int best = -1;
    double bw = 0;
    for (int k = 0; k < retail::SkinWeights::kMax; ++k) {
      int j = sw.joint[std::size_t(first[w])][std::size_t(k)];
      double wt = sw.weight[std::size_t(first[w])][std::size_t(k)];
      if (j >= 0 && wt > bw) bw = wt, best = j;
    }
    if (best >= 0)
      dominated[std::size_t(best)].push_back(
          joint_distance(m.welded.row(Eigen::Index(w)).transpose(), best));
  }
  std::vector<double> radius(c.joints.size(), 0);
  for (std::size_t j = 0; j < dominated.size(); ++j) {
    auto& d = dominated[j];
    if (d.empty()) continue;
    std::nth_element(d.begin(), d.begin() + std::ptrdiff_t(d.size() / 2), d.end());
    radius[j] = d[d.size() / 2];
  }
  return radius;
}

} // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: tail_features ORIGINAL|prims:MESH/P,...|NAME.truth.json INPUT\n");
    return 1;
  }
  try {
    const std::string input = argv[2];
    const std::vector<bool> truth = test::read_tail_truth(argv[1], input).vertices;
    std::vector<retail::StageStat> st;
    const retail::Input in = retail::load_input(input, retail::BindParams{}, st);
    const retail::Character& c = in.characters.at(0);
    retail::WeldedMesh m = retail::weld_character(in.doc, in.model, c, retail::WeldParams{});
    retail::SkinWeights sw = retail::read_skin_weights(in.doc, in.model, c, m);
    const retail::DetectParams dp;
    const retail::Detection det = retail::detect_pieces(in.model, c, m, sw, dp);
    const auto mis = retail::misweighted_skin(m, sw, c, det.segments, det.field, dp);
    std::vector<std::string> region = retail::joint_regions(c);
    std::vector<double> legs = retail::leg_share(m, sw, region);
    std::vector<int> side = joint_sides(c);
    std::vector<int> first = retail::first_originals(m);
    std::vector<std::vector<int>> of_joint(c.joints.size());
    for (std::size_t s = 0; s < det.segments.size(); ++s)
      if (det.segments[s].joint >= 0)
        of_joint[std::size_t(det.segments[s].joint)].push_back(int(s));
    std::vector<double> torn, seen;
    input_tears(in, c, torn, seen);
    std::vector<char> truth_w(m.size(), 0);
    std::vector<double> torn_w(m.size(), 0), seen_w(m.size(), 0);
    for (std::size_t v = 0; v < truth.size() && v < m.weld_of.size(); ++v) {
      truth_w[std::size_t(m.weld_of[v])] |= truth[v];
      torn_w[std::size_t(m.weld_of[v])] += torn[v];
      seen_w[std::size_t(m.weld_of[v])] += seen[v];
    }
    std::vector<int> piece(m.size(), -1);
    std::vector<std::string> decision(det.pieces.size());
    for (const auto& p : det.pieces) {
      decision[std::size_t(p.id)] = retail::decision_name(p.decision);
      for (int v : p.vertices) piece[std::size_t(v)] = p.id;
    }
    const double H = c.height;
    const std::vector<double> skin_radius = joint_skin_radii(m, sw, c, det, of_joint, first);
    std::printf("w,x,y,z,truth,dist_h,far,t,seg_region,wbd_h,misweighted,legs,left,right,mix,"
                "top_region,torn,piece,decision,wbd_rel\n");
    for (std::size_t w = 0; w < m.size(); ++w) {
      const Eigen::Vector3d p = m.welded.row(Eigen::Index(w)).transpose();
      double wbd = 0, left = 0, right = 0, top = 0, radius = 0;
      std::string top_region = "none";
      if (first[w] >= 0)
        for (int k = 0; k < retail::SkinWeights::kMax; ++k) {
          int j = sw.joint[std::size_t(first[w])][std::size_t(k)];
          double wt = sw.weight[std::size_t(first[w])][std::size_t(k)];
          if (j < 0 || !(wt > 0)) continue;
          double d = INFINITY;
          for (int s : of_joint[std::size_t(j)])
            d = std::min(d, retail::segment_distance(p, det.segments[std::size_t(s)].a,
                                                     det.segments[std::size_t(s)].b));
          wbd += wt * (std::isfinite(d) ? d : (p - c.bind_position(j)).norm());
          radius += wt * skin_radius[std::size_t(j)];
          if (side[std::size_t(j)] == 0) left += wt;
          if (side[std::size_t(j)] == 1) right += wt;
          if (wt > top) top = wt, top_region = region[std::size_t(j)];
        }
      int sg = det.field.segment.empty() ? -1 : det.field.segment[w];
      std::string sreg =
          sg >= 0 ? region[std::size_t(det.segments[std::size_t(sg)].joint)] : std::string("none");
      int pid = piece[w];
      std::printf(
          "%zu,%.6g,%.6g,%.6g,%d,%.5f,%d,%.3f,%s,%.5f,%d,%.3f,%.3f,%.3f,%.3f,%s,%.5f,%d,%s,%.3f\n",
          w, p.x() / H, p.y() / H, p.z() / H, int(truth_w[w]), det.field.distance[w] / H,
          int(det.field.far[w]), det.field.t.empty() ? -1.0 : det.field.t[w], sreg.c_str(), wbd / H,
          int(mis[w]), std::isnan(legs[w]) ? -1.0 : legs[w], left, right, std::min(left, right),
          top_region.c_str(), seen_w[w] > 0 ? torn_w[w] / seen_w[w] : 0.0, pid,
          pid >= 0 ? decision[std::size_t(pid)].c_str() : "-", radius > 0 ? wbd / radius : -1.0);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tail_features: %s\n", e.what());
    return 2;
  }
  return 0;
}
