// Bind skeleton: IBMs not saved TRS, skin space -> world, H, characters from shared skins.
#include "retail/base/error.h"
#include "retail/io/accessor.h"
#include "retail/io/builder.h"
#include "support.h"

#include <Eigen/Geometry>
#include <catch2/catch.hpp>
#include <map>

namespace test_skeleton {

using retail::Json;

namespace {

std::string bare(const std::string& name) {
  auto c = name.rfind(':');
  return c == std::string::npos ? name : name.substr(c + 1);
}

std::map<std::string, Eigen::Vector3d> bind_by_name(const retail::Document& d,
                                                    const retail::Character& c) {
  std::map<std::string, Eigen::Vector3d> out;
  for (std::size_t j = 0; j < c.joints.size(); ++j)
    out[bare(d.gltf["nodes"][std::size_t(c.joints[j])]["name"].get<std::string>())] =
        c.bind_position(int(j));
  return out;
}

} // namespace

TEST_CASE("skeleton: bind pose comes from the IBMs - never from saved TRS", "[skeleton]") {
  retail::Document d = test::make_rig().doc;
  auto ref = test::characters_of(d);
  REQUIRE(ref.size() == 1);
  auto before = bind_by_name(d, ref[0]);
  // A saved animated frame: 28 deg on the left shin, a shifted root.
  for (auto& n : d.gltf["nodes"]) {
    if (n["name"] == "mixamorig:LeftLeg") n["rotation"] = {0.2419219, 0, 0, 0.9702957};
    if (n["name"] == "mixamorig:Hips") n["translation"][0] = 0.3;
  }
  auto posed = test::characters_of(d);
  auto after = bind_by_name(d, posed[0]);
  for (const auto& [name, p] : before)
    CHECK((after[name] - p).norm() < 1e-6 * ref[0].height); // float IBMs
  CHECK(posed[0].height == Approx(ref[0].height).epsilon(1e-12));
  CHECK(posed[0].mapping[0].find("mesh node") == 0); // the root's saved pose was not trusted
}

TEST_CASE("skeleton: centimetres and a rotated armature map to the same world skeleton",
          "[skeleton]") {
  retail::RigOptions plain;
  retail::Document d0 = test::make_rig(plain).doc;
  auto c0 = test::characters_of(d0)[0];
  auto ref = bind_by_name(d0, c0);
  for (int variant = 1; variant < 4; ++variant) {
    retail::RigOptions o;
    o.centimetres = variant & 1;
    o.rotated = variant & 2;
    o.mixamo_prefix = variant != 3;
    INFO("centimetres " << o.centimetres << ", rotated " << o.rotated);
    retail::Document d = test::make_rig(o).doc;
    auto c = test::characters_of(d)[0];
    CHECK(c.height == Approx(c0.height).epsilon(1e-6));
    for (const auto& [name, p] : bind_by_name(d, c))
      CHECK((ref[name] - p).norm() < 1e-5 * c0.height);
    CHECK(c.skin_up == (o.rotated ? "+Z" : "+Y"));
    CHECK(c.skin_units == Approx(o.centimetres ? 0.01 : 1.0));
  }
}

TEST_CASE("skeleton: H is the Y extent of skinned vertices and scales with the model",
          "[skeleton]") {
  retail::RigOptions o;
  auto c1 = test::characters_of(test::make_rig(o).doc)[0];
  o.height_m = 3.6;
  auto c2 = test::characters_of(test::make_rig(o).doc)[0];
  CHECK(c2.height == Approx(2 * c1.height).epsilon(1e-6));
  CHECK(c1.scale == Approx(c1.height / 1.8));
  // The body spans from below the toes (ring radius) to the top of the head cap at 1.78.
  CHECK(c1.max_y == Approx(1.78).margin(1e-6));
  CHECK(c1.min_y < 0.02);
  CHECK(c1.min_y > -0.02);
}

TEST_CASE("skeleton: skins sharing joints form one character, disjoint skins two", "[skeleton]") {
  retail::Document d = test::make_rig().doc;
  Json skin = d.gltf["skins"][0];
  std::reverse(skin["joints"].begin(), skin["joints"].end()); // same joints, other order
  // Reversed joints need reversed IBMs: write them as a new accessor.
  retail::Model m = retail::parse_model(d);
  auto ibm = retail::read_accessor(d, m, d.gltf["skins"][0]["inverseBindMatrices"].get<int>());
  std::vector<float> rev;
  for (Eigen::Index r = ibm.rows() - 1; r >= 0; --r)
    for (int k = 0; k < 16; ++k) rev.push_back(float(ibm(r, k)));
  skin["inverseBindMatrices"] = retail::add_float_accessor(d, rev, "MAT4", 0, false);
  int s1 = retail::append_to_array(d.gltf, "skins", skin);
  Json node = {{"name", "Second"}, {"mesh", 0}, {"skin", s1}};
  int n1 = retail::append_to_array(d.gltf, "nodes", node);
  d.gltf["scenes"][0]["nodes"].push_back(n1);
  d = test::reparse(d);
  auto chars = test::characters_of(d);
  REQUIRE(chars.size() == 1);
  CHECK(chars[0].skins == std::vector<int>{0, 1});
  CHECK(chars[0].joints.size() == 23);
  CHECK(chars[0].primitives.size() == 2);

  // A prop skeleton of its own (one joint, identity IBM) that no mesh is drawn with: listed as a
  // skin, but no character (it used to fail the whole file with "H = 0").
  int prop = retail::append_to_array(d.gltf, "nodes", Json{{"name", "Prop"}});
  d.gltf["scenes"][0]["nodes"].push_back(prop);
  std::vector<float> identity = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
  int acc = retail::add_float_accessor(d, identity, "MAT4", 0, false);
  int s2 = retail::append_to_array(d.gltf, "skins",
                                   Json{{"joints", {prop}}, {"inverseBindMatrices", acc}});
  d = test::reparse(d);
  CHECK(test::characters_of(d).size() == 1);

  // Once a mesh is drawn with it (one triangle, 0.5 tall, all on the prop joint): two characters.
  int pos = retail::add_float_accessor(d, {0, 0, 0, 1, 0, 0, 0, 0.5f, 0}, "VEC3", 34962, true);
  int joints =
      retail::add_uint_accessor(d, std::vector<std::uint32_t>(12, 0), 5121, "VEC4", 34962, false);
  int weights =
      retail::add_float_accessor(d, {1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0}, "VEC4", 34962, false);
  Json prim = {{"attributes", {{"POSITION", pos}, {"JOINTS_0", joints}, {"WEIGHTS_0", weights}}}};
  int mesh = retail::append_to_array(d.gltf, "meshes", Json{{"primitives", {prim}}});
  int holder = retail::append_to_array(d.gltf, "nodes", Json{{"mesh", mesh}, {"skin", s2}});
  d.gltf["scenes"][0]["nodes"].push_back(holder);
  d = test::reparse(d);
  chars = test::characters_of(d);
  REQUIRE(chars.size() == 2);
  CHECK(chars[1].skins == std::vector<int>{s2});
  CHECK(chars[1].height == Approx(0.5));
}

TEST_CASE("skeleton: skins whose mesh nodes disagree with their roots are named in one warning",
          "[skeleton]") {
  // Three skins of one skeleton, each drawn by a mesh node moved away from the armature (glTF
  // ignores a skinned mesh node's transform): one warning naming the three, not three.
  retail::Document d = test::make_rig().doc;
  const Json skin = d.gltf["skins"][0];
  int mesh_node = -1;
  for (std::size_t n = 0; n < d.gltf["nodes"].size(); ++n)
    if (d.gltf["nodes"][n].contains("skin")) mesh_node = int(n);
  REQUIRE(mesh_node >= 0);
  d.gltf["nodes"][std::size_t(mesh_node)]["translation"] = {0.0, 0.0, 2.0};
  for (int k = 0; k < 2; ++k) {
    int s = retail::append_to_array(d.gltf, "skins", skin);
    Json node = {{"name", "Copy" + std::to_string(k)},
                 {"mesh", d.gltf["nodes"][std::size_t(mesh_node)]["mesh"]},
                 {"skin", s},
                 {"translation", {0.0, 0.0, 3.0 + k}}};
    d.gltf["scenes"][0]["nodes"].push_back(retail::append_to_array(d.gltf, "nodes", node));
  }
  d = test::reparse(d);
  auto chars = test::characters_of(d);
  REQUIRE(chars.size() == 1);
  REQUIRE(chars[0].skins.size() == 3);
  std::size_t about = 0;
  for (const auto& w : chars[0].warnings)
    if (w.find("skin-to-world") != std::string::npos) {
      ++about;
      CHECK(w.find("3 skins") == 0);
      for (const char* name : {"skins[0]", "skins[1]", "skins[2]", "'Copy0'", "'Copy1'"})
        CHECK(w.find(name) != std::string::npos);
    }
  CHECK(about == 1);
}

TEST_CASE("skeleton: a skinned mesh under a scaled armature object reads in its skin's space",
          "[skeleton]") {
  // Blender's exporter with the armature object at scale 100, -90 deg about X: the skeleton and
  // the mesh node hang under the "Armature" node A, every IBM is the old one times A^-1, so each
  // joint's world x IBM is still the identity and the vertices are world positions. glTF
  // ignores the skinned mesh node's transform; retail must too (it used to take A's rotation).
  retail::Document d = test::make_rig().doc;
  const double h0 = test::characters_of(d)[0].height;
  retail::Model m0 = retail::parse_model(d);
  const int skin_root = d.gltf["skins"][0]["joints"][0].get<int>();
  const int arm = m0.nodes[std::size_t(skin_root)].parent;
  REQUIRE(arm >= 0);
  REQUIRE(m0.nodes[std::size_t(arm)].parent < 0);
  int mesh_node = -1;
  for (std::size_t n = 0; n < d.gltf["nodes"].size(); ++n)
    if (d.gltf["nodes"][n].contains("skin")) mesh_node = int(n);
  REQUIRE(mesh_node >= 0);
  REQUIRE(m0.nodes[std::size_t(mesh_node)].parent < 0);
  const Eigen::Quaterniond q(Eigen::AngleAxisd(-M_PI / 2, Eigen::Vector3d::UnitX()));
  Eigen::Matrix4d a = Eigen::Matrix4d::Identity();
  a.topLeftCorner<3, 3>() = 100 * q.toRotationMatrix();
  auto ibm = retail::read_accessor(d, m0, d.gltf["skins"][0]["inverseBindMatrices"].get<int>());
  std::vector<float> moved;
  for (Eigen::Index r = 0; r < ibm.rows(); ++r) {
    Eigen::Matrix4d x = Eigen::Map<const Eigen::Matrix4d>(ibm.row(r).data()) * a.inverse();
    for (int k = 0; k < 16; ++k) moved.push_back(float(x(k % 4, k / 4)));
  }
  d.gltf["skins"][0]["inverseBindMatrices"] =
      retail::add_float_accessor(d, moved, "MAT4", 0, false);
  Json& an = d.gltf["nodes"][std::size_t(arm)];
  an["rotation"] = Json::array({q.x(), q.y(), q.z(), q.w()});
  an["scale"] = Json::array({100.0, 100.0, 100.0});
  an["children"].push_back(mesh_node);
  Json roots = Json::array();
  for (const auto& r : d.gltf["scenes"][0]["nodes"])
    if (r.get<int>() != mesh_node) roots.push_back(r);
  d.gltf["scenes"][0]["nodes"] = roots;
  d = test::reparse(d);
  auto chars = test::characters_of(d);
  REQUIRE(chars.size() == 1);
  INFO(chars[0].mapping[0]);
  CHECK(chars[0].height == Approx(h0).epsilon(1e-3)); // upright, not lying along Z
  CHECK(chars[0].mapping[0].find("ignored as glTF does") != std::string::npos);
}

} // namespace test_skeleton
