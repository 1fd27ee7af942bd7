// Mis-weighted skin and the legs' share of it (detect.h's misweighted_skin, leg_share,
// leg_midline_distance): the cues a tail's base grows over.
#include "detect/classify_internal.h"
#include "retail/base/parallel.h"
#include "retail/detect/detect.h"
#include "retail/detect/distance.h"

#include <algorithm>
#include <cmath>

namespace retail {

namespace {

/// misweighted_skin's test for welded vertex w (first original vertex `first`, skeleton distance
/// `distance`).
char misweighted_vertex(const WeldedMesh& m, const SkinWeights& sw, const Character& c,
                        const std::vector<Segment>& segments,
                        const std::vector<std::vector<int>>& of_joint, int first, std::size_t w,
                        double distance, const DetectParams& params) {
  if (first < 0 || std::size_t(first) >= sw.joint.size()) return 0;
  const Eigen::Vector3d p = m.welded.row(Eigen::Index(w)).transpose();
  double weighted = 0;
  for (int k = 0; k < SkinWeights::kMax; ++k) {
    int j = sw.joint[std::size_t(first)][std::size_t(k)];
    double wt = sw.weight[std::size_t(first)][std::size_t(k)];
    if (j < 0 || !(wt > 0)) continue;
    double d = INFINITY;
    for (int s : of_joint[std::size_t(j)])
      d = std::min(d, segment_distance(p, segments[std::size_t(s)].a, segments[std::size_t(s)].b));
    weighted += wt * (std::isfinite(d) ? d : (p - c.bind_position(j)).norm());
  }
  return weighted > params.misweight_ratio * distance + params.misweight_slack_h * c.height;
}

} // namespace

std::vector<char> misweighted_skin(const WeldedMesh& m, const SkinWeights& sw, const Character& c,
                                   const std::vector<Segment>& segments, const DistanceField& f,
                                   const DetectParams& params) {
  std::vector<std::vector<int>> of_joint(c.joints.size()); // segments each joint heads
  for (std::size_t s = 0; s < segments.size(); ++s)
    if (segments[s].joint >= 0) of_joint[std::size_t(segments[s].joint)].push_back(int(s));
  const std::vector<int> first = first_originals(m);
  std::vector<char> out(m.size(), 0);
  constexpr std::size_t kBlock = 1 << 14; // vertices per worker item; each writes its own
  parallel_for((m.size() + kBlock - 1) / kBlock, params.threads, [&](std::size_t b) {
    for (std::size_t w = b * kBlock; w < std::min(m.size(), (b + 1) * kBlock); ++w)
      out[w] = misweighted_vertex(m, sw, c, segments, of_joint, first[w], w, f.distance[w], params);
  });
  return out;
}

std::vector<double> leg_share(const WeldedMesh& m, const SkinWeights& sw,
                              const std::vector<std::string>& region) {
  std::vector<double> out(m.size(), NAN);
  const std::vector<int> first = first_originals(m);
  std::vector<char> leg(region.size()); // per joint: in region "thigh" or "leg"
  for (std::size_t j = 0; j < region.size(); ++j)
    leg[j] = region[j] == "thigh" || region[j] == "leg";
  for (std::size_t w = 0; w < m.size(); ++w) {
    if (first[w] < 0 || std::size_t(first[w]) >= sw.joint.size()) continue;
    double legs = 0;
    for (int k = 0; k < SkinWeights::kMax; ++k) {
      int j = sw.joint[std::size_t(first[w])][std::size_t(k)];
      if (j >= 0 && leg[std::size_t(j)]) legs += sw.weight[std::size_t(first[w])][std::size_t(k)];
    }
    out[w] = legs;
  }
  return out;
}

std::vector<double> leg_midline_distance(const WeldedMesh& m, const std::vector<double>& legs,
                                         const Character& c) {
  std::vector<double> out(m.size(), INFINITY);
  int l = c.joint_index(c.roles.upper_leg[0]), r = c.joint_index(c.roles.upper_leg[1]);
  if (l < 0 || r < 0) return out;
  Eigen::Vector3d axis = c.bind_position(l) - c.bind_position(r);
  if (!(axis.norm() > 0)) return out;
  axis.normalize();
  const double mid = 0.5 * (c.bind_position(l) + c.bind_position(r)).dot(axis);
  for (std::size_t w = 0; w < m.size(); ++w)
    if (legs[w] >= 0.5)
      out[w] = std::abs(m.welded.row(Eigen::Index(w)).dot(axis.transpose()) - mid);
  return out;
}

} // namespace retail
