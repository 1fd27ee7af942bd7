// Chain growth and the weight formula: hand-computed weights, K, joints on the centreline.
#include "retail/grow/chain.h"
#include "retail/grow/rerig.h"
#include "support.h"

#include <catch2/catch.hpp>
#include <cmath>

namespace test_chain {

namespace {

/// A piece of loose points (no edges: axis_coordinate reads positions and g only), g per point.
struct Points {
  retail::WeldedMesh mesh;
  retail::Piece piece;
  Points(const std::vector<Eigen::Vector3d>& p, const std::vector<double>& g, double length) {
    mesh.welded.resize(Eigen::Index(p.size()), 3);
    for (std::size_t i = 0; i < p.size(); ++i) {
      mesh.welded.row(Eigen::Index(i)) = p[i].transpose();
      piece.vertices.push_back(int(i));
    }
    piece.geodesic = g;
    piece.length = length;
  }
};

/// Weight on chain bone `b` (0 = hips) of a ChainWeight.
double on(const retail::ChainWeight& w, int b) {
  double sum = 0;
  for (int k = 0; k < w.count; ++k)
    if (w.bone[std::size_t(k)] == b) sum += w.weight[std::size_t(k)];
  return sum;
}

} // namespace

TEST_CASE("chain: the weight formula at f = 0 - 1/4 - 1/2 - 3/4 and near 1", "[chain]") {
  const double L = 4;
  const int K = 4; // s = g
  // Root segment at f = 0: half on the hips, half on Tail_1 (no crease at the collar).
  auto w0 = retail::chain_weight(0.0, L, K);
  CHECK(on(w0, 0) == Approx(0.5));
  CHECK(on(w0, 1) == Approx(0.5));
  // Segment 1 (bone 2): f = 0 -> 50/50 with bone 1; 1/4, 1/2, 3/4 -> bone 2 alone.
  auto w1 = retail::chain_weight(1.0, L, K);
  CHECK(on(w1, 1) == Approx(0.5));
  CHECK(on(w1, 2) == Approx(0.5));
  for (double f : {0.25, 0.5, 0.75}) {
    auto w = retail::chain_weight(1.0 + f, L, K);
    CHECK(on(w, 2) == Approx(1.0));
    CHECK(w.count == 1);
  }
  // f = 0.9: next = 2 * 0.9 - 1.5 = 0.3.
  auto w9 = retail::chain_weight(1.9, L, K);
  CHECK(on(w9, 3) == Approx(0.3));
  CHECK(on(w9, 2) == Approx(0.7));
  // The last segment folds "next" into itself; past L it stays on the last bone.
  CHECK(on(retail::chain_weight(3.9, L, K), 4) == Approx(1.0));
  CHECK(on(retail::chain_weight(9.0, L, K), 4) == Approx(1.0));
}

TEST_CASE("chain: the axis coordinate by hand - projection - slabs - the root's floor", "[chain]") {
  using V = Eigen::Vector3d;
  SECTION("a straight chain reads the projection; before J_0 the geodesic floor, past J_K L") {
    // J = (0,0,0) (1,0,0) (2,0,0): K 2, L 2, one unit per segment.
    Points x({V(0.5, 0.3, 0), V(1.5, -0.2, 0), V(2.5, 0, 0), V(-0.3, 0.1, 0), V(0.1, 0, 0)},
             {0.6, 1.5, 2.0, 0.2, 0.9}, 2.0);
    auto c = retail::axis_coordinate(x.mesh, x.piece, {V(0, 0, 0), V(1, 0, 0), V(2, 0, 0)});
    REQUIRE(c.size() == 5);
    CHECK(c[0] == Approx(0.5).margin(1e-12)); // projection 0.5; floor min(0.6, L/2K = 0.5)
    CHECK(c[1] == Approx(1.5).margin(1e-12));
    CHECK(c[2] == Approx(2.0).margin(1e-12)); // past the last plane: L
    CHECK(c[3] == Approx(0.2).margin(1e-12)); // before the first plane: 0, floored at g 0.2
    CHECK(c[4] == Approx(0.5).margin(1e-12)); // projection 0.1 < floor min(0.9, 0.5)
  }
  SECTION("a bend: the plane at J_1 bisects it and the slab interpolates between planes") {
    // J = (0,0,0) (1,0,0) (1,1,0); plane 1's normal (1,1,0)/sqrt2, plane 2's (0,1,0). For
    // p = (1.2, 0.1): a = 0.3/sqrt2, b = 0.1 - 1 = -0.9, t = a / (a - b).
    Points x({V(1.2, 0.1, 0)}, {1.0}, 2.0);
    auto c = retail::axis_coordinate(x.mesh, x.piece, {V(0, 0, 0), V(1, 0, 0), V(1, 1, 0)});
    double a = 0.3 / std::sqrt(2.0);
    CHECK(c[0] == Approx(1 + a / (a + 0.9)).margin(1e-12));
  }
  SECTION("skin hanging below the root that the geodesic carries far along goes to Tail_1") {
    // J = (0,0,0) .. (3,0,0): K 3, L 3. A flap at (0.4, -1.5) whose surface path from the collar
    // is 1.6 long (home segment 1) lies in segment 0's slab: a = 0.4, b = -0.6, t = 0.4;
    // the coordinate is the floor 0.5 (L/2K), pure Tail_1 instead of g's Tail_2 blend.
    Points x({V(0.4, -1.5, 0)}, {1.6}, 3.0);
    auto c =
        retail::axis_coordinate(x.mesh, x.piece, {V(0, 0, 0), V(1, 0, 0), V(2, 0, 0), V(3, 0, 0)});
    CHECK(c[0] == Approx(0.5).margin(1e-12));
    retail::ChainWeight w = retail::chain_weight(c[0], 3.0, 3);
    CHECK(on(w, 1) == Approx(1.0).margin(1e-12));
  }
  SECTION("the weights read g held within a quarter segment of the axis coordinate") {
    // The flap above: g 1.6, axis 0.5, a quarter segment 0.25 -> 0.75 (wholly Tail_1, a quarter
    // segment short of the next joint's blend); where g agrees with the axis within the
    // tolerance it is kept as it is.
    CHECK(retail::held_near(1.6, 0.5, 0.25) == Approx(0.75).margin(1e-12));
    CHECK(retail::held_near(0.1, 0.5, 0.25) == Approx(0.25).margin(1e-12));
    CHECK(retail::held_near(0.6, 0.5, 0.25) == Approx(0.6).margin(1e-12));
    retail::ChainWeight w = retail::chain_weight(0.75, 3.0, 3);
    CHECK(on(w, 1) == Approx(1.0).margin(1e-12)); // f 0.75: w_next clamp(0) = 0
  }
  SECTION("a non-finite g (never from detect_pieces) still gives a coordinate in [0, L]") {
    Points x({V(0.5, 0.1, 0), V(1.5, 0.1, 0)}, {std::nan(""), INFINITY}, 2.0);
    auto c = retail::axis_coordinate(x.mesh, x.piece, {V(0, 0, 0), V(1, 0, 0), V(2, 0, 0)});
    CHECK(c[0] == Approx(0.5).margin(1e-12)); // home segment 0: its projection
    CHECK(c[1] == Approx(1.5).margin(1e-12)); // home segment 1 (g past L): its projection
  }
  SECTION("a curl's far side never claims a vertex: only segments next to its geodesic one") {
    // J = (0,0,0) (2,0,0) (2,1,0) (0,1,0): a U-turn. p = (0.5, 0.45) is nearer segment 0 (0.45)
    // than segment 2 (0.55), but g 2.6 puts it on segment 2 (candidates 1 and 2): plane 2's
    // normal (-1,1)/sqrt2 gives a = (1.5 - 0.55)/sqrt2, plane 3's (-1,0) b = -0.5.
    Points x({V(0.5, 0.45, 0)}, {2.6}, 3.0);
    auto c =
        retail::axis_coordinate(x.mesh, x.piece, {V(0, 0, 0), V(2, 0, 0), V(2, 1, 0), V(0, 1, 0)});
    double a = 0.95 / std::sqrt(2.0);
    CHECK(c[0] == Approx(2 + a / (a + 0.5)).margin(1e-12));
  }
}

TEST_CASE("chain: K = clamp(round(L / 0.1H) - 3 - 8)", "[chain]") {
  retail::ChainParams p;
  CHECK(retail::chain_bone_count(0.81, 1.91, p) == 4); // the article's fox: 0.81 m of 1.91 m
  CHECK(retail::chain_bone_count(0.1, 1.8, p) == 3);
  CHECK(retail::chain_bone_count(5.0, 1.8, p) == 8);
  CHECK(retail::chain_bone_count(0.9, 1.8, p) == 5);
}

TEST_CASE("chain: quantised weights sum exactly to the maximum", "[chain]") {
  // 127.5, 63.75, 63.75: floors 127, 63, 63; the two left over go to the largest remainders.
  CHECK(retail::quantize_weights({0.5, 0.25, 0.25, 0}, 255) ==
        std::vector<std::uint32_t>{127, 64, 64, 0});
  // Ties go to the lower index: 85 each exactly, then 0.5, 0.5 remainders of 127.5 split.
  CHECK(retail::quantize_weights({0.5, 0.5, 0, 0}, 255) ==
        std::vector<std::uint32_t>{128, 127, 0, 0});
  auto t = retail::quantize_weights({1.0 / 3, 1.0 / 3, 1.0 / 3, 0}, 65535);
  CHECK(t[0] + t[1] + t[2] == 65535u);
  CHECK(retail::quantize_weights({0.7, 0.3, 0, 0}, 255) ==
        std::vector<std::uint32_t>{179, 76, 0, 0});
}

TEST_CASE("chain: joints lie on the generated tail's centreline and K follows the formula",
          "[chain]") {
  for (int v = 0; v < 4; ++v) {
    retail::RigOptions o;
    o.centimetres = v & 1;
    o.rotated = v & 2;
    o.tail = v & 1 ? retail::TailStyle::Hanging : retail::TailStyle::Carried;
    INFO("variant " << v);
    retail::GeneratedRig rig = test::make_rig(o);
    retail::Model m = retail::parse_model(rig.doc);
    auto c = retail::build_characters(rig.doc, m, {})[0];
    retail::Document d = rig.doc;
    auto r = retail::rerig_character(d, m, c, retail::RerigParams{});
    REQUIRE(r.chains.size() == 1);
    const auto& ch = r.chains[0];
    CHECK(ch.chain.bones ==
          retail::chain_bone_count(ch.chain.length, c.height, retail::ChainParams{}));
    CHECK(int(ch.bones.size()) == ch.chain.bones + 1);
    CHECK(ch.bones.front() == "Tail_1");
    CHECK(ch.bones.back() == "Tail_End");
    std::vector<Eigen::Vector3d> line;
    for (const auto& p : rig.truth["tail_centreline"])
      line.push_back({p[0].get<double>(), p[1].get<double>(), p[2].get<double>()});
    for (const auto& j : ch.chain.joints)
      CHECK(retail::polyline_distance(j, line) <= 0.02 * c.height);
    CHECK(ch.distance_after <= 0.5 * ch.distance_before);
    // The skin radius at interior joints: the generator's tube narrows from 0.055 to 0.020
    // (x H / 1.8) along its 17 centreline points. Measured from the chords between joints of a
    // curved tube, at its widest vertex, it may read larger (a stricter skin limit), never smaller.
    REQUIRE(ch.chain.radius.size() == std::size_t(ch.chain.bones));
    double k = rig.truth["height_m"].get<double>() / 1.8;
    // The root radius (the ring where the tube meets the body, sizing the root band): the
    // tube's 0.055 there, read up to the collar's widest vertex around the joined body.
    CHECK(ch.chain.root_radius >= 0.9 * 0.055 * k);
    CHECK(ch.chain.root_radius <= 2.0 * 0.055 * k);
    for (int i = 1; i < ch.chain.bones; ++i) {
      const Eigen::Vector3d& j = ch.chain.joints[std::size_t(i)];
      std::size_t nearest = 0;
      for (std::size_t q = 1; q < line.size(); ++q)
        if ((line[q] - j).norm() < (line[nearest] - j).norm()) nearest = q;
      double expected = (0.055 - 0.035 * double(nearest) / double(line.size() - 1)) * k;
      INFO("joint " << i);
      CHECK(ch.chain.radius[std::size_t(i)] >= 0.9 * expected);
      CHECK(ch.chain.radius[std::size_t(i)] <= 1.5 * expected);
    }
  }
}

TEST_CASE("chain: the skin radius counts an edge that spans a joint's blend", "[chain]") {
  // A straight square tube along x, L 0.8 (H 1.8: K 4, joints on its axis), rings
  // of radius 0.05 every 0.1, g = x. Two plates stand off it at y = +-0.2, each one edge from
  // x 0.32 to x 0.48: K c / L = 1.6 and 2.4, both outside joint 2's blend (|K c / L - 2| <=
  // 1/4) on either side of it, so the blend's vertices alone read 0.05 there. Bending joint 2
  // moves one end of each plate edge and not the other: the edge bends with the joint, and the
  // radius there is its ends' distance from the chain, 0.2. Joints 1 and 3 keep 0.05.
  retail::WeldedMesh m;
  retail::Piece piece;
  std::vector<Eigen::Vector3d> p;
  std::vector<std::vector<int>> nb;
  auto add = [&](const Eigen::Vector3d& v, double g) {
    p.push_back(v), nb.emplace_back(), piece.vertices.push_back(int(p.size() - 1));
    piece.geodesic.push_back(g);
    return int(p.size() - 1);
  };
  auto link = [&](int a, int b) {
    nb[std::size_t(a)].push_back(b), nb[std::size_t(b)].push_back(a);
  };
  const double r = 0.05;
  for (int i = 0; i <= 8; ++i)
    for (int k = 0; k < 4; ++k) {
      const double t = M_PI / 2 * k;
      const int v = add({0.1 * i, r * std::cos(t), r * std::sin(t)}, 0.1 * i);
      if (k > 0) link(v, v - 1);
      if (k == 3) link(v, v - 3);
      if (i > 0) link(v, v - 4);
    }
  for (double y : {0.2, -0.2}) link(add({0.32, y, 0}, 0.32), add({0.48, y, 0}, 0.48));
  m.welded.resize(Eigen::Index(p.size()), 3);
  m.adjacency_start.push_back(0);
  for (std::size_t i = 0; i < p.size(); ++i) {
    m.welded.row(Eigen::Index(i)) = p[i].transpose();
    for (int b : nb[i])
      m.adjacency.push_back(b), m.edge_length.push_back((p[i] - p[std::size_t(b)]).norm());
    m.adjacency_start.push_back(int(m.adjacency.size()));
  }
  m.positions = m.welded;
  for (std::size_t i = 0; i < p.size(); ++i) m.weld_of.push_back(int(i));
  piece.length = 0.8;
  retail::ChainParams params;
  params.coordinate = retail::ChainParams::Coordinate::Geodesic;
  const retail::Chain chain = retail::grow_chain(m, piece, 1.8, params);
  REQUIRE(chain.bones == 4);
  REQUIRE(chain.radius.size() == 4);
  for (int i = 1; i < 4; ++i) // on the axis (the tube and plates are symmetric about it)
    CHECK(chain.joints[std::size_t(i)].tail<2>().norm() == Approx(0).margin(1e-9));
  CHECK(chain.radius[1] == Approx(r).margin(1e-9));
  CHECK(chain.radius[2] == Approx(0.2).margin(1e-9));
  CHECK(chain.radius[3] == Approx(r).margin(1e-9));
}

} // namespace test_chain
