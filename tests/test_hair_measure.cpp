// Hair measurements (include/retail/motion/hair_measure.h): the article's head-turn sequence on
// a 1.8 m model's ponytail (sample-rate independence, settling, determinism, a real swing) and on
// godette's VRM 0 springs, and the torso capsule fit for the Back Flip case.
#include "retail/base/error.h"
#include "retail/detect/weld.h"
#include "retail/io/io.h"
#include "retail/motion/hair_measure.h"
#include "retail/rig/skinning.h"
#include "retail/rig/transform.h"
#include "retail/vrm/vrm_springs.h"
#include "support.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>

namespace test_hair_measure {

using Eigen::Affine3d;
using Eigen::Vector3d;
using namespace retail;

namespace {

const double kPi = std::acos(-1.0);

/// A 1.8 m character's head (pivot at 1.55 m) with a six-link ponytail arcing back and down from
/// the back of the skull, a head sphere riding the head and a still torso capsule (+Z is back).
HeadTurnScene ponytail() {
  HeadTurnScene sc;
  sc.head_pivot = Vector3d(0, 1.55, 0);
  HairChain ch;
  ch.name = "ponytail";
  ch.root_local = Vector3d(0, 0.12, 0.12);
  for (int i = 0; i < 6; ++i) {
    double phi = (20 + 12 * i) * kPi / 180;
    HairLink l;
    l.rest_local = 0.05 * Vector3d(0, -std::sin(phi), std::cos(phi));
    l.length_m = 0.05;
    l.radius_m = 0.01;
    ch.links.push_back(l);
  }
  ch.colliders = {0, 1};
  sc.rig.chains.push_back(ch);
  HairProxy head;
  head.proxy = 0;
  head.head_local = head.tail_local = Vector3d(0, 0.08, 0);
  head.radius_m = 0.1;
  HairProxy torso;
  torso.proxy = 1;
  torso.head_local = Vector3d(0, 1.1, 0);
  torso.tail_local = Vector3d(0, 1.35, 0);
  torso.radius_m = 0.13;
  sc.rig.proxies = {head, torso};
  sc.rig.anchor_count = 1;
  sc.rig.proxy_count = 2;
  Affine3d at_head = Affine3d::Identity();
  at_head.translate(sc.head_pivot);
  sc.rest.anchors = {at_head};
  sc.rest.proxies = {at_head, Affine3d::Identity()};
  sc.anchor_on_head = {true};
  sc.proxy_on_head = {true, false};
  return sc;
}

HeadTurnResult at_rate(const HeadTurnScene& sc, double sample_hz) {
  HeadTurnParams p;
  p.sample_hz = sample_hz;
  return measure_head_turn(sc, p);
}

} // namespace

TEST_CASE("hair: head turn sampled at 30, 60 and 120 Hz agrees within 1 mm", "[hair]") {
  HeadTurnScene sc = ponytail();
  HeadTurnResult r30 = at_rate(sc, 30), r60 = at_rate(sc, 60), r120 = at_rate(sc, 120);
  REQUIRE(r30.times_s.size() == 12 * 30 + 1);
  REQUIRE(r60.times_s.size() == 12 * 60 + 1);
  REQUIRE(r120.times_s.size() == 12 * 120 + 1);
  double worst = 0;
  for (std::size_t k = 0; k < r30.times_s.size(); ++k) {
    REQUIRE(r60.times_s[2 * k] == Approx(r30.times_s[k]));
    REQUIRE(r120.times_s[4 * k] == Approx(r30.times_s[k]));
    const Vector3d& a = r30.chains[0].tip[k];
    worst = std::max(
        {worst, (a - r60.chains[0].tip[2 * k]).norm(), (a - r120.chains[0].tip[4 * k]).norm()});
  }
  CHECK(worst < 1e-3);
}

TEST_CASE("hair: the ponytail swings on the head turn, then settles below 0.001 mm", "[hair]") {
  HeadTurnScene sc = ponytail();
  HeadTurnParams params;
  HeadTurnResult r = measure_head_turn(sc, params);
  const HeadTurnChain& c = r.chains[0];
  // Lag: the tip against where a rigid ponytail would be (carried by the head's turn).
  double lag = 0;
  for (std::size_t k = 0; k < r.times_s.size(); ++k) {
    HairPoses p = head_turn_poses(sc, r.times_s[k], params);
    Vector3d carried = p.anchors[0] * (sc.rest.anchors[0].inverse() * c.tip[0]);
    lag = std::max(lag, (c.tip[k] - carried).norm());
  }
  CHECK(lag > 0.02);                    // it moves as hair, not as a helmet
  CHECK(c.quiet_tip_movement_m < 1e-6); // last 2 s: < 0.001 mm per sample
  CHECK(c.quiet_tip_movement_m >= 0);
  CHECK(c.penetration_m < 1e-3); // no link point 1 mm inside a proxy
  // Settled where a ponytail that never turned settles (its sag under gravity): the turn left
  // no curl behind.
  HeadTurnParams still = params;
  still.amplitude_deg = 0;
  HeadTurnResult unturned = measure_head_turn(sc, still);
  CHECK((c.tip.back() - unturned.chains[0].tip.back()).norm() < 1e-6);
  CHECK((c.tip.back() - c.tip.front()).norm() > 0.01); // (it did sag from the bind arc)
  CHECK(head_turn_yaw(1.0 / 3, params) != 0);
  CHECK(head_turn_yaw(4.5, params) == 0);
}

TEST_CASE("hair: the head-turn measurement is deterministic - identical doubles", "[hair]") {
  HeadTurnScene sc = ponytail();
  HeadTurnResult a = at_rate(sc, 30), b = at_rate(sc, 30);
  REQUIRE(a.chains[0].tip.size() == b.chains[0].tip.size());
  for (std::size_t k = 0; k < a.chains[0].tip.size(); ++k)
    REQUIRE(a.chains[0].tip[k] == b.chains[0].tip[k]);
  CHECK(a.chains[0].penetration_m == b.chains[0].penetration_m);
  CHECK(a.chains[0].quiet_tip_movement_m == b.chains[0].quiet_tip_movement_m);
}

TEST_CASE("hair: head-turn penetration counts link points inside a proxy", "[hair]") {
  HeadTurnScene sc = ponytail();
  HeadTurnParams p;
  p.turn_s = 0.5;
  p.settle_s = 0;
  p.quiet_window_s = 0;
  HeadTurnResult clean = measure_head_turn(sc, p);
  CHECK(clean.chains[0].penetration_m < 1e-3);
  // The head sphere grown past the root (0.126 from its centre): no turn of the links can clear
  // the points next to the fixed root, and the measurement must see them (root excluded).
  sc.rig.proxies[0].radius_m = 0.14;
  HeadTurnResult deep = measure_head_turn(sc, p);
  CHECK(deep.chains[0].penetration_m > 0.005);
  CHECK(deep.chains[0].penetration_m < 0.14 - 0.126);
}

TEST_CASE("hair: head-turn parameters are validated", "[hair]") {
  HeadTurnParams p;
  p.sample_hz = 50; // 120 / 50 is not whole
  CHECK_THROWS_AS(p.validate(), Error);
  p = HeadTurnParams{};
  p.turn_s = 0;
  CHECK_THROWS_AS(p.validate(), Error);
  HeadTurnScene sc = ponytail();
  sc.anchor_on_head.clear();
  CHECK_THROWS_AS(measure_head_turn(sc), Error);
}

TEST_CASE("hair: torso capsule fitted to the trunk skin, uncovered unless a collider covers it",
          "[hair]") {
  // Trunk: a cylinder of radius 0.15 around x = z = 0 from y = 0.95 to 1.45 (hips joint at 1.0,
  // neck at 1.45), on the trunk; arms 0.4 to the side weighted elsewhere.
  TorsoSkin skin;
  skin.hips = Vector3d(0, 1.0, 0);
  skin.chest_top = Vector3d(0, 1.45, 0);
  for (int k = 0; k <= 50; ++k)
    for (int a = 0; a < 24; ++a) {
      double y = 0.95 + 0.5 * k / 50, phi = 2 * kPi * a / 24;
      skin.positions.push_back(Vector3d(0.15 * std::cos(phi), y, 0.15 * std::sin(phi)));
      skin.trunk_weight.push_back(1.0);
    }
  for (int k = 0; k < 200; ++k) {
    skin.positions.push_back(Vector3d(k % 2 ? 0.4 : -0.4, 1.3, 0.01 * (k % 7)));
    skin.trunk_weight.push_back(0.1);
  }
  WorldCapsule head{{0, 1.65, 0}, {0, 1.65, 0}, 0.1};
  TorsoFit fit = fit_torso_capsule({head}, skin);
  REQUIRE(fit.fitted);
  CHECK(fit.vertices == 51 * 24);
  CHECK(fit.uncovered);
  CHECK(fit.covered_fraction == 0);
  CHECK(fit.capsule.radius_m == Approx(0.15).epsilon(1e-9));
  // Ends: the skin's 2% / 98% heights, pulled in by the radius (the caps reach the skin's ends).
  CHECK(fit.capsule.a.y() == Approx(0.95 + 0.01 + 0.15).margin(1e-3));
  CHECK(fit.capsule.b.y() == Approx(1.45 - 0.01 - 0.15).margin(1e-3));
  CHECK(std::abs(fit.capsule.a.x()) < 1e-12);
  // A chest capsule covering the trunk's axis: covered.
  WorldCapsule chest{{0, 1.1, 0}, {0, 1.3, 0}, 0.16};
  TorsoFit covered = fit_torso_capsule({head, chest}, skin);
  CHECK_FALSE(covered.uncovered);
  CHECK(covered.covered_fraction == 1);
  // Half covered (the article's ponytail: chest spheres above, nothing on the back below).
  WorldCapsule upper{{0, 1.3, 0}, {0, 1.3, 0}, 0.1};
  TorsoFit half = fit_torso_capsule({upper}, skin);
  CHECK(half.uncovered);
  CHECK(half.covered_fraction > 0);
  CHECK(half.covered_fraction < 1);
  // Too little trunk skin: no fit.
  TorsoSkin none = skin;
  for (double& w : none.trunk_weight) w = 0;
  CHECK_FALSE(fit_torso_capsule({}, none).fitted);
}

TEST_CASE("hair: godette's VRM 0 springs through the head turn", "[hair][vrm][shared]") {
  std::string data = test::shared_data();
  if (data.empty()) return;
  Document doc = read_document(data + "/originals/godette.vrm");
  Model model = parse_model(doc);
  VrmSprings springs = read_vrm_springs(doc, model);
  std::vector<Eigen::Matrix4d> world = world_matrices(model);
  std::vector<int> anchors, proxies;
  HeadTurnScene sc;
  sc.rig = hair_rig_from_vrm(springs, model, world, &anchors, &proxies);
  REQUIRE_NOTHROW(sc.rig.validate());
  REQUIRE(sc.rig.chains.size() == springs.chains.size());
  int head = -1;
  for (const auto& b : doc.gltf["extensions"]["VRM"]["humanoid"]["humanBones"])
    if (b["bone"] == "head") head = b["node"].get<int>();
  REQUIRE(head >= 0);
  auto on_head = [&](int node) {
    for (int n = node; n >= 0; n = model.nodes[std::size_t(n)].parent)
      if (n == head) return true;
    return false;
  };
  auto pose = [&](int node) {
    Affine3d a = Affine3d::Identity();
    if (node >= 0) a.matrix() = world[std::size_t(node)];
    return a;
  };
  for (int n : anchors) {
    sc.rest.anchors.push_back(pose(n));
    sc.anchor_on_head.push_back(on_head(n));
  }
  for (int n : proxies) {
    sc.rest.proxies.push_back(pose(n));
    sc.proxy_on_head.push_back(on_head(n));
  }
  sc.head_pivot = world[std::size_t(head)].topRightCorner<3, 1>();
  // Every link has a radius, the last (to the virtual end) included.
  for (const auto& ch : sc.rig.chains)
    for (const auto& l : ch.links) CHECK(l.radius_m > 0);
  HeadTurnResult r = measure_head_turn(sc);
  REQUIRE(r.chains.size() == sc.rig.chains.size());
  for (std::size_t c = 0; c < r.chains.size(); ++c) {
    INFO(sc.rig.chains[c].name);
    for (const auto& t : r.chains[c].tip) REQUIRE(t.allFinite());
    CHECK(r.chains[c].quiet_tip_movement_m < 1e-6);
  }
}

TEST_CASE("hair: the springbone fixtures run through the solver from their VRM import",
          "[hair][vrm][shared]") {
  std::string data = test::shared_data();
  if (data.empty()) return;
  std::string dir = data + "/springbone-fixtures";
  if (!std::filesystem::is_directory(dir)) {
    WARN("SKIPPED: " << dir << " does not exist");
    return;
  }
  auto files = test::model_files(dir);
  REQUIRE(!files.empty());
  for (const auto& f : files) {
    INFO(f);
    Document doc = read_document(f);
    Model model = parse_model(doc);
    VrmSprings springs = read_vrm_springs(doc, model);
    std::vector<Eigen::Matrix4d> world = world_matrices(model);
    std::vector<int> anchors, proxies;
    HairRig rig = hair_rig_from_vrm(springs, model, world, &anchors, &proxies);
    REQUIRE_NOTHROW(rig.validate());
    HairPoses poses;
    for (int n : anchors) {
      Affine3d a = Affine3d::Identity();
      if (n >= 0) a.matrix() = world[std::size_t(n)];
      poses.anchors.push_back(a);
    }
    for (int n : proxies) {
      Affine3d a = Affine3d::Identity();
      a.matrix() = world[std::size_t(n)];
      poses.proxies.push_back(a);
    }
    HairState s = rest_state(rig, poses);
    for (int n = 0; n < 240; ++n) step(rig, poses, poses, s);
    for (std::size_t c = 0; c < rig.chains.size(); ++c) {
      const HairChain& ch = rig.chains[c];
      for (std::size_t i = 0; i < ch.links.size(); ++i) {
        Vector3d o = joint_position(rig, poses, s, c, i), x = s.chains[c].x[i];
        REQUIRE(x.allFinite());
        CHECK(std::abs((x - o).norm() - ch.links[i].length_m) < 1e-9 * ch.links[i].length_m);
        for (int k : ch.colliders) {
          const HairProxy& pr = rig.proxies[std::size_t(k)];
          const Affine3d& at = poses.proxies[std::size_t(pr.proxy)];
          if (pr.plane) {
            Vector3d nrm = (at.linear() * pr.normal_local).normalized();
            CHECK((x - at * pr.head_local).dot(nrm) >= ch.links[i].radius_m - 1e-9);
          } else if (!pr.inside) {
            CHECK(clearance(o, x, ch.links[i].radius_m, place(pr, at)) > -1e-6);
          }
        }
      }
    }
  }
}

TEST_CASE("hair: godette's trunk skin fits a torso capsule her head colliders leave uncovered",
          "[hair][vrm][shared]") {
  std::string data = test::shared_data();
  if (data.empty()) return;
  Document doc = read_document(data + "/originals/godette.vrm");
  Model model = parse_model(doc);
  std::vector<Character> chars = test::characters_of(doc);
  REQUIRE(chars.size() == 1);
  const Character& ch = chars[0];
  const Roles& r = ch.roles;
  REQUIRE(r.hips >= 0);
  REQUIRE(r.neck >= 0);
  std::vector<int> trunk(r.pelvis.begin(), r.pelvis.end());
  trunk.insert(trunk.end(), r.spine.begin(), r.spine.end());
  trunk.push_back(r.hips);
  if (r.chest >= 0) trunk.push_back(r.chest);
  WeldedMesh mesh = weld_character(doc, model, ch, WeldParams{});
  TorsoSkin skin;
  skin.hips = ch.bind_position(ch.joint_index(r.hips));
  skin.chest_top = ch.bind_position(ch.joint_index(r.neck));
  for (const SourcePrimitive& src : mesh.sources) {
    const Primitive& prim =
        model.meshes[std::size_t(src.where.mesh)].primitives[std::size_t(src.where.primitive)];
    const std::vector<int>& joints = model.skins[std::size_t(src.where.skin)].joints;
    std::vector<double> w(src.count, 0.0), total(src.count, 0.0);
    for_each_influence(doc, model, prim, [&](std::size_t v, int, std::uint32_t j, double wt) {
      total[v] += wt;
      if (j < joints.size() && std::count(trunk.begin(), trunk.end(), joints[j])) w[v] += wt;
    });
    for (std::size_t v = 0; v < src.count; ++v) {
      skin.positions.push_back(mesh.positions.row(Eigen::Index(src.first + v)).transpose());
      skin.trunk_weight.push_back(total[v] > 0 ? w[v] / total[v] : 0);
    }
  }
  // The hair groups' colliders (godette's colliderGroups[1], on the head), placed at bind.
  VrmSprings springs = read_vrm_springs(doc, model);
  std::vector<Eigen::Matrix4d> world = world_matrices(model);
  auto placed = [&](int group) {
    std::vector<WorldCapsule> out;
    for (int c : springs.groups[std::size_t(group)].colliders) {
      const VrmCollider& col = springs.colliders[std::size_t(c)];
      HairProxy p;
      p.head_local = col.offset;
      p.tail_local = col.tail;
      p.radius_m = col.radius_m;
      Affine3d at = Affine3d::Identity();
      at.matrix() = world[std::size_t(col.node)];
      out.push_back(place(p, at));
    }
    return out;
  };
  TorsoFit head_only = fit_torso_capsule(placed(1), skin);
  REQUIRE(head_only.fitted);
  CHECK(head_only.vertices > 100);
  CHECK(head_only.uncovered);
  // A capsule of the trunk: along the hips -> neck line, a radius a fraction of the height.
  double height = (skin.chest_top - skin.hips).norm();
  CHECK(head_only.capsule.radius_m > 0.1 * height);
  CHECK(head_only.capsule.radius_m < 0.8 * height);
  Vector3d axis = (skin.chest_top - skin.hips).normalized();
  Vector3d mid = (head_only.capsule.a + head_only.capsule.b) / 2 - skin.hips;
  CHECK((mid - mid.dot(axis) * axis).norm() < 1e-9);
  CHECK(mid.dot(axis) > 0);
  CHECK(mid.dot(axis) < height);
  INFO("chest group covers " << fit_torso_capsule(placed(0), skin).covered_fraction);
  CHECK(fit_torso_capsule(placed(0), skin).covered_fraction >= head_only.covered_fraction);
}

} // namespace test_hair_measure
