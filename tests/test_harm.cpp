// The harm check (SPEC §13, pipeline.h): a grown piece that would tear more than the input in
// any clip is stepped down before anything is written, and the report says why.
#include "retail/app/pipeline.h"
#include "retail/detect/distance.h"
#include "support.h"

#include <catch2/catch.hpp>

namespace {

/// A carried-tail rig written to a file; returns its path.
std::string rig_file(const std::string& dir) {
  retail::RigOptions o;
  o.tail = retail::TailStyle::Carried;
  std::string path = dir + "/in.glb";
  test::write_bytes(path, retail::serialize_document(test::make_rig(o).doc));
  return path;
}

} // namespace

TEST_CASE("harm check: a good chain is kept with its figures", "[harm]") {
  std::string dir = test::temp_dir(), in = rig_file(dir);
  retail::RunResult r = retail::run(in, dir + "/out.glb", retail::RunParams{});
  REQUIRE(r.characters[0].chains.size() == 1);
  CHECK_FALSE(r.characters[0].chains[0].rigid);
  REQUIRE(r.judge.size() == 1);
  REQUIRE(r.judge[0].size() == 1);
  CHECK(r.judge[0][0].verdict == "kept");
  for (std::size_t c = 0; c < r.judge[0][0].clips.size(); ++c)
    CHECK(r.judge[0][0].output_torn[c] <= r.judge[0][0].input_torn[c] + 1e-9);
}

TEST_CASE("structural joints: a weightless pelvis still deforms, helpers above it do not",
          "[distance]") {
  retail::GeneratedRig rig = test::make_rig();
  auto chars = test::characters_of(rig.doc);
  const retail::Character& c = chars.at(0);
  std::vector<bool> s = retail::structural_joints(c);
  int hips = c.joint_index(c.roles.hips), head = c.joint_index(c.roles.head);
  REQUIRE(hips >= 0);
  CHECK(s[std::size_t(hips)]);
  CHECK(s[std::size_t(head)]);
  // Every joint on the path from a foot up to the hips is structural.
  for (int j = c.joint_index(c.roles.foot[0]); j >= 0; j = c.parent[std::size_t(j)])
    CHECK(s[std::size_t(j)]);
  // With no weights at all, deforming_joints still holds the structure.
  retail::SkinWeights none;
  none.deforming.assign(c.joints.size(), false);
  CHECK(retail::deforming_joints(c, none) == s);
}
