// The base's cues on generated rigs: leg-weighted skin's distance from the body's midline and
// the mixed-limb skin with its mirror image (detect.h's leg_midline_distance, mixed_base_skin).
#include "retail/detect/detect.h"
#include "support.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>

namespace test_detect_cues {

namespace {

/// A generated thin-tailed rig (symmetric about x = 0) as detection reads it, with each welded
/// vertex's share on the legs (leg_share).
struct ThinRig {
  retail::GeneratedRig rig;
  retail::Model model;
  retail::Character c;
  retail::WeldedMesh m;
  std::vector<double> legs;
};

ThinRig thin_rig() {
  ThinRig t;
  retail::RigOptions o;
  o.tail = retail::TailStyle::Thin;
  t.rig = test::make_rig(o);
  t.model = retail::parse_model(t.rig.doc);
  t.c = retail::build_characters(t.rig.doc, t.model, {})[0];
  t.m = retail::weld_character(t.rig.doc, t.model, t.c, {});
  const retail::SkinWeights sw = retail::read_skin_weights(t.rig.doc, t.model, t.c, t.m);
  t.legs = retail::leg_share(t.m, sw, retail::joint_regions(t.c));
  return t;
}

} // namespace

TEST_CASE("detect: leg-weighted skin's distance from the midline, infinite elsewhere", "[detect]") {
  // The generated rigs are symmetric about x = 0 (thighs at +-0.1 x the hip width, hips at 0):
  // the midline plane is x = 0. Their tails are weighted to the thighs, their spines are not.
  ThinRig t = thin_rig();
  const retail::Character& c = t.c;
  const retail::WeldedMesh& m = t.m;
  std::vector<double> d = retail::leg_midline_distance(m, t.legs, c);
  REQUIRE(d.size() == m.size());
  std::size_t finite = 0, infinite = 0;
  for (std::size_t v = 0; v < d.size(); ++v) {
    if (std::isfinite(d[v])) {
      ++finite;
      CHECK(d[v] == Approx(std::abs(m.welded(Eigen::Index(v), 0))).margin(1e-9));
    } else {
      ++infinite;
    }
  }
  CHECK(finite > 0);   // the legs and the tail
  CHECK(infinite > 0); // the torso, arms, head
}

TEST_CASE("detect: mixed base skin and its mirror image, and a thigh joint far out", "[detect]") {
  // The generated rigs are symmetric about x = 0: mark one leg-weighted vertex at x > 0 mixed;
  // its mirror partner (same y, z, x negated) is found within the tolerance, nothing beside it.
  ThinRig t = thin_rig();
  retail::Character& c = t.c;
  const retail::WeldedMesh& m = t.m;
  const std::vector<double>& legs = t.legs;
  const double tol = 1e-6 * c.height;
  int seed = -1, partner = -1;
  for (std::size_t v = 0; v < m.size() && partner < 0; ++v) {
    if (!(legs[v] >= 0.5) || !(m.welded(Eigen::Index(v), 0) > 0.01 * c.height)) continue;
    Eigen::RowVector3d q = m.welded.row(Eigen::Index(v));
    q.x() = -q.x();
    for (std::size_t w = 0; w < m.size(); ++w)
      if (legs[w] >= 0.5 && (m.welded.row(Eigen::Index(w)) - q).norm() <= tol)
        seed = int(v), partner = int(w);
  }
  REQUIRE(partner >= 0);
  std::vector<char> mixed(m.size(), 0);
  mixed[std::size_t(seed)] = 1;
  std::vector<char> out = retail::mixed_base_skin(m, legs, mixed, c, tol);
  CHECK(out[std::size_t(seed)]);
  CHECK(out[std::size_t(partner)]);
  CHECK(std::count(out.begin(), out.end(), char(1)) == 2);
  // A left thigh joint 1e30 away puts the midline there: every reflection lands far out (the
  // grid's cell index must stay an integer: the sanitizer build checks it), nothing matches.
  c.bind_world[std::size_t(c.joint_index(c.roles.upper_leg[0]))](0, 3) = 1e30;
  out = retail::mixed_base_skin(m, legs, mixed, c, tol);
  CHECK(out[std::size_t(seed)]);
  CHECK(std::count(out.begin(), out.end(), char(1)) == 1);
}

TEST_CASE("detect: the mirror cue is the same on one worker or several", "[detect]") {
  // Every leg-weighted vertex at x > 0 marked mixed: their mirror images are found whatever the
  // number of workers looking them up.
  ThinRig t = thin_rig();
  const retail::Character& c = t.c;
  const retail::WeldedMesh& m = t.m;
  const std::vector<double>& legs = t.legs;
  std::vector<char> mixed(m.size(), 0);
  std::size_t marked = 0;
  for (std::size_t v = 0; v < m.size(); ++v)
    if (legs[v] >= 0.5 && m.welded(Eigen::Index(v), 0) > 0) mixed[v] = 1, ++marked;
  REQUIRE(marked > 0);
  const double tol = 0.02 * c.height;
  const std::vector<char> one = retail::mixed_base_skin(m, legs, mixed, c, tol, 1);
  const std::vector<char> many = retail::mixed_base_skin(m, legs, mixed, c, tol, 3);
  CHECK(one == many);
  CHECK(std::size_t(std::count(one.begin(), one.end(), char(1))) > marked); // mirrors found
}

} // namespace test_detect_cues
