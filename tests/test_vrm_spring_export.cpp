// VRM spring export: the mapping against its inverse (vrm_link_params) and by hand, the entries
// for VRM 1 and VRM 0.x read back by read_vrm_springs, existing entries untouched, and refusals.
#include "retail/base/error.h"
#include "retail/io/builder.h"
#include "retail/motion/hair_solver.h"
#include "retail/motion/vrm_spring_export.h"
#include "retail/rig/transform.h"
#include "retail/vrm/vrm_spring_write.h"
#include "retail/vrm/vrm_springs.h"
#include "support.h"

#include <catch2/catch.hpp>

namespace test_vrm_spring_export {

using retail::Json;

namespace {

int node_named(const retail::Document& d, const std::string& suffix) {
  for (std::size_t n = 0; n < d.gltf["nodes"].size(); ++n) {
    std::string name = d.gltf["nodes"][n].value("name", "");
    if (name.size() >= suffix.size() &&
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0)
      return int(n);
  }
  return -1;
}

/// A generated rig's left leg (up leg, leg, foot) as a grown spring: a plain chain of nodes.
retail::GrownSpring leg_spring(const retail::Document& d) {
  retail::GrownSpring s;
  s.name = "retail test";
  s.joints = {node_named(d, "LeftUpLeg"), node_named(d, "LeftLeg"), node_named(d, "LeftFoot")};
  s.radius_m = {0.05, 0.04};
  s.frequency_hz = {0.9, 0.45};
  s.gravity_mps2 = 2.0;
  return s;
}

} // namespace

TEST_CASE("vrm export: the mapping inverts vrm_link_params and matches a hand computation",
          "[vrm]") {
  // f = 1 Hz, zeta 0.65, L = 0.5 m at 60 Hz: s = (2 pi)^2 * 0.5 / 60 = 0.328987,
  // d = 1 - exp(-2 * 0.65 * 2 pi / 60) = 0.1272758, p = 9.81 / 60 = 0.1635.
  retail::VrmJointSettings s = retail::vrm_settings_for(1.0, 0.65, 9.81, 0.5, 0.1, 2.0);
  CHECK(s.stiffness == Approx(0.328987).epsilon(1e-5));
  CHECK(s.drag_force == Approx(0.1272758).epsilon(1e-6));
  CHECK(s.gravity_power == Approx(0.1635).epsilon(1e-9));
  CHECK(s.hit_radius_m == Approx(0.05)); // 0.1 m in a node scaled 2
  retail::HairLink l = retail::vrm_link_params(s, 0.5, 2.0);
  const double w = 2 * M_PI;
  CHECK(l.stiffness_per_s2 == Approx(w * w).epsilon(1e-12));
  CHECK(l.damping_per_s == Approx(2 * 0.65 * w).epsilon(1e-12));
  CHECK(l.gravity_mps2.y() == Approx(-9.81).epsilon(1e-12));
  CHECK(l.radius_m == Approx(0.1).epsilon(1e-12));
  CHECK_THROWS_AS(retail::vrm_settings_for(1, 0.65, 0, 0.0, 0.1, 1), retail::Error);
  CHECK_THROWS_AS(retail::vrm_settings_for(1, 0.65, 0, 0.5, -0.1, 1), retail::Error);
}

TEST_CASE("vrm export: a VRM 1 file gets one spring per chain and reads it back", "[vrm]") {
  retail::Document d = test::make_rig().doc;
  d.gltf["extensions"]["VRMC_vrm"] = {{"specVersion", "1.0"}};
  retail::Model m = retail::parse_model(d);
  auto world = retail::world_matrices(m);
  retail::GrownSpring s = leg_spring(d);
  REQUIRE(s.joints[0] >= 0);
  retail::VrmSpringPlan plan = retail::vrm_spring_plan(d, m, world, {s});
  CHECK(plan.target == "VRMC_springBone");
  REQUIRE(plan.entries.size() == 1);
  CHECK(plan.entries[0]["joints"].size() == 3);
  CHECK_FALSE(plan.entries[0]["joints"][2].contains("hitRadius")); // the end: node only
  retail::apply_vrm_spring_plan(d, plan);
  d = test::reparse(d);
  m = retail::parse_model(d);
  retail::VrmSprings back = retail::read_vrm_springs(d, m);
  REQUIRE(back.chains.size() == 1);
  CHECK(back.chains[0].joints == s.joints);
  REQUIRE(back.chains[0].links.size() == 2);
  CHECK(back.chains[0].links[1].hit_radius_m == Approx(0.04)); // the last link keeps its radius
  for (std::size_t i = 0; i < 2; ++i) {
    double len =
        (world[std::size_t(s.joints[i + 1])].col(3) - world[std::size_t(s.joints[i])].col(3))
            .head<3>()
            .norm();
    retail::HairLink l = retail::vrm_link_params(back.chains[0].links[i], len, 1.0);
    const double w = 2 * M_PI * s.frequency_hz[i];
    CHECK(l.stiffness_per_s2 == Approx(w * w).epsilon(1e-9));
    CHECK(l.damping_per_s == Approx(2 * 0.65 * w).epsilon(1e-9));
  }
}

TEST_CASE("vrm export: a VRM 0.x file gets a bone group - existing entries untouched", "[vrm]") {
  retail::Document d = test::make_rig().doc;
  const int head = node_named(d, "Head");
  REQUIRE(head >= 0);
  Json existing = {{"comment", "hair"},
                   {"stiffiness", 1.5},
                   {"gravityPower", 0.2},
                   {"gravityDir", {{"x", 0}, {"y", -1}, {"z", 0}}},
                   {"dragForce", 0.4},
                   {"center", -1},
                   {"hitRadius", 0.02},
                   {"bones", {head}},
                   {"colliderGroups", Json::array()}};
  d.gltf["extensions"]["VRM"] = {
      {"secondaryAnimation",
       {{"boneGroups", Json::array({existing})},
        {"colliderGroups",
         Json::array({{{"node", head},
                       {"colliders",
                        {{{"offset", {{"x", 0}, {"y", 0}, {"z", 0}}}, {"radius", 0.1}}}}}})}}}};
  retail::Model m = retail::parse_model(d);
  retail::GrownSpring s = leg_spring(d);
  s.collider_groups = {0};
  retail::VrmSpringPlan plan = retail::vrm_spring_plan(d, m, retail::world_matrices(m), {s});
  CHECK(plan.target == "VRM 0.x secondaryAnimation");
  retail::apply_vrm_spring_plan(d, plan);
  const Json& groups = d.gltf["extensions"]["VRM"]["secondaryAnimation"]["boneGroups"];
  REQUIRE(groups.size() == 2);
  CHECK(groups[0] == existing);
  CHECK(groups[1]["bones"] == Json::array({s.joints[0]}));
  CHECK(groups[1]["colliderGroups"] == Json::array({0}));
  d = test::reparse(d);
  m = retail::parse_model(d);
  retail::VrmSprings back = retail::read_vrm_springs(d, m);
  bool found = false;
  for (const auto& c : back.chains)
    if (!c.joints.empty() && c.joints[0] == s.joints[0]) {
      found = true;
      CHECK(c.collider_groups == std::vector<int>{0});
      CHECK(c.links[0].hit_radius_m == Approx(0.045)); // the group's mean radius
    }
  CHECK(found);
  // A group index the file does not have, a chain that is not a parent chain: refused.
  retail::GrownSpring bad = leg_spring(d);
  bad.collider_groups = {3};
  CHECK_THROWS_AS(retail::vrm_spring_plan(d, m, retail::world_matrices(m), {bad}), retail::Error);
  bad = leg_spring(d);
  std::swap(bad.joints[0], bad.joints[1]);
  CHECK_THROWS_AS(retail::vrm_spring_plan(d, m, retail::world_matrices(m), {bad}), retail::Error);
}

TEST_CASE("vrm export: a file that is not a VRM gets nothing", "[vrm]") {
  retail::Document d = test::make_rig().doc;
  retail::Model m = retail::parse_model(d);
  const Json before = d.gltf;
  retail::VrmSpringPlan plan =
      retail::vrm_spring_plan(d, m, retail::world_matrices(m), {leg_spring(d)});
  CHECK(plan.target.empty());
  CHECK(plan.entries.empty());
  retail::apply_vrm_spring_plan(d, plan);
  CHECK(d.gltf == before);
}

TEST_CASE("vrm export: the collider rule - tails the hips and legs, hair what the head's springs "
          "use, else the head and trunk, none without groups",
          "[vrm]") {
  retail::RigOptions o;
  o.vrm = 0; // groups: 0 head, 1 hips, 2 left upper leg, 3 right upper leg; the tuft uses 0
  retail::Document d = test::make_rig(o).doc;
  retail::Model m = retail::parse_model(d);
  retail::Character c = test::characters_of(d).at(0);
  auto groups = [&](bool hair) {
    return retail::grown_collider_groups(retail::read_vrm_springs(d, m), m, c, hair);
  };
  CHECK(groups(false) == std::vector<int>{1, 2, 3});
  CHECK(groups(true) == std::vector<int>{0});
  // No spring under the head uses a group: the groups on the head and the trunk.
  d.gltf["extensions"]["VRM"]["secondaryAnimation"]["boneGroups"][0]["colliderGroups"] =
      Json::array();
  CHECK(groups(true) == std::vector<int>{0, 1});
  CHECK(groups(false) == std::vector<int>{1, 2, 3});
  // No collider group at all: none.
  d.gltf["extensions"]["VRM"]["secondaryAnimation"]["colliderGroups"] = Json::array();
  CHECK(groups(true).empty());
  CHECK(groups(false).empty());
}

namespace {

/// A capsule on the generated rig's neck node, in its frame: 0.1 long along +Y, radius 0.035
/// (VRM 0.x: ceil(0.1 / 0.035) + 1 = 4 spheres, 1/30 apart).
retail::GrownColliderSet neck_set(const retail::Document& d) {
  retail::GrownCollider c;
  c.name = "neck";
  c.node = node_named(d, "Neck");
  c.head_local = Eigen::Vector3d(0.01, 0, 0.02);
  c.tail_local = Eigen::Vector3d(0.01, 0.1, 0.02);
  c.radius_local = 0.035;
  return {"retail body", {c}};
}

} // namespace

TEST_CASE("vrm export: colliders retail adds are appended after the file's, as a VRM 1 capsule "
          "group and VRM 0.x spheres along the axis, and read back as written",
          "[vrm]") {
  for (int version : {0, 1}) {
    INFO("VRM " << version);
    retail::RigOptions o;
    o.vrm = version;
    retail::Document d = test::make_rig(o).doc;
    retail::Model m = retail::parse_model(d);
    const retail::VrmSprings before = retail::read_vrm_springs(d, m);
    const Json json_before = d.gltf["extensions"];
    const retail::GrownColliderSet set = neck_set(d);
    REQUIRE(set.colliders[0].node >= 0);
    const auto added = retail::vrm_added_groups(d, {set});
    REQUIRE(added.size() == 1);
    CHECK(added[0] == std::vector<int>{int(before.groups.size())}); // one node: one group
    // Two characters' sets (the second on two nodes), an empty one between: numbered in order.
    retail::GrownColliderSet second = set;
    second.colliders.push_back(set.colliders[0]);
    second.colliders.back().node = node_named(d, "Head");
    const int n = int(before.groups.size());
    const auto three = retail::vrm_added_groups(d, {set, {}, second});
    CHECK(three[0] == std::vector<int>{n});
    CHECK(three[1].empty());
    CHECK(three[2] == (version == 1 ? std::vector<int>{n + 1} : std::vector<int>{n + 1, n + 2}));
    retail::GrownSpring s = leg_spring(d);
    s.collider_groups = {0, added[0][0]};
    retail::VrmSpringPlan plan =
        retail::vrm_spring_plan(d, m, retail::world_matrices(m), {s}, {set});
    CHECK(plan.collider_groups.size() == 1);
    CHECK(plan.colliders.size() == (version == 1 ? 1u : 0u));
    retail::apply_vrm_spring_plan(d, plan);
    // The file's own colliders and groups: the same JSON, in place.
    const Json& after = d.gltf["extensions"];
    const char* owner = version == 1 ? "/VRMC_springBone" : "/VRM/secondaryAnimation";
    for (const char* key : {"/colliders", "/colliderGroups"}) {
      const Json::json_pointer ptr(std::string(owner) + key);
      if (!json_before.contains(ptr)) continue;
      const Json& was = json_before.at(ptr);
      REQUIRE(after.at(ptr).size() >= was.size());
      for (std::size_t i = 0; i < was.size(); ++i) CHECK(after.at(ptr)[i].dump() == was[i].dump());
    }
    d = test::reparse(d);
    m = retail::parse_model(d);
    const retail::VrmSprings back = retail::read_vrm_springs(d, m);
    REQUIRE(back.groups.size() == before.groups.size() + 1);
    for (std::size_t g = 0; g < before.groups.size(); ++g)
      CHECK(back.groups[g].colliders == before.groups[g].colliders);
    const retail::VrmColliderGroup& group = back.groups.back();
    const retail::GrownCollider& c = set.colliders[0];
    if (version == 1) {
      CHECK(group.name == "retail body");
      REQUIRE(group.colliders == std::vector<int>{int(before.colliders.size())});
      const retail::VrmCollider& col = back.colliders.back();
      CHECK(col.node == c.node);
      CHECK(col.shape == retail::VrmColliderShape::Capsule);
      CHECK((col.offset - c.head_local).norm() < 1e-12);
      CHECK((col.tail - c.tail_local).norm() < 1e-12);
      CHECK(col.radius_m == c.radius_local);
    } else {
      REQUIRE(group.colliders.size() == 4); // ceil(0.1 / 0.035) + 1
      for (std::size_t i = 0; i < 4; ++i) {
        const retail::VrmCollider& col = back.colliders[std::size_t(group.colliders[i])];
        CHECK(col.node == c.node);
        CHECK(col.shape == retail::VrmColliderShape::Sphere);
        CHECK(col.radius_m == c.radius_local);
        const Eigen::Vector3d want(0.01, 0.1 * double(i) / 3, 0.02); // Z read back unflipped
        CHECK((col.offset - want).norm() < 1e-12);
      }
      // As written: Unity's Z.
      const Json& w = d.gltf["extensions"]["VRM"]["secondaryAnimation"]["colliderGroups"].back();
      CHECK(w["node"] == c.node);
      CHECK(w["colliders"][0]["offset"]["z"].get<double>() == Approx(-0.02));
    }
    for (const auto& ch : back.chains)
      if (!ch.joints.empty() && ch.joints.front() == s.joints.front())
        CHECK(ch.collider_groups == s.collider_groups);
    // A group past the appended ones, a collider without a radius or node: refused.
    retail::GrownSpring bad = leg_spring(d);
    bad.collider_groups = {int(back.groups.size()) + 1};
    CHECK_THROWS_AS(retail::vrm_spring_plan(d, m, retail::world_matrices(m), {bad}, {set}),
                    retail::Error);
    retail::GrownColliderSet flat = set;
    flat.colliders[0].radius_local = 0;
    CHECK_THROWS_AS(retail::vrm_spring_plan(d, m, retail::world_matrices(m), {s}, {flat}),
                    retail::Error);
    flat = set;
    flat.colliders[0].node = int(m.nodes.size());
    CHECK_THROWS_AS(retail::vrm_spring_plan(d, m, retail::world_matrices(m), {s}, {flat}),
                    retail::Error);
  }
}

TEST_CASE("vrm export: VRM 0.x spheres cover a capsule at spacing at most its radius, one group "
          "per node",
          "[vrm]") {
  retail::RigOptions o;
  o.vrm = 0;
  retail::Document d = test::make_rig(o).doc;
  retail::Model m = retail::parse_model(d);
  const std::size_t groups =
      d.gltf["extensions"]["VRM"]["secondaryAnimation"]["colliderGroups"].size();
  retail::GrownColliderSet set = neck_set(d);
  retail::GrownCollider head = set.colliders[0], sphere = set.colliders[0];
  head.name = "head";
  head.node = node_named(d, "Head");
  head.tail_local = head.head_local + Eigen::Vector3d(0.3, 0.4, 0); // 0.5 long, radius 0.1
  head.radius_local = 0.1;
  sphere.name = "neck sphere";
  sphere.tail_local = sphere.head_local; // length 0: one sphere
  set.colliders = {set.colliders[0], head, sphere};
  const auto added = retail::vrm_added_groups(d, {set});
  CHECK(added[0] == std::vector<int>{int(groups), int(groups) + 1}); // neck, then head
  retail::VrmSpringPlan plan = retail::vrm_spring_plan(d, m, retail::world_matrices(m), {}, {set});
  REQUIRE(plan.collider_groups.size() == 2);
  CHECK(plan.collider_groups[0]["node"] == set.colliders[0].node);
  CHECK(plan.collider_groups[0]["colliders"].size() == 4 + 1); // the neck capsule, the sphere
  const Json& hs = plan.collider_groups[1]["colliders"];
  REQUIRE(hs.size() == 6); // ceil(0.5 / 0.1) + 1
  for (std::size_t i = 0; i + 1 < hs.size(); ++i) {
    const Eigen::Vector3d a(hs[i]["offset"]["x"], hs[i]["offset"]["y"], hs[i]["offset"]["z"]);
    const Eigen::Vector3d b(hs[i + 1]["offset"]["x"], hs[i + 1]["offset"]["y"],
                            hs[i + 1]["offset"]["z"]);
    CHECK((b - a).norm() == Approx(0.1).epsilon(1e-12));
  }
  CHECK(hs[5]["offset"]["x"].get<double>() == Approx(0.31));
  CHECK(hs[5]["offset"]["y"].get<double>() == Approx(0.4));
  // Nothing to add: no group, the file as it was.
  const Json before = d.gltf;
  retail::VrmSpringPlan none = retail::vrm_spring_plan(d, m, retail::world_matrices(m), {}, {});
  retail::apply_vrm_spring_plan(d, none);
  CHECK(d.gltf == before);
}

} // namespace test_vrm_spring_export
