// The bend a chain's skin takes before an edge tears, from its weights (skin_bend.h): an edge
// along the link, computed by hand, and a ring edge whose limit depends on the direction; both
// checked against skinning the edge directly.
#include "retail/motion/skin_bend.h"

#include <Eigen/Geometry>
#include <catch2/catch.hpp>
#include <cmath>

namespace test_skin_bend {

namespace {

const Eigen::Vector3d kDown(0, -1, 0);

/// Vertices on the chain's axis at depths `depth` below the origin, each with weights `w`
/// (one row per vertex, one column per link), edges 0-1, 2-3, ...
struct Case {
  std::vector<Eigen::Vector3d> bind;
  std::vector<std::pair<int, int>> edges;
  retail::ChainSkin skin;
};

Case on_axis(const std::vector<double>& depth, const std::vector<std::vector<double>>& w) {
  Case c;
  c.skin.weight.resize(Eigen::Index(depth.size()), Eigen::Index(w.front().size()));
  for (std::size_t v = 0; v < depth.size(); ++v) {
    c.bind.push_back(depth[v] * kDown);
    c.skin.vertices.push_back(int(v));
    for (std::size_t k = 0; k < w[v].size(); ++k)
      c.skin.weight(Eigen::Index(v), Eigen::Index(k)) = w[v][k];
  }
  for (std::size_t v = 0; v + 1 < depth.size(); v += 2) c.edges.push_back({int(v), int(v) + 1});
  return c;
}

/// Linear-blend skinning of a vertex at p (relative to the joint) turning with share c.
Eigen::Vector3d skinned(const Eigen::Vector3d& p, double c, const Eigen::Matrix3d& r) {
  return p + c * (r - Eigen::Matrix3d::Identity()) * p;
}

} // namespace

TEST_CASE("skin bend: an edge half on the turning link stretches at a known angle - by hand",
          "[skin_bend]") {
  // p_a = 0.6 down (share 1), p_b = 0.5 down (share 0): e = 0.1 u, q = 0.6 u, e - q = -0.5 u,
  // so |e'|^2 = 0.25 + 0.36 - 0.6 cos t about any axis normal to u. It reaches (0.1 / m)^2 at
  // cos t = (0.61 - (0.1 / m)^2) / 0.6 and never falls below 0.01.
  const Case c = on_axis({0.6, 0.5}, {{1.0}, {0.0}});
  retail::SkinBendParams params;
  const double m = params.min_ratio;
  const double expected = std::acos((0.61 - 0.01 / (m * m)) / 0.6);
  const std::vector<retail::JointBend> bend = retail::weighted_bend_limits(
      c.bind, c.edges, c.skin, {Eigen::Vector3d::Zero(), kDown}, {INFINITY}, params);
  REQUIRE(bend.size() == 1);
  REQUIRE(bend[0].by_axis.size() == 2 * std::size_t(params.axes));
  for (double l : bend[0].by_axis) CHECK(l == Approx(expected).epsilon(1e-9)); // every way alike
  const std::vector<double> limit = {bend[0].least};
  CHECK(limit[0] == Approx(expected).epsilon(1e-9));
  CHECK(limit[0] * 180 / M_PI == Approx(11.61).margin(0.01));
  // Skinned directly: inside the limit the edge keeps within [m, 1/m], past it not.
  for (const Eigen::Vector3d& axis : {Eigen::Vector3d(1, 0, 0), Eigen::Vector3d(0, 0, 1),
                                      Eigen::Vector3d(1, 0, 1).normalized()}) {
    for (double scale : {0.99, 1.01}) {
      const Eigen::Matrix3d r = Eigen::AngleAxisd(scale * limit[0], axis).toRotationMatrix();
      const double ratio = (skinned(c.bind[0], 1, r) - skinned(c.bind[1], 0, r)).norm() / 0.1;
      CHECK((ratio <= 1 / m) == (scale < 1));
    }
  }
}

TEST_CASE("skin bend: rigid edges, the known limit and the joints skipped", "[skin_bend]") {
  retail::SkinBendParams params;
  SECTION("an edge wholly on one side of the joint never tears") {
    const Case c = on_axis({0.6, 0.5, 0.3, 0.2}, {{1.0}, {1.0}, {0.0}, {0.0}});
    const auto limit = retail::weighted_bend_limits(
        c.bind, c.edges, c.skin, {Eigen::Vector3d::Zero(), kDown}, {INFINITY}, params);
    CHECK(std::isinf(limit[0].least));
  }
  SECTION("never past the limit already known") {
    const Case c = on_axis({0.6, 0.5}, {{1.0}, {0.0}});
    const auto limit = retail::weighted_bend_limits(
        c.bind, c.edges, c.skin, {Eigen::Vector3d::Zero(), kDown}, {0.1}, params);
    CHECK(limit[0].least == 0.1);
    for (double l : limit[0].by_axis) CHECK(l == 0.1);
  }
  SECTION("joint 1 reads the weight on links 1.. only; joint 0 left at its limit") {
    // Joint 1 at 1 down: a at 1.6 (link 1: share 1), b at 1.5 (link 0: share 0) is the case
    // above about joint 1. Under joint 0 both ends turn wholly: rigid.
    const Case c = on_axis({1.6, 1.5}, {{0.0, 1.0}, {1.0, 0.0}});
    const std::vector<Eigen::Vector3d> joints = {Eigen::Vector3d::Zero(), kDown, 2 * kDown};
    const double m = params.min_ratio;
    const double expected = std::acos((0.61 - 0.01 / (m * m)) / 0.6);
    auto limit =
        retail::weighted_bend_limits(c.bind, c.edges, c.skin, joints, {INFINITY, INFINITY}, params);
    CHECK(std::isinf(limit[0].least));
    CHECK(limit[1].least == Approx(expected).epsilon(1e-9));
    params.first_joint = 2;
    limit = retail::weighted_bend_limits(c.bind, c.edges, c.skin, joints, {INFINITY, 0.5}, params);
    CHECK(limit[1].least == 0.5);
    CHECK(limit[1].by_axis.empty());
  }
  SECTION("edges off the skin and of no length are ignored") {
    Case c = on_axis({0.6, 0.6}, {{1.0}, {0.0}});
    c.bind.push_back(0.3 * kDown);
    c.edges.push_back({1, 2}); // vertex 2 is on no link, vertex 1 has share 0: rigid
    const auto limit = retail::weighted_bend_limits(
        c.bind, c.edges, c.skin, {Eigen::Vector3d::Zero(), kDown}, {INFINITY}, params);
    CHECK(std::isinf(limit[0].least));
  }
  SECTION("bad parameters") {
    params.min_ratio = 1;
    CHECK_THROWS(params.validate());
  }
}

TEST_CASE("skin bend: a ring edge tears sooner one way than another, each way as skinned",
          "[skin_bend]") {
  // A ring edge 0.5 below the joint, across the link: its ends share the turn 0.6 and 0.5. A
  // bend that swings the ring along the edge moves one end further than the other along it; a
  // bend about the edge itself hardly changes its length. Each axis's limit is where skinning
  // the edge directly takes it out of [m, 1/m].
  Case c;
  c.bind = {Eigen::Vector3d(0.05, -0.5, 0), Eigen::Vector3d(-0.05, -0.5, 0)};
  c.edges = {{0, 1}};
  c.skin.vertices = {0, 1};
  c.skin.weight.resize(2, 1);
  c.skin.weight << 0.6, 0.5;
  retail::SkinBendParams params;
  const double m = params.min_ratio;
  const auto bend = retail::weighted_bend_limits(
      c.bind, c.edges, c.skin, {Eigen::Vector3d::Zero(), kDown}, {INFINITY}, params);
  const retail::JointBend& b = bend[0];
  const std::size_t N = b.by_axis.size();
  REQUIRE(N == 24);
  const Eigen::Vector3d a2 = kDown.cross(b.axis0);
  double lo = INFINITY, hi = 0;
  for (std::size_t x = 0; x < N; ++x) {
    const double psi = 2 * M_PI * double(x) / double(N);
    const Eigen::Vector3d n = std::cos(psi) * b.axis0 + std::sin(psi) * a2;
    INFO("axis " << x << " limit " << b.by_axis[x]);
    lo = std::min(lo, b.by_axis[x]), hi = std::max(hi, b.by_axis[x]);
    CHECK(b.toward(kDown, n) <= b.by_axis[x]);
    if (!(b.by_axis[x] < M_PI)) continue;
    for (double scale : {0.99, 1.01}) {
      const Eigen::Matrix3d r = Eigen::AngleAxisd(scale * b.by_axis[x], n).toRotationMatrix();
      const double ratio = (skinned(c.bind[0], 0.6, r) - skinned(c.bind[1], 0.5, r)).norm() / 0.1;
      CHECK((ratio >= m && ratio <= 1 / m) == (scale < 1));
    }
  }
  CHECK(b.least == lo);
  CHECK(hi > 2 * lo); // the direction matters
}

TEST_CASE("skin bend: every joint's table is the same on one worker or several", "[skin_bend]") {
  // Five joints down the axis, each vertex blended over two neighbouring links, and ring edges
  // at every depth: each joint reads its own table, so the worker count cannot change one.
  Case c;
  const int K = 5;
  c.skin.weight = Eigen::MatrixXd::Zero(4 * K, K);
  for (int v = 0; v < 4 * K; ++v) {
    const double depth = 0.1 + 0.25 * v / 4.0, a = M_PI / 2 * (v % 4);
    c.bind.push_back(depth * kDown + 0.05 * Eigen::Vector3d(std::cos(a), 0, std::sin(a)));
    c.skin.vertices.push_back(v);
    const int link = std::min(K - 1, v / 4);
    c.skin.weight(v, link) = 0.7;
    c.skin.weight(v, std::min(K - 1, link + 1)) += 0.3;
    if (v % 4) c.edges.push_back({v - 1, v});
    if (v >= 4) c.edges.push_back({v - 4, v});
  }
  std::vector<Eigen::Vector3d> joints;
  for (int j = 0; j <= K; ++j) joints.push_back(0.25 * j * kDown);
  const std::vector<double> upper(std::size_t(K), INFINITY);
  retail::SkinBendParams one, many;
  one.threads = 1;
  many.threads = 3;
  const auto a = retail::weighted_bend_limits(c.bind, c.edges, c.skin, joints, upper, one);
  const auto b = retail::weighted_bend_limits(c.bind, c.edges, c.skin, joints, upper, many);
  REQUIRE(a.size() == std::size_t(K));
  REQUIRE(b.size() == a.size());
  bool any_finite = false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    CHECK(a[i].least == b[i].least);
    CHECK(a[i].by_axis == b[i].by_axis);
    CHECK(a[i].axis0 == b[i].axis0);
    any_finite = any_finite || std::isfinite(a[i].least);
  }
  CHECK(any_finite); // some edge does tear within a half turn
}

} // namespace test_skin_bend
