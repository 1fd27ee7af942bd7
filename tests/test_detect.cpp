// Detection: elongation, the junction on a tube meeting a disc, invariants over every generated
// fixture, and the generated humanoids' pieces with their ground truth.
#include "retail/detect/detect.h"
#include "retail/detect/geodesic.h"
#include "retail/grow/chain.h"
#include "retail/grow/rerig.h"
#include "support.h"

#include <catch2/catch.hpp>
#include <cmath>

namespace test_detect {

namespace {

struct Analysed {
  retail::Document doc;
  retail::Json truth;
  retail::Character character;
  retail::WeldedMesh mesh;
  retail::Detection detection;
};

Analysed analyse(const retail::RigOptions& o, const retail::DetectParams& params = {}) {
  Analysed a;
  retail::GeneratedRig rig = test::make_rig(o);
  a.doc = rig.doc;
  a.truth = rig.truth;
  retail::Model m = retail::parse_model(a.doc);
  a.character = retail::build_characters(a.doc, m, {})[0];
  a.mesh = retail::weld_character(a.doc, m, a.character, {});
  auto sw = retail::read_skin_weights(a.doc, m, a.character, a.mesh);
  a.detection = retail::detect_pieces(m, a.character, a.mesh, sw, params);
  return a;
}

/// Pieces with `decision` as sets of original vertices (all primitives, in order).
std::vector<bool> originals_in(const Analysed& a, retail::Decision decision) {
  std::vector<bool> in_welded(a.mesh.size(), false), out(a.mesh.weld_of.size(), false);
  for (const auto& p : a.detection.pieces)
    if (p.decision == decision)
      for (int v : p.vertices) in_welded[std::size_t(v)] = true;
  for (std::size_t v = 0; v < out.size(); ++v) out[v] = in_welded[std::size_t(a.mesh.weld_of[v])];
  return out;
}

std::vector<bool> truth_piece(const retail::Json& truth, int piece) {
  std::vector<bool> out;
  for (const auto& prim : truth["membership"])
    for (const auto& p : prim) out.push_back(p.get<int>() == piece);
  return out;
}

double iou(const std::vector<bool>& a, const std::vector<bool>& b) {
  std::size_t both = 0, either = 0;
  for (std::size_t i = 0; i < a.size(); ++i) both += a[i] && b[i], either += a[i] || b[i];
  return either ? double(both) / double(either) : 1.0;
}

/// A closed-tip tube of radius 0.05 along -Z from z = -0.8 up to a flat annulus at z = 0 (radius
/// 0.05 .. 0.8): vertex 0 the tip, then `rings` tube rings and `disc_rings` disc rings of `seg`.
struct TubeDisc {
  static constexpr int seg = 16, rings = 41, disc_rings = 30;
  std::vector<Eigen::Vector3d> pts;
  std::vector<std::array<int, 3>> tris;
  static int at(int ring, int k) { return 1 + ring * seg + (k % seg); }
  TubeDisc() {
    pts.push_back({0, 0, -0.85}); // tip
    for (int r = 0; r < rings; ++r)
      for (int k = 0; k < seg; ++k) {
        double a = 2 * M_PI * k / seg;
        pts.push_back({0.05 * std::cos(a), 0.05 * std::sin(a), -0.8 + 0.8 * r / (rings - 1)});
      }
    for (int r = 1; r <= disc_rings; ++r)
      for (int k = 0; k < seg; ++k) {
        double a = 2 * M_PI * k / seg, rad = 0.05 + 0.75 * r / disc_rings;
        pts.push_back({rad * std::cos(a), rad * std::sin(a), 0});
      }
    for (int k = 0; k < seg; ++k) tris.push_back({0, at(0, k + 1), at(0, k)});
    for (int r = 0; r + 1 < rings + disc_rings; ++r)
      for (int k = 0; k < seg; ++k) {
        tris.push_back({at(r, k), at(r, k + 1), at(r + 1, k)});
        tris.push_back({at(r, k + 1), at(r + 1, k + 1), at(r + 1, k)});
      }
  }
};

} // namespace

TEST_CASE("detect: elongation of a known ellipsoid's axis points is a/b", "[detect]") {
  // The six axis end points of an ellipsoid with semi-axes 3, 1, 0.5: covariance diag(a^2, b^2,
  // c^2) / 3, so sqrt(l1 / l2) = 3.
  Eigen::MatrixX3d p(6, 3);
  p << 3, 0, 0, -3, 0, 0, 0, 1, 0, 0, -1, 0, 0, 0, 0.5, 0, 0, -0.5;
  CHECK(retail::elongation(p) == Approx(3.0));
  Eigen::MatrixX3d disc(4, 3); // a square: broad
  disc << 1, 0, 0, -1, 0, 0, 0, 0, 1, 0, 0, -1;
  CHECK(retail::elongation(disc) == Approx(1.0));
}

TEST_CASE("detect: a tube meeting a disc is cut where the disc begins", "[detect]") {
  // TubeDisc: the isoline perimeter is ~constant along the tube and grows at ~2 pi per unit on
  // the disc.
  const TubeDisc td;
  const int seg = TubeDisc::seg, rings = TubeDisc::rings;
  retail::WeldedMesh m = test::mesh_from(td.pts, td.tris);
  std::vector<double> u = retail::geodesic_distance(m, {0}, {}, INFINITY);
  double base =
      u[std::size_t(TubeDisc::at(rings - 1, 0))]; // geodesic distance of the tube's top ring
  double cut = retail::find_junction(m, u, 1.0, retail::DetectParams{});
  REQUIRE(cut > 0);
  CHECK(cut > base - 0.05);
  CHECK(cut < base + 0.1);
  // A tube alone (the disc removed) has no junction.
  std::vector<std::array<int, 3>> tube(td.tris.begin(),
                                       td.tris.begin() + seg + 2 * seg * (rings - 1));
  retail::WeldedMesh t = test::mesh_from(
      std::vector<Eigen::Vector3d>(td.pts.begin(), td.pts.begin() + 1 + rings * seg), tube);
  std::vector<double> ut = retail::geodesic_distance(t, {0}, {}, INFINITY);
  CHECK(retail::find_junction(t, ut, 1.0, retail::DetectParams{}) < 0);
}

TEST_CASE("detect: every far vertex is in exactly one piece over every fixture", "[detect]") {
  for (int v = 0; v < 8; ++v) {
    retail::RigOptions o;
    o.ears = o.cape = o.skirt = o.sheath = v & 1;
    o.tail_two_shells = v & 2;
    o.tail = v & 4 ? retail::TailStyle::Hanging : retail::TailStyle::Carried;
    INFO("variant " << v);
    Analysed a = analyse(o);
    std::vector<int> count(a.mesh.size(), 0);
    for (const auto& p : a.detection.pieces) {
      for (int w : p.vertices) ++count[std::size_t(w)];
      if (!p.collar_from_shell) // a separate shell's collar is its own bottom 5% (SPEC §4)
        for (int w : p.collar)
          CHECK_FALSE(std::binary_search(p.vertices.begin(), p.vertices.end(), w));
      if (p.decision == retail::Decision::TailChain) { // geodesic >= euclidean from the collar
        for (std::size_t i = 0; i < p.vertices.size(); ++i) {
          double e = INFINITY;
          for (int cv : p.collar)
            e = std::min(e, (a.mesh.welded.row(cv) - a.mesh.welded.row(p.vertices[i])).norm());
          CHECK(p.geodesic[i] >= e - 1e-9);
        }
      }
    }
    for (std::size_t w = 0; w < a.mesh.size(); ++w) {
      if (a.detection.field.far[w])
        CHECK(count[w] == 1);
      else
        CHECK(count[w] <= 1);
    }
  }
}

TEST_CASE("detect: generated humanoids - the tail is found and the rest is left alone",
          "[detect]") {
  for (int v = 0; v < 8; ++v) {
    retail::RigOptions o;
    o.ears = o.cape = o.skirt = o.sheath = true;
    o.tail_two_shells = v & 1;
    o.centimetres = v & 2;
    o.rotated = v & 4;
    INFO("two shells " << o.tail_two_shells << ", cm " << o.centimetres << ", rotated "
                       << o.rotated);
    Analysed a = analyse(o);
    int chains = 0;
    for (const auto& p : a.detection.pieces) chains += p.decision == retail::Decision::TailChain;
    CHECK(chains == 1); // two shells merge into one chain
    CHECK(iou(originals_in(a, retail::Decision::TailChain), truth_piece(a.truth, 1)) >= 0.95);
    // Ears, cape, skirt and sheath: never a chain, never rigid by default.
    for (int piece : {2, 3, 4, 5}) {
      std::vector<bool> t = truth_piece(a.truth, piece),
                        chain = originals_in(a, retail::Decision::TailChain);
      for (std::size_t i = 0; i < t.size(); ++i)
        if (t[i]) CHECK_FALSE(chain[i]);
    }
    CHECK(iou(originals_in(a, retail::Decision::Worn), truth_piece(a.truth, 5)) >
          0.5); // the sheath is worn
  }
}

TEST_CASE("detect: a border's reach along a piece - by hand", "[detect]") {
  retail::Piece p; // five vertices 0.5 apart along the piece from its collar: L = 2
  p.vertices = {4, 0, 3, 1, 2};
  p.geodesic = {2.0, 0.0, 1.5, 0.5, 1.0};
  p.length = 2;
  CHECK(retail::border_reach(p, {}) == 0.0);              // closed
  CHECK(retail::border_reach(p, {0, 1}) == Approx(0.25)); // a ring at the root
  CHECK(retail::border_reach(p, {0, 4}) == Approx(1.0));  // down the side to the hem
  CHECK(retail::border_reach(p, {7}) == 0.0);             // not the piece's: ignored
  p.length = 0;
  CHECK(retail::border_reach(p, {4}) == 0.0);
}

TEST_CASE("detect: a short fat curl whose root ring outmeasures it is a tube, a cape is not",
          "[detect]") {
  // A curl 0.6 of the default's size, eight vertices a ring, on a horizontal body: its root ring
  // is longer than the piece (the rule before tube_border_reach called it broad), but it lies at
  // the root; the cape's and the skirt's borders run down to their hems.
  retail::RigOptions o;
  o.horizontal_body = true;
  o.hips_ahead = 0.35;
  o.tail = retail::TailStyle::Curled;
  o.tail_length_scale = 0.6;
  o.tube_segments = 8;
  Analysed a = analyse(o);
  const std::vector<bool> tail = truth_piece(a.truth, 1);
  CHECK(iou(originals_in(a, retail::Decision::TailChain), tail) >= 0.95);
  for (const auto& p : a.detection.pieces)
    if (p.decision == retail::Decision::TailChain) {
      INFO(p.reason);
      CHECK(p.open_border >= p.length); // not a tube by its border's length
      CHECK(p.border_reach <= retail::DetectParams{}.tube_border_reach);
    }
  retail::DetectParams by_length; // the border's length alone: the curl is broad, no chain
  by_length.tube_border_reach = 0;
  Analysed b = analyse(o, by_length);
  CHECK(iou(originals_in(b, retail::Decision::TailChain), tail) < 0.1);

  retail::RigOptions garments; // an upright humanoid: cape and skirt reach their hems
  garments.cape = garments.skirt = true;
  garments.tail = retail::TailStyle::None;
  Analysed g = analyse(garments);
  int sheets = 0; // the cape: as slender as a tail, broad by its border's reach
  for (const auto& p : g.detection.pieces)
    if (p.decision == retail::Decision::Broad && p.slenderness >= 2) {
      ++sheets;
      CHECK(p.open_border >= p.length);
      CHECK(p.border_reach > 0.9);
    }
  CHECK(sheets >= 1);
  CHECK(std::none_of(
      g.detection.pieces.begin(), g.detection.pieces.end(),
      [](const retail::Piece& p) { return p.decision == retail::Decision::TailChain; }));
}

TEST_CASE("detect: a tube shell off the hips - whole shell - collar nearest the torso - one chain",
          "[detect]") {
  // Hips at the origin with a spine bone up +Y (H = 1, far > 0.07). A closed tube of radius
  // 0.05 runs along +X from x = 0 to x = 1 in rings of 8 every 0.1, capped by a tip at 1.05:
  // ring 0 is near, rings 1..10 and the tip are far (81 vertices). The far part is 91% of its
  // shell, so the piece takes the whole shell (89 vertices) and, having no outside neighbours,
  // its collar is its 5% (4 vertices) nearest the torso bones: ring 0 at angles 0, 45, 315 deg
  // (distance 0, 0.035, 0.035), then the first of the 0.05 ties (90 deg): {0, 1, 7, 2}.
  const int seg = 8, rings = 11;
  std::vector<Eigen::Vector3d> pts;
  std::vector<std::array<int, 3>> tris;
  for (int r = 0; r < rings; ++r)
    for (int s = 0; s < seg; ++s) {
      double a = 2 * M_PI * s / seg;
      pts.push_back({0.1 * r, 0.05 * std::cos(a), 0.05 * std::sin(a)});
    }
  pts.push_back({1.05, 0, 0}); // tip
  auto at = [&](int r, int s) { return r * seg + (s % seg); };
  for (int r = 0; r + 1 < rings; ++r)
    for (int s = 0; s < seg; ++s) {
      tris.push_back({at(r, s), at(r, s + 1), at(r + 1, s)});
      tris.push_back({at(r, s + 1), at(r + 1, s + 1), at(r + 1, s)});
    }
  const int tip = rings * seg;
  for (int s = 0; s < seg; ++s) tris.push_back({at(rings - 1, s), at(rings - 1, s + 1), tip});
  retail::WeldedMesh m = test::mesh_from(pts, tris);
  retail::Character c;
  c.joints = {0, 1};
  c.parent = {-1, 0};
  for (const Eigen::Vector3d& p : {Eigen::Vector3d(0, 0, 0), Eigen::Vector3d(0, 1, 0)}) {
    Eigen::Matrix4d w = Eigen::Matrix4d::Identity();
    w.topRightCorner<3, 1>() = p;
    c.bind_world.push_back(w);
  }
  c.height = 1;
  c.roles.hips = 0;
  c.roles.pelvis = {0};
  c.roles.spine = {1};
  retail::SkinWeights sw;
  sw.deforming = {true, true};
  retail::Model model;
  retail::Detection d = retail::detect_pieces(model, c, m, sw, retail::DetectParams{});
  std::size_t far = 0;
  for (bool f : d.field.far) far += f;
  CHECK(far == 81);
  REQUIRE(d.pieces.size() == 1);
  const retail::Piece& p = d.pieces[0];
  CHECK(p.vertices.size() == 89);
  CHECK(p.separate_shell);
  CHECK(p.collar_from_shell);
  CHECK(p.collar == std::vector<int>{0, 1, 2, 7});
  CHECK(p.attachment == 0);
  CHECK(p.region == "hips");
  CHECK(p.decision == retail::Decision::TailChain);
  CHECK(p.elongation > 5);
  CHECK(p.length == Approx(1.0).margin(0.1));
  CHECK(retail::chain_bone_count(p.length, 1.0, retail::ChainParams{}) == 8);
}

namespace {

/// A strip of unit quads along +x, columns x = 0..n-1 at y = 0 and 1 (vertex 2x + y).
retail::WeldedMesh strip(int n) {
  std::vector<Eigen::Vector3d> pts;
  std::vector<std::array<int, 3>> tris;
  for (int x = 0; x < n; ++x) pts.push_back({double(x), 0, 0}), pts.push_back({double(x), 1, 0});
  for (int x = 0; x + 1 < n; ++x) {
    tris.push_back({2 * x, 2 * x + 2, 2 * x + 1});
    tris.push_back({2 * x + 1, 2 * x + 2, 2 * x + 3});
  }
  return test::mesh_from(pts, tris);
}

/// Per welded vertex of the strip, `col(x)` of its column x.
template <class Col> std::vector<char> strip_mask(const retail::WeldedMesh& m, Col col) {
  std::vector<char> out(m.size(), 0);
  for (std::size_t v = 0; v < m.size(); ++v)
    out[v] = col(int(std::lround(m.welded(Eigen::Index(v), 0))));
  return out;
}

/// The strip's far field: far where `far_col(x)`, at distance 1 there and 0 elsewhere (the
/// growth reads only the far flag).
template <class Far> retail::DistanceField strip_field(const retail::WeldedMesh& m, Far far_col) {
  retail::DistanceField f;
  const std::vector<char> far = strip_mask(m, far_col);
  f.far.assign(far.begin(), far.end());
  for (char x : far) f.distance.push_back(x ? 1.0 : 0.0);
  return f;
}

/// Far where `far_col(x)`, mis-weighted where `mis_col(x)`.
template <class Far, class Mis>
std::vector<retail::Piece> strip_pieces(const retail::WeldedMesh& m, Far far_col, Mis mis_col,
                                        const retail::DetectParams& params,
                                        std::vector<double> leg_midline = {}) {
  return retail::isolate_pieces(m, strip_field(m, far_col), 1.0, params,
                                retail::BaseCues{strip_mask(m, mis_col), leg_midline, {}, {}});
}

std::vector<int> columns(const retail::WeldedMesh& m, const std::vector<int>& vertices) {
  std::vector<int> out;
  for (int v : vertices) out.push_back(int(std::lround(m.welded(Eigen::Index(v), 0))));
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

} // namespace

TEST_CASE("detect: a whole far piece grows over connected mis-weighted skin within its zone",
          "[detect]") {
  // Far: x >= 6 (no neck on a strip: the whole component). Mis-weighted: x = 4, 5 (connected
  // to it) and x = 1 (an island). Collar radius 0.5 (its ring x = 5, y = 0 and 1), zone 6 radii
  // = 3 units: x = 5 and 4 join; x = 3 is not mis-weighted, so x = 1 stays out too.
  retail::WeldedMesh m = strip(11);
  auto pieces = strip_pieces(
      m, [](int x) { return x >= 6; }, [](int x) { return x == 4 || x == 5 || x == 1; },
      retail::DetectParams{});
  REQUIRE(pieces.size() == 1);
  CHECK(columns(m, pieces[0].vertices) == std::vector<int>{4, 5, 6, 7, 8, 9, 10});
  CHECK(columns(m, pieces[0].base) == std::vector<int>{4, 5});
  CHECK(pieces[0].base_added == 4);
  CHECK(pieces[0].junction < 0);
  // No mis-weighted skin, no growth.
  auto plain = strip_pieces(
      m, [](int x) { return x >= 6; }, [](int) { return false; }, retail::DetectParams{});
  REQUIRE(plain.size() == 1);
  CHECK(plain[0].base_added == 0);
  CHECK(columns(m, plain[0].vertices) == std::vector<int>{6, 7, 8, 9, 10});
}

TEST_CASE("detect: a piece grows over mixed-limb skin (BaseCues::limbs_mixed) within its zone",
          "[detect]") {
  // Far: x >= 6. Nothing mis-weighted; x = 4, 5 weighted to both legs (limbs_mixed), x = 1 too
  // but not connected: x = 4, 5 join, x = 1 stays out. Without the cue nothing grows.
  retail::WeldedMesh m = strip(11);
  const retail::DistanceField f = strip_field(m, [](int x) { return x >= 6; });
  retail::BaseCues cues;
  cues.limbs_mixed = strip_mask(m, [](int x) { return x == 4 || x == 5 || x == 1; });
  auto pieces = retail::isolate_pieces(m, f, 1.0, retail::DetectParams{}, cues);
  REQUIRE(pieces.size() == 1);
  CHECK(columns(m, pieces[0].vertices) == std::vector<int>{4, 5, 6, 7, 8, 9, 10});
  CHECK(pieces[0].base_added == 4);
  cues.limbs_mixed.assign(m.size(), 0);
  auto plain = retail::isolate_pieces(m, f, 1.0, retail::DetectParams{}, cues);
  REQUIRE(plain.size() == 1);
  CHECK(plain[0].base_added == 0);
}

TEST_CASE(
    "detect: two whole pieces share mis-weighted skin by geodesic distance - ties to the first",
    "[detect]") {
  // Far at both ends (x <= 1, x >= 10); x = 2..9 mis-weighted. Zone 3 units (6 radii): the
  // left takes 2..4, the right 7..9; 5 and 6 are out of both zones.
  retail::WeldedMesh m = strip(12);
  auto far = [](int x) { return x <= 1 || x >= 10; };
  auto mis = [](int x) { return x >= 2 && x <= 9; };
  auto pieces = strip_pieces(m, far, mis, retail::DetectParams{});
  REQUIRE(pieces.size() == 2);
  CHECK(columns(m, pieces[0].vertices) == std::vector<int>{0, 1, 2, 3, 4});
  CHECK(columns(m, pieces[1].vertices) == std::vector<int>{7, 8, 9, 10, 11});
  // Zone 10 units: all of it is contested and each column goes to the nearer piece (x = 5 is 4
  // from the left, 5 from the right). With an odd gap (x = 2..8 between far x <= 1 and x >= 9)
  // column 5 is 4 from each and goes to the piece found first (the left).
  retail::DetectParams wide;
  wide.base_zone_radii = 20;
  auto all = strip_pieces(m, far, mis, wide);
  REQUIRE(all.size() == 2);
  CHECK(columns(m, all[0].vertices) == std::vector<int>{0, 1, 2, 3, 4, 5});
  CHECK(columns(m, all[1].vertices) == std::vector<int>{6, 7, 8, 9, 10, 11});
  retail::WeldedMesh odd = strip(11);
  auto tie = strip_pieces(
      odd, [](int x) { return x <= 1 || x >= 9; }, [](int x) { return x >= 2 && x <= 8; }, wide);
  REQUIRE(tie.size() == 2);
  CHECK(columns(odd, tie[0].vertices) == std::vector<int>{0, 1, 2, 3, 4, 5});
  CHECK(columns(odd, tie[1].vertices) == std::vector<int>{6, 7, 8, 9, 10});
}

TEST_CASE("detect: a component marked no_base grows none and leaves the skin to the other",
          "[detect]") {
  // The wide-zone strip above (far x <= 1 and x >= 10, mis-weighted 2..9): with the left
  // component's far skin marked (the body piece of detect_pieces' second pass), the right one
  // takes every mis-weighted column, and the left keeps only its own far skin.
  retail::WeldedMesh m = strip(12);
  const retail::DistanceField f = strip_field(m, [](int x) { return x <= 1 || x >= 10; });
  const std::vector<char> mis = strip_mask(m, [](int x) { return x >= 2 && x <= 9; });
  const std::vector<char> no_base = strip_mask(m, [](int x) { return x <= 1; });
  retail::DetectParams wide;
  wide.base_zone_radii = 20;
  auto pieces = retail::isolate_pieces(m, f, 1.0, wide, retail::BaseCues{mis, {}, {}, {}}, no_base);
  REQUIRE(pieces.size() == 2);
  CHECK(columns(m, pieces[0].vertices) == std::vector<int>{0, 1});
  CHECK(pieces[0].base_added == 0);
  CHECK(columns(m, pieces[1].vertices) == std::vector<int>{2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
  CHECK(pieces[1].base_added > 0);
}

TEST_CASE("detect: a closed stub is a tail only where the rig weighted it to the legs",
          "[detect]") {
  retail::RigOptions o; // a stub 0.06 H long, as wide as it is long: broad by shape
  o.tail = retail::TailStyle::Short;
  o.tail_length_scale = 0.75;
  o.tail_radius_scale = 1.2;
  retail::GeneratedRig rig = test::make_rig(o);
  retail::Model model = retail::parse_model(rig.doc);
  retail::Character c = retail::build_characters(rig.doc, model, {})[0];
  retail::WeldedMesh m = retail::weld_character(rig.doc, model, c, {});
  retail::SkinWeights sw = retail::read_skin_weights(rig.doc, model, c, m);
  retail::Detection d = retail::detect_pieces(model, c, m, sw, retail::DetectParams{});
  const retail::Piece* stub = nullptr;
  for (const auto& p : d.pieces)
    if (p.decision == retail::Decision::TailChain) stub = &p;
  REQUIRE(stub != nullptr);
  INFO(stub->reason);
  CHECK(stub->elongation < retail::DetectParams{}.elongation_min); // broad by shape alone
  CHECK(stub->leg_weight > 0.99);                                  // the generator's thighs
  std::vector<int> stub_vertices = stub->vertices;
  // The same skin riveted to the pelvis (a pouch, a bustle): broad, left alone.
  const int hips = c.joint_index(c.roles.hips);
  REQUIRE(hips >= 0);
  for (std::size_t v = 0; v < sw.joint.size(); ++v)
    if (std::binary_search(stub_vertices.begin(), stub_vertices.end(), m.weld_of[v])) {
      sw.joint[v].fill(-1), sw.weight[v].fill(0);
      sw.joint[v][0] = hips, sw.weight[v][0] = 1;
    }
  retail::Detection pouch = retail::detect_pieces(model, c, m, sw, retail::DetectParams{});
  bool found = false;
  for (const auto& p : pouch.pieces)
    if (std::binary_search(p.vertices.begin(), p.vertices.end(), stub_vertices[0])) {
      found = true;
      CHECK(p.leg_weight == 0);
      CHECK(p.decision == retail::Decision::Broad);
    }
  CHECK(found);
}

TEST_CASE("detect: a base grows over leg-weighted skin near the midline, not beside it",
          "[detect]") {
  // Far: x >= 6, collar radius 0.5, leg_midline_radii 2: leg-weighted skin within 1.0 of the
  // midline counts. Row y = 0 (x = 3..5) lies 0.3 from it, row y = 1 (x = 3..5) 1.5 from it (a
  // haunch beside the tail); nothing is mis-weighted. The zone (3 units) reaches x = 3.
  retail::WeldedMesh m = strip(11);
  std::vector<double> midline(m.size(), INFINITY);
  for (std::size_t v = 0; v < m.size(); ++v) {
    int x = int(std::lround(m.welded(Eigen::Index(v), 0)));
    if (x >= 3 && x <= 5) midline[v] = m.welded(Eigen::Index(v), 1) == 0 ? 0.3 : 1.5;
  }
  auto none = [](int) { return false; };
  auto far = [](int x) { return x >= 6; };
  auto pieces = strip_pieces(m, far, none, retail::DetectParams{}, midline);
  REQUIRE(pieces.size() == 1);
  CHECK(pieces[0].base_added == 3);
  for (int v : pieces[0].base) {
    CHECK(m.welded(Eigen::Index(v), 1) == 0); // only the row near the midline
    CHECK(m.welded(Eigen::Index(v), 0) >= 3);
  }
  retail::DetectParams narrow;
  narrow.leg_midline_radii = 0.5; // within 0.25 units: neither row
  CHECK(strip_pieces(m, far, none, narrow, midline)[0].base_added == 0);
}

TEST_CASE("detect: skin nearest a bone of a region - by hand", "[detect]") {
  // Three segments of joints 0 (hips), 1 (thigh), 2 (shin); vertex v lies nearest segment v % 3,
  // the last vertex nearest none (-1).
  std::vector<retail::Segment> segments(3);
  for (int j = 0; j < 3; ++j) segments[std::size_t(j)].joint = j;
  const std::vector<std::string> region = {"hips", "thigh", "leg"};
  retail::DistanceField f;
  f.segment = {0, 1, 2, 0, 1, 2, -1};
  f.distance.assign(f.segment.size(), 1.0);
  CHECK(retail::nearest_in_region(f, segments, region, "leg") ==
        std::vector<char>{0, 0, 1, 0, 0, 1, 0});
  CHECK(retail::nearest_in_region(f, segments, region, "thigh") ==
        std::vector<char>{0, 1, 0, 0, 1, 0, 0});
  CHECK(retail::nearest_in_region(f, segments, region, "arm") == std::vector<char>(7, 0));
}

TEST_CASE("detect: a small cut at the tip gives way to a cut where the skeleton's reach begins",
          "[detect]") {
  // The tube-and-disc of the junction case, far but for the disc's rim beyond radius 0.6 (the
  // collar): the profile cuts the tube (the tip is its far end). Marked "beyond the end" are the
  // tube and the disc out to radius 0.3 (a spike on the end of a tail that is all beyond the last
  // bone). With the tube under peel_fraction of the component, the piece is cut again where the
  // marked skin ends (the tube and the disc to ~0.3, a junction farther out); with it over, the
  // tube stays the piece.
  const TubeDisc td;
  retail::WeldedMesh m = test::mesh_from(td.pts, td.tris);
  retail::DistanceField f;
  f.distance.assign(m.size(), 1.0);
  f.far.assign(m.size(), true);
  for (std::size_t v = 0; v < m.size(); ++v)
    f.far[v] = m.welded(Eigen::Index(v), 2) < -1e-9 ||
               m.welded.row(Eigen::Index(v)).head<2>().norm() < 0.6;
  retail::BaseCues cues;
  cues.beyond_end.assign(m.size(), 0);
  std::size_t marked = 0, tube = 1 + std::size_t(TubeDisc::rings * TubeDisc::seg);
  auto disc_radius = [&](std::size_t v) { return m.welded.row(Eigen::Index(v)).head<2>().norm(); };
  auto on_tube = [&](std::size_t v) { return m.welded(Eigen::Index(v), 2) < -1e-9; };
  for (std::size_t v = 0; v < m.size(); ++v) {
    cues.beyond_end[v] = on_tube(v) || disc_radius(v) <= 0.3;
    marked += cues.beyond_end[v];
  }
  REQUIRE(marked > tube);
  retail::DetectParams params;
  params.peel_fraction = 0.9; // the tube (about 2/3 of the far skin) counts as a small cut
  auto pieces = retail::isolate_pieces(m, f, 1.0, params, cues);
  const retail::Piece* tip_piece = nullptr;
  for (const auto& p : pieces)
    if (std::binary_search(p.vertices.begin(), p.vertices.end(), 0)) tip_piece = &p;
  REQUIRE(tip_piece != nullptr);
  double tube_cut = -1;
  {
    params.peel_fraction = 0.1;
    for (const auto& p : retail::isolate_pieces(m, f, 1.0, params, cues))
      if (std::binary_search(p.vertices.begin(), p.vertices.end(), 0)) tube_cut = p.junction;
    params.peel_fraction = 0.9;
  }
  CHECK(tip_piece->junction > tube_cut);
  std::size_t in_piece_marked = 0;
  for (int v : tip_piece->vertices) {
    CHECK((on_tube(std::size_t(v)) || disc_radius(std::size_t(v)) < 0.35)); // not the rim
    in_piece_marked += cues.beyond_end[std::size_t(v)];
  }
  CHECK(double(in_piece_marked) >= 0.9 * double(marked));
  params.peel_fraction = 0.1; // not small: the cut stands
  pieces = retail::isolate_pieces(m, f, 1.0, params, cues);
  for (const auto& p : pieces)
    if (std::binary_search(p.vertices.begin(), p.vertices.end(), 0)) {
      CHECK(p.junction > 0);
      CHECK(p.vertices.size() < marked);
    }
}

// Riders (ride_along): spikes sunk into a tail curled over the back ride with it, although each
// alone reads as worn (a spine bone is its nearest joint); a sheath hanging from the spine beside
// a hanging tail touches the tail past its root quarter but lies outside it, and stays worn.
TEST_CASE("detect: spikes sunk into a curled tail ride with it - a sheath beside a tail stays worn",
          "[detect]") {
  retail::RigOptions curled;
  curled.tail = retail::TailStyle::Curled;
  curled.tail_spikes = 12;
  Analysed a = analyse(curled);
  int worn = 0;
  for (const auto& p : a.detection.pieces) worn += p.decision == retail::Decision::Worn;
  CHECK(worn == 0);
  CHECK(iou(originals_in(a, retail::Decision::TailChain), truth_piece(a.truth, 1)) >= 0.99);

  retail::RigOptions hanging;
  hanging.tail = retail::TailStyle::Hanging;
  hanging.ears = hanging.cape = hanging.skirt = hanging.sheath = true;
  Analysed b = analyse(hanging);
  CHECK(iou(originals_in(b, retail::Decision::Worn), truth_piece(b.truth, 5)) > 0.5);
  const std::vector<bool> sheath = truth_piece(b.truth, 5),
                          chain = originals_in(b, retail::Decision::TailChain);
  std::size_t taken = 0;
  for (std::size_t i = 0; i < sheath.size(); ++i) taken += sheath[i] && chain[i];
  CHECK(taken == 0);
  CHECK(iou(chain, truth_piece(b.truth, 1)) >= 0.95);
}

} // namespace test_detect
