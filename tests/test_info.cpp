// `retail info`: counts, clips, H and roles as JSON and text.
#include "retail/app/info.h"
#include "support.h"

#include <catch2/catch.hpp>

namespace test_info {

using retail::Json;

TEST_CASE("info: counts - clips - H and roles of a generated rig", "[info]") {
  retail::RigOptions o;
  o.tail_two_shells = true;
  o.ears = true;
  retail::GeneratedRig rig = test::make_rig(o);
  retail::Model m = retail::parse_model(rig.doc);
  auto chars = retail::build_characters(rig.doc, m, retail::BindParams{});
  Json info = retail::make_info("rig.glb", rig.doc, m, chars);
  CHECK(info["schema"] == "retail.info/1");
  REQUIRE(info["meshes"][0]["primitives"].size() == 2);
  for (std::size_t p = 0; p < 2; ++p) {
    const Json& prim = info["meshes"][0]["primitives"][p];
    CHECK(prim["vertices"] == rig.truth["membership"][p].size());
    int idx = rig.doc.gltf["meshes"][0]["primitives"][p]["indices"].get<int>();
    CHECK(prim["triangles"].get<std::size_t>() * 3 ==
          rig.doc.gltf["accessors"][std::size_t(idx)]["count"].get<std::size_t>());
  }
  REQUIRE(info["clips"].size() == 4);
  CHECK(info["clips"][0]["name"] == "Walk");
  CHECK(info["clips"][0]["duration_s"].get<double>() == Approx(1.0));
  CHECK(info["clips"][1]["duration_s"].get<double>() == Approx(4.0 / 3.0).margin(1e-6));
  const Json& c = info["characters"][0];
  CHECK(c["height"].get<double>() == Approx(chars[0].height).margin(1e-6));
  CHECK(c["roles"]["hips"]["name"] == "mixamorig:Hips");
  CHECK(c["roles"]["leftLowerLeg"]["name"] == "mixamorig:LeftLeg");
  CHECK(c["joints"].size() == 23);
  CHECK(c["skinned_vertices"] ==
        rig.truth["membership"][0].size() + rig.truth["membership"][1].size());
  std::string text = retail::format_info(info);
  CHECK(text.find("H = ") != std::string::npos);
  CHECK(text.find("leftUpperLeg: mixamorig:LeftUpLeg") != std::string::npos);
  std::size_t start = 0, widest = 0;
  for (std::size_t nl; (nl = text.find('\n', start)) != std::string::npos; start = nl + 1)
    widest = std::max(widest, nl - start);
  CHECK(widest <= 100);
}

} // namespace test_info
