// Hair found from the model (issue 31; docs/hair.md "Hair found from the model"): generated
// humanoids with one head piece each, weighted rigidly to the head, with HeadTurn and Walk. Hair
// (a ponytail, a braid, long loose hair in three clumps) is found without options and rebuilt as
// chains that pass the acceptance figures; short hair, a hat and cat ears are left alone, each
// with its reason; --not-hair, --no-find-hair, --hair and the harm check override.
#include "retail/app/pipeline.h"
#include "retail/base/document.h"
#include "retail/grow/hair_rig.h"
#include "retail/io/accessor.h"
#include "retail/io/io.h"
#include "retail/io/validate.h"
#include "support.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <set>

namespace test_hair_found {

using namespace retail;

namespace {

enum class HeadPiece { Ponytail, Braid, LongHair, ShortHair, Hat, CatEars };

struct Variant {
  HeadPiece piece;
  const char* name;   ///< the truth's piece name
  const char* mesh;   ///< its mesh
  std::size_t clumps; ///< hair chains expected (0: nothing found)
};

const Variant kVariants[] = {{HeadPiece::Ponytail, "hair", "Ponytail", 1},
                             {HeadPiece::Braid, "braid", "Braid", 1},
                             {HeadPiece::LongHair, "long_hair", "LongHair", 3},
                             {HeadPiece::ShortHair, "short_hair", "ShortHair", 0},
                             {HeadPiece::Hat, "hat", "Hat", 0},
                             {HeadPiece::CatEars, "cat_ears", "CatEars", 0}};

RigOptions rig_with(HeadPiece p, bool split = false) {
  RigOptions o;
  o.tail = TailStyle::None;
  o.ponytail = p == HeadPiece::Ponytail;
  o.braid = p == HeadPiece::Braid;
  o.long_hair = p == HeadPiece::LongHair;
  o.short_hair = p == HeadPiece::ShortHair;
  o.hat = p == HeadPiece::Hat;
  o.cat_ears = p == HeadPiece::CatEars;
  o.hair_split_weights = split;
  return o;
}

struct FoundRun {
  RunResult result;
  Document out;
  std::string dir;
};

FoundRun found_run(const RigOptions& o, const RunParams& params = {}) {
  FoundRun r;
  r.dir = test::temp_dir();
  write_document(test::make_rig(o).doc, r.dir + "/in.glb");
  RunParams p = params;
  p.threads = 1;
  r.result = run(r.dir + "/in.glb", r.dir + "/out.glb", p);
  r.out = read_document(r.dir + "/out.glb");
  return r;
}

/// Runs that judge hair by the head turn only: the harm check reads the head-turn sequence, not
/// the clips, so baking HeadTurn alone keeps the sanitizer build's run short.
RunParams head_turn_only() {
  RunParams p;
  p.clips = {"HeadTurn"};
  return p;
}

std::size_t decided(const RunResult& r, Decision d) {
  std::size_t n = 0;
  for (const Piece& p : r.characters[0].detection.pieces) n += p.decision == d;
  return n;
}

int node_named(const Json& gltf, const std::string& name) {
  for (std::size_t i = 0; i < gltf["nodes"].size(); ++i)
    if (gltf["nodes"][i].value("name", "") == name) return int(i);
  return -1;
}

std::size_t hair_chains(const RunResult& r) {
  std::size_t n = 0;
  for (const HairResult& h : r.hair) n += h.chains.size();
  return n;
}

/// Every strand of `r` (one character) a whole chain within the acceptance figures: its vertex
/// count the first strand's (the generator's strands are alike), head-turn p99 <= 8%, no
/// penetration beyond 1 mm.
void check_strands(const FoundRun& r, std::size_t strands) {
  REQUIRE(r.result.hair_head_turn.size() == 1);
  const auto& chains = r.result.hair[0].chains;
  const auto& turned = r.result.hair_head_turn[0].chains;
  REQUIRE(turned.size() == strands);
  for (std::size_t i = 0; i < chains.size(); ++i) {
    INFO(chains[i].selector << ": " << chains[i].vertices << " vertices, p99 "
                            << turned[i].edge_max_p99_percent << "%");
    CHECK(chains[i].vertices == chains[0].vertices);
    CHECK(turned[i].edge_max_p99_percent <= 8);
    CHECK(turned[i].penetration_m <= 1e-3);
  }
}

} // namespace

TEST_CASE("hair found: the ponytail, braid and long hair are found and pass the acceptance "
          "figures, short hair, a hat and cat ears are left alone",
          "[hair_found][cli]") {
  for (const Variant& v : kVariants) {
    INFO(v.name);
    const FoundRun r = found_run(rig_with(v.piece));
    const double H = r.result.characters.empty() ? 0 : 1.8;
    REQUIRE(r.result.characters.size() == 1);
    CHECK(r.result.characters[0].chains.empty()); // no tail
    CHECK(decided(r.result, Decision::Hair) == v.clumps);
    CHECK(hair_chains(r.result) == v.clumps);
    // Every piece touching the head says why it was or was not taken.
    for (const Piece& p : r.result.characters[0].detection.pieces) {
      if (!std::isfinite(p.head_weight)) continue;
      INFO("piece " << p.id << ": " << p.reason);
      CHECK(!p.reason.empty());
      if (v.clumps == 0) CHECK(p.decision != Decision::Hair);
    }
    if (v.clumps == 0) {
      CHECK(r.result.hair.empty()); // no hair section, no head turn, no new node
      for (const auto& node : r.out.gltf["nodes"])
        CHECK(node.value("name", "").rfind("Hair_", 0) != 0);
      continue;
    }
    REQUIRE(r.result.hair.size() == 1);
    REQUIRE(r.result.hair_head_turn.size() == 1);
    const auto& turned = r.result.hair_head_turn[0].chains;
    REQUIRE(turned.size() == v.clumps);
    for (std::size_t i = 0; i < v.clumps; ++i) {
      const HairChainResult& c = r.result.hair[0].chains[i];
      const HeadTurnChainReport& t = turned[i];
      INFO(c.selector << ": p99 " << t.edge_max_p99_percent << "% worst "
                      << (t.worst.ratio - 1) * 100 << "% quiet " << t.quiet_tip_movement_m * 1e3
                      << " mm penetration " << t.penetration_m * 1e3 << " mm k "
                      << c.stiffness_per_s2 << " c " << c.damping_per_s);
      CHECK(c.found);
      CHECK(c.selector.rfind("piece:", 0) == 0);
      // Acceptance (issue 31): p99 <= 8% on the head turn, settled within 1e-5 H, root pinned,
      // no penetration beyond 1 mm at 1.8 m.
      CHECK(t.edge_max_p99_percent <= 8);
      CHECK(t.edge_max_p99_percent > 0); // it swings: the measure can fail
      CHECK(t.quiet_tip_movement_m <= 1e-5 * H);
      CHECK(t.penetration_m <= 1e-3 * H / 1.8);
      CHECK(c.pinned > 0);
    }
    // Root pinned: every pinned vertex carries weight 1 on the head in the output.
    const Model m = parse_model(r.out);
    const int head = node_named(r.out.gltf, "mixamorig:Head");
    const Primitive& prim = m.meshes[1].primitives[0];
    const auto joints = read_accessor_uint(r.out, m, prim.attributes.at("JOINTS_0"));
    const AccessorData w = read_accessor(r.out, m, prim.attributes.at("WEIGHTS_0"));
    const std::size_t body = std::size_t(
        m.accessors[std::size_t(m.meshes[0].primitives[0].attributes.at("POSITION"))].count);
    for (const HairChainResult& c : r.result.hair[0].chains)
      for (std::size_t pv : c.pinned_vertices) {
        REQUIRE(pv >= body);
        const std::size_t local = pv - body;
        double on_head = 0;
        for (int k = 0; k < 4; ++k)
          if (m.skins[0].joints[joints[local * 4 + std::size_t(k)]] == head)
            on_head += w(Eigen::Index(local), k);
        CHECK(on_head == Approx(1).margin(1e-6));
      }
    // Baked into Walk and HeadTurn, loops closed.
    std::set<std::string> baked;
    std::vector<ClipBake> hair_bakes; // the hair chains' records: arc solver, judged
    REQUIRE(!r.result.chain_records.empty());
    for (const ChainRecord& rec : r.result.chain_records[0])
      if (rec.kind == ChainKind::Hair) {
        CHECK(rec.solver == ChainSolver::Arc);
        hair_bakes.insert(hair_bakes.end(), rec.bakes.begin(), rec.bakes.end());
      }
    for (const ClipBake& b : hair_bakes) {
      baked.insert(b.name);
      if (b.name == "Walk" || b.name == "HeadTurn") CHECK(b.converged);
    }
    CHECK(baked.count("Walk"));
    CHECK(baked.count("HeadTurn"));
    // The report: the piece's decision and cues, the chain marked as found with its k and c.
    const Json& rc = r.result.report["characters"][0];
    std::size_t hair_pieces = 0;
    for (const Json& p : rc["pieces"])
      if (p["decision"] == "hair") {
        ++hair_pieces;
        CHECK(p["hair_cues"]["length_heads"].get<double>() >= 1.0);
        CHECK(p["reason"].get<std::string>().find("a chain under the head") != std::string::npos);
      }
    CHECK(hair_pieces == v.clumps);
    CHECK(rc["hair"]["chains"][0]["found"] == true);
    CHECK(rc["hair"]["chains"][0]["stiffness_per_s2"].get<double>() > 0);
  }
}

TEST_CASE("hair found: split weights (head, neck, spine, shoulder) are found as well",
          "[hair_found][cli]") {
  for (HeadPiece p : {HeadPiece::Ponytail, HeadPiece::Braid, HeadPiece::Hat}) {
    const FoundRun r = found_run(rig_with(p, true));
    INFO(int(p));
    CHECK(hair_chains(r.result) == (p == HeadPiece::Hat ? 0u : 1u));
  }
}

TEST_CASE("hair found: long hair in 24 strands (cards) gets a whole chain per strand, those "
          "passing a shoulder bone too",
          "[hair_found][cli]") {
  RigOptions o = rig_with(HeadPiece::LongHair);
  o.hair_strands = 24; // more hair vertices than body vertices; two strands pass within the far
                       // distance of a shoulder bone, which cuts their far skin in two
  const FoundRun r = found_run(o, head_turn_only());
  REQUIRE(r.result.characters.size() == 1);
  CHECK(decided(r.result, Decision::Hair) == 24);
  CHECK(decided(r.result, Decision::HairRejected) == 0);
  REQUIRE(hair_chains(r.result) == 24);
  check_strands(r, 24);
  CHECK(r.result.warnings.empty());
}

TEST_CASE("hair found: hair lying close along the back is found whole by its shell, a hood and "
          "a scarf at the neck get no chain",
          "[hair_found][cli]") {
  // Strands 1 cm off the back: four of twelve have no far skin that touches the head (their far
  // skin is a short worn piece by the shoulders); the shell route takes each strand whole.
  RigOptions o = rig_with(HeadPiece::LongHair);
  o.hair_strands = 12;
  o.hair_close = true;
  const FoundRun r = found_run(o, head_turn_only());
  REQUIRE(r.result.characters.size() == 1);
  CHECK(decided(r.result, Decision::Hair) == 12);
  REQUIRE(hair_chains(r.result) == 12);
  std::size_t by_shell = 0;
  for (const Piece& p : r.result.characters[0].detection.pieces)
    if (p.decision == Decision::Hair && std::isfinite(p.hair_rise)) {
      ++by_shell;
      CHECK(p.hair_rise >= 0.2); // rooted on the scalp
      CHECK(p.separate_shell);
    }
  CHECK(by_shell == 4);
  check_strands(r, 12);
  CHECK(r.result.warnings.empty());
  // Without the shell route (a rise no shell reaches) those four stay on the head (detection
  // only: what is found does not depend on the bake).
  RunParams off;
  off.rerig.mode = Mode::Detect;
  off.rerig.detect.hair_shell_rise_heads = 100;
  CHECK(decided(found_run(o, off).result, Decision::Hair) == 8);
  // Shoulder-length hair in three clumps lying close: no far skin touching the head at all.
  RigOptions shorter = rig_with(HeadPiece::LongHair);
  shorter.hair_close = true;
  shorter.hair_length_scale = 0.6;
  // Each is found; the head turn's harm check may leave one (the back clump, rubbing the back,
  // tears 10% at p99), never silently.
  const FoundRun s3 = found_run(shorter, head_turn_only());
  const std::size_t left = decided(s3.result, Decision::HairRejected);
  CHECK(decided(s3.result, Decision::Hair) + left == 3);
  CHECK(hair_chains(s3.result) + left == 3);
  CHECK(s3.result.warnings.size() == left);
  CHECK(decided(found_run(shorter, off).result, Decision::Hair) == 0);
  // A hood down and a scarf, weighted rigidly to the head: no chain. The hood's far skin passes
  // the hair cues, and the head turn's harm check leaves it (warned); the scarf's is worn.
  for (const bool hood : {true, false}) {
    RigOptions n = rig_with(HeadPiece::Hat);
    n.hat = false;
    (hood ? n.hood : n.scarf) = true;
    const FoundRun h = found_run(n, head_turn_only());
    INFO((hood ? "hood" : "scarf"));
    CHECK(hair_chains(h.result) == 0);
    CHECK(decided(h.result, Decision::Hair) == 0);
    CHECK(decided(h.result, Decision::HairRejected) == (hood ? 1u : 0u));
  }
}

TEST_CASE("hair found: long strands whose head turn tears at their own k are kept stiffer, long "
          "hair reaching the hips is hair, not the body",
          "[hair_found][cli]") {
  // 12 strands 1.4 x as long: the outermost on one side lag the turning head and stretch their
  // root's skin past 8% at their own k; k x 2 keeps them within it.
  RigOptions o = rig_with(HeadPiece::LongHair);
  o.hair_strands = 12;
  o.hair_length_scale = 1.4;
  const FoundRun r = found_run(o, head_turn_only());
  REQUIRE(hair_chains(r.result) == 12);
  CHECK(decided(r.result, Decision::HairRejected) == 0);
  std::size_t stiffer = 0;
  for (std::size_t i = 0; i < r.result.hair[0].chains.size(); ++i) {
    const HairChainResult& c = r.result.hair[0].chains[i];
    const double p99 = r.result.hair_head_turn[0].chains[i].edge_max_p99_percent;
    INFO(c.selector << ": k x " << c.stiffness_scale << ", p99 " << p99 << "%");
    CHECK(p99 <= 8);
    CHECK((c.stiffness_scale == 1 || c.stiffness_scale == 2));
    stiffer += c.stiffness_scale == 2;
  }
  CHECK(stiffer >= 1);
  std::size_t noted = 0; // never silent: each one kept stiffer is said
  for (const std::string& n : r.result.notes)
    noted += n.find("kept stiffer, k x 2") != std::string::npos;
  CHECK(noted == stiffer);
  CHECK(r.result.warnings.empty());
  // `retail report OUT --head-turn` re-simulates each chain with the k and c the run used (the
  // chain's first node's extras): the same figures, the stiffer ones included.
  std::string out, err;
  REQUIRE(test::run_retail({"report", r.dir + "/out.glb", "--head-turn", "--json", "-"}, &out,
                           &err) == 0);
  const Json ht = Json::parse(out);
  REQUIRE(ht["chains"].size() == 12);
  std::size_t matched = 0;
  for (const Json& c : ht["chains"])
    for (std::size_t i = 0; i < r.result.hair[0].chains.size(); ++i)
      if (c["nodes"] == Json(r.result.hair[0].chains[i].nodes)) {
        ++matched;
        CHECK(c["edge_max_p99_percent"].get<double>() ==
              Approx(r.result.hair_head_turn[0].chains[i].edge_max_p99_percent).margin(0.01));
      }
  CHECK(matched == 12);
  // Without the step those strands are left on the head, each with a warning.
  RunParams plain = head_turn_only();
  plain.harm.hair_stiffer.clear();
  const FoundRun p = found_run(o, plain);
  CHECK(hair_chains(p.result) == 12 - stiffer);
  CHECK(decided(p.result, Decision::HairRejected) == stiffer);
  CHECK(p.result.warnings.size() == stiffer);
  // Long hair to the hips: the side clumps' far skin reaches the pelvis first and was read as
  // the body ("carries the head's skin"); judged whole by its shell, all three are hair.
  RigOptions hips = rig_with(HeadPiece::LongHair);
  hips.hair_length_scale = 1.6;
  RunParams detect;
  detect.rerig.mode = Mode::Detect;
  CHECK(decided(found_run(hips, detect).result, Decision::Hair) == 3);
  detect.rerig.detect.hair_shell_rise_heads = 100; // without the shell route: one
  CHECK(decided(found_run(hips, detect).result, Decision::Hair) == 1);
}

TEST_CASE("hair found: the truth's hair vertices are the found clumps'", "[hair_found]") {
  for (const Variant& v : {kVariants[0], kVariants[1], kVariants[2]}) {
    INFO(v.name);
    const GeneratedRig rig = test::make_rig(rig_with(v.piece));
    const FoundRun r = found_run(rig_with(v.piece));
    // Original vertices of the hair mesh (primitives concatenated: body, then the hair mesh).
    const Json& membership = rig.truth["membership"];
    REQUIRE(membership.size() == 2);
    const std::size_t body = membership[0].size(), hair = membership[1].size();
    std::set<std::size_t> taken;
    for (const HairChainResult& c : r.result.hair[0].chains)
      taken.insert(c.original_vertices.begin(), c.original_vertices.end());
    std::size_t hit = 0;
    for (std::size_t i = 0; i < hair; ++i) hit += taken.count(body + i);
    for (std::size_t t : taken) CHECK(t >= body); // nothing of the body
    INFO(hit << " of " << hair << " hair vertices re-weighted");
    // The long hair's cap lies on the skull (not far: no piece): the clumps hang from it.
    CHECK(double(hit) >= (v.piece == HeadPiece::LongHair ? 0.5 : 0.9) * double(hair));
  }
}

TEST_CASE("hair found: --not-hair, --no-find-hair and --hair override, the harm check leaves "
          "a tearing clump",
          "[hair_found][cli]") {
  const RigOptions o = rig_with(HeadPiece::Ponytail);
  RunParams not_hair;
  not_hair.rerig.not_hair = {"Ponytail"};
  FoundRun r = found_run(o, not_hair);
  CHECK(hair_chains(r.result) == 0);
  bool said = false;
  for (const Piece& p : r.result.characters[0].detection.pieces)
    if (p.reason.find("--not-hair 'Ponytail': left alone (detection alone: hair") == 0)
      said = p.decision == Decision::Head;
  CHECK(said);
  RunParams off;
  off.rerig.detect.find_hair = false;
  CHECK(hair_chains(found_run(o, off).result) == 0);
  // --hair forces what detection leaves: the hat.
  RunParams hat;
  hat.hair.hair = {"Hat"};
  const FoundRun h = found_run(rig_with(HeadPiece::Hat), hat);
  REQUIRE(hair_chains(h.result) == 1);
  CHECK(!h.result.hair[0].chains[0].found);
  // --hair on the found piece itself: one chain, the user's.
  RunParams both;
  both.hair.hair = {"Ponytail"};
  const FoundRun b = found_run(o, both);
  REQUIRE(hair_chains(b.result) == 1);
  CHECK(!b.result.hair[0].chains[0].found);
  // The harm check: a clump whose head turn exceeds the limit is left as it was, said so.
  RunParams strict;
  strict.harm.hair_torn_p99_percent = 0.01;
  const FoundRun s = found_run(o, strict);
  CHECK(hair_chains(s.result) == 0);
  CHECK(decided(s.result, Decision::HairRejected) == 1);
  REQUIRE(s.result.hair.size() == 1);
  REQUIRE(s.result.hair[0].left.size() == 1);
  CHECK(s.result.hair[0].left[0].found);
  bool warned = false;
  for (const std::string& w : s.result.warnings)
    warned = warned || (w.rfind("hair piece:", 0) == 0 &&
                        w.find("the head turn tears its skin") != std::string::npos);
  CHECK(warned);
  const Document in = read_document(s.dir + "/in.glb");
  CHECK(s.out.gltf["meshes"] == in.gltf["meshes"]); // its weights as they were
}

TEST_CASE("hair found: k and c from the clump's length and thickness, the options override",
          "[hair_found]") {
  HairRigParams p;
  const double L = 0.43, r = p.aspect_ref * L;
  const auto [k0, c0] = hair_stiffness(p, L, r);
  CHECK(k0 == Approx(p.stiffness_ref_per_s2));
  CHECK(c0 == Approx(2 * p.damping_ratio * std::sqrt(k0)));
  // Longer: softer (a slower swing, c with it); thicker: stiffer (its wider root skin); the same
  // at any scale.
  const auto [k_long, c_long] = hair_stiffness(p, 1.5 * L, r);
  CHECK(k_long == Approx(k0 / 1.5));
  CHECK(c_long < c0);
  CHECK(hair_stiffness(p, L, 1.5 * r).first == Approx(1.5 * k0));
  CHECK(hair_stiffness(p, 100 * L, 100 * r).first == Approx(k0));
  // Clamped to [k_ref / 4, 4 k_ref]; no length: the reference.
  CHECK(hair_stiffness(p, 100 * L, r).first == Approx(p.stiffness_ref_per_s2 / 4));
  CHECK(hair_stiffness(p, L, 100 * r).first == Approx(4 * p.stiffness_ref_per_s2));
  CHECK(hair_stiffness(p, 0, r).first == Approx(p.stiffness_ref_per_s2));
  p.stiffness_per_s2 = 200;
  p.damping_per_s = 7;
  CHECK(hair_stiffness(p, 1.0, 0.05) == std::pair<double, double>(200, 7));
  p.stiffness_per_s2 = -1;
  CHECK_THROWS_AS(p.validate(), Error);
}

TEST_CASE("hair found: the shared characters (platformer, cyberpunk, godette) get no hair chain, "
          "their output as without finding hair",
          "[hair_found][shared]") {
  const std::string data = test::shared_data();
  if (data.empty()) return;
  for (const char* name : {"platformer-character.glb", "cyberpunk-character.glb", "godette.vrm"}) {
    INFO(name);
    const std::string in = data + "/originals/" + name, dir = test::temp_dir();
    RunParams found, off;
    found.dry_run = off.dry_run = true;
    found.report_path = off.report_path = dir + "/r.json";
    off.rerig.detect.find_hair = false;
    const bool vrm = std::string(name).find(".vrm") != std::string::npos;
    const std::string out = dir + (vrm ? "/out.vrm" : "/out.glb");
    const RunResult a = run(in, out, found), b = run(in, out, off);
    CHECK(hair_chains(a) == 0);
    CHECK(decided(a, Decision::Hair) == 0);
    CHECK(a.output_sha256 == b.output_sha256);
  }
}

} // namespace test_hair_found
