// The spring chain's moving colliders (src/motion/spring_colliders.cpp), headless: segment
// closest points against brute force, and a tail swung sideways by the hips stays outside a
// thigh capsule that rides them, where without the collider it passes through.
#include "retail/motion/spring.h"
#include "spring_support.h"

#include <catch2/catch.hpp>
#include <cmath>

using Eigen::Vector3d;
using test::straight_tail;

namespace {

double brute_gap(const Vector3d& p0, const Vector3d& p1, const Vector3d& q0, const Vector3d& q1) {
  double best = INFINITY;
  for (int i = 0; i <= 400; ++i)
    for (int j = 0; j <= 400; ++j)
      best = std::min(best, (p0 + (p1 - p0) * (i / 400.0) - q0 - (q1 - q0) * (j / 400.0)).norm());
  return best;
}

/// Hips at x (metres) turned by yaw (radians) about +Y.
retail::AnchorPose hips(double x, double yaw) {
  retail::AnchorPose h;
  h.rotation = Eigen::Quaterniond(Eigen::AngleAxisd(yaw, Vector3d::UnitY()));
  h.world.setIdentity();
  h.world.topLeftCorner<3, 3>() = h.rotation.toRotationMatrix();
  h.world.topRightCorner<3, 1>() = Vector3d(x, 0, 0);
  return h;
}

/// A vertical thigh capsule beside the tail's second joint at rest, in the hips' frame.
const Vector3d kThighTop(0.08, 0.3, 0), kThighBottom(0.08, -0.3, 0);
constexpr double kThighRadius = 0.05;

/// Deepest the tail goes into the thigh (beyond its bind depth: none here) while the hips
/// swing it sideways (0.3 m at 1.5 Hz) for 3 s, with or without the collider.
double deepest_swing(bool collide) {
  retail::SpringParams params;
  retail::SpringRig rig = straight_tail(4, 0.8);
  rig.colliders = 1;
  rig.collider_radius.assign(rig.links(), kThighRadius);
  retail::SpringChain chain(rig, params);
  chain.reset(hips(0, 0));
  const Vector3d joint = chain.tips()[1], top = joint + kThighTop, bottom = joint + kThighBottom;
  double deepest = 0;
  for (int s = 1; s <= 360; ++s) {
    const double t = s * params.substep_s;
    const retail::AnchorPose h = hips(0.3 * std::sin(2 * M_PI * 1.5 * t), 0);
    const std::vector<retail::RestObstacle> thigh = {{(h.world * top.homogeneous()).head<3>(),
                                                      (h.world * bottom.homogeneous()).head<3>(),
                                                      kThighRadius}};
    chain.step(h, params.substep_s, collide ? &thigh : nullptr);
    deepest = std::max(deepest, chain.collider_depth(thigh));
  }
  return deepest;
}

} // namespace

TEST_CASE("spring colliders: segment closest points match brute force", "[spring]") {
  const Vector3d pts[][4] = {
      {{0, 0, 0}, {1, 0, 0}, {0.5, 1, 0}, {0.5, 2, 0}},       // perpendicular, apart
      {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}},           // parallel
      {{0, 0, 0}, {1, 1, 1}, {2, 0, 0}, {3, -1, 2}},          // skew, ends closest
      {{0, 0, 0}, {0, 0, 0}, {-1, 0.5, 0}, {1, 0.5, 0}},      // a point
      {{0.2, -1, 0.3}, {0.1, 1, -0.2}, {-1, 0, 0}, {1, 0, 0}} // crossing
  };
  for (const auto& q : pts) {
    const auto [s, t] = retail::closest_on_segments(q[0], q[1], q[2], q[3]);
    const double gap = (q[0] + s * (q[1] - q[0]) - q[2] - t * (q[3] - q[2])).norm();
    CHECK(gap == Approx(brute_gap(q[0], q[1], q[2], q[3])).margin(5e-3));
  }
}

TEST_CASE("spring colliders: a tail swung sideways stays outside the thigh capsule", "[spring]") {
  const double without = deepest_swing(false), with = deepest_swing(true);
  INFO("deepest without " << without << " with " << with);
  CHECK(without > 0.02); // the swing drives it through the thigh
  CHECK(with < 0.002);   // the collider holds it out (within 2 mm of 1.8 m)
}
