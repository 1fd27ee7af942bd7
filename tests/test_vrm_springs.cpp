// VRM spring import (include/retail/vrm/vrm_springs.h): godette's VRM 0.x bone groups, every VRM
// 1 fixture in ../shared/data/springbone-fixtures, hand-written files for branching, radii and the
// article's last-link radius bug, and malformed metadata that must fail naming its JSON path.
#include "retail/base/error.h"
#include "retail/io/io.h"
#include "retail/motion/hair_solver.h"
#include "retail/rig/transform.h"
#include "retail/vrm/vrm_springs.h"
#include "support.h"

#include <catch2/catch.hpp>
#include <filesystem>

namespace test_vrm_springs {

using Eigen::Vector3d;
using retail::Json;

namespace {

struct Parsed {
  retail::Document doc;
  retail::Model model;
};

/// A .gltf document from JSON text (no buffers), validated like a file.
Parsed parse_json(const Json& j) {
  std::string text = j.dump();
  Parsed p{retail::parse_document(retail::Bytes(text.begin(), text.end()), ""), {}};
  p.model = retail::parse_model(p.doc);
  return p;
}

/// Nodes 0 -> 1 -> 2 -> 3 (each 0.1 below the last) plus a collider node 4, and `ext` as the
/// file's extensions.
Json with_chain(const Json& ext) {
  Json j = Json::parse(R"({"asset":{"version":"2.0"},"scene":0,"scenes":[{"nodes":[0,4]}],
    "nodes":[{"name":"a","children":[1],"translation":[0,1.5,0]},
             {"name":"b","children":[2],"translation":[0,-0.1,0]},
             {"name":"c","children":[3],"translation":[0,-0.1,0]},
             {"name":"d","translation":[0,-0.1,0]},
             {"name":"col","translation":[0.2,1.4,0]}]})");
  j["extensions"] = ext;
  return j;
}

Json v1_spring(const Json& joints) {
  Json ext = Json::parse(R"({"VRMC_springBone":{"specVersion":"1.0",
    "colliders":[{"node":4,"shape":{"sphere":{"offset":[0,0,0],"radius":0.05}}},
                 {"node":4,"shape":{"capsule":{"offset":[0,0,0],"radius":0.03,"tail":[0,0.1,0]}}}],
    "colliderGroups":[{"name":"g","colliders":[0,1]}],
    "springs":[{"name":"s","colliderGroups":[0]}]}})");
  ext["VRMC_springBone"]["springs"][0]["joints"] = joints;
  return ext;
}

/// The message of the Error(InvalidInput) reading `j` throws ("" when it does not throw).
std::string import_error(const Json& j) {
  Parsed p = parse_json(j);
  try {
    retail::read_vrm_springs(p.doc, p.model);
  } catch (const retail::Error& e) {
    CHECK(e.code() == retail::ExitCode::InvalidInput);
    return e.what();
  }
  return "";
}

} // namespace

TEST_CASE("vrm: VRM 1 links use their head joint's settings - the last link keeps its radius",
          "[vrm]") {
  Parsed p = parse_json(with_chain(v1_spring(Json::parse(
      R"([{"node":0,"hitRadius":0.01,"stiffness":2,"dragForce":0.2,"gravityPower":0.5,
           "gravityDir":[0,0,-1]},
          {"node":1,"hitRadius":0.02},{"node":2,"hitRadius":0.03},{"node":3}])"))));
  retail::VrmSprings s = retail::read_vrm_springs(p.doc, p.model);
  REQUIRE(s.source == "VRMC_springBone");
  REQUIRE(s.chains.size() == 1);
  const auto& ch = s.chains[0];
  CHECK(ch.name == "s");
  CHECK(ch.joints == std::vector<int>{0, 1, 2, 3});
  REQUIRE(ch.links.size() == 3);
  CHECK(ch.links[0].hit_radius_m == 0.01);
  CHECK(ch.links[1].hit_radius_m == 0.02);
  CHECK(ch.links[2].hit_radius_m == 0.03); // the article's bug read joints[3]: 0
  CHECK(ch.links[0].stiffness == 2);
  CHECK(ch.links[0].drag_force == 0.2);
  CHECK(ch.links[0].gravity_power == 0.5);
  CHECK(ch.links[0].gravity_dir == Vector3d(0, 0, -1));
  CHECK(ch.links[1].stiffness == 1); // VRM 1 defaults
  CHECK(ch.links[1].drag_force == 0.4);
  CHECK(ch.links[1].gravity_dir == Vector3d(0, -1, 0));
  CHECK_FALSE(ch.has_virtual_end);
  CHECK(ch.parent_node == -1);
  CHECK(ch.collider_groups == std::vector<int>{0});
  CHECK(ch.skinned == std::vector<bool>{false, false, false, false}); // no skin: still a chain
  REQUIRE(s.colliders.size() == 2);
  CHECK(s.colliders[0].shape == retail::VrmColliderShape::Sphere);
  CHECK(s.colliders[0].radius_m == 0.05);
  CHECK(s.colliders[1].shape == retail::VrmColliderShape::Capsule);
  CHECK(s.colliders[1].tail == Vector3d(0, 0.1, 0));
  CHECK(s.groups[0].colliders == std::vector<int>{0, 1});
}

TEST_CASE("vrm: a chain may end in a node that is not a skinned joint", "[vrm]") {
  Json j = with_chain(v1_spring(
      Json::parse(R"([{"node":0,"hitRadius":0.01},{"node":1,"hitRadius":0.01},{"node":2}])")));
  j["skins"] = Json::parse(R"([{"joints":[0,1]}])");
  Parsed p = parse_json(j);
  retail::VrmSprings s = retail::read_vrm_springs(p.doc, p.model);
  REQUIRE(s.chains.size() == 1);
  CHECK(s.chains[0].skinned == std::vector<bool>{true, true, false});
  CHECK(s.chains[0].links.size() == 2);
}

TEST_CASE("vrm: VRM 0 roots expand down their descendants, branches start chains", "[vrm]") {
  // a -> b -> c, and b -> e (second child): chains [a b c] (+ virtual end) and [e].
  Json j = with_chain(Json::parse(R"({"VRM":{"secondaryAnimation":{
    "boneGroups":[{"bones":[0],"stiffiness":3,"dragForce":0.3,"gravityPower":0.2,
                   "gravityDir":{"x":0,"y":-1,"z":0},"hitRadius":0.04,"colliderGroups":[0],
                   "center":-1}],
    "colliderGroups":[{"node":4,"colliders":[{"offset":{"x":0.1,"y":0.2,"z":0.3},"radius":0.5}]}]
  }}})"));
  j["nodes"][2].erase("children");
  j["nodes"][1]["children"] = Json::array({2, 5});
  j["nodes"].push_back(Json::parse(R"({"name":"e","translation":[0.1,0,0]})"));
  Parsed p = parse_json(j);
  retail::VrmSprings s = retail::read_vrm_springs(p.doc, p.model);
  REQUIRE(s.source == "VRM 0.x secondaryAnimation");
  REQUIRE(s.chains.size() == 2);
  CHECK(s.chains[0].joints == std::vector<int>{0, 1, 2});
  CHECK(s.chains[0].parent_chain == -1);
  CHECK(s.chains[1].joints == std::vector<int>{5});
  CHECK(s.chains[1].parent_node == 1);
  CHECK(s.chains[1].parent_chain == 0);
  for (const auto& ch : s.chains) {
    CHECK(ch.has_virtual_end);
    REQUIRE(ch.links.size() == ch.joints.size()); // one link per joint, the last to the end
    for (const auto& l : ch.links) {
      CHECK(l.hit_radius_m == 0.04);
      CHECK(l.stiffness == 3); // "stiffiness", VRM 0's spelling
      CHECK(l.drag_force == 0.3);
    }
  }
  // Virtual end: 0.07 beyond the node along parent -> node (c hangs 0.1 below b: straight down;
  // e sits 0.1 to the side of b).
  CHECK((s.chains[0].virtual_end_local - Vector3d(0, -0.07, 0)).norm() < 1e-12);
  CHECK((s.chains[1].virtual_end_local - Vector3d(0.07, 0, 0)).norm() < 1e-12);
  REQUIRE(s.colliders.size() == 1);
  CHECK(s.colliders[0].node == 4);
  CHECK(s.colliders[0].offset == Vector3d(0.1, 0.2, -0.3)); // Unity's Z flipped back
  CHECK(s.colliders[0].radius_m == 0.5);
  CHECK(s.chains[0].collider_groups == std::vector<int>{0});
}

TEST_CASE("vrm: malformed spring metadata fails naming the JSON path", "[vrm]") {
  const std::string sp = "extensions.VRMC_springBone.springs[0]";
  auto joints = [](const char* text) { return with_chain(v1_spring(Json::parse(text))); };
  CHECK_THAT(import_error(joints(R"([{"node":0},{"node":9}])")),
             Catch::Contains(sp + ".joints[1].node: 9 is not a valid node index"));
  CHECK_THAT(import_error(joints(R"([{"node":0,"hitRadius":-0.1},{"node":1}])")),
             Catch::Contains(sp + ".joints[0].hitRadius: must not be negative"));
  CHECK_THAT(import_error(joints(R"([{"node":0,"hitRadius":"big"},{"node":1}])")),
             Catch::Contains(sp + ".joints[0].hitRadius: must be a number"));
  CHECK_THAT(import_error(joints(R"([{"node":0,"dragForce":1.5},{"node":1}])")),
             Catch::Contains(sp + ".joints[0].dragForce: must be within [0, 1]"));
  CHECK_THAT(import_error(joints(R"([{"node":1},{"node":1}])")), // a node twice: a cycle
             Catch::Contains(sp + ".joints[1].node: node 1 is not below"));
  CHECK_THAT(import_error(joints(R"([{"node":2},{"node":1}])")),
             Catch::Contains(sp + ".joints[1].node: node 1 is not below"));
  CHECK_THAT(import_error(joints(R"([{"node":0,"gravityDir":[0,1]},{"node":1}])")),
             Catch::Contains(sp + ".joints[0].gravityDir: must be an array of 3 numbers"));
  CHECK_THAT(import_error(joints(R"([{"node":0}])")),
             Catch::Contains(sp + ".joints: needs at least 2 joints"));
  CHECK_THAT(import_error(joints(R"({"node":0})")),
             Catch::Contains(sp + ".joints: must be an array"));

  Json bad_group = joints(R"([{"node":0},{"node":1}])");
  bad_group["extensions"]["VRMC_springBone"]["springs"][0]["colliderGroups"] = Json::array({3});
  CHECK_THAT(import_error(bad_group),
             Catch::Contains(sp + ".colliderGroups[0]: 3 is not a valid collider group index"));
  Json bad_collider = joints(R"([{"node":0},{"node":1}])");
  bad_collider["extensions"]["VRMC_springBone"]["colliders"][1]["shape"]["capsule"]["radius"] = -1;
  CHECK_THAT(import_error(bad_collider),
             Catch::Contains("extensions.VRMC_springBone.colliders[1].shape.capsule.radius: must "
                             "not be negative"));
  Json no_shape = joints(R"([{"node":0},{"node":1}])");
  no_shape["extensions"]["VRMC_springBone"]["colliders"][0]["shape"] = Json::object();
  CHECK_THAT(import_error(no_shape),
             Catch::Contains("extensions.VRMC_springBone.colliders[0].shape: has no sphere"));

  Json bad_inside = joints(R"([{"node":0},{"node":1}])");
  bad_inside["extensions"]["VRMC_springBone"]["colliders"][0]["extensions"] = Json::parse(
      R"({"VRMC_springBone_extended_collider":{"specVersion":"1.0",
          "shape":{"sphere":{"radius":1,"inside":"yes"}}}})");
  CHECK_THAT(import_error(bad_inside),
             Catch::Contains("extensions.VRMC_springBone.colliders[0].extensions."
                             "VRMC_springBone_extended_collider.shape.sphere.inside: must be "
                             "true or false"));

  const std::string v0 = "extensions.VRM.secondaryAnimation";
  Json vrm0 = with_chain(Json::parse(R"({"VRM":{"secondaryAnimation":{
    "boneGroups":[{"bones":[0],"hitRadius":0.02,"colliderGroups":[0]}],
    "colliderGroups":[{"node":4,"colliders":[{"offset":{"x":0,"y":0,"z":0},"radius":0.1}]}]}}})"));
  CHECK(import_error(vrm0).empty());
  Json v0_radius = vrm0;
  v0_radius["extensions"]["VRM"]["secondaryAnimation"]["colliderGroups"][0]["colliders"][0]
           ["radius"] = -0.1;
  CHECK_THAT(import_error(v0_radius),
             Catch::Contains(v0 + ".colliderGroups[0].colliders[0].radius: must not be negative"));
  Json v0_bone = vrm0;
  v0_bone["extensions"]["VRM"]["secondaryAnimation"]["boneGroups"][0]["bones"][0] = 70;
  CHECK_THAT(import_error(v0_bone),
             Catch::Contains(v0 + ".boneGroups[0].bones[0]: 70 is not a valid node index"));
  Json v0_twice = vrm0;
  v0_twice["extensions"]["VRM"]["secondaryAnimation"]["boneGroups"][0]["bones"] = {0, 0};
  CHECK_THAT(import_error(v0_twice), Catch::Contains(v0 + ".boneGroups[0].bones[1]: node 0"));
  Json v0_type = vrm0;
  v0_type["extensions"]["VRM"]["secondaryAnimation"]["boneGroups"][0]["hitRadius"] = true;
  CHECK_THAT(import_error(v0_type),
             Catch::Contains(v0 + ".boneGroups[0].hitRadius: must be a number"));
  Json v0_node = vrm0;
  v0_node["extensions"]["VRM"]["secondaryAnimation"]["colliderGroups"][0]["node"] = -1;
  CHECK_THAT(import_error(v0_node),
             Catch::Contains(v0 + ".colliderGroups[0].node: -1 is not a valid node index"));
}

TEST_CASE("vrm: no spring metadata reads as empty", "[vrm]") {
  Parsed p = parse_json(with_chain(Json::object()));
  retail::VrmSprings s = retail::read_vrm_springs(p.doc, p.model);
  CHECK(s.empty());
  CHECK(s.source.empty());
}

TEST_CASE("vrm: godette's bone groups, radii and colliders", "[vrm][shared]") {
  std::string data = test::shared_data();
  if (data.empty()) return;
  retail::Document doc = retail::read_document(data + "/originals/godette.vrm");
  retail::Model model = retail::parse_model(doc);
  retail::VrmSprings s = retail::read_vrm_springs(doc, model);
  REQUIRE(s.source == "VRM 0.x secondaryAnimation");
  const Json& sa = doc.gltf["extensions"]["VRM"]["secondaryAnimation"];
  // Every listed root is a chain of its own here (no branching below them).
  std::size_t roots = 0;
  for (const auto& g : sa["boneGroups"]) roots += g["bones"].size();
  REQUIRE(s.chains.size() == roots);
  std::size_t k = 0;
  for (std::size_t g = 0; g < sa["boneGroups"].size(); ++g) {
    const Json& group = sa["boneGroups"][g];
    for (const auto& root : group["bones"]) {
      const auto& ch = s.chains[k++];
      INFO(ch.path << " root " << root.get<int>());
      CHECK(ch.joints.front() == root.get<int>());
      CHECK(ch.joints.size() == 2); // FrontHair_L -> FrontHair_L_End, ...
      REQUIRE(ch.links.size() == ch.joints.size());
      CHECK(ch.has_virtual_end);
      CHECK(std::abs(ch.virtual_end_local.norm() - 0.07) < 1e-9); // no node scale in godette
      for (const auto& l : ch.links) {
        CHECK(l.hit_radius_m == group["hitRadius"].get<double>());
        CHECK(l.hit_radius_m > 0); // the last link too
        CHECK(l.stiffness == group["stiffiness"].get<double>());
        CHECK(l.drag_force == group["dragForce"].get<double>());
      }
      CHECK(ch.collider_groups.size() == group["colliderGroups"].size());
      CHECK(ch.parent_node == model.nodes[std::size_t(ch.joints.front())].parent);
    }
  }
  std::size_t colliders = 0;
  for (const auto& g : sa["colliderGroups"]) colliders += g["colliders"].size();
  REQUIRE(s.colliders.size() == colliders);
  REQUIRE(s.groups.size() == sa["colliderGroups"].size());
  const Json& c0 = sa["colliderGroups"][0]["colliders"][0];
  CHECK(s.colliders[0].node == sa["colliderGroups"][0]["node"].get<int>());
  CHECK(s.colliders[0].radius_m == c0["radius"].get<double>());
  CHECK(s.colliders[0].offset.z() == -c0["offset"]["z"].get<double>());
  CHECK(s.colliders[0].shape == retail::VrmColliderShape::Sphere);
}

TEST_CASE("vrm: every springbone fixture reads as its JSON says", "[vrm][shared]") {
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
    retail::Document doc = retail::read_document(f);
    retail::Model model = retail::parse_model(doc);
    retail::VrmSprings s = retail::read_vrm_springs(doc, model);
    const Json& ext = doc.gltf["extensions"]["VRMC_springBone"];
    REQUIRE(s.source == "VRMC_springBone");
    REQUIRE(s.chains.size() == ext["springs"].size());
    for (std::size_t c = 0; c < s.chains.size(); ++c) {
      const Json& joints = ext["springs"][c]["joints"];
      const auto& ch = s.chains[c];
      REQUIRE(ch.joints.size() == joints.size());
      REQUIRE(ch.links.size() == joints.size() - 1);
      for (std::size_t k = 0; k < joints.size(); ++k) {
        CHECK(ch.joints[k] == joints[k]["node"].get<int>());
        if (k + 1 < joints.size())
          CHECK(ch.links[k].hit_radius_m == joints[k].value("hitRadius", 0.0));
      }
      // The tail joint carries no radius in these files; its link has its head joint's.
      if (joints[joints.size() - 2].value("hitRadius", 0.0) > 0)
        CHECK(ch.links.back().hit_radius_m > 0);
    }
    REQUIRE(s.colliders.size() == ext["colliders"].size());
    for (std::size_t c = 0; c < s.colliders.size(); ++c) {
      const Json& cj = ext["colliders"][c];
      const auto& col = s.colliders[c];
      CHECK(col.node == cj["node"].get<int>());
      bool extended = cj.contains("extensions");
      CHECK(col.extended == extended);
      const Json& shape =
          extended ? cj["extensions"]["VRMC_springBone_extended_collider"]["shape"] : cj["shape"];
      if (shape.contains("plane")) {
        CHECK(col.shape == retail::VrmColliderShape::Plane);
        CHECK(std::abs(col.normal.norm() - 1) < 1e-12);
      } else if (shape.contains("sphere")) {
        CHECK(col.shape == retail::VrmColliderShape::Sphere);
        CHECK(col.radius_m == shape["sphere"]["radius"].get<double>());
        CHECK(col.inside == shape["sphere"].value("inside", false));
      } else {
        CHECK(col.shape == retail::VrmColliderShape::Capsule);
      }
    }
  }
}

TEST_CASE("vrm: a hair rig from imported springs - rest arc, lengths, mapped parameters, proxies",
          "[vrm][hair]") {
  Parsed p = parse_json(with_chain(v1_spring(Json::parse(
      R"([{"node":1,"hitRadius":0.01,"stiffness":2,"dragForce":0.5},{"node":2,"hitRadius":0.02},
          {"node":3}])"))));
  retail::VrmSprings s = retail::read_vrm_springs(p.doc, p.model);
  std::vector<int> anchors, proxies;
  retail::HairRig rig =
      retail::hair_rig_from_vrm(s, p.model, retail::world_matrices(p.model), &anchors, &proxies);
  REQUIRE_NOTHROW(rig.validate());
  CHECK(anchors == std::vector<int>{0}); // the root joint's parent
  CHECK(proxies == std::vector<int>{4}); // both colliders sit on node 4: one pose
  REQUIRE(rig.chains.size() == 1);
  const retail::HairChain& ch = rig.chains[0];
  CHECK(ch.name == "s");
  CHECK((ch.root_local - Vector3d(0, -0.1, 0)).norm() < 1e-12);
  REQUIRE(ch.links.size() == 2);
  for (const auto& l : ch.links) {
    CHECK(l.length_m == Approx(0.1));
    CHECK((l.rest_local - Vector3d(0, -0.1, 0)).norm() < 1e-12);
  }
  CHECK(ch.links[0].stiffness_per_s2 == Approx(2 * 60 / 0.1));
  CHECK(ch.links[0].damping_per_s == Approx(-60 * std::log(0.5)));
  CHECK(ch.links[1].radius_m == 0.02);
  CHECK(ch.colliders == std::vector<int>{0, 1});
  CHECK(rig.proxies[1].tail_local == Vector3d(0, 0.1, 0));
  CHECK(rig.proxies[1].radius_m == 0.03);
  // A link of zero length cannot be simulated: the file is refused naming the spring.
  Json zero = with_chain(v1_spring(Json::parse(R"([{"node":0},{"node":1}])")));
  zero["nodes"][1]["translation"] = Json::array({0, 0, 0});
  Parsed z = parse_json(zero);
  retail::VrmSprings zs = retail::read_vrm_springs(z.doc, z.model);
  CHECK_THROWS_WITH(
      retail::hair_rig_from_vrm(zs, z.model, retail::world_matrices(z.model), nullptr, nullptr),
      Catch::Contains("extensions.VRMC_springBone.springs[0]: the link from node 0 has zero "
                      "length"));
}

namespace {

/// Every leaf (number, string, bool, null) of `j`, by pointer, depth first.
void leaves(Json& j, std::vector<Json*>& out) {
  if (j.is_object() || j.is_array()) {
    for (auto& v : j) leaves(v, out);
  } else {
    out.push_back(&j);
  }
}

} // namespace

TEST_CASE("vrm: mutated spring metadata reads or fails with an Error, never worse", "[vrm][hair]") {
  // Both versions' metadata, every leaf in turn replaced by hostile values (fixed seed).
  Json v1 = with_chain(v1_spring(Json::parse(
      R"([{"node":0,"hitRadius":0.01,"gravityDir":[0,-1,0]},{"node":1},{"node":2},{"node":3}])")));
  Json v0 = with_chain(Json::parse(R"({"VRM":{"secondaryAnimation":{
    "boneGroups":[{"bones":[0],"stiffiness":1,"gravityDir":{"x":0,"y":-1,"z":0},"hitRadius":0.1,
                   "colliderGroups":[0],"dragForce":0.2,"gravityPower":1}],
    "colliderGroups":[{"node":4,"colliders":[{"offset":{"x":0,"y":0,"z":0},"radius":0.1}]}]}}})"));
  const std::vector<Json> hostile = {Json(-1),   Json(1e300),    Json(4294967296.0),
                                     Json("x"),  Json(nullptr),  Json::array(),
                                     Json(true), Json::object(), Json(0),
                                     Json(1.5),  Json(1u << 31), Json(-1e-300)};
  int read = 0, refused = 0;
  for (const Json& base : {v1, v0}) {
    Json probe = base;
    std::vector<Json*> all;
    leaves(probe["extensions"], all); // (only counted: each mutation starts from a fresh copy)
    REQUIRE(all.size() > 10);
    for (std::size_t k = 0; k < all.size(); ++k)
      for (const Json& h : hostile) {
        Json j = base;
        std::vector<Json*> ls;
        leaves(j["extensions"], ls);
        *ls[k] = h;
        Parsed p = parse_json(j);
        try {
          retail::VrmSprings s = retail::read_vrm_springs(p.doc, p.model);
          std::vector<int> anchors, proxies;
          retail::HairRig rig = retail::hair_rig_from_vrm(
              s, p.model, retail::world_matrices(p.model), &anchors, &proxies);
          rig.validate();
          retail::HairPoses poses;
          poses.anchors.assign(rig.anchor_count, Eigen::Affine3d::Identity());
          poses.proxies.assign(rig.proxy_count, Eigen::Affine3d::Identity());
          retail::HairState st = retail::rest_state(rig, poses);
          for (int n = 0; n < 12; ++n) retail::step(rig, poses, poses, st);
          for (const auto& c : st.chains)
            for (const auto& x : c.x) REQUIRE(x.allFinite());
          ++read;
        } catch (const retail::Error&) {
          ++refused;
        }
      }
  }
  CHECK(read > 0);
  CHECK(refused > 0);
}

} // namespace test_vrm_springs
