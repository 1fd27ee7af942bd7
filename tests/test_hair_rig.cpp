// The hair planning stage (hair_rig.h) and `retail IN OUT --hair` on the generated ponytail:
// bones under the head, weights, the pinned band, other weights untouched, the bake swings and
// settles, deterministic output.
#include "retail/app/pipeline.h"
#include "retail/grow/hair_rig.h"
#include "retail/grow/rerig.h"
#include "retail/io/accessor.h"
#include "retail/io/io.h"
#include "retail/rig/animation.h"
#include "support.h"

#include <Eigen/Geometry>
#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <iterator>
#include <set>

namespace test_hair_rig {

using namespace retail;

namespace {

RigOptions ponytail_rig(bool tail = false) {
  RigOptions o;
  o.ponytail = true;
  if (!tail) o.tail = TailStyle::None;
  return o;
}

struct Planned {
  GeneratedRig rig;
  Model model;
  std::vector<Character> chars;
  CharacterPlan tail;
  HairPlan hair;
};

Planned plan(const RigOptions& o, const std::vector<std::string>& sel = {"Ponytail"}, int n = 6) {
  Planned p;
  p.rig = test::make_rig(o);
  p.model = parse_model(p.rig.doc);
  p.chars = test::characters_of(p.rig.doc);
  p.tail = plan_character(p.rig.doc, p.model, p.chars[0], RerigParams{});
  HairRigParams hp;
  hp.hair = sel;
  hp.joints = n;
  p.hair = plan_hair(p.rig.doc, p.model, p.chars[0], p.tail.edit, hp);
  return p;
}

int node_named(const Json& gltf, const std::string& name) {
  for (std::size_t i = 0; i < gltf["nodes"].size(); ++i)
    if (gltf["nodes"][i].value("name", "") == name) return int(i);
  return -1;
}

std::string file_text(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

} // namespace

TEST_CASE("hair weights: sum to 1 within [0, 1], the pinned band on the head, continuous",
          "[hair_rig]") {
  const double L = 1, pin = 0.05;
  for (int n : {1, 2, 6}) {
    ChainWeight prev = hair_chain_weight(0, L, n, pin);
    auto on = [](const ChainWeight& w, int bone) {
      double s = 0;
      for (int k = 0; k < w.count; ++k)
        if (w.bone[std::size_t(k)] == bone) s += w.weight[std::size_t(k)];
      return s;
    };
    for (int i = 0; i <= 4000; ++i) {
      double g = L * i / 4000.0;
      ChainWeight w = hair_chain_weight(g, L, n, pin);
      double sum = 0;
      for (int k = 0; k < w.count; ++k) {
        CHECK(w.weight[std::size_t(k)] >= 0);
        CHECK(w.weight[std::size_t(k)] <= 1);
        sum += w.weight[std::size_t(k)];
      }
      CHECK(sum == Approx(1).margin(1e-12));
      if (g <= pin) CHECK(on(w, 0) == 1.0);
      if (n * g / L >= 0.75) CHECK(on(w, 0) == 0.0);
      for (int b = 0; b <= n; ++b) CHECK(std::abs(on(w, b) - on(prev, b)) <= 0.01); // no jump
      prev = w;
    }
  }
}

TEST_CASE("plan_hair: Hair_1_1..N and an end under the head, pure translations, numbered after "
          "the tail's plan",
          "[hair_rig]") {
  Planned p = plan(ponytail_rig(true), {"Ponytail"}, 5);
  REQUIRE(p.hair.result.chains.size() == 1);
  const HairChainResult& c = p.hair.result.chains[0];
  CHECK(c.bones == std::vector<std::string>{"Hair_1_1", "Hair_1_2", "Hair_1_3", "Hair_1_4",
                                            "Hair_1_5", "Hair_1_End"});
  REQUIRE(!p.tail.edit.nodes.empty()); // the rig's tail
  const int first = p.tail.edit.first_node + int(p.tail.edit.nodes.size());
  CHECK(p.hair.edit.first_node == first);
  REQUIRE(p.hair.edit.nodes.size() == 6);
  const Character& ch = p.chars[0];
  const Eigen::Matrix4d& head = ch.bind_world[std::size_t(ch.joint_index(ch.roles.head))];
  Eigen::Vector3d at = head.topRightCorner<3, 1>();
  for (std::size_t i = 0; i < 6; ++i) {
    const NewNode& n = p.hair.edit.nodes[i];
    CHECK(c.nodes[i] == first + int(i));
    CHECK(n.parent == (i == 0 ? ch.roles.head : first + int(i) - 1));
    at += head.topLeftCorner<3, 3>() * n.translation; // the head's bind rotation, no own
    CHECK((at - c.chain.joints[i]).norm() < 1e-9);
  }
  RigEdit merged = merge_rig_edits(p.tail.edit, p.hair.edit);
  CHECK(merged.nodes.size() == p.tail.edit.nodes.size() + 6);
  REQUIRE(merged.skins.size() == 1);
  CHECK(merged.skins[0].add.size() == p.tail.edit.skins[0].add.size() + 6);
  CHECK_THROWS(merge_rig_edits(p.hair.edit, p.tail.edit)); // numbered the other way round
}

TEST_CASE("plan_hair: only the clump is re-weighted, its pinned band on the head, the rest on "
          "the head and its own bones",
          "[hair_rig]") {
  Planned p = plan(ponytail_rig());
  REQUIRE(p.hair.result.chains.size() == 1);
  const HairChainResult& c = p.hair.result.chains[0];
  REQUIRE(p.hair.edit.primitives.size() == 1);
  const PrimitiveWeights& pw = p.hair.edit.primitives[0];
  CHECK(pw.source.where.mesh == 1); // the Ponytail mesh, nothing of the body
  CHECK(pw.vertices.size() == pw.source.count);
  CHECK(c.vertices == pw.source.count);
  CHECK(c.unreached == 0);
  CHECK(c.pinned > 0);
  CHECK(c.pinned < c.vertices / 4); // a small band
  CHECK(c.band_vertices > 0);
  std::set<int> allowed(c.nodes.begin(), c.nodes.end() - 1);
  allowed.insert(p.chars[0].roles.head);
  std::set<std::size_t> pinned(c.pinned_vertices.begin(), c.pinned_vertices.end());
  for (const auto& [v, inf] : pw.vertices) {
    double sum = 0;
    for (const auto& [node, w] : inf) {
      CHECK(allowed.count(node));
      sum += w;
    }
    CHECK(sum == Approx(1).margin(1e-12));
    if (pinned.count(v)) CHECK(inf == NodeInfluences{{p.chars[0].roles.head, 1.0}});
  }
  // Every hair bone carries weight.
  for (std::size_t b = 0; b + 1 < c.nodes.size(); ++b) {
    bool carried = false;
    for (const auto& [v, inf] : pw.vertices)
      for (const auto& [node, w] : inf) carried = carried || (node == c.nodes[b] && w > 0);
    CHECK(carried);
  }
}

TEST_CASE("plan_hair: the joints follow the clump outward from its attachment", "[hair_rig]") {
  Planned p = plan(ponytail_rig());
  const Chain& chain = p.hair.result.chains[0].chain;
  const Character& ch = p.chars[0];
  const Eigen::Vector3d head = ch.bind_position(ch.joint_index(ch.roles.head));
  REQUIRE(chain.joints.size() == 7);
  // The generator's ponytail root sits at (0, 1.66, -0.05) x H/1.8 inside the head.
  CHECK((chain.joints[0] - Eigen::Vector3d(0, 1.66, -0.05)).norm() < 0.04);
  for (std::size_t i = 1; i < chain.joints.size(); ++i)
    CHECK((chain.joints[i] - head).norm() > (chain.joints[i - 1] - head).norm());
  CHECK(chain.length > 0.35);
  CHECK(chain.length < 0.5);
}

TEST_CASE("plan_hair: reads the document, changes nothing, plans the same twice", "[hair_rig]") {
  GeneratedRig rig = test::make_rig(ponytail_rig());
  const Json before = rig.doc.gltf;
  Model model = parse_model(rig.doc);
  std::vector<Character> chars = test::characters_of(rig.doc);
  HairRigParams hp;
  hp.hair = {"Ponytail"};
  RigEdit prior;
  prior.first_node = int(rig.doc.gltf["nodes"].size());
  HairPlan a = plan_hair(rig.doc, model, chars[0], prior, hp);
  HairPlan b = plan_hair(rig.doc, model, chars[0], prior, hp);
  CHECK(rig.doc.gltf == before);
  REQUIRE(a.edit.primitives.size() == b.edit.primitives.size());
  CHECK(a.edit.primitives[0].vertices == b.edit.primitives[0].vertices);
  CHECK(a.result.chains[0].chain.joints == b.result.chains[0].chain.joints);
}

TEST_CASE("plan_hair: selectors by mesh/primitive and material name, one naming nothing plans "
          "nothing",
          "[hair_rig]") {
  Planned by_index = plan(ponytail_rig(), {"1/0"});
  Planned by_material = plan(ponytail_rig(), {"Hair"});
  Planned none = plan(ponytail_rig(), {"NoSuchMesh"});
  CHECK(by_index.hair.result.chains.size() == 1);
  CHECK(by_material.hair.result.chains.size() == 1);
  CHECK(by_index.hair.edit.primitives[0].vertices == by_material.hair.edit.primitives[0].vertices);
  CHECK(none.hair.result.matched == std::vector<bool>{false});
  CHECK(none.hair.edit.empty());
  HairRigParams bad;
  bad.joints = 0;
  CHECK_THROWS_AS(bad.validate(), Error);
}

TEST_CASE("retail --hair: the ponytail swings on a head turn and settles, its pinned band holds, "
          "every other vertex keeps its weights, the output is deterministic",
          "[hair_rig][cli]") {
  GeneratedRig rig = test::make_rig(ponytail_rig());
  const std::string dir = test::temp_dir();
  write_document(rig.doc, dir + "/in.glb");
  RunParams params;
  params.hair.hair = {"Ponytail"};
  params.threads = 1;
  RunResult r = run(dir + "/in.glb", dir + "/out.glb", params);
  params.threads = 2;
  run(dir + "/in.glb", dir + "/out2.glb", params);
  CHECK(file_text(dir + "/out.glb") == file_text(dir + "/out2.glb"));

  Document in = read_document(dir + "/in.glb"), out = read_document(dir + "/out.glb");
  Model min = parse_model(in), mout = parse_model(out);
  // The body's mesh: the same accessors, so every weight byte for byte.
  CHECK(in.gltf["meshes"][0] == out.gltf["meshes"][0]);
  CHECK(test::mesh0_influences(in, min) == test::mesh0_influences(out, mout));
  // The ponytail: pinned vertices weight 1 on the head.
  REQUIRE(r.hair.size() == 1);
  REQUIRE(r.hair[0].chains.size() == 1);
  const HairChainResult& c = r.hair[0].chains[0];
  const int head = node_named(out.gltf, "mixamorig:Head");
  const Primitive& prim = mout.meshes[1].primitives[0];
  auto joints = read_accessor_uint(out, mout, prim.attributes.at("JOINTS_0"));
  AccessorData w = read_accessor(out, mout, prim.attributes.at("WEIGHTS_0"));
  const std::size_t body = std::size_t(
      min.accessors[std::size_t(min.meshes[0].primitives[0].attributes.at("POSITION"))].count);
  for (std::size_t v : c.pinned_vertices) {
    REQUIRE(v >= body);
    const std::size_t local = v - body;
    double on_head = 0;
    for (int k = 0; k < 4; ++k)
      if (mout.skins[0].joints[joints[local * 4 + std::size_t(k)]] == head)
        on_head += w(Eigen::Index(local), k);
    CHECK(on_head == Approx(1).margin(1e-6));
  }
  // The swing: the tip's direction in the head's frame over HeadTurn, and its rest at the end.
  int clip = -1;
  for (std::size_t a = 0; a < mout.animations.size(); ++a)
    if (mout.animations[a].name == "HeadTurn") clip = int(a);
  REQUIRE(clip >= 0);
  ClipSampler sampler(out, mout, clip);
  const int root = node_named(out.gltf, "Hair_1_1"), end = node_named(out.gltf, "Hair_1_End");
  std::vector<Eigen::Vector3d> dirs, tips;
  for (int f = 0; f <= 240; ++f) { // 30 Hz over the 8 s clip
    const double t = 8.0 * f / 240;
    Eigen::Matrix4d h = sampler.world(mout, head, t);
    Eigen::Matrix3d rot = h.topLeftCorner<3, 3>();
    Eigen::Vector3d tip = sampler.world(mout, end, t).topRightCorner<3, 1>();
    Eigen::Vector3d base = sampler.world(mout, root, t).topRightCorner<3, 1>();
    dirs.push_back((rot.transpose() * (tip - base)).normalized());
    tips.push_back(tip);
  }
  double swing = 0;
  for (const auto& a : dirs)
    for (const auto& b : dirs) swing = std::max(swing, std::acos(std::clamp(a.dot(b), -1.0, 1.0)));
  swing *= 180 / M_PI;
  INFO("HeadTurn swing " << swing << " deg");
  CHECK(swing >= 10);
  double quiet = 0; // the last second of the still part
  for (std::size_t f = 211; f <= 240; ++f) quiet = std::max(quiet, (tips[f] - tips[f - 1]).norm());
  INFO("tip movement between samples in the last 1 s " << quiet * 1000 << " mm");
  CHECK(quiet < 1e-5);
  bool reported = false;
  std::vector<ClipBake> hair_bakes; // the hair chains' records: arc solver, judged
  REQUIRE(!r.chain_records.empty());
  for (const ChainRecord& rec : r.chain_records[0])
    if (rec.kind == ChainKind::Hair) {
      CHECK(rec.solver == ChainSolver::Arc);
      hair_bakes.insert(hair_bakes.end(), rec.bakes.begin(), rec.bakes.end());
    }
  for (const ClipBake& b : hair_bakes)
    if (b.name == "HeadTurn") {
      reported = true;
      CHECK(b.tip_swing_deg >= 10);
      CHECK(b.converged);
      CHECK(b.loop_closure_deg < 0.5);
    }
  CHECK(reported);
  REQUIRE(r.hair_colliders.size() == 1);
  CHECK(r.hair_colliders[0].torso_added); // no VRM colliders: the trunk is uncovered
}

TEST_CASE("retail --hair beside a tail: the tail's output is what it is without --hair",
          "[hair_rig][cli]") {
  GeneratedRig rig = test::make_rig(ponytail_rig(true));
  const std::string dir = test::temp_dir();
  write_document(rig.doc, dir + "/in.glb");
  RunParams plain;
  run(dir + "/in.glb", dir + "/plain.glb", plain);
  RunParams hair = plain;
  hair.hair.hair = {"Ponytail"};
  RunResult r = run(dir + "/in.glb", dir + "/hair.glb", hair);
  Document a = read_document(dir + "/plain.glb"), b = read_document(dir + "/hair.glb");
  Model ma = parse_model(a), mb = parse_model(b);
  CHECK(test::mesh0_influences(a, ma) == test::mesh0_influences(b, mb));
  REQUIRE(r.characters[0].chains.size() == 1);
  CHECK(r.hair[0].chains[0].bones.front() == "Hair_1_1");
  // The tail's keys: the same floats in every clip.
  const int tail = node_named(a.gltf, "Tail_1");
  REQUIRE(tail == node_named(b.gltf, "Tail_1"));
  for (std::size_t clip = 0; clip < ma.animations.size(); ++clip) {
    ClipSampler sa(a, ma, int(clip)), sb(b, mb, int(clip));
    for (double t : {0.0, 0.3, 0.9})
      CHECK(sa.world(ma, tail, t).isApprox(sb.world(mb, tail, t), 0));
  }
}

TEST_CASE("hair: do no harm - a clump that is the body, or whose head turn tears, is left as it "
          "was",
          "[hair][cli]") {
  std::string dir = test::temp_dir(), err;
  RigOptions o = ponytail_rig();
  o.cape = true; // "Fur and cloth": a cape on the back, which tears as a hair chain
  const std::string in = dir + "/in.glb";
  test::write_bytes(in, serialize_document(test::make_rig(o).doc));
  auto report = [&](const std::string& out) {
    std::ifstream f(dir + "/" + out + ".report.json");
    return Json::parse(std::string(std::istreambuf_iterator<char>(f), {}));
  };
  auto hair_nodes = [&](const std::string& out) {
    std::size_t n = 0;
    const Document doc = read_document(dir + "/" + out + ".glb");
    for (const auto& node : doc.gltf["nodes"]) n += node.value("name", "").rfind("Hair_", 0) == 0;
    return n;
  };
  // The body (by mesh, by material, every mesh): implausible, left as it was, exit 0.
  for (const std::vector<std::string>& sel : {std::vector<std::string>{"--hair", "Character"},
                                              {"--hair", "Skin"},
                                              {"--hair", "Character", "--hair", "Ponytail"}}) {
    std::vector<std::string> args = {in, dir + "/body.glb", "--no-find-hair"};
    args.insert(args.end(), sel.begin(), sel.end());
    INFO(sel[1]);
    REQUIRE(test::run_retail(args, nullptr, &err) == 0);
    CHECK(err.find("--hair " + sel[1] + ": implausible for a hair clump (") != std::string::npos);
    CHECK(err.find("left as it was") != std::string::npos);
    const Json left = report("body")["characters"][0]["hair"]["left"];
    REQUIRE(left.size() == 1);
    CHECK(left[0]["selector"] == sel[1]);
    CHECK(left[0]["reason"].get<std::string>().find("implausible for a hair clump") == 0);
    CHECK(hair_nodes("body") == (sel.size() == 4 ? 7u : 0u)); // the ponytail alone is rebuilt
  }
  // The cape: plausible by size, but its head turn tears its skin; left as it was.
  REQUIRE(test::run_retail({in, dir + "/cape.glb", "--hair", "Fur and cloth", "--no-find-hair"},
                           nullptr, &err) == 0);
  CHECK(err.find("--hair Fur and cloth: the head turn tears its skin") != std::string::npos);
  const Json left = report("cape")["characters"][0]["hair"]["left"];
  REQUIRE(left.size() == 1);
  CHECK(left[0]["reason"].get<std::string>().find("the head turn tears its skin") == 0);
  CHECK(hair_nodes("cape") == 0);
  CHECK(read_document(dir + "/cape.glb").gltf["meshes"] == read_document(in).gltf["meshes"]);
  // The harm check off: what was asked is done.
  REQUIRE(test::run_retail({in, dir + "/asked.glb", "--hair", "Character", "--no-harm-check",
                            "--no-bake", "--no-find-hair"},
                           nullptr, &err) == 0);
  CHECK(hair_nodes("asked") == 7u);
}

} // namespace test_hair_rig
