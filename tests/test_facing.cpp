// Which way a character faces (src/motion/facing.cpp): the tail spring's forward plane read from
// the body, not only from which thigh is named left.
#include "retail/app/pipeline.h"
#include "retail/io/io.h"
#include "support.h"

#include <catch2/catch.hpp>
#include <utility>

namespace test_facing {

namespace {

/// Runs `clips` (Walk and HipSwing) on `dir`/in.glb and on `dir`/`other` (each with one character
/// and one chain) and checks the two outputs' buffers (animation and weights) are byte for byte the
/// same. Returns both results.
std::pair<retail::RunResult, retail::RunResult>
run_both(const std::string& dir, const std::string& other,
         const std::vector<std::string>& clips = {"Walk", "HipSwing"}) {
  retail::RunParams params;
  params.clips = clips;
  retail::RunResult a = retail::run(dir + "/in.glb", dir + "/a.glb", params);
  retail::RunResult b = retail::run(dir + "/" + other, dir + "/b.glb", params);
  REQUIRE(a.bakes.size() == 1);
  REQUIRE(b.bakes.size() == 1);
  const retail::Document da = retail::read_document(dir + "/a.glb"),
                         db = retail::read_document(dir + "/b.glb");
  REQUIRE(da.buffers.size() == db.buffers.size());
  for (std::size_t i = 0; i < da.buffers.size(); ++i) CHECK(da.buffers[i] == db.buffers[i]);
  return {std::move(a), std::move(b)};
}

} // namespace

TEST_CASE("facing: a rig whose sides are named from the viewer's side bakes the same tail",
          "[facing]") {
  // Left and Right swapped in every joint name: the "left" thigh lies on the character's right,
  // so left x up points backwards. Read as named, the forward plane would hold the tail in front
  // of it, between the legs; the tail's bind pose, below its root and behind, says which way is
  // forward. Everything written but the names is the same.
  std::string dir = test::temp_dir();
  retail::Document doc = retail::generate_rig(retail::RigOptions{}).doc;
  retail::write_document(doc, dir + "/in.glb");
  int swapped = 0;
  for (auto& node : doc.gltf["nodes"]) {
    std::string name = node.value("name", ""), out;
    for (std::size_t i = 0; i < name.size();) {
      const bool l = name.compare(i, 4, "Left") == 0, r = name.compare(i, 5, "Right") == 0;
      out += l ? "Right" : r ? "Left" : name.substr(i, 1);
      i += l ? 4 : r ? 5 : 1;
      swapped += l || r;
    }
    if (node.contains("name")) node["name"] = out;
  }
  REQUIRE(swapped >= 4); // both thighs and shins at least
  retail::write_document(doc, dir + "/viewer.glb");
  const auto [a, b] = run_both(dir, "viewer.glb");
  REQUIRE(b.bakes[0].size() == a.bakes[0].size());
  for (std::size_t k = 0; k < a.bakes[0].size(); ++k)
    CHECK(b.bakes[0][k].tip_swing_deg == a.bakes[0][k].tip_swing_deg);
}

/// `doc` with every root of its scene under a node scaled -1 in X.
retail::Document mirrored(retail::Document doc) {
  retail::Json& scene = doc.gltf["scenes"][std::size_t(doc.gltf.value("scene", 0))];
  retail::Json mirror = {{"name", "Mirror"}, {"scale", {-1.0, 1.0, 1.0}}};
  mirror["children"] = scene["nodes"];
  doc.gltf["nodes"].push_back(mirror);
  scene["nodes"] = retail::Json::array({int(doc.gltf["nodes"].size()) - 1});
  return doc;
}

TEST_CASE("facing: an armature mirrored by its root node bakes the same tail", "[facing]") {
  // Every root of the scene under a node scaled -1 in X: the "left" thigh lies on the right and
  // the hips' frame is a reflection. A mirror of the whole scene leaves every joint's local
  // rotation as it was, so the spring (run in the hips' frame with local X reversed) must write
  // the same animation and weights: the binary chunk byte for byte. (Run on the mirror's matrix
  // as a rotation, the keys differed and the shared grafted hanging tail went rigid.)
  std::string dir = test::temp_dir();
  retail::Document doc = retail::generate_rig(retail::RigOptions{}).doc;
  retail::write_document(doc, dir + "/in.glb");
  retail::write_document(mirrored(doc), dir + "/mirrored.glb");
  const auto [a, b] = run_both(dir, "mirrored.glb");
  REQUIRE(b.bakes[0].size() == 2);
  for (std::size_t k = 0; k < a.bakes[0].size(); ++k)
    CHECK(b.bakes[0][k].tip_swing_deg == Approx(a.bakes[0][k].tip_swing_deg).margin(1e-9));
}

TEST_CASE("facing: an armature mirrored by its root node bakes the same hair and VRM springs",
          "[facing]") {
  // A ponytail found on the head (the hair solver) and a VRM 1.0 spring tuft (the file's own
  // springs, re-simulated), mirrored as above: both read their bones back in the anchor's frame,
  // which is a reflection, so they too run with local X reversed. (Read as a rotation, the
  // ponytail's keys differed by up to 0.2 in a quaternion component in HeadTurn and the tuft's
  // by 0.39 in HipSwing.)
  std::string dir = test::temp_dir();
  retail::RigOptions o;
  o.ponytail = true;
  o.vrm = 1;
  retail::Document doc = retail::generate_rig(o).doc;
  retail::write_document(doc, dir + "/in.glb");
  retail::write_document(mirrored(doc), dir + "/mirrored.glb");
  const auto [a, b] = run_both(dir, "mirrored.glb", {"Walk", "HeadTurn"});
  REQUIRE(a.hair.size() == 1);
  CHECK_FALSE(a.hair[0].chains.empty()); // the ponytail was found and grown
  REQUIRE(b.hair.size() == 1);
  CHECK(b.hair[0].chains.size() == a.hair[0].chains.size());
}

} // namespace test_facing
