// The spring chain's moving colliders (src/motion/spring_colliders.cpp): segment closest
// points against brute force; headless, a tail swung sideways by the hips stays outside a thigh
// capsule that rides them, where without the collider it passes through; and through the whole
// run, a generated hanging tail in a clip that carries it across the legs stays out of them
// (tail_eval's own measure), where with --no-colliders it goes in.
#include "retail/app/pipeline.h"
#include "retail/motion/spring.h"
#include "retail/rig_generator.h"
#include "spring_support.h"
#include "support.h"
#include "tail_eval.h"

#include <catch2/catch.hpp>
#include <cmath>

namespace test_spring_colliders {

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

namespace {

/// tail_eval's deepest leg depth (% H beyond bind) of the generated tail in LegSweep, and
/// retail's own report of it (ClipBake::collider_depth, % H), with or without colliders.
std::pair<double, double> leg_sweep_depth(const std::string& dir, bool colliders) {
  const std::string out = dir + (colliders ? "/with.glb" : "/without.glb");
  retail::RunParams params;
  params.bake.colliders = colliders;
  const retail::RunResult r = retail::run(dir + "/in.glb", out, params);
  double reported = -1;
  for (const auto& bakes : r.bakes)
    for (const auto& cb : bakes)
      if (cb.name == "LegSweep") reported = std::max(reported, cb.collider_depth);
  const test::TailEval e =
      test::evaluate_tail(test::generated_tail(dir + "/in.truth.json"), dir + "/in.glb", out, "");
  double measured = -1;
  for (const auto& row : e.clips)
    if (row.clip == "LegSweep") measured = row.output_leg_depth;
  const double height = r.report.at("characters").at(0).at("height").get<double>();
  return {measured, 100 * reported / height};
}

/// A generated hanging tail with the LegSweep clip (the hips lurch it across a thigh), written
/// with its truth into a fresh directory.
std::string leg_sweep_dir() {
  retail::RigOptions o;
  o.tail = retail::TailStyle::Hanging;
  o.leg_sweep = true;
  return test::generated_rig_dir(o);
}

} // namespace

TEST_CASE("spring colliders: a generated tail carried across the legs stays out of them",
          "[spring]") {
  const std::string dir = leg_sweep_dir();
  const auto [without, without_reported] = leg_sweep_depth(dir, false);
  const auto [with, with_reported] = leg_sweep_depth(dir, true);
  INFO("% H into the legs: without " << without << " with " << with << "; reported "
                                     << without_reported << " / " << with_reported);
  CHECK(without > 2.0); // the lurch carries the hanging tail 2% H and more into a thigh
  CHECK(with < 1.0);    // the bound
  CHECK(with_reported < without_reported);
}

// The report's depth is the spring's at its substeps; tail_eval's is the written keys played
// back. Keys only at the key rate cut through what the spring went around (the shared horse's
// Death: 1.38% H at the substeps, 2.72 between two keys), so a substep that touched a leg is
// written as a key of its own: the two measures then agree.
TEST_CASE("spring colliders: the written keys go no deeper into the legs than the spring did",
          "[spring]") {
  const std::string dir = leg_sweep_dir();
  const auto [with, with_reported] = leg_sweep_depth(dir, true);
  INFO("% H into the legs, keys played " << with << ", the spring's substeps " << with_reported);
  CHECK(with <= with_reported + 0.01); // keys at the key rate only: 0.72 against 0.67
}

} // namespace test_spring_colliders
