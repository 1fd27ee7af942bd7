// The root band (root_band.h): harmonic weights by hand on small graphs, the band's extent, and
// a split seam closed on a strip whose two halves the "rigger" put on different thighs.
#include "retail/grow/root_band.h"

#include "retail/detect/geodesic.h"

#include <catch2/catch.hpp>
#include <cmath>

namespace test_root_band {

namespace {

/// A welded graph from positions and undirected edges (no faces): what the band reads.
retail::WeldedMesh graph(const std::vector<Eigen::Vector3d>& points,
                         const std::vector<std::pair<int, int>>& edges) {
  retail::WeldedMesh m;
  m.welded.resize(Eigen::Index(points.size()), 3);
  for (std::size_t i = 0; i < points.size(); ++i) m.welded.row(Eigen::Index(i)) = points[i];
  m.positions = m.welded;
  std::vector<std::vector<int>> adj(points.size());
  for (auto [a, b] : edges) adj[std::size_t(a)].push_back(b), adj[std::size_t(b)].push_back(a);
  m.adjacency_start.push_back(0);
  for (std::size_t i = 0; i < points.size(); ++i) {
    for (int n : adj[i]) {
      m.adjacency.push_back(n);
      m.edge_length.push_back((points[i] - points[std::size_t(n)]).norm());
    }
    m.adjacency_start.push_back(int(m.adjacency.size()));
  }
  for (std::size_t i = 0; i < points.size(); ++i) m.weld_of.push_back(int(i));
  return m;
}

double weight_on(const retail::Influences& inf, int node) {
  for (const auto& [n, w] : inf)
    if (n == node) return w;
  return 0;
}

} // namespace

TEST_CASE("root band: harmonic weights on a path - by hand", "[root_band]") {
  // 0 (piece: node 10) - 1 - 2 - 3 - 4 (body: node 20), unit edges, band width 3.
  std::vector<Eigen::Vector3d> p;
  for (int i = 0; i < 5; ++i) p.push_back(Eigen::Vector3d(i, 0, 0));
  retail::WeldedMesh m = graph(p, {{0, 1}, {1, 2}, {2, 3}, {3, 4}});
  std::vector<bool> inside = {true, false, false, false, false};
  auto fixed = [](int w) { return retail::Influences{{w == 0 ? 10 : 20, 1.0}}; };
  retail::RootBandParams params; // far side one vertex, as many as the near side: no regrowth
  retail::RootBand band = retail::root_band(m, inside, 3.0, fixed, params);
  REQUIRE(band.vertices == std::vector<int>{1, 2, 3});
  CHECK(band.converged);
  CHECK(weight_on(band.influences[0], 10) == Approx(0.75).margin(1e-8));
  CHECK(weight_on(band.influences[1], 10) == Approx(0.5).margin(1e-8));
  CHECK(weight_on(band.influences[2], 10) == Approx(0.25).margin(1e-8));
  CHECK(weight_on(band.influences[2], 20) == Approx(0.75).margin(1e-8));
  // Edge weights are 1 / length: one band vertex 1 from the piece and 2 from the body keeps
  // (1 x 1 + 0.5 x 0) / 1.5 = 2/3 of the piece's weight.
  retail::WeldedMesh u = graph({{0, 0, 0}, {1, 0, 0}, {3, 0, 0}}, {{0, 1}, {1, 2}});
  retail::RootBand one = retail::root_band(u, {true, false, false}, 1.5, fixed, params);
  REQUIRE(one.vertices == std::vector<int>{1});
  CHECK(weight_on(one.influences[0], 10) == Approx(2.0 / 3).margin(1e-8));
  // Width 0: no band.
  CHECK(retail::root_band(m, inside, 0.0, fixed, {}).vertices.empty());
}

TEST_CASE("root band: at most four influences - the largest - renormalised", "[root_band]") {
  // One band vertex between five fixed neighbours with one joint each, weighted by distance.
  std::vector<Eigen::Vector3d> p = {{0, 0, 0}};
  std::vector<std::pair<int, int>> e;
  for (int k = 1; k <= 5; ++k) p.push_back(Eigen::Vector3d(k, 0, 0)), e.push_back({0, k});
  retail::WeldedMesh m = graph(p, e);
  std::vector<bool> inside = {false, true, false, false, false, false};
  auto fixed = [](int w) { return retail::Influences{{100 + w, 1.0}}; };
  retail::RootBand band = retail::root_band(m, inside, 1.5, fixed, {});
  REQUIRE(band.vertices == std::vector<int>{0});
  const auto& inf = band.influences[0];
  REQUIRE(inf.size() == 4); // node 105 (the farthest, weight 1/5 of the pull) dropped
  double sum = 0;
  for (const auto& [n, w] : inf) {
    sum += w;
    CHECK(n != 105);
  }
  CHECK(sum == Approx(1).margin(1e-12));
  double total = 1 + 0.5 + 1.0 / 3 + 0.25; // the four kept pulls
  CHECK(weight_on(inf, 101) == Approx(1 / total).margin(1e-8));
}

TEST_CASE("root band: a split seam next to the tail closes - weights stay in [0, 1]",
          "[root_band]") {
  // A strip 2 wide and 8 long along x; x = 0 is the tail piece (node 1 = hips). The rigger put
  // the strip's y = 0 row on the left thigh (2) and its y = 1 row on the right thigh (3): every
  // rung is a seam between disjoint bones. Past x = 4 the body is smooth (hips 4).
  std::vector<Eigen::Vector3d> p;
  std::vector<std::pair<int, int>> e;
  for (int x = 0; x <= 8; ++x)
    for (int y = 0; y <= 1; ++y) p.push_back(Eigen::Vector3d(x, y, 0));
  auto id = [](int x, int y) { return 2 * x + y; };
  for (int x = 0; x <= 8; ++x) {
    e.push_back({id(x, 0), id(x, 1)});
    if (x < 8) e.push_back({id(x, 0), id(x + 1, 0)}), e.push_back({id(x, 1), id(x + 1, 1)});
  }
  retail::WeldedMesh m = graph(p, e);
  std::vector<bool> inside(p.size(), false);
  inside[std::size_t(id(0, 0))] = inside[std::size_t(id(0, 1))] = true;
  auto fixed = [&](int w) {
    int x = w / 2, y = w % 2;
    if (x == 0) return retail::Influences{{1, 1.0}};
    if (x > 4) return retail::Influences{{4, 1.0}};
    return retail::Influences{{y == 0 ? 2 : 3, 1.0}};
  };
  retail::RootBand band = retail::root_band(m, inside, 4.0, fixed, {});
  REQUIRE(band.vertices.size() == 8); // x = 1 .. 4, both rows
  for (std::size_t i = 0; i < band.vertices.size(); ++i) {
    double sum = 0;
    for (const auto& [n, w] : band.influences[i]) {
      CHECK(w >= 0);
      CHECK(w <= 1);
      sum += w;
    }
    CHECK(sum == Approx(1).margin(1e-9));
    // Nothing of the split is left: no weight on either thigh.
    CHECK(weight_on(band.influences[i], 2) == 0);
    CHECK(weight_on(band.influences[i], 3) == 0);
  }
  // Both rows of a rung agree (the seam is gone) and the hips' share falls along the strip.
  for (int x = 1; x <= 4; ++x) {
    CHECK(weight_on(band.influences[std::size_t(2 * (x - 1))], 1) ==
          Approx(weight_on(band.influences[std::size_t(2 * (x - 1) + 1)], 1)).margin(1e-9));
    if (x > 1)
      CHECK(weight_on(band.influences[std::size_t(2 * (x - 1))], 1) <
            weight_on(band.influences[std::size_t(2 * (x - 2))], 1));
  }
}

TEST_CASE("root band: grows only over passable skin - by hand", "[root_band]") {
  // A fork from the piece (0): 0 - 1 - 2 - 3 on the rump, and 1 - 4 - 5 down a leg whose skin
  // (4, 5) is not passable. Unit edges, width 3: the band stops where the leg starts, and the
  // leg's first vertex becomes the band's boundary with its own weights.
  std::vector<Eigen::Vector3d> p = {{0, 0, 0}, {1, 0, 0},  {2, 0, 0},
                                    {3, 0, 0}, {1, -1, 0}, {1, -2, 0}};
  retail::WeldedMesh m = graph(p, {{0, 1}, {1, 2}, {2, 3}, {1, 4}, {4, 5}});
  std::vector<bool> inside = {true, false, false, false, false, false};
  std::vector<bool> passable = {true, true, true, true, false, false};
  CHECK(retail::band_vertices(m, inside, 3.0) == std::vector<int>{1, 2, 3, 4, 5});
  CHECK(retail::band_vertices(m, inside, 3.0, passable) == std::vector<int>{1, 2, 3});
  auto fixed = [](int w) { return retail::Influences{{w == 0 ? 10 : 30 + w, 1.0}}; };
  retail::RootBand band = retail::root_band(m, inside, 3.0, fixed, {}, passable);
  REQUIRE(band.vertices == std::vector<int>{1, 2, 3});
  // Vertex 4 (leg) is fixed at its own joint 34. The piece's weight x solves x1 = (1 + x2 + 0)
  // / 3, x2 = (x1 + x3) / 2 and x3 = x2 (3 ends the strip): x2 = x1, x1 = (1 + x1) / 3 = 1/2.
  CHECK(weight_on(band.influences[0], 10) == Approx(0.5).margin(1e-8));
  CHECK(weight_on(band.influences[0], 34) == Approx(0.5).margin(1e-8));
  CHECK(weight_on(band.influences[2], 10) == Approx(0.5).margin(1e-8));
  // An unpassable start of the leg that the piece touches directly is never entered either.
  std::vector<bool> none = {true, false, false, false, false, false};
  CHECK(retail::band_vertices(m, inside, 3.0, none).empty());
}

TEST_CASE("root band: a band that ends on a cap's pole crosses it - by hand", "[root_band]") {
  // A tube of three square rings along x (radius 0.5): the piece's ring A at x = 0, the cap
  // ring B at x = 1, a pole P at x = 2 joined to every vertex of B, and the body's ring C at
  // x = 3 joined to P alone. P's own weights are the rigger's (joint 20 0.7, thigh 21 0.3); the
  // body past it is joint 20. |B - P| = |P - C| = sqrt(1.25).
  std::vector<Eigen::Vector3d> p;
  for (double x : {0.0, 1.0})
    for (int k = 0; k < 4; ++k)
      p.push_back(Eigen::Vector3d(x, 0.5 * std::cos(k * M_PI / 2), 0.5 * std::sin(k * M_PI / 2)));
  p.push_back(Eigen::Vector3d(2, 0, 0)); // 8: the pole
  for (int k = 0; k < 4; ++k)
    p.push_back(Eigen::Vector3d(3, 0.5 * std::cos(k * M_PI / 2), 0.5 * std::sin(k * M_PI / 2)));
  std::vector<std::pair<int, int>> e;
  for (int k = 0; k < 4; ++k) {
    e.push_back({k, 4 + k});               // A - B
    e.push_back({k, (k + 1) % 4});         // ring A
    e.push_back({4 + k, 4 + (k + 1) % 4}); // ring B
    e.push_back({4 + k, 8});               // B - P
    e.push_back({8, 9 + k});               // P - C
    e.push_back({9 + k, 9 + (k + 1) % 4}); // ring C
  }
  retail::WeldedMesh m = graph(p, e);
  std::vector<bool> inside(p.size(), false);
  for (int k = 0; k < 4; ++k) inside[std::size_t(k)] = true;
  auto fixed = [](int w) {
    if (w < 4) return retail::Influences{{10, 1.0}};
    if (w == 8) return retail::Influences{{20, 0.7}, {21, 0.3}};
    return retail::Influences{{20, 1.0}};
  };
  // Width 1.5 reaches B (1) but not P (1 + sqrt(1.25)): the band's far side is P alone.
  CHECK(retail::band_vertices(m, inside, 1.5) == std::vector<int>{4, 5, 6, 7});
  retail::RootBandParams off;
  off.min_far_share = 0;
  retail::RootBand pole = retail::root_band(m, inside, 1.5, fixed, off);
  REQUIRE(pole.vertices == std::vector<int>{4, 5, 6, 7});
  // Each B vertex: hips x = 1 / (1 + 1 / sqrt(1.25)) (its ring neighbours are equal to it);
  // the rest is P's weights, so the thigh gets 0.3 (1 - x) on every vertex of the ring.
  const double x = 1 / (1 + 1 / std::sqrt(1.25));
  for (const auto& inf : pole.influences) {
    CHECK(weight_on(inf, 10) == Approx(x).margin(1e-8));
    CHECK(weight_on(inf, 21) == Approx(0.3 * (1 - x)).margin(1e-8));
  }
  // With the rule (by default a far side under half the near side: 1 < 4 / 2) the band is
  // grown to 3.0: B and P, ending on ring C (at 1 + 2 sqrt(1.25) > 3). P is solved, not
  // fixed, and the thigh is gone.
  auto band_width = [&](double width, const retail::RootBandParams& params) {
    double grown = NAN;
    retail::grown_band_vertices(m, inside, width, params, {}, grown);
    return grown;
  };
  CHECK(band_width(1.5, retail::RootBandParams{}) == Approx(3.0));
  retail::RootBand cap = retail::root_band(m, inside, 1.5, fixed, retail::RootBandParams{});
  CHECK(cap.width == Approx(3.0));
  REQUIRE(cap.vertices == std::vector<int>{4, 5, 6, 7, 8});
  for (const auto& inf : cap.influences) CHECK(weight_on(inf, 21) == 0);
  // A band already ending on a ring of four (as many as its near side) keeps its width; none
  // at all keeps it too; a share of 2 asks even that band to grow.
  CHECK(band_width(3.0, retail::RootBandParams{}) == Approx(3.0));
  CHECK(band_width(0.5, retail::RootBandParams{}) == Approx(0.5));
  retail::RootBandParams twice;
  twice.min_far_share = 2;
  CHECK(band_width(3.0, twice) == Approx(6.0));
}

TEST_CASE("root band: the seam blends over its width on both sides - by hand", "[root_band]") {
  // A path of unit edges: 0 - 1 - 2 inside the piece (chain node 7 at 0.8, hips 10 at 0.2
  // everywhere), 3 - 4 - 5 the band (hips 10 at 1, as solved), width 2.
  std::vector<Eigen::Vector3d> p;
  for (int i = 0; i < 6; ++i) p.push_back(Eigen::Vector3d(i, 0, 0));
  retail::WeldedMesh m = graph(p, {{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 5}});
  std::vector<bool> inside = {true, true, true, false, false, false};
  retail::RootBand band;
  band.vertices = {3, 4, 5};
  band.influences.assign(3, retail::Influences{{10, 1.0}});
  auto chain = [](int) { return retail::Influences{{7, 0.8}, {10, 0.2}}; };
  const auto piece = retail::blend_seam(m, inside, 2.0, chain, 4, band);
  // Piece side: vertex 2 is 1 from the band (share (1 - 1/2) / 2 = 1/4 of the band's hips),
  // vertex 1 is 2 away (none: not listed), vertex 0 farther.
  REQUIRE(piece.size() == 1);
  CHECK(piece[0].first == 2);
  CHECK(weight_on(piece[0].second, 7) == Approx(0.75 * 0.8).margin(1e-12));
  CHECK(weight_on(piece[0].second, 10) == Approx(0.75 * 0.2 + 0.25).margin(1e-12));
  // Band side: vertex 3 is 1 from the piece: 1/4 of the chain's weights; 4 and 5 keep theirs.
  CHECK(weight_on(band.influences[0], 7) == Approx(0.25 * 0.8).margin(1e-12));
  CHECK(weight_on(band.influences[0], 10) == Approx(0.75 + 0.25 * 0.2).margin(1e-12));
  CHECK(band.influences[1] == retail::Influences{{10, 1.0}});
  CHECK(band.influences[2] == retail::Influences{{10, 1.0}});
  // Across the border edge 2 - 3 the chain's weight steps 0.6 -> 0.2 (0.8 -> 0 without it).
  // Width 0 changes nothing.
  retail::RootBand same = band;
  CHECK(retail::blend_seam(m, inside, 0.0, chain, 4, same).empty());
  CHECK(same.influences == band.influences);
}

TEST_CASE("root band: nearest_source - distances, sources and ties by hand", "[root_band]") {
  // A square 0 - 1 - 2 - 3 - 0 of unit sides plus a tail 2 - 4 of length 3: sources 0 and 2.
  // Vertex 1 and 3 are 1 from both (tie: the lower source, 0); 4 is 3 from source 2.
  std::vector<Eigen::Vector3d> p = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}, {4, 1, 0}};
  retail::WeldedMesh m = graph(p, {{0, 1}, {1, 2}, {2, 3}, {3, 0}, {2, 4}});
  const retail::NearestSource n = retail::nearest_source(m, {2, 0}, {}, INFINITY);
  CHECK(n.source == std::vector<int>{0, 0, 2, 0, 2});
  CHECK(n.distance[4] == Approx(3.0));
  CHECK(n.distance[1] == Approx(1.0));
  // A limit of 2 leaves 4 unreached; a vertex not allowed is never entered.
  const retail::NearestSource short_ = retail::nearest_source(m, {2, 0}, {}, 2.0);
  CHECK(short_.source[4] == 2); // reached from 2 (3 > 2 is only where expansion stops)
  const retail::NearestSource blocked =
      retail::nearest_source(m, {0}, {true, true, true, false, false}, INFINITY);
  CHECK(blocked.source[3] == -1);
  CHECK(blocked.distance[2] == Approx(2.0));
  CHECK(std::isinf(blocked.distance[4]));
}

} // namespace test_root_band
