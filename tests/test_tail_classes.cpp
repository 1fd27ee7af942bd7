// Tail classes that auto-riggers break (SPEC §13, issue 14): curled over the back, short and
// stubby, thin and close to the legs, carrying spikes, growing out of a thick body. Each class
// is generated in a few variants (sizes, curls, heights down to 0.18 units) with its ground
// truth; `retail IN OUT` must re-rig the whole tail and little else (recall >= 90%, precision
// >= 80% of truth tail vertices), tear no clip more than the input did, and say what it decided
// about every piece. A humanoid without a tail (thick body or not) gets no chain.
#include "retail/app/pipeline.h"
#include "retail/detect/detect.h"
#include "retail/io/accessor.h"
#include "retail/io/io.h"
#include "retail/qa/harm.h"
#include "support.h"

#include <Eigen/Eigenvalues>
#include <catch2/catch.hpp>
#include <map>
#include <sstream>

namespace test_tail_classes {

using retail::RigOptions;
using retail::TailStyle;

namespace {

struct Variant {
  std::string name;
  RigOptions options;
};

RigOptions tail_rig(TailStyle style, double height = 1.8) {
  RigOptions o;
  o.tail = style;
  o.height_m = height;
  return o;
}

/// Truth piece per vertex, all primitives in order (1 = tail).
std::vector<int> truth_pieces(const retail::Json& truth) {
  std::vector<int> piece;
  for (const auto& prim : truth["membership"])
    for (const auto& p : prim) piece.push_back(p.get<int>());
  return piece;
}

int node_named(const retail::Model& m, const std::string& bare) {
  for (std::size_t n = 0; n < m.nodes.size(); ++n)
    if (m.nodes[n].name == bare || m.nodes[n].name == "mixamorig:" + bare) return int(n);
  return -1;
}

struct Outcome {
  retail::RunResult run;
  retail::Model out_model;
  std::size_t truth_tail = 0, rerigged = 0, hit = 0, changed = 0;
  /// Body skin (not the truth's tail) mostly off the chain, yet with some weight on it. The
  /// truth's own tail skin may take part of the chain's weight at the seam (blend_seam).
  std::size_t band_on_tail = 0;
  double recall = 0, precision = 0;
  std::string summary; ///< one line: the numbers the lead engineer asked for
};

/// Writes the variant's GLB, runs the pipeline with `params` (default: default parameters) and
/// scores the output against the truth. Re-rigged: largest output weight on a Tail_* node (a tie
/// with another node, the chain's 50/50 hips-Tail_1 root, counts), or weights exactly 1 on the hips
/// where the input had something else (a rigid fallback).
Outcome run_variant(const Variant& variant, const retail::RunParams& params = {}) {
  Outcome r;
  retail::GeneratedRig rig = retail::generate_rig(variant.options);
  std::string dir = test::temp_dir(), in = dir + "/in.glb", out = dir + "/out.glb";
  test::write_bytes(in, retail::serialize_document(rig.doc));
  r.run = retail::run(in, out, params);
  retail::Document din = retail::read_document(in), dout = retail::read_document(out);
  retail::Model min = retail::parse_model(din);
  r.out_model = retail::parse_model(dout);
  auto before = test::mesh0_influences(din, min), after = test::mesh0_influences(dout, r.out_model);
  std::vector<int> piece = truth_pieces(rig.truth);
  // The truth lists every mesh's vertices (a hat's after mesh 0's); the tail is mesh 0's.
  REQUIRE(before.size() <= piece.size());
  REQUIRE(std::count(piece.begin() + std::ptrdiff_t(before.size()), piece.end(), 1) == 0);
  piece.resize(before.size());
  REQUIRE(after.size() == piece.size());
  int hips = node_named(r.out_model, "Hips");
  for (std::size_t v = 0; v < piece.size(); ++v) {
    double tail_w = 0, other_w = 0; // largest weight on a Tail_* node, and on any other
    for (const auto& [node, w] : after[v]) {
      double& slot =
          r.out_model.nodes[std::size_t(node)].name.rfind("Tail_", 0) == 0 ? tail_w : other_w;
      slot = std::max(slot, w);
    }
    bool chain = tail_w > 0 && tail_w >= other_w; // a 50/50 hips-Tail_1 root vertex counts
    r.band_on_tail += tail_w > 0 && !chain && piece[v] != 1;
    bool rigid = after[v] == std::map<int, double>{{hips, 1.0}} && before[v] != after[v];
    bool tail = piece[v] == 1;
    r.truth_tail += tail;
    r.changed += before[v] != after[v];
    if (chain || rigid) {
      ++r.rerigged;
      r.hit += tail;
    }
  }
  r.recall = r.truth_tail ? double(r.hit) / double(r.truth_tail) : 0;
  r.precision = r.rerigged ? double(r.hit) / double(r.rerigged) : 0;
  std::ostringstream s;
  s.precision(3);
  s << variant.name << ": tail " << r.truth_tail << " recall " << r.recall << " precision "
    << r.precision << " (re-rigged " << r.rerigged << ", changed " << r.changed << ")";
  if (!r.run.characters.empty()) {
    s << " chains " << r.run.characters[0].chains.size() << " pieces [";
    for (const auto& p : r.run.characters[0].detection.pieces)
      s << " #" << p.id << " " << p.vertices.size() << "v " << retail::decision_name(p.decision)
        << " (" << p.reason << ");";
    s << " ]";
  }
  if (!r.run.stretch.empty()) {
    s << " torn% orig->result [";
    for (const auto& row : r.run.stretch[0])
      s << " " << row.name << " " << row.original.torn_percent << "->" << row.result.torn_percent
        << " p99 " << row.original.p99 << "->" << row.result.p99 << ";";
    s << " ]";
  }
  r.summary = s.str();
  return r;
}

/// The three checks of issue 14 on one variant's outcome (they assert the right behaviour,
/// whatever the current detection gives); with `chains` >= 0, also that many chains grown (one
/// tail: one).
void check_outcome(const Outcome& r, int chains) {
  INFO(r.summary);
  REQUIRE(r.run.characters.size() == 1);
  REQUIRE(r.truth_tail > 0);
  // (a) the whole tail, base included, and little else
  CHECK(r.recall >= 0.90);
  CHECK(r.precision >= 0.80);
  // The root band blends the body into the hips: body skin it changes takes no tail weight
  // (tail skin left in the band may take some at the seam; it counts against recall).
  CHECK(r.band_on_tail == 0);
  // (b) never worse than the input: no clip tears the result's tail more than the input's
  // beyond the harm check's noise floor (harm.h), and every kept piece is harmless edge-sample
  // by edge-sample in every clip
  REQUIRE(r.run.stretch.size() == 1);
  CHECK_FALSE(r.run.stretch[0].empty());
  for (const auto& row : r.run.stretch[0]) {
    INFO("clip " << row.name);
    const double floor = 100.0 * double(retail::noise_floor(row.result.samples, {})) /
                         double(std::max<std::size_t>(1, row.result.samples));
    CHECK(row.result.torn_percent <= row.original.torn_percent + floor);
  }
  for (const auto& pj : r.run.judge.at(0))
    if (pj.verdict == "kept")
      for (std::size_t c = 0; c < pj.clips.size(); ++c)
        CHECK(retail::harmless_clip(pj.flips[c], pj.seam_flips[c], pj.body_torn[c], {}));
  // (c) every piece found is reported with its decision and the reason
  const auto& pieces = r.run.characters[0].detection.pieces;
  CHECK_FALSE(pieces.empty());
  const retail::Json& reported = r.run.report["characters"][0]["pieces"];
  CHECK(reported.size() == pieces.size());
  for (const auto& p : pieces) CHECK_FALSE(p.reason.empty());
  for (const auto& p : reported) {
    CHECK(p.contains("decision"));
    CHECK(p.contains("reason"));
  }
  bool any_chain = false;
  for (const auto& p : pieces) any_chain |= p.decision == retail::Decision::TailChain;
  if (!r.run.characters[0].chains.empty() &&
      !r.run.characters[0].chains[0].bones.empty()) // Tail_ bones grown: a tail-chain decision
    CHECK(any_chain);
  if (chains >= 0) CHECK(r.run.characters[0].chains.size() == std::size_t(chains));
}

/// check_outcome on the variant run with default parameters.
void check_variant(const Variant& v, int chains = -1) {
  check_outcome(run_variant(v), chains);
}

} // namespace

// The 330 deg thick variant is its own shell: collared nearest the spine's bones too, its coil
// over the back read as its root and the tail as worn (docs/detection.md section 3).
TEST_CASE("classes: curled tail over the back", "[classes]") {
  std::vector<Variant> vs;
  vs.push_back({"curled 300 deg", tail_rig(TailStyle::Curled)});
  RigOptions small = tail_rig(TailStyle::Curled, 0.18);
  small.tail_curl_deg = 240;
  small.tail_length_scale = 0.85;
  vs.push_back({"curled 240 deg, 0.18 units", small});
  RigOptions coil = tail_rig(TailStyle::Curled);
  coil.tail_curl_deg = 330;
  coil.tail_radius_scale = 1.3;
  coil.centimetres = coil.rotated = true;
  coil.mixamo_prefix = false;
  vs.push_back({"curled 330 deg, thick, cm rotated", coil});
  // Coiled back to the spine, both ends near the skeleton: its far skin's remote end is the
  // middle of the coil (a cut there left both ends as "worn" pieces); its own shell.
  RigOptions haunch = tail_rig(TailStyle::Curled);
  haunch.thick_base = true;
  vs.push_back({"curled 300 deg from a thick haunch", haunch});
  RigOptions fat = tail_rig(TailStyle::Curled);
  fat.tail_radius_scale = 2;
  fat.tail_length_scale = 1.3;
  fat.tail_curl_deg = 360;
  vs.push_back({"curled 360 deg, radius x2, length x1.3", fat});
  // Its skin and fur-like base overlap along the curl, not along the world's axes: measured in
  // world-axis boxes they were two chains (bench/body_plans.sh p302, recall 0.82).
  RigOptions leftover = tail_rig(TailStyle::Curled);
  leftover.leftover_bone = 0.3;
  leftover.thick_base = true;
  leftover.ring_subdivision = 3;
  for (const auto& v : vs) {
    SECTION(v.name) {
      check_variant(v);
    }
  }
  SECTION("curled 300 deg from a thick haunch beside a leftover bone, dense: one chain") {
    check_variant({"curled, thick base, leftover bone 0.3, subdivision 3", leftover}, 1);
  }
}

TEST_CASE("classes: short stubby tail", "[classes]") {
  std::vector<Variant> vs;
  vs.push_back({"short 0.08 H", tail_rig(TailStyle::Short)});
  RigOptions tiny = tail_rig(TailStyle::Short, 0.18);
  tiny.tail_length_scale = 0.75;
  tiny.tail_radius_scale = 1.2;
  vs.push_back({"short 0.06 H, 0.18 units", tiny});
  RigOptions longer = tail_rig(TailStyle::Short, 180);
  longer.tail_length_scale = 1.25;
  longer.centimetres = true;
  vs.push_back({"short 0.1 H, 180 units in cm", longer});
  // A pom-pom: radius x3 out of a thick haunch, a closed ball whose root lies nearer the spine
  // joint on the hips than the hips joint.
  RigOptions ball = tail_rig(TailStyle::Short);
  ball.tail_radius_scale = 3;
  ball.thick_base = true;
  vs.push_back({"short, radius x3, from a thick haunch", ball});
  for (const auto& v : vs) {
    SECTION(v.name) {
      check_variant(v);
    }
  }
}

TEST_CASE("classes: thin tail hanging close to the legs", "[classes]") {
  std::vector<Variant> vs;
  vs.push_back({"thin r 0.014 H", tail_rig(TailStyle::Thin)});
  RigOptions thinner = tail_rig(TailStyle::Thin, 0.18);
  thinner.tail_radius_scale = 0.75;
  thinner.tail_length_scale = 0.9;
  vs.push_back({"thin r 0.010 H, 0.18 units", thinner});
  RigOptions seams = tail_rig(TailStyle::Thin);
  seams.tail_length_scale = 1.15;
  seams.tail_two_shells = true;
  vs.push_back({"thin long, two shells", seams});
  // A hat makes H 6% larger: the thinner tail keeps a few far vertices, the rest of its shell is
  // found by its weights (docs/detection.md section 2, "A shell found by its weights").
  RigOptions hat = tail_rig(TailStyle::Thin);
  hat.hat = true;
  vs.push_back({"thin under a hat", hat});
  hat.tail_radius_scale = 0.6;
  vs.push_back({"thin r 0.008 H under a hat", hat});
  for (const auto& v : vs) {
    SECTION(v.name) {
      check_variant(v);
    }
  }
}

TEST_CASE("classes: tail carrying spikes or plates", "[classes]") {
  std::vector<Variant> vs;
  RigOptions plates = tail_rig(TailStyle::Carried);
  plates.tail_spikes = 7;
  vs.push_back({"carried, 7 plates", plates});
  RigOptions fur = tail_rig(TailStyle::Carried, 0.18);
  fur.tail_spikes = 12;
  fur.tail_two_shells = true;
  vs.push_back({"carried, 12 plates, two shells, 0.18 units", fur});
  RigOptions hanging = tail_rig(TailStyle::Hanging);
  hanging.tail_spikes = 5;
  hanging.tail_length_scale = 1.1;
  vs.push_back({"hanging, 5 plates", hanging});
  // Plates standing off a thick hanging tail: outside its box, each passes a tail's tests on
  // its own; they ride on the tail, not on chains of their own.
  RigOptions stand = tail_rig(TailStyle::Hanging);
  stand.tail_spikes = 12;
  stand.tail_radius_scale = 1.3;
  vs.push_back({"hanging, 12 plates, radius x1.3", stand});
  // Four plates on a tail hanging from a thick haunch: the small bump where the haunch meets it
  // is no chain of its own, and the tail's chain heals the tail and its seam stays within the
  // harm check's floor.
  RigOptions haunch = tail_rig(TailStyle::Hanging);
  haunch.thick_base = true;
  haunch.tail_spikes = 4;
  vs.push_back({"hanging from a haunch, 4 plates", haunch});
  for (const auto& v : vs) {
    SECTION(v.name) {
      check_variant(v, 1);
    }
  }
}

// A haunch variant on a coarse seam (docs/detection.md section 5): the chain heals the tail
// (thousands of edge-samples), but where the haunch meets the tail's thick base across long
// edges its first joint's bend can tear the seam in HipSwing, where the input and the body tear
// nothing. The spring's skin limit, read from the weights on every joint (docs/spring.md, "The
// bend the weights allow"), holds that bend: the chain is kept as planned. Without the limit
// the seam tears, and the harm check steps down to the same chain bending less (no joint past
// what keeps 90% of a tail edge's length), every link kept, and the report says why. Without
// that step too, no lesser chain holds the piece's torn share at the input's: the last chain is
// held at rest in the clips where it harms (HipSwing), and says so; without holding clips either
// (--no-hold), the tail is left as it came: the report and a warning say why.
TEST_CASE("classes: thick base - a seam the haunch tears: the skin limit, bending less, held, or "
          "left as it was",
          "[classes]") {
  RigOptions thick = tail_rig(TailStyle::Carried);
  thick.thick_base = true;
  const Variant v{"carried from a haunch", thick};
  auto first_k = [&v] { // links as first planned (run where read: not once per section)
    retail::RunParams unjudged;
    unjudged.harm_check = false;
    const Outcome first = run_variant(v, unjudged);
    REQUIRE(first.run.characters.at(0).chains.size() == 1);
    return first.run.characters[0].chains[0].chain.bones;
  };
  auto reason_says = [](const Outcome& r, const char* what) {
    bool said = false;
    for (const auto& p : r.run.characters[0].detection.pieces)
      if (p.decision == retail::Decision::TailChain)
        said = p.reason.find(what) != std::string::npos;
    return said;
  };
  SECTION("default: the chain as planned, its first attempt kept") {
    const Outcome r = run_variant(v);
    check_outcome(r, 1);
    CHECK(r.run.characters[0].chains.at(0).chain.bones == first_k());
    CHECK_FALSE(reason_says(r, "harm check"));
  }
  retail::RunParams unlimited; // the spring's skin limit off: the seam tears
  unlimited.bake.spring.min_skin_ratio = 0;
  SECTION("without the skin limit: the chain as planned, bending less") {
    const Outcome r = run_variant(v, unlimited);
    check_outcome(r, 1);
    CHECK(r.run.characters[0].chains.at(0).chain.bones == first_k());
    CHECK(reason_says(r, "harm check"));
    CHECK(reason_says(r, "bending past what keeps 90%"));
  }
  retail::RunParams strict = unlimited;
  strict.harm.bend_less_skin_ratio = 0;
  SECTION("without the skin limit and no bending less: held in HipSwing, and says so") {
    const Outcome r = run_variant(v, strict);
    INFO(r.summary);
    check_outcome(r, 1);
    CHECK(reason_says(r, "held at rest in each clip where its spring tears"));
    std::size_t held = 0;
    for (const retail::ClipBake& b : r.run.bakes.at(0)) {
      held += b.held;
      if (b.held) CHECK(b.spring_newly_torn > 0);
      if (b.name == "Walk") CHECK_FALSE(b.held); // it heals the input's Walk, swinging
    }
    CHECK(held > 0);
  }
  SECTION("without the skin limit, bending less or holding: left as it was, and says so") {
    strict.bake.hold_harmful = false;
    const Outcome r = run_variant(v, strict);
    INFO(r.summary);
    REQUIRE(r.run.characters.size() == 1);
    CHECK(r.changed == 0);
    CHECK(r.run.characters[0].chains.empty());
    bool rejected = false;
    for (const auto& p : r.run.characters[0].detection.pieces)
      if (p.decision == retail::Decision::TailRejected) {
        rejected = true;
        CHECK(p.reason.find("harm check") != std::string::npos);
        CHECK(p.reason.find("left as it was") != std::string::npos);
      }
    CHECK(rejected);
    bool warned = false;
    for (const auto& w : r.run.warnings)
      warned = warned || w.find("harm check") != std::string::npos;
    CHECK(warned);
  }
}

TEST_CASE("classes: thick base merging into a thick body", "[classes]") {
  std::vector<Variant> vs;
  RigOptions small = tail_rig(TailStyle::Carried, 0.18);
  small.thick_base = true;
  small.tail_radius_scale = 1.3;
  vs.push_back({"carried from a haunch, thick, 0.18 units", small});
  // Its own shell, tapering from the haunch: the junction walk cuts at the taper and the rest of
  // the shell past it (weighted to the hips and spine, so no cue marks it) is the tail's base.
  RigOptions curl = tail_rig(TailStyle::Curled);
  curl.thick_base = true;
  curl.tail_curl_deg = 240;
  vs.push_back({"curled 240 deg from a haunch", curl});
  for (const auto& v : vs) {
    SECTION(v.name) {
      check_variant(v);
    }
  }
}

TEST_CASE("classes: a humanoid without a tail gets no chain", "[classes]") {
  std::vector<Variant> vs;
  RigOptions plain = tail_rig(TailStyle::None);
  plain.ears = true;
  vs.push_back({"no tail, ears", plain});
  RigOptions haunch = tail_rig(TailStyle::None, 0.18);
  haunch.thick_base = true;
  vs.push_back({"no tail, thick haunch, 0.18 units", haunch});
  for (const auto& v : vs) {
    SECTION(v.name) {
      Outcome r = run_variant(v);
      INFO(r.summary);
      REQUIRE(r.run.characters.size() == 1);
      CHECK(r.run.characters[0].chains.empty());
      CHECK(r.rerigged == 0);
      CHECK(r.changed == 0);
      for (const auto& n : r.out_model.nodes) CHECK(n.name.rfind("Tail_", 0) != 0);
    }
  }
}

TEST_CASE("classes: a re-rigged tail run again is on bones of its own and left alone",
          "[classes]") {
  // An auto-rigger has no bone for the tail it missed; retail's output has one, so running
  // retail on its own output (or an artist's rig) must find nothing to do there: no chain, no
  // harm check, no warning. The curled tail's tip lies beyond the skeleton's reach, a far piece
  // that would otherwise be tried as a tail and left by the harm check with a warning.
  for (TailStyle style : {TailStyle::Curled, TailStyle::Hanging, TailStyle::Carried}) {
    const retail::GeneratedRig rig = retail::generate_rig(tail_rig(style));
    const std::string dir = test::temp_dir(), in = dir + "/in.glb", once = dir + "/once.glb",
                      again = dir + "/again.glb";
    test::write_bytes(in, retail::serialize_document(rig.doc));
    const retail::RunResult first = retail::run(in, once, retail::RunParams{});
    REQUIRE(first.characters.size() == 1);
    REQUIRE(first.characters[0].chains.size() == 1);
    const retail::RunResult second = retail::run(once, again, retail::RunParams{});
    INFO("tail style " << int(style));
    REQUIRE(second.characters.size() == 1);
    CHECK(second.characters[0].chains.empty());
    std::size_t rigged = 0;
    for (const retail::Piece& p : second.characters[0].detection.pieces) {
      INFO("piece " << p.id << ": " << p.reason);
      CHECK(p.decision != retail::Decision::TailChain);
      CHECK(p.decision != retail::Decision::TailRigid);
      CHECK(p.decision != retail::Decision::TailRejected);
      rigged += p.decision == retail::Decision::Rigged;
    }
    for (const std::string& w : second.warnings) CHECK(w.find("harm check") == std::string::npos);
    if (style == TailStyle::Curled) CHECK(rigged >= 1);
    CHECK(retail::parse_model(retail::read_document(again)).nodes.size() ==
          retail::parse_model(retail::read_document(once)).nodes.size());
  }
}

// ---- The generator's classes are what they claim to be (these pass on any detection). ----

/// Tail vertex positions (world: plain rigs only, no cm or rotation) of primitive 0.
Eigen::MatrixX3d tail_points(const retail::GeneratedRig& rig) {
  retail::Model m = retail::parse_model(rig.doc);
  auto pos = retail::read_accessor(rig.doc, m, m.meshes[0].primitives[0].attributes.at("POSITION"));
  const retail::Json& member = rig.truth["membership"][0];
  std::vector<Eigen::Index> rows;
  for (Eigen::Index i = 0; i < pos.rows(); ++i)
    if (member[std::size_t(i)] == 1) rows.push_back(i);
  Eigen::MatrixX3d out(Eigen::Index(rows.size()), 3);
  for (std::size_t i = 0; i < rows.size(); ++i) out.row(Eigen::Index(i)) = pos.row(rows[i]);
  return out;
}

double elongation_of(const Eigen::MatrixX3d& p) {
  Eigen::RowVector3d mean = p.colwise().mean();
  Eigen::MatrixX3d c = p.rowwise() - mean;
  Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d> es(c.transpose() * c / double(p.rows()));
  return std::sqrt(es.eigenvalues()(2) / es.eigenvalues()(1));
}

double segment_distance(const Eigen::Vector3d& p, const Eigen::Vector3d& a,
                        const Eigen::Vector3d& b) {
  double t = std::clamp((p - a).dot(b - a) / (b - a).squaredNorm(), 0.0, 1.0);
  return (p - (a + t * (b - a))).norm();
}

double polyline_length(const retail::Json& line, double min_behind) {
  double len = 0;
  for (std::size_t i = 1; i < line.size(); ++i) {
    Eigen::Vector3d a(line[i - 1][0].get<double>(), line[i - 1][1].get<double>(),
                      line[i - 1][2].get<double>());
    Eigen::Vector3d b(line[i][0].get<double>(), line[i][1].get<double>(), line[i][2].get<double>());
    if (a.z() < -min_behind && b.z() < -min_behind) len += (b - a).norm();
  }
  return len;
}

TEST_CASE("generator classes: deterministic, and as described", "[generator][classes]") {
  SECTION("same options, same bytes, every class") {
    for (TailStyle s : {TailStyle::Curled, TailStyle::Short, TailStyle::Thin}) {
      RigOptions o = tail_rig(s, 0.18);
      o.tail_spikes = 3;
      o.thick_base = true;
      o.tail_two_shells = true;
      INFO(retail::tail_style_name(s));
      CHECK(retail::serialize_document(retail::generate_rig(o).doc) ==
            retail::serialize_document(retail::generate_rig(o).doc));
      CHECK(test::characters_of(test::make_rig(o).doc).at(0).roles.missing.empty());
    }
  }
  SECTION("curled: low covariance elongation, rises over the hips") {
    retail::GeneratedRig rig = retail::generate_rig(tail_rig(TailStyle::Curled));
    Eigen::MatrixX3d p = tail_points(rig);
    double e = elongation_of(p);
    CHECK(e < 1.35); // ~1.2: the articles' straight-tail test (>= 1.8) fails on it
    CHECK(e >= 1.0);
    CHECK(p.col(1).maxCoeff() > 1.15); // over the back: above the hips (0.95) by > 0.1 H
    CHECK(rig.truth["options"]["tail"] == "curled");
  }
  SECTION("short: ~0.06-0.1 H out of the body, thick") {
    for (double ls : {0.75, 1.0, 1.25}) {
      RigOptions o = tail_rig(TailStyle::Short);
      o.tail_length_scale = ls;
      retail::GeneratedRig rig = retail::generate_rig(o);
      double out = polyline_length(rig.truth["tail_centreline"], 0.10) / 1.8; // past the skin
      INFO("length scale " << ls << ": " << out << " H");
      CHECK(out >= 0.05);
      CHECK(out <= 0.11);
    }
  }
  SECTION("thin: radius ~0.01-0.015 H, mostly within 0.07 H of a leg bone") {
    retail::GeneratedRig rig = retail::generate_rig(tail_rig(TailStyle::Thin));
    retail::Model m = retail::parse_model(rig.doc);
    auto world = retail::compose_world(m, retail::saved_locals(m));
    auto at = [&](const char* n) -> Eigen::Vector3d {
      return world[std::size_t(node_named(m, n))].topRightCorner<3, 1>();
    };
    Eigen::MatrixX3d p = tail_points(rig);
    std::size_t near = 0;
    for (Eigen::Index i = 0; i < p.rows(); ++i) {
      Eigen::Vector3d q = p.row(i).transpose();
      double d = 1e9;
      for (const char* side : {"Left", "Right"}) {
        std::string s = side;
        d = std::min(d, segment_distance(q, at((s + "UpLeg").c_str()), at((s + "Leg").c_str())));
        d = std::min(d, segment_distance(q, at((s + "Leg").c_str()), at((s + "Foot").c_str())));
      }
      near += d <= 0.07 * 1.8;
    }
    CHECK(double(near) >= 0.5 * double(p.rows()));
    const retail::Json& line = rig.truth["tail_centreline"];
    std::vector<Eigen::Vector3d> c;
    for (const auto& q : line)
      c.emplace_back(q[0].get<double>(), q[1].get<double>(), q[2].get<double>());
    double radius = 0; // the widest ring (the base)
    for (Eigen::Index i = 0; i < p.rows(); ++i) {
      double d = 1e9;
      for (std::size_t k = 1; k < c.size(); ++k)
        d = std::min(d, segment_distance(p.row(i).transpose(), c[k - 1], c[k]));
      radius = std::max(radius, d);
    }
    CHECK(radius / 1.8 >= 0.010);
    CHECK(radius / 1.8 <= 0.015);
  }
  SECTION("spikes: closed plates on the tail, truth tail") {
    RigOptions o = tail_rig(TailStyle::Carried);
    Eigen::Index plain = tail_points(retail::generate_rig(o)).rows();
    o.tail_spikes = 7;
    retail::GeneratedRig rig = retail::generate_rig(o);
    Eigen::MatrixX3d p = tail_points(rig);
    CHECK(p.rows() == plain + 7 * 10); // 8 around, apex, base centre
    CHECK(rig.truth["options"]["tail_spikes"] == 7);
  }
  SECTION("thick base: a body haunch, the tail's base wide") {
    RigOptions o = tail_rig(TailStyle::Carried);
    Eigen::MatrixX3d plain = tail_points(retail::generate_rig(o));
    o.thick_base = true;
    retail::GeneratedRig rig = retail::generate_rig(o);
    Eigen::MatrixX3d p = tail_points(rig);
    CHECK(p.rows() == plain.rows());
    auto width = [](const Eigen::MatrixX3d& q) {
      return q.col(0).maxCoeff() - q.col(0).minCoeff();
    };
    CHECK(width(plain) < 0.07 * 1.8);
    CHECK(width(p) > 0.15 * 1.8);
    CHECK(rig.truth["membership"][0].size() >
          retail::generate_rig(tail_rig(TailStyle::Carried)).truth["membership"][0].size());
  }
  SECTION("options out of range are usage errors") {
    RigOptions o;
    o.tail_spikes = -1;
    CHECK_THROWS_AS(o.validate(), retail::Error);
    o = RigOptions{};
    o.tail_length_scale = 0;
    CHECK_THROWS_AS(o.validate(), retail::Error);
    o = RigOptions{};
    o.tail_curl_deg = 10;
    CHECK_THROWS_AS(o.validate(), retail::Error);
  }
}

} // namespace test_tail_classes
