// The test-rig generator: ground truth, auto-rigger weights, determinism, every variant valid.
#include "retail/io/accessor.h"
#include "retail/io/io.h"
#include "support.h"

#include <catch2/catch.hpp>
#include <set>

namespace test_generator {

using retail::Json;

TEST_CASE("generator: deterministic and valid in every variant", "[generator]") {
  for (int v = 0; v < 16; ++v) {
    retail::RigOptions o;
    o.mixamo_prefix = v & 1;
    o.centimetres = v & 2;
    o.rotated = v & 4;
    o.tail = v & 8 ? retail::TailStyle::Hanging : retail::TailStyle::Carried;
    o.tail_two_shells = o.ears = o.cape = o.skirt = o.sheath = (v % 3 == 0);
    INFO("variant " << v);
    retail::Bytes a = retail::serialize_document(retail::generate_rig(o).doc);
    retail::Bytes b = retail::serialize_document(retail::generate_rig(o).doc);
    CHECK(a == b);
    retail::Document d = retail::parse_document(a, "");
    retail::Model m = retail::parse_model(d);
    auto chars = retail::build_characters(d, m, retail::BindParams{});
    REQUIRE(chars.size() == 1);
    CHECK(chars[0].roles.missing.empty());
  }
}

TEST_CASE("generator: the tail is weighted like an auto-rigger did it", "[generator]") {
  retail::RigOptions o;
  o.uv_seams = true;
  retail::GeneratedRig rig = test::make_rig(o);
  retail::Model m = retail::parse_model(rig.doc);
  const auto& prim = m.meshes[0].primitives[0];
  auto pos = retail::read_accessor(rig.doc, m, prim.attributes.at("POSITION"));
  auto joints = retail::read_accessor_uint(rig.doc, m, prim.attributes.at("JOINTS_0"));
  auto weights = retail::read_accessor(rig.doc, m, prim.attributes.at("WEIGHTS_0"));
  const Json& member = rig.truth["membership"][0];
  const int left_thigh = 15, left_shin = 16, right_thigh = 19; // generator joint order
  std::size_t tail = 0;
  std::set<std::tuple<float, float, float>> unique;
  for (Eigen::Index i = 0; i < pos.rows(); ++i) {
    if (member[std::size_t(i)] != 1) continue;
    ++tail;
    unique.insert({float(pos(i, 0)), float(pos(i, 1)), float(pos(i, 2))});
    double sum = 0;
    for (int k = 0; k < 4; ++k) {
      double w = weights(i, k);
      sum += w;
      if (w == 0) continue;
      int j = int(joints[std::size_t(i) * 4 + std::size_t(k)]);
      CHECK((j == left_thigh || j == right_thigh || j == left_shin));
      if (j == left_thigh) CHECK(pos(i, 0) >= 0);
      if (j == right_thigh) CHECK(pos(i, 0) < 0);
    }
    CHECK(sum == Approx(1.0).margin(1e-9)); // quantised bytes sum to exactly 255
  }
  CHECK(tail > 100);
  CHECK(unique.size() < tail); // UV-seam vertices share positions: a weld is needed
  CHECK(rig.truth["tail_centreline"].size() == 17);
}

TEST_CASE("generator: two shells put the fur shell in the second primitive", "[generator]") {
  retail::RigOptions o;
  o.tail_two_shells = true;
  retail::GeneratedRig rig = test::make_rig(o);
  REQUIRE(rig.truth["membership"].size() == 2);
  std::size_t fur = 0;
  for (const auto& p : rig.truth["membership"][1]) fur += p == 1;
  CHECK(fur == rig.truth["membership"][1].size());
  CHECK(rig.truth["tail_shells"] == 2);
}

} // namespace test_generator
