// The spring chain's contact constraints (SPEC §7.7, src/motion/spring_contact.cpp), headless:
// the floor holds without stretching a bone, a tail on a raised floor comes to rest lying on it,
// contact lifts through the joints above within their skin limits, and the hanging tail stays
// behind the forward plane, also when the hips lurch back.
#include "retail/app/pipeline.h"
#include "retail/io/io.h"
#include "retail/motion/spring.h"
#include "retail/rig/animation.h"
#include "spring_support.h"
#include "support.h"

#include <catch2/catch.hpp>
#include <cmath>

namespace test_spring_contact {

using Eigen::Quaterniond;
using Eigen::Vector3d;
using test::hips_at;
using test::straight_tail;

TEST_CASE("spring: floor contact never goes below the floor and never stretches a bone",
          "[spring]") {
  retail::SpringParams params;
  retail::SpringRig rig = straight_tail(6, 1.2);
  rig.floor_y = -0.9; // the standing tail droops to -0.6: only the crouch reaches this floor
  retail::SpringChain chain(rig, params);
  chain.reset(hips_at(0));
  double lowest = INFINITY, worst_len = 0, dt = params.substep_s;
  bool touched = false;
  for (int s = 1; s <= 600; ++s) {
    double y = s < 300 ? -0.4 * std::sin(M_PI / 2 * s / 300.0)
                       : -0.4 * std::sin(M_PI / 2 * (600 - s) / 300.0);
    chain.step(hips_at(0, y), dt); // crouch down then rise
    for (std::size_t i = 0; i < 6; ++i) {
      lowest = std::min(lowest, chain.tips()[i].y());
      worst_len = std::max(worst_len, std::abs((chain.tips()[i] - chain.head(i)).norm() - 0.2));
      touched = touched || chain.in_contact(i);
    }
  }
  CHECK(touched);
  CHECK(lowest >= chain.floor_height() - 1e-4);
  CHECK(worst_len < 1e-6);
  for (int s = 0; s < 240; ++s) chain.step(hips_at(0), dt); // standing again for 2 s
  bool any = false;
  for (std::size_t i = 0; i < 6; ++i) any = any || chain.in_contact(i);
  CHECK_FALSE(any); // released once the hips are back up
}

TEST_CASE("spring: the hanging tail never swings in front of the forward plane", "[spring]") {
  retail::RigOptions o;
  o.tail = retail::TailStyle::Hanging;
  std::string dir = test::temp_dir();
  retail::write_document(retail::generate_rig(o).doc, dir + "/in.glb");
  retail::run(dir + "/in.glb", dir + "/out.glb", retail::RunParams{});
  retail::Document d = retail::read_document(dir + "/out.glb");
  retail::Model m = retail::parse_model(d);
  retail::Character c = retail::build_characters(d, m, {})[0];
  int hips = c.roles.hips, tail1 = -1;
  std::vector<int> tail;
  for (std::size_t i = 0; i < m.nodes.size(); ++i)
    if (m.nodes[i].name.rfind("Tail_", 0) == 0) tail.push_back(int(i));
  REQUIRE(tail.size() >= 4);
  tail1 = tail.front();
  Eigen::Matrix3d hips_bind = c.bind_world[std::size_t(c.joint_index(hips))].topLeftCorner<3, 3>();
  Vector3d left_bind = c.bind_position(c.joint_index(c.roles.upper_leg[0])) -
                       c.bind_position(c.joint_index(c.roles.upper_leg[1]));
  Vector3d left_local = hips_bind.inverse() * left_bind;
  double worst = -INFINITY;
  for (std::size_t a = 0; a < m.animations.size(); ++a) {
    retail::ClipSampler clip(d, m, int(a));
    for (int s = 0; s <= 48; ++s) {
      auto world = retail::compose_world(m, clip.locals(m, clip.duration() * s / 48.0));
      Vector3d left = world[std::size_t(hips)].topLeftCorner<3, 3>() * left_local;
      Vector3d forward = left.cross(Vector3d::UnitY());
      forward.y() = 0;
      forward.normalize();
      Vector3d root = world[std::size_t(tail1)].topRightCorner<3, 1>();
      for (std::size_t k = 1; k < tail.size(); ++k)
        worst = std::max(worst,
                         (world[std::size_t(tail[k])].topRightCorner<3, 1>() - root).dot(forward));
    }
  }
  CHECK(worst <= 1e-4 * c.height);
}

TEST_CASE("spring: the forward plane holds when the hips lurch back under a hanging tail",
          "[spring]") {
  // A tail hanging straight down from the hips, no carry: the hips lurching backwards (-Z, as
  // forward is +Z here) throws it forwards between the legs unless the plane stops it.
  retail::SpringParams params;
  params.carry_deg = 0;
  params.floor = false;
  retail::SpringRig rig;
  rig.root_offset = Vector3d(0, 0, -0.1);
  for (int i = 0; i < 4; ++i) {
    rig.length.push_back(0.2);
    rig.authored.push_back(Vector3d(0, -1, -0.02).normalized());
  }
  double worst = -INFINITY, dt = params.substep_s;
  retail::SpringChain chain(rig, params);
  chain.reset(hips_at(0));
  for (int s = 1; s <= 240; ++s) {
    double z = -0.6 * std::min(s * dt / 0.4, 1.0); // 0.6 m back in 0.4 s, then stop
    retail::AnchorPose h = hips_at(0);
    h.world(2, 3) = z;
    chain.step(h, dt);
    for (std::size_t i = 0; i < 4; ++i) worst = std::max(worst, chain.tips()[i].z() - (z - 0.1));
  }
  CHECK(worst <= 1e-9);
}

TEST_CASE("spring: on a raised floor the tail comes to rest lying on it", "[spring]") {
  retail::SpringParams params;
  retail::SpringRig rig = straight_tail(6, 1.2);
  rig.floor_y = -0.45; // well above where the standing tail droops (-0.6)
  retail::SpringChain chain(rig, params);
  chain.reset(hips_at(0));
  double dt = params.substep_s, lowest = INFINITY, moved = 0;
  std::vector<Vector3d> before;
  for (int s = 0; s < 600; ++s) {
    if (s == 540) before = chain.tips();
    chain.step(hips_at(0), dt);
    for (const Vector3d& p : chain.tips()) lowest = std::min(lowest, p.y());
  }
  for (std::size_t i = 0; i + 1 < 6; ++i)
    moved = std::max(moved, (chain.tips()[i] - before[i]).norm());
  // Known: the free end resting near the floor keeps a small bounce (its position is set by the
  // coupling while gravity acts through its velocity), bounded here at 1 cm on a 1.2 m tail.
  double tip_moved = (chain.tips()[5] - before[5]).norm();
  CHECK(lowest >= chain.floor_height() - 1e-4);
  int touching = 0;
  for (std::size_t i = 0; i < 6; ++i) {
    touching += chain.in_contact(i);
    CHECK((chain.tips()[i] - chain.head(i)).norm() == Approx(0.2).margin(1e-6));
  }
  CHECK(touching >= 1);
  CHECK(moved < 1e-4); // at rest: no link moved by 0.1 mm in the last half second
  CHECK(tip_moved < 0.01);
  CHECK(chain.floor_penetration() <= 1e-4);
}

TEST_CASE("spring: floor contact lifts through the joints above - never past a skin limit",
          "[spring]") {
  // Six links whose skin takes 12 degrees per joint, over a floor raised into the tail's path.
  retail::SpringParams params;
  double limit = 12 * M_PI / 180;
  auto run = [&](double floor_y, double& worst_bend) {
    retail::SpringRig rig = straight_tail(6, 1.2);
    rig.floor_y = floor_y;
    rig.skin_radius.assign(6, (1 - params.min_skin_ratio) * 0.4 / (4 * limit));
    retail::SpringChain chain(rig, params);
    chain.reset(hips_at(0));
    worst_bend = 0;
    for (int s = 0; s < 480; ++s) {
      chain.step(hips_at(0.1 * std::sin(2 * M_PI * s / 120.0)), params.substep_s);
      for (std::size_t i = 0; i < 6; ++i)
        worst_bend = std::max(worst_bend, retail::rotation_angle(chain.local_rotation(i)));
    }
    return chain.floor_penetration();
  };
  double bend = 0;
  // Reachable: the tail lifts 0.1 m through its joints and lies on the floor, unkinked.
  CHECK(run(-0.62, bend) <= 1e-4);
  CHECK(bend <= limit + 1e-9);
  // Out of reach (the floor level with the tail's root: its first link, 37 degrees down, can
  // rise only 12): the skin wins, the depth is reported, and still no joint bends past it.
  CHECK(run(-0.02, bend) > 0.05);
  CHECK(bend <= limit + 1e-9);
}

} // namespace test_spring_contact
