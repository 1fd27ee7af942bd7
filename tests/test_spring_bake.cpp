// The input's own VRM spring chains baked into its clips (spring_bake.h; issue 17 points 3-4):
// generated VRM 0 and VRM 1 rigs (a spring tuft under the head) gain keys for the chain's joints
// in every clip, loops that close, nothing else changed; an authored track on a chain joint is
// kept; the same bytes for any thread count; --no-spring-bake writes none; a chain whose skin
// would tear more than the input's is kept unbaked; a chain whose colliders miss the trunk
// respects a torso capsule.
#include "retail/app/pipeline.h"
#include "retail/base/document.h"
#include "retail/io/accessor.h"
#include "retail/io/builder.h"
#include "retail/io/io.h"
#include "retail/motion/spring_bake.h"
#include "retail/vrm/vrm_springs.h"
#include "support.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <iterator>
#include <set>

namespace test_spring_bake {

using namespace retail;

namespace {

Bytes file_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return Bytes(std::istreambuf_iterator<char>(f), {});
}

/// A generated VRM (no tail: only the file's springs move) with its four clips.
Document vrm_doc(int version, bool ponytail = false) {
  RigOptions o;
  o.vrm = version;
  o.tail = TailStyle::None;
  o.ponytail = ponytail;
  return test::make_rig(o).doc;
}

int node_named(const Document& d, const std::string& name) {
  const Json& nodes = d.gltf["nodes"];
  for (std::size_t i = 0; i < nodes.size(); ++i)
    if (nodes[i].value("name", "") == name) return int(i);
  return -1;
}

/// Checks `out` holds `in` unchanged with only appended accessors, buffer views, buffer bytes,
/// and animation samplers and channels; returns per clip the channels appended to it.
std::vector<Json> appended_channels(const Document& in, const Document& out) {
  REQUIRE(out.buffers.size() == in.buffers.size());
  for (std::size_t b = 0; b < in.buffers.size(); ++b) {
    REQUIRE(out.buffers[b].size() >= in.buffers[b].size());
    CHECK(std::equal(in.buffers[b].begin(), in.buffers[b].end(), out.buffers[b].begin()));
  }
  Json cut = out.gltf;
  std::vector<Json> added;
  for (const char* key : {"accessors", "bufferViews"}) {
    REQUIRE(cut[key].size() >= in.gltf[key].size());
    cut[key].erase(cut[key].begin() + std::ptrdiff_t(in.gltf[key].size()), cut[key].end());
  }
  cut["buffers"] = in.gltf["buffers"];
  for (std::size_t a = 0; a < in.gltf["animations"].size(); ++a) {
    Json& anim = cut["animations"][a];
    const Json& was = in.gltf["animations"][a];
    added.push_back(Json(anim["channels"].begin() + std::ptrdiff_t(was["channels"].size()),
                         anim["channels"].end()));
    for (const char* key : {"channels", "samplers"})
      anim[key].erase(anim[key].begin() + std::ptrdiff_t(was[key].size()), anim[key].end());
  }
  CHECK(cut.dump() == in.gltf.dump());
  return added;
}

/// The rotation keys (xyzw per key) of a channel's sampler output.
std::vector<Eigen::Quaterniond> rotation_keys(const Document& d, const Model& m, int clip,
                                              const Json& channel) {
  const int sampler = channel["sampler"];
  const int out =
      d.gltf["animations"][std::size_t(clip)]["samplers"][std::size_t(sampler)]["output"];
  const AccessorData v = read_accessor(d, m, out);
  std::vector<Eigen::Quaterniond> q;
  for (Eigen::Index k = 0; k < v.rows(); ++k) q.emplace_back(v(k, 3), v(k, 0), v(k, 1), v(k, 2));
  return q;
}

} // namespace

TEST_CASE("spring bake: a generated VRM 0 and VRM 1 get the tuft's keys in every clip, loops "
          "closed, nothing else changed, the same bytes on 1 and 3 threads",
          "[spring_bake][vrm][cli]") {
  for (int version : {0, 1}) {
    INFO("VRM " << version);
    const std::string dir = test::temp_dir();
    Document in = vrm_doc(version);
    write_document(in, dir + "/in.vrm");
    in = read_document(dir + "/in.vrm");
    RunParams params;
    params.threads = 1;
    RunResult r = run(dir + "/in.vrm", dir + "/out.vrm", params);
    const SpringBakeResult& sb = r.spring_bake;
    CHECK(sb.status == "done");
    REQUIRE(sb.chains.size() == 1);
    const SpringBakeChain& ch = sb.chains[0];
    CHECK(ch.baked);
    // VRM 1 lists the tuft's three nodes (two links); VRM 0 expands the root down to the end
    // node and adds a virtual end (three links).
    const std::size_t bones = version == 0 ? 3 : 2;
    CHECK(ch.bones == bones);
    Document out = read_document(dir + "/out.vrm");
    const Model m = parse_model(out);
    const std::vector<Json> added = appended_channels(in, out);
    REQUIRE(added.size() == 4);
    REQUIRE(ch.clips.size() == 4);
    double widest = 0;
    for (std::size_t a = 0; a < added.size(); ++a) {
      INFO("clip " << a << " " << ch.clips[a].name);
      REQUIRE(added[a].size() == bones);
      std::set<int> nodes;
      for (const Json& c : added[a]) {
        nodes.insert(int(c["target"]["node"]));
        CHECK(c["target"]["path"] == "rotation");
        const auto keys = rotation_keys(out, m, int(a), c);
        REQUIRE(keys.size() >= 2);
        if (!ch.clips[a].one_shot)
          CHECK(keys.front().angularDistance(keys.back()) * 180 / M_PI < 1.0);
      }
      CHECK(nodes == std::set<int>(ch.nodes.begin(), ch.nodes.begin() + std::ptrdiff_t(bones)));
      CHECK(ch.clips[a].loop_closure_deg < 1.0);
      widest = std::max(widest, ch.clips[a].tip_swing_deg);
    }
    CHECK(widest > 0.5); // the head moves in Walk: the tuft swings
    // The report: one chain, baked, per clip.
    const Json& rep = r.report["characters"][0]["spring_bake"];
    CHECK(rep["status"] == "done");
    CHECK(rep["chains"][0]["baked"] == true);
    CHECK(rep["chains"][0]["clips"].size() == 4);
    // Any thread count, the same bytes; the stage logged.
    params.threads = 3;
    run(dir + "/in.vrm", dir + "/out3.vrm", params);
    CHECK(file_bytes(dir + "/out.vrm") == file_bytes(dir + "/out3.vrm"));
    bool logged = false;
    for (const auto& s : r.stages) logged = logged || s.stage == "spring_bake";
    CHECK(logged);
    // --no-spring-bake: the clips as they were.
    params.spring_bake = false;
    RunResult off = run(dir + "/in.vrm", dir + "/off.vrm", params);
    CHECK(off.spring_bake.status == "off");
    Document doff = read_document(dir + "/off.vrm");
    for (const Json& a : appended_channels(in, doff)) CHECK(a.empty());
  }
}

TEST_CASE("spring bake: a clip that animates a chain joint keeps its track byte for byte",
          "[spring_bake][vrm][cli]") {
  const std::string dir = test::temp_dir();
  Document in = vrm_doc(1);
  const int tuft = node_named(in, "HairTuft_1");
  REQUIRE(tuft >= 0);
  // Walk (clip 0) gets an authored rotation track on the tuft's root.
  const double s = std::sin(0.2);
  int input = add_float_accessor(in, {0.0f, 0.5f, 1.0f}, "SCALAR", 0, true);
  int output = add_float_accessor(
      in, {0, 0, 0, 1, float(s), 0, 0, float(std::cos(0.2)), 0, 0, 0, 1}, "VEC4", 0, false);
  Json& walk = in.gltf["animations"][std::size_t(0)];
  REQUIRE(walk["name"] == "Walk");
  walk["samplers"].push_back({{"input", input}, {"output", output}, {"interpolation", "LINEAR"}});
  walk["channels"].push_back({{"sampler", walk["samplers"].size() - 1},
                              {"target", {{"node", tuft}, {"path", "rotation"}}}});
  const std::size_t authored = walk["channels"].size() - 1;
  write_document(in, dir + "/in.vrm");
  in = read_document(dir + "/in.vrm");
  RunResult r = run(dir + "/in.vrm", dir + "/out.vrm", RunParams{});
  REQUIRE(r.spring_bake.chains.size() == 1);
  const SpringBakeChain& ch = r.spring_bake.chains[0];
  REQUIRE(ch.baked);
  CHECK(ch.clips[0].kept_authored == std::vector<std::string>{"HairTuft_1"});
  Document out = read_document(dir + "/out.vrm");
  const std::vector<Json> added = appended_channels(in, out); // the authored track in place
  for (std::size_t a = 0; a < added.size(); ++a) {
    std::set<int> nodes;
    for (const Json& c : added[a]) nodes.insert(int(c["target"]["node"]));
    CHECK(nodes.count(tuft) == (a == 0 ? 0u : 1u)); // VRM 1: two keyed joints, Walk one
    CHECK(nodes.size() == (a == 0 ? 1u : 2u));
  }
  // The tuft's own channel in Walk still reads the authored sampler and accessors.
  const Json& last = out.gltf["animations"][std::size_t(0)]["channels"][authored];
  CHECK(last["target"]["node"] == tuft);
  const Json& sampler =
      out.gltf["animations"][std::size_t(0)]["samplers"][std::size_t(last["sampler"])];
  CHECK(sampler["input"] == input);
  CHECK(sampler["output"] == output);
}

TEST_CASE("spring bake: a chain whose skin would tear more than the input's is kept unbaked",
          "[spring_bake][vrm][cli]") {
  // The ponytail grown as a chain and written into the VRM's springs (no bake): a skinned spring
  // chain the clips do not animate, its skin following the head rigidly in the input. Baked, it
  // swings far enough in Walk and HipSwing to tear edges of its root seam.
  const std::string dir = test::temp_dir();
  write_document(vrm_doc(1, true), dir + "/in.vrm");
  RunParams grow;
  grow.hair.hair = {"Ponytail"};
  grow.hair.stiffness_per_s2 = 120; // issue 17's soft chain (issue 31's own k does not tear here)
  grow.hair.damping_per_s = 10;
  grow.bake_enabled = false;
  run(dir + "/in.vrm", dir + "/mid.vrm", grow);
  RunResult r = run(dir + "/mid.vrm", dir + "/out.vrm", RunParams{});
  REQUIRE(r.spring_bake.chains.size() == 2); // the tuft, then the ponytail
  const SpringBakeChain& pony = r.spring_bake.chains[1];
  // Its colliders (the head's) leave the trunk uncovered: the torso capsule is added (SPEC §10).
  CHECK(pony.torso_capsule);
  CHECK_FALSE(pony.torso_rests_inside);
  CHECK(pony.torso_covered_fraction < 0.5);
  CHECK(r.report["characters"][0]["spring_bake"]["chains"][1]["torso_capsule"]["added"] == true);
  CHECK(pony.region_edges > 0);
  CHECK_FALSE(pony.baked);
  CHECK(pony.reason.find("harm check") != std::string::npos);
  CHECK(r.spring_bake.chains[0].baked); // the tuft has no skin: nothing to tear
  bool warned = false;
  for (const auto& w : r.warnings) warned = warned || w.find("kept unbaked") != std::string::npos;
  CHECK(warned);
  CHECK(r.report["characters"][0]["spring_bake"]["chains"][1]["baked"] == false);
  // Its joints get no keys; the tuft's do.
  const Document mid = read_document(dir + "/mid.vrm"), out = read_document(dir + "/out.vrm");
  const std::set<int> joints(pony.nodes.begin(), pony.nodes.end());
  for (const Json& a : appended_channels(mid, out)) {
    CHECK(a.size() == r.spring_bake.chains[0].bones);
    for (const Json& c : a) CHECK(joints.count(int(c["target"]["node"])) == 0);
  }
  // Without the harm check it is baked, and its region tears more than the input's somewhere.
  RunParams unchecked;
  unchecked.harm_check = false;
  RunResult u = run(dir + "/mid.vrm", dir + "/unchecked.vrm", unchecked);
  const SpringBakeChain& baked = u.spring_bake.chains[1];
  CHECK(baked.baked);
  REQUIRE(baked.after.size() == baked.clips.size());
  REQUIRE(baked.before.size() == baked.clips.size());
  bool worse = false;
  for (std::size_t i = 0; i < baked.clips.size(); ++i)
    worse = worse || baked.after[i].torn_percent > baked.before[i].torn_percent;
  CHECK(worse);
}

} // namespace test_spring_bake
