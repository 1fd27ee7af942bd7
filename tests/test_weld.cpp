// Weld and adjacency: hand-made meshes and the generated rigs' seams.
#include "retail/detect/geodesic.h"
#include "retail/detect/graph.h"
#include "retail/detect/weld.h"
#include "retail/io/accessor.h"
#include "retail/io/builder.h"
#include "support.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <map>
#include <set>

using retail::WeldedMesh;

namespace test {

/// support.h: a WeldedMesh from positions and triangles.
WeldedMesh mesh_from(const std::vector<Eigen::Vector3d>& pts,
                     const std::vector<std::array<int, 3>>& tris) {
  WeldedMesh m;
  m.positions.resize(Eigen::Index(pts.size()), 3);
  for (std::size_t i = 0; i < pts.size(); ++i)
    m.positions.row(Eigen::Index(i)) = pts[i].transpose();
  m.welded = m.positions;
  for (std::size_t i = 0; i < pts.size(); ++i) m.weld_of.push_back(int(i));
  m.faces = tris;
  std::vector<std::pair<int, int>> edges;
  for (const auto& t : tris)
    for (int e = 0; e < 3; ++e)
      edges.push_back({std::min(t[std::size_t(e)], t[std::size_t((e + 1) % 3)]),
                       std::max(t[std::size_t(e)], t[std::size_t((e + 1) % 3)])});
  std::sort(edges.begin(), edges.end());
  edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
  m.adjacency_start.assign(pts.size() + 1, 0);
  for (auto [a, b] : edges)
    ++m.adjacency_start[std::size_t(a) + 1], ++m.adjacency_start[std::size_t(b) + 1];
  for (std::size_t i = 0; i < pts.size(); ++i) m.adjacency_start[i + 1] += m.adjacency_start[i];
  m.adjacency.resize(edges.size() * 2);
  m.edge_length.resize(edges.size() * 2);
  std::vector<int> fill(m.adjacency_start.begin(), m.adjacency_start.end() - 1);
  for (auto [a, b] : edges) {
    double len = (pts[std::size_t(a)] - pts[std::size_t(b)]).norm();
    m.adjacency[std::size_t(fill[std::size_t(a)])] = b,
    m.edge_length[std::size_t(fill[std::size_t(a)]++)] = len;
    m.adjacency[std::size_t(fill[std::size_t(b)])] = a,
    m.edge_length[std::size_t(fill[std::size_t(b)]++)] = len;
  }
  return m;
}

} // namespace test

namespace test_weld {

TEST_CASE("weld: seam-split vertices become one - adjacency crosses the seam", "[weld]") {
  // A generated rig: the tail rings duplicate their seam vertex; the weld removes exactly those.
  retail::RigOptions o;
  o.uv_seams = true;
  retail::Document d = test::make_rig(o).doc;
  auto c = test::characters_of(d)[0];
  retail::Model m = retail::parse_model(d);
  WeldedMesh w = retail::weld_character(d, m, c, retail::WeldParams{});
  // Identical positions always share a welded vertex; nothing farther apart than the tolerance
  // is merged; and the seam duplicates are gone.
  std::map<std::tuple<double, double, double>, int> first;
  double tol = 1e-5 * c.height;
  for (Eigen::Index i = 0; i < w.positions.rows(); ++i) {
    auto key = std::make_tuple(w.positions(i, 0), w.positions(i, 1), w.positions(i, 2));
    auto [it, fresh] = first.emplace(key, w.weld_of[std::size_t(i)]);
    if (!fresh) CHECK(it->second == w.weld_of[std::size_t(i)]);
    CHECK((w.positions.row(i) - w.welded.row(w.weld_of[std::size_t(i)])).norm() <= tol);
  }
  CHECK(w.size() <= first.size());
  CHECK(w.size() < std::size_t(w.positions.rows()));
  // Every welded vertex of a closed tube surface has at least 3 neighbours (no seam cut).
  for (std::size_t v = 0; v < w.size(); ++v)
    CHECK(w.adjacency_start[v + 1] - w.adjacency_start[v] >= 3);
  // Without the seam split the same rig welds to the same count.
  o.uv_seams = false;
  retail::Document d2 = test::make_rig(o).doc;
  retail::Model m2 = retail::parse_model(d2);
  WeldedMesh w2 = retail::weld_character(d2, m2, test::characters_of(d2)[0], retail::WeldParams{});
  CHECK(w2.size() == w.size());
}

TEST_CASE("weld: each vertex joins the lowest welded vertex near it, on any thread count",
          "[weld]") {
  // A row at x = 0, 0.6, 1.2, 1.8, 0.5 (tolerance 1): vertex 1 joins 0; vertex 2 is 1.2 from
  // vertex 0 (vertex 1 started nothing) and starts welded 1; vertex 3 joins it; vertex 4 is
  // near 0 (0.5) and 2 (0.7): the lower welded id wins.
  WeldedMesh row;
  row.positions.resize(5, 3);
  row.positions << 0, 0, 0, 0.6, 0, 0, 1.2, 0, 0, 1.8, 0, 0, 0.5, 0, 0;
  retail::weld_positions(1.0, 1, row);
  CHECK(row.weld_of == std::vector<int>{0, 0, 1, 1, 0});
  REQUIRE(row.welded.rows() == 2);
  CHECK(row.welded(1, 0) == Approx(1.2));
  // Clusters of near points scattered over many grid cells: one worker and three give the
  // same weld, and every vertex sits within the tolerance of its welded vertex.
  WeldedMesh a, b;
  a.positions.resize(60000, 3);
  std::uint64_t seed = 12345;
  auto next = [&] { // a fixed linear congruential sequence in [0, 1)
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    return double(seed >> 11) / double(1ULL << 53);
  };
  for (Eigen::Index i = 0; i < a.positions.rows(); ++i) {
    const Eigen::Index c = i % 7000; // cluster centres repeat: near points, in any order
    a.positions.row(i) << double(c % 20), double(c / 20 % 20), double(c / 400);
    for (int k = 0; k < 3; ++k) a.positions(i, k) += 0.004 * next();
  }
  b.positions = a.positions;
  retail::weld_positions(0.003, 1, a);
  retail::weld_positions(0.003, 3, b);
  CHECK(a.weld_of == b.weld_of);
  CHECK(a.welded == b.welded);
  CHECK(a.size() > 7000);
  CHECK(a.size() < 60000);
  // Crowded: 20,000 copies of one point and 20,000 within a quarter tolerance of it take the
  // serial search (linear in the vertices), with the same answer: one welded vertex.
  WeldedMesh crowd;
  crowd.positions = Eigen::MatrixX3d::Zero(40001, 3);
  for (Eigen::Index i = 20000; i < 40000; ++i)
    crowd.positions.row(i) << 0.0007 * next(), 0.0007 * next(), 0.0;
  crowd.positions.row(40000) << 1, 0, 0;
  retail::weld_positions(0.003, 2, crowd);
  CHECK(crowd.size() == 2);
  CHECK(crowd.weld_of[39999] == 0);
  CHECK(crowd.weld_of[40000] == 1);
  int far = 0;
  for (Eigen::Index i = 0; i < a.positions.rows(); ++i)
    far += (a.positions.row(i) - a.welded.row(a.weld_of[std::size_t(i)])).norm() > 0.003;
  CHECK(far == 0);
}

TEST_CASE("weld: non-indexed geometry welds to the same graph as indexed", "[weld]") {
  // The Khronos fox is non-indexed (every triangle has its own three vertices); expand a
  // generated rig the same way and compare welded vertex and edge counts.
  retail::RigOptions o;
  o.uv_seams = false;
  o.clips = false;
  retail::Document d = test::make_rig(o).doc;
  retail::Model m = retail::parse_model(d);
  WeldedMesh indexed =
      retail::weld_character(d, m, test::characters_of(d)[0], retail::WeldParams{});
  const auto& prim = m.meshes[0].primitives[0];
  std::vector<std::uint32_t> idx = retail::read_accessor_uint(d, m, prim.indices);
  retail::Json attrs = retail::Json::object();
  for (const auto& [sem, acc] : prim.attributes) {
    retail::AccessorData a = retail::read_accessor(d, m, acc);
    const retail::Accessor& info = m.accessors[std::size_t(acc)];
    if (info.component_type == retail::kFloat) {
      std::vector<float> v;
      for (std::uint32_t i : idx)
        for (Eigen::Index c = 0; c < a.cols(); ++c) v.push_back(float(a(Eigen::Index(i), c)));
      attrs[sem] = retail::add_float_accessor(d, v, info.type, 34962, sem == "POSITION");
    } else {
      std::vector<std::uint32_t> v;
      for (std::uint32_t i : idx)
        for (Eigen::Index c = 0; c < a.cols(); ++c)
          v.push_back(std::uint32_t(
              std::lround(info.normalized ? a(Eigen::Index(i), c) * 255 : a(Eigen::Index(i), c))));
      attrs[sem] =
          retail::add_uint_accessor(d, v, info.component_type, info.type, 34962, info.normalized);
    }
  }
  d.gltf["meshes"][0]["primitives"][0] = {{"attributes", attrs}, {"material", 0}};
  d = test::reparse(d);
  retail::Model m2 = retail::parse_model(d);
  WeldedMesh expanded =
      retail::weld_character(d, m2, test::characters_of(d)[0], retail::WeldParams{});
  CHECK(std::size_t(expanded.positions.rows()) == idx.size());
  CHECK(expanded.size() == indexed.size());
  CHECK(expanded.adjacency.size() == indexed.adjacency.size());
  CHECK(expanded.faces.size() == indexed.faces.size());
}

TEST_CASE("geodesic: Dijkstra on a triangulated grid matches the hand-computed path lengths",
          "[weld]") {
  // 5x5 grid, spacing h, each cell split by the diagonal (i,j)-(i+1,j+1): the shortest edge path
  // from the corner is sqrt(2) h min(i,j) + h |i - j|.
  const int n = 5;
  const double h = 0.5;
  std::vector<Eigen::Vector3d> pts;
  std::vector<std::array<int, 3>> tris;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) pts.push_back({i * h, j * h, 0});
  for (int j = 0; j + 1 < n; ++j)
    for (int i = 0; i + 1 < n; ++i) {
      int a = j * n + i;
      tris.push_back({a, a + 1, a + n + 1});
      tris.push_back({a, a + n + 1, a + n});
    }
  WeldedMesh m = test::mesh_from(pts, tris);
  std::vector<double> d = retail::geodesic_distance(m, {0}, {}, INFINITY);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i)
      CHECK(d[std::size_t(j * n + i)] ==
            Approx(std::sqrt(2.0) * h * std::min(i, j) + h * std::abs(i - j)));
  // Restricted to the first row: the far corner is unreachable.
  std::vector<bool> row(pts.size(), false);
  for (int i = 0; i < n; ++i) row[std::size_t(i)] = true;
  std::vector<double> r = retail::geodesic_distance(m, {0}, row, INFINITY);
  CHECK(r[4] == Approx(4 * h));
  CHECK(std::isinf(r[std::size_t(n * n - 1)]));
  // The isoline at level 1.0 across the first row's strip: a straight cut across the grid.
  CHECK(retail::isoline_length(m, d, 0.25) > 0);
}

TEST_CASE("graph: floods depth-first from the seeds in order, components and rings sorted",
          "[weld]") {
  // A strip of three triangles (0..4) and a separate triangle (5, 6, 7).
  std::vector<Eigen::Vector3d> pts(8, Eigen::Vector3d::Zero());
  for (std::size_t i = 0; i < pts.size(); ++i) pts[i].x() = double(i);
  WeldedMesh m = test::mesh_from(pts, {{0, 1, 2}, {1, 3, 2}, {2, 3, 4}, {5, 6, 7}});
  auto all = [](int) { return true; };
  // Seeds 4 then 0: 0 is popped first, its neighbours 1 and 2 in adjacency order, then 2's 3.
  std::vector<bool> reached(m.size(), false);
  CHECK(retail::flood_welded(m, {4, 0}, reached, all) == std::vector<int>{1, 2, 3});
  CHECK(reached == std::vector<bool>{true, true, true, true, true, false, false, false});
  // The predicate stops it; a vertex already reached is neither entered nor returned.
  reached.assign(m.size(), false);
  reached[1] = true;
  CHECK(retail::flood_welded(m, {0}, reached, [](int v) { return v != 3; }) ==
        std::vector<int>{2, 4});
  CHECK(!reached[3]);

  std::vector<bool> member(m.size(), true);
  member[2] = member[6] = false;
  CHECK(retail::welded_components(m, member) ==
        std::vector<std::vector<int>>{{0, 1, 3, 4}, {5, 7}});
  CHECK(retail::welded_ring(m, {2}) == std::vector<int>{0, 1, 3, 4});
  CHECK(retail::welded_ring(m, {1, 0}) == std::vector<int>{2, 3});
  CHECK(retail::welded_ring(m, {5, 6, 7}).empty());

  // A strip of 40: parts of a sixteenth of the graph or less are sorted, larger ones swept.
  std::vector<Eigen::Vector3d> strip(40, Eigen::Vector3d::Zero());
  std::vector<std::array<int, 3>> tris;
  for (int i = 0; i + 2 < 40; ++i) {
    strip[std::size_t(i)].x() = double(i);
    tris.push_back({i, i + 1, i + 2});
  }
  WeldedMesh long_strip = test::mesh_from(strip, tris);
  std::vector<bool> some(40, false);
  some[6] = some[5] = some[30] = true; // small parts (flood from 5 reaches 6 first)
  CHECK(retail::welded_components(long_strip, some) == std::vector<std::vector<int>>{{5, 6}, {30}});
  some.assign(40, true);
  some[20] = some[21] = false; // two large parts
  const auto parts = retail::welded_components(long_strip, some);
  REQUIRE(parts.size() == 2);
  CHECK(parts[0].size() == 20);
  CHECK(parts[1].size() == 18);
  CHECK(std::is_sorted(parts[0].begin(), parts[0].end()));
  CHECK(std::is_sorted(parts[1].begin(), parts[1].end()));
  CHECK(parts[1].front() == 22);
}

TEST_CASE("graph: open border of a square, a triangle of it, a closed tetrahedron", "[weld]") {
  // Unit square 0-1-2-3 as two triangles; 4 the apex of a tetrahedron over 0, 1, 2.
  const std::vector<Eigen::Vector3d> pts = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}, {1, 0, 1}};
  WeldedMesh square = test::mesh_from(pts, {{0, 1, 2}, {0, 2, 3}});
  WeldedMesh tetra = test::mesh_from(pts, {{0, 2, 1}, {0, 1, 4}, {1, 2, 4}, {2, 0, 4}});
  for (bool graph : {true, false}) { // false: no adjacency, every use sorted and counted
    if (!graph)
      for (WeldedMesh* m : {&square, &tetra}) {
        m->adjacency_start.assign(m->size() + 1, 0);
        m->adjacency.clear();
        m->edge_length.clear();
      }
    CHECK(retail::open_border(square, {0, 1, 2, 3}) == Approx(4.0)); // the diagonal is shared
    CHECK(retail::open_border(square, {0, 1, 2}) == Approx(2 + std::sqrt(2.0)));
    CHECK(retail::open_border(square, {0, 1}) == 0.0); // no face has all its corners
    CHECK(retail::open_border(tetra, {0, 1, 2, 4}) == 0.0);
    CHECK(retail::open_border(tetra, {0, 1, 2, 3, 4}) == 0.0);
    CHECK(retail::open_border(tetra, {0, 1, 4}) == Approx(2 + std::sqrt(2.0))); // 1, 1, sqrt 2
    std::vector<int> ends = {9}; // replaced, not appended to
    CHECK(retail::open_border(square, {0, 1, 2}, &ends) == Approx(2 + std::sqrt(2.0)));
    CHECK(ends == std::vector<int>{0, 1, 2});
    CHECK(retail::open_border(tetra, {0, 1, 2, 4}, &ends) == 0.0);
    CHECK(ends.empty());
  }
}

} // namespace test_weld
