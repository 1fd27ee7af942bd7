// The head-turn QA of --hair chains (include/retail/motion/hair_qa.h) on the generated ponytail:
// the figures the report carries, the same rig the bake solves, the head turn as its cause,
// determinism; head_turn_chains refusing lists that do not fit the rig.
#include "retail/app/pipeline.h"
#include "retail/base/document.h"
#include "retail/base/error.h"
#include "retail/io/io.h"
#include "retail/io/validate.h"
#include "retail/motion/hair_qa.h"
#include "support.h"

#include <catch2/catch.hpp>
#include <cmath>

namespace test_hair_qa {

using namespace retail;

namespace {

RigOptions ponytail_rig() {
  RigOptions o;
  o.ponytail = true;
  o.tail = TailStyle::None;
  return o;
}

/// `retail in.glb out.glb --hair Ponytail` on the generated ponytail.
struct HairRun {
  RunResult result;
  Document out;
};

HairRun hair_run(int threads = 1) {
  const std::string dir = test::temp_dir();
  write_document(test::make_rig(ponytail_rig()).doc, dir + "/in.glb");
  RunParams params;
  params.hair.hair = {"Ponytail"};
  params.threads = threads;
  HairRun r;
  r.result = run(dir + "/in.glb", dir + "/out.glb", params);
  r.out = read_document(dir + "/out.glb");
  return r;
}

/// The single-threaded run, made once for the tests that only read it.
const HairRun& shared_run() {
  static const HairRun r = hair_run();
  return r;
}

} // namespace

TEST_CASE("hair QA: the ponytail's head turn in the --hair report", "[hair_qa][cli]") {
  const HairRun& r = shared_run();
  REQUIRE(r.result.hair_head_turn.size() == 1);
  const HeadTurnReport& ht = r.result.hair_head_turn[0];
  REQUIRE(ht.chains.size() == 1);
  const HeadTurnChainReport& c = ht.chains[0];
  INFO("p99 " << c.edge_max_p99_percent << "% penetration " << c.penetration_m * 1e3 << " mm quiet "
              << c.quiet_tip_movement_m * 1e3 << " mm curl " << c.tip_curl_deg);
  CHECK(ht.samples == 361);
  CHECK(c.name == "Hair_1_1");
  CHECK(c.links == 6);
  CHECK(c.nodes == r.result.hair[0].chains[0].nodes);
  // Every re-weighted vertex but the pinned ones moves with the chain; edges reach the seam.
  const HairChainResult& hc = r.result.hair[0].chains[0];
  CHECK(c.hair_vertices == hc.vertices - hc.pinned);
  CHECK(c.hair_edges > c.hair_vertices);
  CHECK(c.edge_max_p99_percent > 0);
  CHECK(c.worst.ratio - 1 >= c.edge_max_p99_percent / 100);
  CHECK(c.worst.primitive == "meshes[1].primitives[0]");
  // The acceptance figures (docs/hair.md): no penetration beyond 1 mm, still in the last 2 s.
  CHECK(c.penetration_m <= 1e-3);
  CHECK(c.quiet_tip_movement_m < 1e-6);
  CHECK(c.tip_curl_deg < 5);
  // The torso capsule the bake added (no VRM colliders) is the one the chain respects here.
  REQUIRE(r.result.hair_colliders.size() == 1);
  CHECK(r.result.hair_colliders[0].torso_added);
  CHECK(ht.torso.fitted);
  CHECK(ht.torso.capsule.radius_m == Approx(r.result.hair_colliders[0].torso_radius));
  // The torso capsule, then the body capsules added (docs/hair.md "Body capsules": on the
  // ponytail the neck, head and chest; the limbs are fitted but off).
  std::size_t body = 0;
  for (const BodyCapsule& b : r.result.hair_colliders[0].body) body += b.added;
  CHECK(body == 3);
  CHECK(c.colliders == 1 + body);
  // The report: per chain under characters[].hair.chains[].head_turn, the run under hair.
  const Json& hair = r.result.report["characters"][0]["hair"];
  const Json& hj = hair["chains"][0]["head_turn"];
  CHECK(hj["hair_edges"] == c.hair_edges);
  CHECK(hj["edge_max_p99_percent"].get<double>() == Approx(c.edge_max_p99_percent).margin(1e-6));
  CHECK(hj["worst_edge"]["primitive"] == "meshes[1].primitives[0]");
  CHECK(hair["head_turn"]["samples"] == 361);
  CHECK(hair["chains"][0]["stiffness_per_s2"].get<double>() ==
        Approx(r.result.hair[0].chains[0].stiffness_per_s2).margin(1e-6));
  CHECK(hair["chains"][0]["found"] == false);
  CHECK(hair["head_turn"]["torso_capsule"]["radius"].get<double>() > 0);
  bool logged = false;
  for (const StageStat& s : r.result.stages)
    if (s.stage == "head-turn") logged = s.summary.find("1 hair chain(s), worst:") == 0;
  CHECK(logged);
}

TEST_CASE("hair QA: the head turn is what stretches the hair, deterministically", "[hair_qa]") {
  const HairRun& r = shared_run();
  const std::vector<HairResult>& hair = r.result.hair;
  HairQaParams still;
  still.turn.amplitude_deg = 0;
  // On the output as written (the driver turned the rig its plans make in memory).
  const Model out = parse_model(r.out);
  HeadTurnReport turned = hair_head_turn(r.out, out, nullptr, hair)[0],
                 unturned = hair_head_turn(r.out, out, nullptr, hair, still)[0];
  const HeadTurnChainReport &a = turned.chains[0], &b = unturned.chains[0];
  INFO("turned p99 " << a.edge_max_p99_percent << "%, still " << b.edge_max_p99_percent << "%");
  CHECK(a.edge_max_p99_percent > b.edge_max_p99_percent);
  CHECK(a.hair_edges == b.hair_edges);
  // As run in the driver, to the same figures.
  CHECK(a.edge_max_p99_percent == r.result.hair_head_turn[0].chains[0].edge_max_p99_percent);
  CHECK(a.tips == r.result.hair_head_turn[0].chains[0].tips);
  // A stiffer chain lags less at the tip (each chain carries its own k, hair_rig.h).
  std::vector<HairResult> stiff = hair;
  stiff[0].chains[0].stiffness_per_s2 *= 4;
  const HeadTurnChainReport s = hair_head_turn(r.out, out, nullptr, stiff)[0].chains[0];
  CHECK(s.edge_max_p99_percent < a.edge_max_p99_percent);
  // Nothing to turn: no chains, nothing parsed (an empty document would not parse).
  std::vector<HairResult> none(2);
  std::vector<HeadTurnReport> empty = hair_head_turn(Document{}, Model{}, nullptr, none);
  REQUIRE(empty.size() == 2);
  CHECK(empty[0].chains.empty());
  CHECK(empty[0].samples == 0);
  HairQaParams bad;
  bad.turn.sample_hz = 50;
  CHECK_THROWS_AS(hair_head_turn(r.out, out, nullptr, hair, bad), Error);
}

TEST_CASE("hair QA: the same report at 1 and 2 threads", "[hair_qa][cli]") {
  const HairRun &a = shared_run(), b = hair_run(2);
  CHECK(a.result.report["characters"][0]["hair"].dump() ==
        b.result.report["characters"][0]["hair"].dump());
}

TEST_CASE("head_turn_chains: lists that do not fit the rig are refused", "[hair_qa]") {
  const HairRun& r = shared_run();
  Model model = parse_model(r.out);
  std::vector<Character> characters = test::characters_of(r.out);
  HeadTurnChains chains;
  chains.rig.anchor_count = 1;
  chains.anchor_nodes = {}; // one anchor, no node for it
  CHECK_THROWS_AS(head_turn_chains(r.out, model, characters, 0, chains), Error);
  chains.anchor_nodes = {characters[0].roles.head};
  CHECK_THROWS_AS(head_turn_chains(r.out, model, characters, 5, chains), Error);
}

} // namespace test_hair_qa
