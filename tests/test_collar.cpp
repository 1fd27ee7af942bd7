// Collars of separate shells (collar_of): the 5% nearest the torso kept in one place — not both
// ends of a tail bent back to the body, but both layers of a skin and fur pair over one root.
#include "retail/detect/detect.h"
#include "support.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <numeric>

namespace test_collar {

namespace {

constexpr int kSeg = 8; ///< vertices per ring

/// Rings of kSeg vertices of radius `r` around `centres` (in the z = 0 plane), each ring in the
/// plane normal to the path: vertex s at centre + r (cos a n + sin a Z), a = 2 pi s / kSeg, n
/// the in-plane normal (tangent rotated +90 degrees about Z). Appends quads between rings,
/// ids offset by the points already in `pts`; open at both ends.
void add_tube(const std::vector<Eigen::Vector3d>& centres, double r,
              std::vector<Eigen::Vector3d>& pts, std::vector<std::array<int, 3>>& tris) {
  const int first = int(pts.size()), rings = int(centres.size());
  for (int k = 0; k < rings; ++k) {
    Eigen::Vector3d t =
        centres[std::size_t(std::min(k + 1, rings - 1))] - centres[std::size_t(std::max(k - 1, 0))];
    Eigen::Vector3d n = Eigen::Vector3d(-t.y(), t.x(), 0).normalized();
    for (int s = 0; s < kSeg; ++s) {
      double a = 2 * M_PI * s / kSeg;
      pts.push_back(centres[std::size_t(k)] +
                    r * (std::cos(a) * n + std::sin(a) * Eigen::Vector3d::UnitZ()));
    }
  }
  auto at = [&](int k, int s) { return first + k * kSeg + s % kSeg; };
  for (int k = 0; k + 1 < rings; ++k)
    for (int s = 0; s < kSeg; ++s) {
      tris.push_back({at(k, s), at(k, s + 1), at(k + 1, s)});
      tris.push_back({at(k, s + 1), at(k + 1, s + 1), at(k + 1, s)});
    }
}

retail::Piece whole(const retail::WeldedMesh& m) {
  retail::Piece p;
  p.vertices.resize(m.size());
  std::iota(p.vertices.begin(), p.vertices.end(), 0);
  return p;
}

/// A torso bone from a to b.
std::vector<retail::Segment> torso(const Eigen::Vector3d& a, const Eigen::Vector3d& b) {
  retail::Segment s;
  s.a = a;
  s.b = b;
  s.joint = 0;
  return {s};
}

} // namespace

TEST_CASE("collar: a tube bent back to the body is collared at its start, not both ends",
          "[collar]") {
  // A hairpin of radius 0.05: out along +X from x = 0 to 1 (rings 0..10), round a half circle
  // of radius 0.15 about (1, 0.15) (rings 11..13), back along y = 0.3 to x = 0.02 (rings
  // 14..24): 200 vertices. The torso bone runs from (-0.1, 0, 0) to (-0.1, 0.3, 0), beside both
  // ends. Ring 0's vertices lie 0.1 (s = 0) to 0.112 from it, ring 24's 0.12 (s = 0), 0.125
  // (s = 1, 7) and up, every other ring's 0.2 or more. The 5% nearest (10) are ring 0 and ring
  // 24's s = 0, 1 (ids 192, 193): 0.25 from ring 0 in a straight line, about 2.4 along the
  // tube, so not the collar's place.
  std::vector<Eigen::Vector3d> centres, pts;
  std::vector<std::array<int, 3>> tris;
  for (int k = 0; k <= 10; ++k) centres.push_back({0.1 * k, 0, 0});
  for (int k = 1; k <= 3; ++k) {
    double a = -M_PI / 2 + M_PI * k / 4;
    centres.push_back({1 + 0.15 * std::cos(a), 0.15 + 0.15 * std::sin(a), 0});
  }
  for (int k = 0; k <= 10; ++k) centres.push_back({1 - 0.098 * k, 0.3, 0});
  add_tube(centres, 0.05, pts, tris);
  REQUIRE(pts.size() == 200);
  retail::WeldedMesh m = test::mesh_from(pts, tris);
  retail::Piece p = whole(m);
  retail::DistanceField unused;
  bool from_shell = false;
  p.collar = retail::collar_of(m, torso({-0.1, 0, 0}, {-0.1, 0.3, 0}), unused, p, from_shell);
  CHECK(from_shell);
  CHECK(p.collar == std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7});
  // Measured from there the tube is its whole length (2 x 1 + pi 0.15 = 2.45 along the centre),
  // not half of it as from both ends.
  double length = 0;
  retail::piece_geodesic(m, p, length);
  CHECK(length > 2.2);
  CHECK(length < 2.7);
}

TEST_CASE("collar: a fur layer over the skin of one root keeps both layers", "[collar]") {
  // Skin (radius 0.05) and fur (0.06) tubes along +X from x = 0 to 1, 11 rings each, welded
  // only at a shared tip vertex (1.05, 0, 0): 177 vertices, the skin 0..87, the fur 88..175.
  // Torso bone along Z through (-0.1, 0): the 5% nearest (8) are 0.1 away (skin and fur s = 2,
  // 6: 2, 6, 90, 94) and the skin's 0.106 (s = 1, 3, 5, 7). Over the surface the fur's lie
  // 2.1 from the skin's (through the tip), straight 0.01: within the skin collar's radius.
  std::vector<Eigen::Vector3d> centres, pts;
  std::vector<std::array<int, 3>> tris;
  for (int k = 0; k <= 10; ++k) centres.push_back({0.1 * k, 0, 0});
  add_tube(centres, 0.05, pts, tris);
  add_tube(centres, 0.06, pts, tris);
  const int tip = int(pts.size());
  pts.push_back({1.05, 0, 0});
  for (int layer = 0; layer < 2; ++layer)
    for (int s = 0; s < kSeg; ++s) {
      int ring = layer * 11 * kSeg + 10 * kSeg;
      tris.push_back({ring + s, ring + (s + 1) % kSeg, tip});
    }
  retail::WeldedMesh m = test::mesh_from(pts, tris);
  retail::Piece p = whole(m);
  retail::DistanceField unused;
  bool from_shell = false;
  p.collar = retail::collar_of(m, torso({-0.1, 0, -1}, {-0.1, 0, 1}), unused, p, from_shell);
  CHECK(from_shell);
  CHECK(p.collar == std::vector<int>{1, 2, 3, 5, 6, 7, 90, 94});
}

TEST_CASE("collar: a piece whose grown base is most of it is collared where the base ends",
          "[collar]") {
  // A straight tube of radius 0.05 along +X, rings 0..10 at x = 0.1 k (88 vertices, ring k ids
  // 8k..8k+7). Ring 0 is the body; the piece is rings 1..10, its tip part (cut from the tip)
  // rings t..10 and its grown base rings 1..t-1. The cut's ring is ring t - 1 (the base beside
  // it); along the tube the tip part reaches 0.1 (11 - t) from it and the base 0.1 (t - 2).
  std::vector<Eigen::Vector3d> centres, pts;
  std::vector<std::array<int, 3>> tris;
  for (int k = 0; k <= 10; ++k) centres.push_back({0.1 * k, 0, 0});
  add_tube(centres, 0.05, pts, tris);
  retail::WeldedMesh m = test::mesh_from(pts, tris);
  auto ring = [](int k) {
    std::vector<int> ids(kSeg);
    std::iota(ids.begin(), ids.end(), k * kSeg);
    return ids;
  };
  auto piece = [&](int t) { // rings 1..10, base 1..t-1
    retail::Piece p;
    for (int v = kSeg; v < 11 * kSeg; ++v) p.vertices.push_back(v);
    for (int v = kSeg; v < t * kSeg; ++v) p.base.push_back(v);
    return p;
  };
  retail::DistanceField unused;
  const auto no_torso = torso({-1, 0, 0}, {-1, 0.1, 0});
  bool from_shell = true;
  // Tip part rings 7..10 (0.4 from ring 6), base rings 1..6 (0.5): the base reaches 1.25 times
  // as far, not 2: the collar stays at the cut.
  CHECK(retail::collar_of(m, no_torso, unused, piece(7), from_shell, 2.0) == ring(6));
  CHECK_FALSE(from_shell);
  // Tip part rings 9..10 (0.2 from ring 8), base rings 1..8 (0.7): 3.5 times as far, so the cut
  // is the tail's end and the collar is where the piece meets the body, ring 0.
  CHECK(retail::collar_of(m, no_torso, unused, piece(9), from_shell, 2.0) == ring(0));
  // At a ratio of 4, or with the rule off (0), it stays at the cut.
  CHECK(retail::collar_of(m, no_torso, unused, piece(9), from_shell, 4.0) == ring(8));
  CHECK(retail::collar_of(m, no_torso, unused, piece(9), from_shell, 0.0) == ring(8));
}

} // namespace test_collar
