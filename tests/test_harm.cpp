// The harm check (SPEC §13, pipeline.h): a grown piece that would tear more than the input in
// any clip is stepped down before anything is written, and the report says why.
#include "retail/app/pipeline.h"
#include "retail/detect/distance.h"
#include "retail/io/io.h"
#include "retail/qa/harm.h"
#include "support.h"

#include <catch2/catch.hpp>
#include <functional>

namespace test_harm {

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
  const retail::PieceJudge& pj = r.judge[0][0];
  CHECK(pj.verdict == "kept");
  REQUIRE(pj.flips.size() == pj.clips.size());
  for (std::size_t c = 0; c < pj.clips.size(); ++c) {
    CHECK(retail::harmless_clip(pj.flips[c], pj.seam_flips[c], pj.body_torn[c], {}));
    CHECK(pj.flips[c].edge_samples > 0);
  }
}

namespace {

/// A torn mask of `n` edge-samples with the first `torn` set.
std::vector<std::uint8_t> mask(std::size_t n, std::size_t torn, std::size_t offset = 0) {
  std::vector<std::uint8_t> m(n, 0);
  for (std::size_t i = offset; i < offset + torn && i < n; ++i) m[i] = 1;
  return m;
}

} // namespace

TEST_CASE("harm rule: flips counted edge-sample by edge-sample", "[harm]") {
  // Input torn on samples 0..5, output on 4..9: 4 and 5 stay torn, 0..3 heal, 6..9 are new.
  retail::EdgeFlips f = retail::count_flips(mask(20, 6), mask(20, 6, 4));
  CHECK(f.edge_samples == 20);
  CHECK(f.input_torn == 6);
  CHECK(f.output_torn == 6);
  CHECK(f.healed == 4);
  CHECK(f.newly_torn == 4);
  CHECK_THROWS_AS(retail::count_flips(mask(3, 1), mask(4, 1)), std::invalid_argument);
}

TEST_CASE("harm rule: flips counted eight samples a word equal one by one", "[harm]") {
  // Any nonzero byte is torn (here 1, 2, 128 and 255), at any length (a tail past the words).
  std::uint64_t state = 3;
  auto next = [&] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return std::uint8_t(state >> 56);
  };
  const std::uint8_t values[] = {0, 0, 0, 1, 2, 128, 255};
  for (std::size_t n : {std::size_t(0), std::size_t(7), std::size_t(8), std::size_t(1003)}) {
    std::vector<std::uint8_t> a(n), b(n);
    retail::EdgeFlips want;
    want.edge_samples = n;
    for (std::size_t i = 0; i < n; ++i) {
      a[i] = values[next() % 7], b[i] = values[next() % 7];
      want.input_torn += a[i] != 0, want.output_torn += b[i] != 0;
      want.newly_torn += b[i] && !a[i], want.healed += a[i] && !b[i];
    }
    const retail::EdgeFlips got = retail::count_flips(a, b);
    INFO(n << " samples");
    CHECK(got.edge_samples == want.edge_samples);
    CHECK(got.input_torn == want.input_torn);
    CHECK(got.output_torn == want.output_torn);
    CHECK(got.newly_torn == want.newly_torn);
    CHECK(got.healed == want.healed);
  }
}

TEST_CASE("harm rule: the noise floor", "[harm]") {
  retail::HarmParams p; // 0.1%, at least 3
  CHECK(retail::noise_floor(0, p) == 3);
  CHECK(retail::noise_floor(2999, p) == 3);
  CHECK(retail::noise_floor(10000, p) == 10);
  CHECK(retail::noise_floor(123456, p) == 123);
  p.noise_share = 1;
  CHECK_THROWS_AS(p.validate(), retail::Error);
}

TEST_CASE("harm rule: a few newly torn among thousands healed is a fix, more is not", "[harm]") {
  retail::HarmParams p;
  // 10,000 judged edge-samples (floor 10): the input tears 3,000, the output heals all but 2
  // of them and newly tears 3 elsewhere.
  retail::EdgeFlips fix = retail::count_flips(mask(10000, 3000), mask(10000, 5, 2998));
  CHECK(fix.healed == 2998);
  CHECK(fix.newly_torn == 3);
  CHECK(retail::piece_harmless(fix, retail::noise_floor(fix.edge_samples, p)));
  // The same healing with 11 newly torn: past the floor, although far fewer are torn than
  // before (an aggregate share would have passed it).
  retail::EdgeFlips worse = retail::count_flips(mask(10000, 3000), mask(10000, 13, 2998));
  CHECK(worse.newly_torn == 11);
  CHECK(worse.output_torn < worse.input_torn);
  CHECK_FALSE(retail::piece_harmless(worse, retail::noise_floor(worse.edge_samples, p)));
}

TEST_CASE("harm rule: a seam may move a tear, not grow it past the body's baseline", "[harm]") {
  retail::HarmParams p;
  // 10,000 seam edge-samples; the body tears 1% of its own.
  const retail::EdgeFlips moved = retail::count_flips(mask(10000, 200), mask(10000, 200, 5000));
  CHECK(moved.newly_torn == 200);
  CHECK(retail::seam_allowance(moved, 1.0) == 100);
  const std::size_t floor = retail::noise_floor(10000, p); // 10
  CHECK(retail::seam_harmless(moved, 0, floor));           // as many torn as before: it moved
  // 300 torn where 200 were: 100 more, within the body's 1% (100) plus the floor (10).
  const retail::EdgeFlips grown = retail::count_flips(mask(10000, 200), mask(10000, 300, 5000));
  CHECK(retail::seam_harmless(grown, retail::seam_allowance(grown, 1.0), floor));
  CHECK_FALSE(retail::seam_harmless(grown, retail::seam_allowance(grown, 0.5), floor));
  // Both tiers, with the floor of all 12,000 judged edge-samples (12): a piece tier newly
  // tearing 13 fails the clip whatever the seam does; 12 passes.
  const retail::EdgeFlips torn_piece = retail::count_flips(mask(2000, 0), mask(2000, 13));
  CHECK_FALSE(retail::harmless_clip(torn_piece, moved, 1.0, p));
  CHECK(retail::harmless_clip(retail::count_flips(mask(2000, 0), mask(2000, 12)), moved, 1.0, p));
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

TEST_CASE("harm rule: net harm per edge, sample by sample", "[harm]") {
  // Three edges, two samples (sample-major). Edge 0: torn in both on the input, healed in
  // sample 0: -1. Edge 1: newly torn in sample 0, healed in sample 1: 0. Edge 2: newly torn in
  // sample 1: +1. Adding a second clip's identical masks doubles each.
  const std::vector<std::uint8_t> input{1, 0, 0, 1, 1, 0}, output{0, 1, 0, 1, 0, 1};
  std::vector<std::int32_t> net(3, 0);
  retail::add_edge_net_harm(input, output, 3, net);
  CHECK(net == std::vector<std::int32_t>{-1, 0, 1});
  retail::add_edge_net_harm(input, output, 3, net);
  CHECK(net == std::vector<std::int32_t>{-2, 0, 2});
  CHECK_THROWS_AS(retail::add_edge_net_harm(input, output, 4, net), std::invalid_argument);
  std::vector<std::int32_t> short_net(2, 0);
  CHECK_THROWS_AS(retail::add_edge_net_harm(input, output, 3, short_net), std::invalid_argument);
}

namespace {

/// The report's entry named `clip` in `list` (bake or harm_check clips); null when none.
const retail::Json* clip_named(const retail::Json& list, const std::string& clip) {
  for (const auto& c : list)
    if (c["name"] == clip) return &c;
  return nullptr;
}

/// Runs retail on the generated rig `o` (written once to a temporary folder): the report with
/// clips held where harmful (--hold) or not (--no-hold).
std::function<retail::Json(bool)> hold_runner(const retail::RigOptions& o) {
  const std::string dir = test::temp_dir(), in = dir + "/in.glb";
  test::write_bytes(in, retail::serialize_document(test::make_rig(o).doc));
  return [dir, in](bool hold) {
    retail::RunParams p;
    p.bake.hold_harmful = hold;
    return retail::run(in, dir + (hold ? "/held.glb" : "/spring.glb"), p).report;
  };
}

} // namespace

// A short tail on a horizontal body, its rings dense: HipSwing sways the hips and the input's
// tail, weighted to the legs, tears none of its skin there; the spring swings the tail and tears
// 20 edge-samples of it (within the harm check's noise floor, so the chain is kept for Walk and
// Crouch, which it heals). That clip is keyed with the tail held at rest instead, and says so.
TEST_CASE("harm check: a clip the spring would tear where the input does not is held at rest",
          "[harm]") {
  retail::RigOptions o;
  o.tail = retail::TailStyle::Short;
  o.horizontal_body = true;
  o.ring_subdivision = 3;
  const auto run = hold_runner(o);
  auto newly = [](const retail::Json& c) {
    return c["piece"]["newly_torn"].get<int>() + c["seam"]["newly_torn"].get<int>();
  };
  for (bool hold : {true, false}) {
    INFO("hold " << hold);
    const retail::Json report = run(hold);
    const retail::Json& c = report["characters"][0];
    REQUIRE(c["chains"].size() == 1);
    const retail::Json *swing = clip_named(c["bake"]["clips"], "HipSwing"),
                       *judged = clip_named(c["harm_check"][0]["clips"], "HipSwing"),
                       *walk = clip_named(c["bake"]["clips"], "Walk");
    REQUIRE(swing != nullptr);
    REQUIRE(judged != nullptr);
    REQUIRE(walk != nullptr);
    CHECK((*judged)["piece"]["input_torn"] == 0);
    CHECK((*judged)["seam"]["input_torn"] == 0);
    CHECK((*swing)["held"] == hold);
    CHECK_FALSE((*walk)["held"].get<bool>()); // the input tears there: the spring heals it
    CHECK((*walk)["tip_swing_deg"].get<double>() >= 5.0);
    std::string warned;
    for (const auto& w : report["warnings"])
      if (w.get<std::string>().find("held at rest") != std::string::npos) warned = w;
    if (hold) {
      CHECK(newly(*judged) == 0);
      CHECK((*swing)["spring_newly_torn"].get<int>() > 0);
      CHECK((*swing)["tip_swing_deg"].get<double>() == 0.0);
      CHECK(warned.find("'HipSwing'") != std::string::npos);
    } else {
      CHECK(newly(*judged) > 0);
      CHECK(warned.empty());
    }
  }
}

// A short curled tail on a horizontal body (coarse rings): every chain the ladder tries newly
// tears its skin in some clip past the noise floor. Before going rigid on the hips, the last
// chain tried is held at rest in the clips where its spring harms: the chain is kept, every
// judged clip passes the harm check's rule, and the held clips are named. Without clip holding
// (--no-hold) there is no such step and the tail goes rigid, as it did before the step existed.
TEST_CASE("harm check: the hold step keeps a chain held where every chain harms", "[harm]") {
  retail::RigOptions o;
  o.tail = retail::TailStyle::Curled;
  o.horizontal_body = true;
  o.tail_length_scale = 0.6;
  o.tube_segments = 8;
  const auto run = hold_runner(o);
  const retail::Json held = run(true);
  const retail::Json& c = held["characters"][0];
  REQUIRE(c["chains"].size() == 1);
  CHECK_FALSE(c["chains"][0]["rigid"].get<bool>());
  const std::string verdict = c["harm_check"][0]["verdict"];
  CHECK(verdict.find("held at rest in each clip where its spring tears") != std::string::npos);
  std::size_t held_clips = 0;
  for (const auto& b : c["bake"]["clips"]) {
    held_clips += b["held"].get<bool>();
    if (b["held"].get<bool>()) CHECK(b["spring_newly_torn"].get<int>() > 0);
  }
  CHECK(held_clips > 0);
  for (const auto& j : c["harm_check"][0]["clips"]) {
    INFO(j["name"]);
    const int floor = j["noise_floor"];
    CHECK(j["piece"]["newly_torn"].get<int>() <= floor);
    CHECK(j["piece"]["output_torn"].get<int>() <= j["piece"]["input_torn"].get<int>() + floor);
    CHECK(j["seam"]["output_torn"].get<int>() <=
          j["seam"]["input_torn"].get<int>() + j["seam"]["allowance"].get<int>() + floor);
  }
  std::string warned;
  for (const auto& w : held["warnings"])
    if (w.get<std::string>().find("the harm check's hold step") != std::string::npos) warned = w;
  CHECK_FALSE(warned.empty());
  const retail::Json rigid = run(false);
  REQUIRE(rigid["characters"][0]["chains"].size() == 1);
  CHECK(rigid["characters"][0]["chains"][0]["rigid"].get<bool>());
}

} // namespace test_harm
