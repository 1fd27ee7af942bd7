// Skeleton distance: segment distance, leaf stubs, helpers without weight, far threshold.
#include "retail/detect/distance.h"
#include "support.h"

#include <algorithm>
#include <catch2/catch.hpp>

namespace test_distance {

using Eigen::Vector3d;

namespace {

/// A hand-made character: a chain 0 -> 1 -> 2 along +X (lengths 1 and 2) and a helper 3 under 0.
retail::Character tiny() {
  retail::Character c;
  c.joints = {10, 11, 12, 13};
  c.parent = {-1, 0, 1, 0};
  Vector3d pos[4] = {{0, 0, 0}, {1, 0, 0}, {3, 0, 0}, {0, 5, 0}};
  for (const auto& p : pos) {
    Eigen::Matrix4d m = Eigen::Matrix4d::Identity();
    m.topRightCorner<3, 1>() = p;
    c.bind_world.push_back(m);
  }
  c.height = 1;
  return c;
}

} // namespace

TEST_CASE("distance: point to segment with the clamped parameter", "[distance]") {
  double t;
  CHECK(retail::segment_distance({1, 1, 0}, {0, 0, 0}, {2, 0, 0}, &t) == Approx(1.0));
  CHECK(t == Approx(0.5));
  CHECK(retail::segment_distance({3, 1, 0}, {0, 0, 0}, {2, 0, 0}, &t) == Approx(std::sqrt(2.0)));
  CHECK(t == 1.0);
  CHECK(retail::segment_distance({-1, 0, 0}, {0, 0, 0}, {2, 0, 0}, &t) == Approx(1.0));
  CHECK(t == 0.0);
  CHECK(retail::segment_distance({0, 3, 4}, {0, 0, 0}, {0, 0, 0}, &t) == Approx(5.0)); // a point
}

TEST_CASE(
    "distance: leaf stubs run half the incoming bone past the leaf, weightless helpers add nothing",
    "[distance]") {
  retail::Character c = tiny();
  c.parent[3] = -1; // joint 3 is an IK helper beside the skeleton root, as riggers put them
  std::vector<bool> deforming = {true, true, true, false};
  auto segs = retail::bone_segments(c, deforming, retail::DistanceParams{});
  // 0->1, 1->2, the stub 2 -> 2 + 0.5 * (2 - 1) = (4, 0, 0); the helper 3 adds nothing.
  REQUIRE(segs.size() == 3);
  CHECK(segs[2].stub);
  CHECK((segs[2].b - Vector3d(4, 0, 0)).norm() < 1e-12);
  Eigen::MatrixX3d pts(4, 3);
  pts << 3.8, 0, 0, //  on the stub
      4.5, 0, 0,    //  past the stub by 0.5
      0.5, 0.2, 0,  //  beside bone 0->1
      0, 5, 0;      //  at the helper: far from every deforming bone
  auto f = retail::skeleton_distance(pts, segs, 0.3);
  CHECK(f.distance[0] == Approx(0.0).margin(1e-12));
  CHECK(f.distance[1] == Approx(0.5));
  CHECK(f.distance[2] == Approx(0.2));
  CHECK(f.distance[3] == Approx(5.0));
  CHECK(f.far == std::vector<bool>{false, true, false, true});
  CHECK(f.segment[2] == 0);

  // A weightless joint under a deforming one is that bone's tip (an exporter's "_end" joint):
  // the bone 0 -> 3 counts, and the point at its tip is on it.
  c.parent[3] = 0;
  segs = retail::bone_segments(c, deforming, retail::DistanceParams{});
  REQUIRE(segs.size() == 4);
  f = retail::skeleton_distance(pts, segs, 0.3);
  CHECK(f.distance[3] == Approx(0.0).margin(1e-12));
}

TEST_CASE("distance: the field is the same on one worker and on several", "[distance]") {
  retail::Character c = tiny();
  auto segs = retail::bone_segments(c, {true, true, true, true}, retail::DistanceParams{});
  Eigen::MatrixX3d pts(20000, 3); // a grid over the bones and past them: several blocks
  for (Eigen::Index i = 0; i < pts.rows(); ++i)
    pts.row(i) << 0.01 * double(i % 500) - 1, 0.1 * double(i / 500 % 40) - 2, 0.25;
  auto one = retail::skeleton_distance(pts, segs, 0.3, 1);
  auto three = retail::skeleton_distance(pts, segs, 0.3, 3);
  CHECK(one.distance == three.distance);
  CHECK(one.segment == three.segment);
  CHECK(one.t == three.t);
  CHECK(one.far == three.far);
  CHECK(std::count(one.far.begin(), one.far.end(), true) > 0);
  CHECK(std::count(one.far.begin(), one.far.end(), false) > 0);
}

TEST_CASE("distance: a joint deforms when its weights sum to a whole vertex", "[distance]") {
  // Joint 0 holds 0.6 + 0.5 = 1.1 vertices; joint 1 0.4 + 0.5 = 0.9; joint 2 holds stray
  // weight (0.08 on four vertices, as a floor-level root did on the stegosaurus: 0.32) and
  // joint 3 none.
  retail::SkinWeights sw;
  auto vertex = [&](std::array<int, 2> j, std::array<double, 2> w) {
    std::array<int, retail::SkinWeights::kMax> jj;
    jj.fill(-1);
    std::array<double, retail::SkinWeights::kMax> ww{};
    jj[0] = j[0], jj[1] = j[1], ww[0] = w[0], ww[1] = w[1];
    sw.joint.push_back(jj), sw.weight.push_back(ww);
  };
  vertex({0, 1}, {0.6, 0.4});
  vertex({0, 1}, {0.5, 0.5});
  for (int i = 0; i < 4; ++i) vertex({2, 1}, {0.08, 0.0});
  vertex({7, -1}, {1.0, 0.0}); // a joint id past the character's: ignored
  CHECK(retail::carries_weight(sw, 4) == std::vector<bool>{true, false, false, false});
  vertex({1, -1}, {0.1, 0.0});
  CHECK(retail::carries_weight(sw, 4) == std::vector<bool>{true, true, false, false});
}

} // namespace test_distance
