// Microbenchmark of one spring substep (SpringChain::step, SPEC §7): an 8-link tail with skin
// limits and a floor under a swaying, bobbing hips pose, as in the bake. Prints the best of 7
// runs of 40,000 steps in microseconds per step, and a checksum of the final particles (equal
// across builds that compute the same thing). docs/performance.md quotes it.
//   build/bench/spring_step
#include "retail/motion/spring.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

int main() {
  retail::SpringRig rig;
  rig.root_offset = Eigen::Vector3d(0, 0.1, -0.2);
  for (int i = 0; i < 8; ++i) {
    rig.length.push_back(0.1);
    rig.authored.push_back(Eigen::Vector3d(0, -0.3 - 0.05 * i, -1).normalized());
    rig.skin_radius.push_back(0.05 - 0.004 * i);
  }
  rig.floor_y = -0.6;
  const retail::SpringParams params;
  const int steps = 40000;
  double best = INFINITY, checksum = 0;
  for (int run = 0; run < 7; ++run) {
    retail::SpringChain chain(rig, params);
    retail::AnchorPose hips;
    chain.reset(hips);
    auto t0 = std::chrono::steady_clock::now();
    for (int s = 0; s < steps; ++s) {
      const double t = s / 120.0;
      const Eigen::Quaterniond q(
          Eigen::AngleAxisd(0.6 * std::sin(7 * t), Eigen::Vector3d::UnitY()) *
          Eigen::AngleAxisd(0.3 * std::sin(5 * t), Eigen::Vector3d::UnitX()));
      hips.rotation = q;
      hips.world.setIdentity();
      hips.world.topLeftCorner<3, 3>() = q.toRotationMatrix();
      hips.world(0, 3) = 0.2 * std::sin(3 * t);
      hips.world(1, 3) = 0.05 * std::sin(11 * t);
      chain.step(hips, 1 / 120.0);
    }
    const double us =
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
    best = std::min(best, us / steps);
    for (const Eigen::Vector3d& p : chain.tips()) checksum += p.sum();
  }
  std::printf("spring step: %.3f us per 8-link step (best of 7 x %d), checksum %.9f\n", best, steps,
              checksum);
  return 0;
}
