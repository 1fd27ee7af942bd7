// `retail report IN --head-turn` (include/retail/motion/head_turn.h): the figures by hand,
// sample-rate independence, the torso capsule rule and determinism on godette's VRM 0 springs, the
// CLI.
#include "retail/base/error.h"
#include "retail/io/io.h"
#include "retail/io/validate.h"
#include "retail/motion/head_turn.h"
#include "support.h"

#include <catch2/catch.hpp>
#include <cmath>

namespace test_head_turn {

using Eigen::Vector3d;
using namespace retail;

namespace {

struct Loaded {
  Document doc;
  Model model;
  std::vector<Character> characters;
};

Loaded load(const Document& doc) {
  Loaded l;
  l.doc = doc;
  l.model = parse_model(l.doc);
  l.characters = test::characters_of(l.doc);
  return l;
}

HeadTurnReport at_rate(const Loaded& l, double sample_hz) {
  HeadTurnReportParams p;
  p.turn.sample_hz = sample_hz;
  return head_turn_report(l.doc, l.model, l.characters, p);
}

} // namespace

TEST_CASE("hair: per-edge-max p99 by hand", "[hair]") {
  // 101 edges whose largest ratios are 1.000, 1.001, ..., 1.100: rank 0.99 * 100 = 99 exactly.
  std::vector<double> m;
  for (int k = 0; k <= 100; ++k) m.push_back(1 + 0.001 * k);
  CHECK(edge_max_p99_percent(m) == Approx(9.9).margin(1e-9));
  // Two edges, 1.0 and 1.5: 0.99 of the way from one to the other (numpy's linear rule).
  CHECK(edge_max_p99_percent({1.5, 1.0}) == Approx(49.5).margin(1e-9));
  CHECK(edge_max_p99_percent({1.2}) == Approx(20).margin(1e-9));
  CHECK(edge_max_p99_percent({}) == 0);
}

TEST_CASE("hair: quiet tip movement by hand", "[hair]") {
  // Samples at 0, 1, 2, 3 s; the window starts at 2 s: the moves into 2 s and into 3 s count,
  // the 5-unit jump into 1 s does not.
  std::vector<Vector3d> tips = {Vector3d(0, 0, 0), Vector3d(5, 0, 0), Vector3d(5, 0.3, 0),
                                Vector3d(5, 0.3, 0.4)};
  std::vector<double> t = {0, 1, 2, 3};
  CHECK(quiet_tip_movement(tips, t, 2) == Approx(0.4).margin(1e-12));
  CHECK(quiet_tip_movement(tips, t, 1) == Approx(5).margin(1e-12));
  CHECK(quiet_tip_movement(tips, t, 3.5) == 0);
  CHECK(quiet_tip_movement({Vector3d(1, 2, 3)}, {0}, 0) == 0);
}

TEST_CASE("hair: a file without spring chains gives an empty head-turn report", "[hair]") {
  Loaded l = load(test::make_rig().doc);
  HeadTurnReport r = head_turn_report(l.doc, l.model, l.characters);
  CHECK(r.chains.empty());
  CHECK(r.head == -1);
  CHECK(r.samples == 0);
  Json j = head_turn_json(r, l.model, {}, "rig.glb", "");
  CHECK(j["schema"] == "retail.headturn/1");
  CHECK(j["chains"].empty());
  CHECK(j["head"].is_null());
}

TEST_CASE("hair: godette's head turn sampled at 30, 60 and 120 Hz agrees within 1 mm (1.8 m)",
          "[hair][vrm][shared]") {
  std::string data = test::shared_data();
  if (data.empty()) return;
  Loaded l = load(read_document(data + "/originals/godette.vrm"));
  const double mm = 1e-3 * l.characters[0].height / 1.8; // 1 mm on a 1.8 m model
  HeadTurnReport r30 = at_rate(l, 30), r60 = at_rate(l, 60), r120 = at_rate(l, 120);
  REQUIRE(r30.samples == 12 * 30 + 1);
  REQUIRE(r120.samples == 12 * 120 + 1);
  REQUIRE(r30.chains.size() == 8);
  for (std::size_t c = 0; c < r30.chains.size(); ++c) {
    const HeadTurnChainReport &a = r30.chains[c], &b = r60.chains[c], &d = r120.chains[c];
    INFO(a.name);
    for (std::size_t k = 0; k < a.tips.size(); ++k) {
      REQUIRE((a.tips[k] - b.tips[2 * k]).norm() < mm);
      REQUIRE((a.tips[k] - d.tips[4 * k]).norm() < mm);
    }
    CHECK(std::abs(a.penetration_m - d.penetration_m) < mm);
    CHECK(std::abs(a.quiet_tip_movement_m - d.quiet_tip_movement_m) < mm);
    CHECK(a.tip_curl_deg == Approx(d.tip_curl_deg).margin(1e-9));
    // Finer sampling can only find a larger per-edge maximum; it stays close.
    CHECK(d.edge_max_p99_percent >= a.edge_max_p99_percent - 1e-9);
    CHECK(d.edge_max_p99_percent - a.edge_max_p99_percent < 1.0);
  }
}

TEST_CASE("hair: godette's head turn - figures, torso capsule rule, determinism",
          "[hair][vrm][shared]") {
  std::string data = test::shared_data();
  if (data.empty()) return;
  Loaded l = load(read_document(data + "/originals/godette.vrm"));
  HeadTurnReport r = at_rate(l, 30);
  REQUIRE(r.torso.fitted);
  for (const HeadTurnChainReport& c : r.chains) {
    INFO(c.name);
    CHECK(c.hair_edges > 0);
    CHECK(c.penetration_m <= 1e-3);
    CHECK(c.quiet_tip_movement_m < 1e-6);
    // The torso capsule exactly when the chain's colliders leave the trunk uncovered (and the
    // chain does not rest inside it: the ribbon on the chest).
    CHECK(c.torso_capsule_added == (c.torso_covered_fraction < 1 && !c.torso_rests_inside));
    CHECK(c.torso_rests_inside == (c.name == "Ribbon"));
  }
  // Same input, same bytes.
  HeadTurnReportParams p;
  Json a = head_turn_json(r, l.model, p, "g", ""),
       b = head_turn_json(at_rate(l, 30), l.model, p, "g", "");
  CHECK(a.dump() == b.dump());

  // A collider group that covers the trunk (one sphere of 1 m round the hips): its chains get
  // no torso capsule, the others still do.
  Document doc = l.doc;
  Json& sa = doc.gltf["extensions"]["VRM"]["secondaryAnimation"];
  int group = -1;
  for (const auto& bg : sa["boneGroups"])
    if (group < 0 && !bg["colliderGroups"].empty()) group = bg["colliderGroups"][0].get<int>();
  REQUIRE(group >= 0);
  sa["colliderGroups"][std::size_t(group)]["colliders"].push_back(
      {{"offset", {{"x", 0}, {"y", 0}, {"z", 0}}}, {"radius", 1.0}});
  Loaded covered = load(doc);
  HeadTurnReport rc = at_rate(covered, 30);
  std::size_t with_group = 0;
  for (std::size_t c = 0; c < rc.chains.size(); ++c) {
    bool in_group = false;
    for (const auto& bg : sa["boneGroups"])
      for (const auto& cg : bg["colliderGroups"])
        for (const auto& bone : bg["bones"])
          if (cg.get<int>() == group && bone.get<int>() == rc.chains[c].nodes[0]) in_group = true;
    INFO(rc.chains[c].name);
    if (in_group) {
      ++with_group;
      CHECK(rc.chains[c].torso_covered_fraction == 1);
      CHECK_FALSE(rc.chains[c].torso_capsule_added);
    } else {
      CHECK(rc.chains[c].torso_capsule_added == r.chains[c].torso_capsule_added);
    }
  }
  CHECK(with_group > 0);
}

TEST_CASE("hair: retail report --head-turn on the CLI", "[hair][cli]") {
  std::string dir = test::temp_dir();
  std::string rig = dir + "/rig.glb";
  test::write_bytes(rig, serialize_document(test::make_rig().doc));
  std::string out, err;
  // No spring chains: exit 0, an empty result, a message saying so.
  REQUIRE(test::run_retail({"report", rig, "--head-turn", "--json", "-"}, &out, &err) == 0);
  Json j = Json::parse(out);
  CHECK(j["schema"] == "retail.headturn/1");
  CHECK(j["chains"].empty());
  CHECK(err.find("no spring chains") != std::string::npos);
  // Options of the clip stretch do not apply.
  CHECK(test::run_retail({"report", rig, "--head-turn", "--clips", "Walk"}, &out, &err) == 1);
  CHECK(test::run_retail({"report", rig, "--head-turn", "--head-turn-sample-hz", "50"}, &out,
                         &err) == 1);
  // A bad spring: not measured, a warning naming the JSON path, exit 0 (as every command treats
  // springs it cannot use: docs/robustness.md).
  std::string data = test::shared_data();
  if (data.empty()) return;
  Document doc = read_document(data + "/originals/godette.vrm");
  doc.gltf["extensions"]["VRM"]["secondaryAnimation"]["boneGroups"][0]["hitRadius"] = "big";
  std::string bad = dir + "/bad.vrm";
  test::write_bytes(bad, serialize_document(doc));
  CHECK(test::run_retail({"report", bad, "--head-turn"}, &out, &err) == 0);
  CHECK(err.find("VRM springs not measured") != std::string::npos);
  CHECK(err.find("hitRadius") != std::string::npos);
  // Deterministic and independent of --threads.
  std::string a, b;
  std::string g = data + "/originals/godette.vrm";
  REQUIRE(test::run_retail({"report", g, "--head-turn", "--json", "-", "--threads", "1"}, &a) == 0);
  REQUIRE(test::run_retail({"report", g, "--head-turn", "--json", "-", "--threads", "2"}, &b) == 0);
  CHECK(a == b);
  CHECK(Json::parse(a)["chains"].size() == 8);
}

} // namespace test_head_turn
