// Capsules fitted to the skin along the legs (body_capsules.h).
#include "retail/motion/body_capsules.h"

#include "retail/base/error.h"
#include "retail/detect/distance.h"
#include "retail/rig/animation.h"

#include <algorithm>
#include <cmath>

namespace retail {

void CapsuleParams::validate() const {
  if (!(radius_share >= 0 && radius_share <= 2))
    throw Error(ExitCode::Usage, "capsule radius share out of range");
}

double median_distance(const std::vector<Eigen::Vector3d>& points, const std::vector<int>& owner,
                       int node, const Eigen::Vector3d& a, const Eigen::Vector3d& b,
                       std::size_t& count) {
  std::vector<double> d;
  for (std::size_t v = 0; v < points.size() && v < owner.size(); ++v)
    if (owner[v] == node) d.push_back(segment_distance(points[v], a, b));
  count = d.size();
  if (d.empty()) return NAN;
  std::nth_element(d.begin(), d.begin() + std::ptrdiff_t(d.size() / 2), d.end());
  return d[d.size() / 2];
}

std::vector<RestObstacle> leg_capsules(const SkinSampler& skin, const Character& c,
                                       const CapsuleParams& params, std::vector<int>* joints) {
  params.validate();
  std::vector<RestObstacle> out;
  const std::vector<int> dominant = skin.dominant_node();
  const Roles& r = c.roles;
  for (int s = 0; s < 2; ++s) {
    const int chain[3] = {r.upper_leg[s], r.lower_leg[s], r.foot[s]};
    for (int b = 0; b < 2; ++b) {
      const int j0 = c.joint_index(chain[b]), j1 = c.joint_index(chain[b + 1]);
      if (j0 < 0 || j1 < 0) continue;
      const Eigen::Vector3d a = c.bind_position(j0), e = c.bind_position(j1);
      std::size_t n = 0;
      const double median = median_distance(skin.bind(), dominant, chain[b], a, e, n);
      if (n == 0) continue;
      out.push_back({a, e, params.radius_share * median});
      if (joints) joints->insert(joints->end(), {chain[b], chain[b + 1]});
    }
  }
  return out;
}

std::vector<RestObstacle> swept_capsules(const Document& doc, const Model& model,
                                         const Character& c, int anchor,
                                         const std::vector<RestObstacle>& capsules,
                                         const std::vector<int>& joints,
                                         const std::vector<int>& clips, int samples) {
  std::vector<RestObstacle> out;
  const int a = c.joint_index(anchor);
  if (a < 0 || samples < 2 || joints.size() != 2 * capsules.size()) return out;
  const Eigen::Matrix4d& anchor_bind = c.bind_world[std::size_t(a)];
  for (int clip : clips) {
    const ClipSampler sampler(doc, model, clip);
    for (int s = 0; s < samples; ++s) {
      const double t = sampler.duration() * s / (samples - 1);
      const Eigen::Matrix4d to_bind = anchor_bind * sampler.world(model, anchor, t).inverse();
      auto at = [&](int node) {
        return (to_bind * sampler.world(model, node, t)).topRightCorner<3, 1>().eval();
      };
      for (std::size_t k = 0; k < capsules.size(); ++k)
        out.push_back({at(joints[2 * k]), at(joints[2 * k + 1]), capsules[k].radius});
    }
  }
  return out;
}

} // namespace retail
