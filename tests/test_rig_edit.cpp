// The re-rig as a value (rig_edit.h, rerig.h): planning touches no byte of the document,
// applying writes exactly the plan, a hand-made edit lands where it says.
#include "retail/base/document.h"
#include "retail/base/error.h"
#include "retail/grow/rerig.h"
#include "retail/io/accessor.h"
#include "retail/io/builder.h"
#include "retail/io/io.h"
#include "retail/qa/skin_sampler.h"
#include "retail/rig/transform.h"
#include "retail/rig_generator.h"
#include "support.h"

#include <Eigen/Dense>
#include <catch2/catch.hpp>

namespace test_rig_edit {

namespace {

struct Rig {
  retail::GeneratedRig rig;
  retail::Model model;
  retail::Character c;
};

Rig tailed() {
  Rig r;
  r.rig = test::make_rig(retail::RigOptions{});
  r.model = retail::parse_model(r.rig.doc);
  r.c = retail::build_characters(r.rig.doc, r.model, {})[0];
  return r;
}

} // namespace

TEST_CASE("rig edit: planning reads the document and changes none of its bytes", "[rig_edit]") {
  Rig r = tailed();
  const retail::Bytes before = retail::serialize_document(r.rig.doc);
  retail::CharacterPlan plan = retail::plan_character(r.rig.doc, r.model, r.c, {});
  CHECK(retail::serialize_document(r.rig.doc) == before);
  // The plan holds one chain: K + 1 nodes numbered from the document's node count, the hips
  // and every new joint appended to the skin, and the piece's vertices re-weighted.
  REQUIRE(plan.result.chains.size() == 1);
  const auto& ch = plan.result.chains[0];
  const int nodes = int(r.rig.doc.gltf["nodes"].size());
  CHECK(plan.edit.first_node == nodes);
  REQUIRE(plan.edit.nodes.size() == std::size_t(ch.chain.bones + 1));
  for (std::size_t i = 0; i < ch.nodes.size(); ++i) CHECK(ch.nodes[i] == nodes + int(i));
  CHECK(plan.edit.nodes[0].parent == r.c.roles.hips);
  for (std::size_t i = 1; i < plan.edit.nodes.size(); ++i)
    CHECK(plan.edit.nodes[i].parent == nodes + int(i) - 1);
  REQUIRE(plan.edit.skins.size() == 1);
  CHECK(plan.edit.skins[0].add.size() >= plan.edit.nodes.size());
  std::size_t planned = 0;
  for (const auto& p : plan.edit.primitives) planned += p.vertices.size();
  CHECK(planned >= ch.vertices);
}

TEST_CASE("rig edit: applying the plan writes what rerig_character writes, byte for byte",
          "[rig_edit]") {
  Rig r = tailed();
  retail::Document planned = r.rig.doc, direct = r.rig.doc;
  retail::CharacterPlan plan = retail::plan_character(planned, r.model, r.c, {});
  retail::apply_rig_edit(planned, r.model, plan.edit);
  retail::CharacterResult result = retail::rerig_character(direct, r.model, r.c, {});
  CHECK(retail::serialize_document(planned) == retail::serialize_document(direct));
  REQUIRE(result.chains.size() == plan.result.chains.size());
  CHECK(result.chains[0].nodes == plan.result.chains[0].nodes);
  // The written nodes are where the plan numbered them, named as planned.
  for (std::size_t i = 0; i < plan.edit.nodes.size(); ++i)
    CHECK(planned.gltf["nodes"][std::size_t(plan.edit.first_node) + i]["name"] ==
          plan.edit.nodes[i].name);
}

TEST_CASE("rig edit: an empty edit changes nothing - a stale plan is refused", "[rig_edit]") {
  Rig r = tailed();
  const retail::Bytes before = retail::serialize_document(r.rig.doc);
  retail::RigEdit none;
  none.first_node = 12345; // not checked when there is nothing to write
  retail::apply_rig_edit(r.rig.doc, r.model, none);
  CHECK(retail::serialize_document(r.rig.doc) == before);
  retail::CharacterPlan plan = retail::plan_character(r.rig.doc, r.model, r.c, {});
  retail::apply_rig_edit(r.rig.doc, r.model, plan.edit);
  // Applied twice: the document has grown since the plan (its node count moved on).
  CHECK_THROWS_AS(retail::apply_rig_edit(r.rig.doc, r.model, plan.edit), retail::Error);
}

TEST_CASE("rig edit: a hand-made edit - a node, its joint and IBM, one vertex's weights",
          "[rig_edit]") {
  Rig r = tailed();
  retail::Document doc = r.rig.doc;
  const int hips = r.c.roles.hips, first = int(doc.gltf["nodes"].size());
  retail::RigEdit e;
  e.first_node = first;
  e.nodes.push_back({"Extra", hips, Eigen::Vector3d(0, 0.5, 0), retail::Json()});
  Eigen::Matrix4d world = Eigen::Matrix4d::Identity();
  world(1, 3) = 2.0; // a bind at y = 2
  e.skins.push_back({r.c.skins[0], r.c.skin_to_world[0], {{first, world}}});
  const retail::Skin& skin = r.model.skins[std::size_t(r.c.skins[0])];
  std::map<int, int> index;
  for (std::size_t j = 0; j < skin.joints.size(); ++j) index[skin.joints[j]] = int(j);
  index[first] = int(skin.joints.size());
  retail::WeldedMesh mesh = retail::weld_character(doc, r.model, r.c, {});
  retail::PrimitiveWeights pw{mesh.sources[0], index, hips, {}};
  pw.vertices[0] = {{first, 0.75}, {hips, 0.25}};
  const int other = skin.joints[3]; // not the hips: skin joint 0 would hide a stale index
  pw.vertices[2] = {{first, 0.999}, {other, 0.001}}; // 0.001 x 255 quantises to 0
  e.primitives.push_back(pw);
  retail::apply_rig_edit(doc, r.model, e);

  const retail::Json& node = doc.gltf["nodes"][std::size_t(first)];
  CHECK(node["name"] == "Extra");
  CHECK(node["translation"][1].get<double>() == Approx(0.5));
  const retail::Json& children = doc.gltf["nodes"][std::size_t(hips)]["children"];
  CHECK(children.back().get<int>() == first);
  retail::Model out = retail::parse_model(doc);
  const retail::Skin& s = out.skins[std::size_t(r.c.skins[0])];
  REQUIRE(s.joints.size() == skin.joints.size() + 1);
  CHECK(s.joints.back() == first);
  // Its IBM: inverse(world) * skin_to_world, stored as floats.
  retail::AccessorData ibm = retail::read_accessor(doc, out, s.inverse_bind_matrices);
  Eigen::Matrix4d expect = world.inverse() * r.c.skin_to_world[0];
  for (int k = 0; k < 16; ++k)
    CHECK(ibm(Eigen::Index(s.joints.size() - 1), k) == Approx(expect.data()[k]).margin(1e-6));
  // Vertex 0: 0.75 on the new joint, 0.25 on the hips (quantised as the file stores them).
  auto influences = test::mesh0_influences(doc, out);
  CHECK(influences[0].at(first) == Approx(0.75).margin(1.0 / 255));
  CHECK(influences[0].at(hips) == Approx(0.25).margin(1.0 / 255));
  CHECK(influences[1] == test::mesh0_influences(r.rig.doc, r.model)[1]); // not named: as it was
  // Vertex 2: all on the new joint; the other's weight quantised to 0 names no joint (the slot is
  // empty, joint 0), so glTF-Validator sees no joint used with zero weight.
  auto joints =
      retail::read_accessor_uint(doc, out, out.meshes[0].primitives[0].attributes.at("JOINTS_0"));
  retail::AccessorData w =
      retail::read_accessor(doc, out, out.meshes[0].primitives[0].attributes.at("WEIGHTS_0"));
  CHECK(w(2, 0) == Approx(1.0).margin(1e-12));
  CHECK(joints[8] == std::uint32_t(s.joints.size() - 1));
  for (int k = 1; k < 4; ++k) {
    CHECK(w(2, k) == 0);
    CHECK(joints[8 + std::size_t(k)] == 0);
  }
}

TEST_CASE("rig edit: the planned rig in memory is the applied document read back, bit for bit",
          "[rig_edit]") {
  Rig r = tailed();
  retail::CharacterPlan plan = retail::plan_character(r.rig.doc, r.model, r.c, {});
  REQUIRE(!plan.edit.empty());
  retail::Document applied = r.rig.doc;
  retail::apply_rig_edit(applied, r.model, plan.edit);
  const retail::Model read = retail::parse_model(applied);
  const retail::Character want = retail::build_characters(applied, read, {})[0];
  // Planned from the input document (and from the edited one: applying only appends).
  for (const retail::Document* doc : {&r.rig.doc, &applied}) {
    const retail::PlannedRig planned = retail::planned_rig(*doc, r.model, plan.edit);
    REQUIRE(planned.model.nodes.size() == read.nodes.size());
    for (std::size_t n = 0; n < read.nodes.size(); ++n) {
      CHECK(planned.model.nodes[n].name == read.nodes[n].name);
      CHECK(planned.model.nodes[n].parent == read.nodes[n].parent);
      CHECK(planned.model.nodes[n].children == read.nodes[n].children);
      CHECK(planned.model.nodes[n].translation == read.nodes[n].translation);
    }
    for (std::size_t s = 0; s < read.skins.size(); ++s)
      CHECK(planned.model.skins[s].joints == read.skins[s].joints);
    const retail::Character got =
        retail::build_characters(*doc, planned.model, {}, &planned.held)[0];
    CHECK(got.joints == want.joints);
    CHECK(got.parent == want.parent);
    REQUIRE(got.bind_world.size() == want.bind_world.size());
    for (std::size_t j = 0; j < want.bind_world.size(); ++j)
      CHECK(got.bind_world[j] == want.bind_world[j]); // every bit
    CHECK(got.roles.hips == want.roles.hips);
    CHECK(got.height == want.height);
    // The output skin posed at a bent pose: the same bits as the document's.
    const retail::SkinSampler from_doc(applied, read, want);
    const retail::SkinSampler from_plan(*doc, planned.model, got, &planned.held);
    std::vector<Eigen::Matrix4d> world = retail::world_matrices(read);
    for (std::size_t n = 0; n < world.size(); ++n)
      world[n] = world[n] *
                 Eigen::Affine3d(Eigen::AngleAxisd(0.01 * double(n % 7), Eigen::Vector3d::UnitX()))
                     .matrix();
    const std::vector<Eigen::Vector3d> a = from_doc.pose(world), b = from_plan.pose(world);
    REQUIRE(a.size() == b.size());
    std::size_t differ = 0;
    for (std::size_t v = 0; v < a.size(); ++v) differ += a[v] == b[v] ? 0 : 1;
    CHECK(differ == 0);
    CHECK(from_doc.joint_nodes() == from_plan.joint_nodes());
  }
}

TEST_CASE("rig edit: a plan made against a prior one comes after it", "[rig_edit]") {
  // The driver plans every character against the plans before it and writes once: a plan made
  // against a prior numbers its nodes after the prior's, names its chain apart from it, counts
  // the joints the prior appends to the same skin, and otherwise plans what it would alone.
  Rig r = tailed();
  const retail::CharacterPlan first = retail::plan_character(r.rig.doc, r.model, r.c, {});
  const retail::CharacterPlan against =
      retail::plan_character(r.rig.doc, r.model, r.c, {}, {}, first.edit);
  const int n0 = int(r.model.nodes.size()), n1 = int(first.edit.nodes.size());
  REQUIRE(n1 > 0);
  REQUIRE(against.edit.nodes.size() == first.edit.nodes.size());
  CHECK(first.edit.first_node == n0);
  CHECK(against.edit.first_node == n0 + n1);
  for (std::size_t i = 0; i < first.edit.nodes.size(); ++i) {
    const retail::NewNode &a = first.edit.nodes[i], &b = against.edit.nodes[i];
    CHECK(b.name != a.name); // Tail_A_1, not Tail_1 again
    CHECK(b.parent == (a.parent >= n0 ? a.parent + n1 : a.parent));
    CHECK((b.translation - a.translation).norm() < 1e-12);
  }
  REQUIRE(first.edit.skins.size() == 1);
  REQUIRE(against.edit.skins.size() == 1);
  const std::size_t S = r.model.skins[std::size_t(first.edit.skins[0].skin)].joints.size();
  const std::size_t F = first.edit.skins[0].add.size();
  REQUIRE(!against.edit.primitives.empty());
  const auto& index = against.edit.primitives[0].skin_index;
  for (std::size_t a = 0; a < F; ++a) // the prior's joints keep their places
    CHECK(index.at(first.edit.skins[0].add[a].first) == int(S + a));
  for (std::size_t a = 0; a < against.edit.skins[0].add.size(); ++a)
    CHECK(index.at(against.edit.skins[0].add[a].first) == int(S + F + a));
  // Merged, the two write as one edit; a prior planned for another document is refused.
  retail::Document once = r.rig.doc;
  retail::apply_rig_edit(once, r.model, retail::merge_rig_edits(first.edit, against.edit));
  const retail::Model written = retail::parse_model(once);
  CHECK(int(written.nodes.size()) == n0 + 2 * n1);
  CHECK(written.nodes[std::size_t(n0 + n1)].name == against.edit.nodes[0].name);
  retail::RigEdit elsewhere = first.edit;
  elsewhere.first_node += 1;
  CHECK_THROWS_AS(retail::plan_character(r.rig.doc, r.model, r.c, {}, {}, elsewhere),
                  retail::Error);
}

TEST_CASE("rig edit: every vertex of a dense rig is written as planned, on any worker count",
          "[rig_edit]") {
  // Several blocks of 16k vertices: each block finds its own place in the plan.
  retail::RigOptions o;
  o.tube_segments = 48;
  o.ring_subdivision = 11;
  Rig r;
  r.rig = test::make_rig(o);
  r.model = retail::parse_model(r.rig.doc);
  r.c = retail::build_characters(r.rig.doc, r.model, {})[0];
  retail::CharacterPlan plan = retail::plan_character(r.rig.doc, r.model, r.c, {});
  REQUIRE(plan.edit.primitives.size() == 1);
  const retail::PrimitiveWeights& pw = plan.edit.primitives[0];
  REQUIRE(pw.source.count > 3 * (1u << 14));
  INFO("planned vertices " << pw.vertices.begin()->first << ".." << pw.vertices.rbegin()->first);
  REQUIRE(pw.vertices.begin()->first >> 14 < pw.vertices.rbegin()->first >> 14); // spans blocks
  retail::Document one = r.rig.doc, three = r.rig.doc;
  retail::apply_rig_edit(one, r.model, plan.edit, 1);
  retail::apply_rig_edit(three, r.model, plan.edit, 3);
  CHECK(retail::serialize_document(one) == retail::serialize_document(three));
  // Read back: a planned vertex weighs on its planned nodes only, the largest share on the
  // planned largest; every other vertex keeps its weights and joints exactly.
  const retail::Model read = retail::parse_model(three);
  const auto& attrs = read.meshes[std::size_t(pw.source.where.mesh)]
                          .primitives[std::size_t(pw.source.where.primitive)]
                          .attributes;
  const auto& old_attrs = r.model.meshes[std::size_t(pw.source.where.mesh)]
                              .primitives[std::size_t(pw.source.where.primitive)]
                              .attributes;
  const auto joints = retail::read_accessor_uint(three, read, attrs.at("JOINTS_0"));
  const auto old_joints = retail::read_accessor_uint(r.rig.doc, r.model, old_attrs.at("JOINTS_0"));
  const auto w = retail::read_accessor(three, read, attrs.at("WEIGHTS_0"));
  const auto old_w = retail::read_accessor(r.rig.doc, r.model, old_attrs.at("WEIGHTS_0"));
  const std::vector<int>& skin = read.skins[std::size_t(pw.source.where.skin)].joints;
  std::size_t wrong = 0, changed = 0;
  for (std::size_t v = 0; v < pw.source.count; ++v) {
    auto it = pw.vertices.find(pw.source.first + v);
    if (it == pw.vertices.end()) {
      for (std::size_t k = 0; k < 4; ++k)
        wrong += joints[v * 4 + k] != old_joints[v * 4 + k] ||
                 w(Eigen::Index(v), Eigen::Index(k)) != old_w(Eigen::Index(v), Eigen::Index(k));
      continue;
    }
    ++changed;
    const retail::NodeInfluences& inf = it->second;
    auto top = std::max_element(inf.begin(), inf.end(),
                                [](const auto& a, const auto& b) { return a.second < b.second; });
    bool top_found = false;
    for (std::size_t k = 0; k < 4; ++k) {
      if (!(w(Eigen::Index(v), Eigen::Index(k)) > 0)) continue;
      const int node = skin[joints[v * 4 + k]];
      wrong += std::none_of(inf.begin(), inf.end(), [&](const auto& e) { return e.first == node; });
      top_found = top_found || node == top->first;
    }
    wrong += !top_found;
  }
  CHECK(changed == pw.vertices.size());
  CHECK(wrong == 0);
}

} // namespace test_rig_edit
