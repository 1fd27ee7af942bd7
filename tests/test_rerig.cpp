// The re-rigged document: bind pose holds, rigid mode is rigid, weights are well-formed, pieces
// left alone keep their weights, --rigid-worn pins the sheath to its bone.
#include "retail/app/pipeline.h"
#include "retail/io/accessor.h"
#include "retail/io/io.h"
#include "retail/reference_skinning.h"
#include "retail/rig/animation.h"
#include "support.h"

#include <catch2/catch.hpp>
#include <set>

namespace test_rerig {

namespace {

struct Run {
  retail::Document in, out;
  retail::Model min, mout;
  retail::Json truth;
  retail::RunResult result;
};

Run rerig(const retail::RigOptions& o, retail::Mode mode = retail::Mode::Chain,
          bool rigid_worn = false) {
  Run r;
  retail::GeneratedRig rig = retail::generate_rig(o);
  std::string dir = test::temp_dir();
  retail::write_document(rig.doc, dir + "/in.glb");
  retail::RunParams p;
  p.rerig.mode = mode;
  p.rerig.detect.rigid_worn = rigid_worn;
  r.result = retail::run(dir + "/in.glb", dir + "/out.glb", p);
  r.in = retail::read_document(dir + "/in.glb");
  r.out = retail::read_document(dir + "/out.glb");
  r.min = retail::parse_model(r.in);
  r.mout = retail::parse_model(r.out);
  r.truth = rig.truth;
  return r;
}

/// Skinned world positions of every primitive of mesh 0 (concatenated).
Eigen::MatrixX3d skin_all(const retail::Document& d, const retail::Model& m,
                          const std::vector<Eigen::Matrix4d>& world) {
  std::vector<Eigen::MatrixX3d> parts;
  Eigen::Index rows = 0;
  for (std::size_t p = 0; p < m.meshes[0].primitives.size(); ++p) {
    parts.push_back(retail::skin_primitive(d, m, 0, int(p), 0, world));
    rows += parts.back().rows();
  }
  Eigen::MatrixX3d all(rows, 3);
  Eigen::Index at = 0;
  for (const auto& part : parts) all.middleRows(at, part.rows()) = part, at += part.rows();
  return all;
}

/// `one` (a GLB with one buffer) twice over in one document: the second copy's buffer views,
/// accessors, meshes, nodes and skins appended after the first's (its data after the first's
/// in the one buffer), its roots in the scene, its channels in the same clips. Two characters
/// with the same geometry and motion.
retail::Document twice(const retail::Document& one) {
  using retail::Json;
  retail::Document d = one;
  Json& g = d.gltf;
  const Json& b = one.gltf;
  const std::size_t views = g["bufferViews"].size(), accessors = g["accessors"].size(),
                    meshes = g["meshes"].size(), nodes = g["nodes"].size(),
                    skins = g["skins"].size();
  retail::Bytes& buf = d.buffers[0];
  const std::size_t shift = (buf.size() + 3) / 4 * 4;
  buf.resize(shift);
  buf.insert(buf.end(), one.buffers[0].begin(), one.buffers[0].end());
  g["buffers"][0]["byteLength"] = buf.size();
  for (Json v : b["bufferViews"]) {
    v["byteOffset"] = v.value("byteOffset", std::size_t(0)) + shift;
    g["bufferViews"].push_back(v);
  }
  for (Json a : b["accessors"]) {
    if (a.contains("bufferView")) a["bufferView"] = a["bufferView"].get<std::size_t>() + views;
    g["accessors"].push_back(a);
  }
  for (Json m : b["meshes"]) {
    for (Json& prim : m["primitives"]) {
      for (auto& [k, v] : prim["attributes"].items()) v = v.get<std::size_t>() + accessors;
      if (prim.contains("indices"))
        prim["indices"] = prim["indices"].get<std::size_t>() + accessors;
    }
    g["meshes"].push_back(m);
  }
  for (Json n : b["nodes"]) {
    if (n.contains("mesh")) n["mesh"] = n["mesh"].get<std::size_t>() + meshes;
    if (n.contains("skin")) n["skin"] = n["skin"].get<std::size_t>() + skins;
    if (n.contains("children"))
      for (Json& c : n["children"]) c = c.get<std::size_t>() + nodes;
    g["nodes"].push_back(n);
  }
  for (Json sk : b["skins"]) {
    for (Json& j : sk["joints"]) j = j.get<std::size_t>() + nodes;
    sk["inverseBindMatrices"] = sk["inverseBindMatrices"].get<std::size_t>() + accessors;
    if (sk.contains("skeleton")) sk["skeleton"] = sk["skeleton"].get<std::size_t>() + nodes;
    g["skins"].push_back(sk);
  }
  for (const Json& root : b["scenes"][0]["nodes"])
    g["scenes"][0]["nodes"].push_back(root.get<std::size_t>() + nodes);
  for (std::size_t a = 0; a < b["animations"].size(); ++a) {
    Json& anim = g["animations"][a];
    const std::size_t samplers = anim["samplers"].size();
    for (Json s : b["animations"][a]["samplers"]) {
      s["input"] = s["input"].get<std::size_t>() + accessors;
      s["output"] = s["output"].get<std::size_t>() + accessors;
      anim["samplers"].push_back(s);
    }
    for (Json c : b["animations"][a]["channels"]) {
      c["sampler"] = c["sampler"].get<std::size_t>() + samplers;
      c["target"]["node"] = c["target"]["node"].get<std::size_t>() + nodes;
      anim["channels"].push_back(c);
    }
  }
  return d;
}

} // namespace

TEST_CASE("rerig: skinning the output at its bind pose reproduces every input vertex", "[rerig]") {
  for (int v = 0; v < 4; ++v) {
    retail::RigOptions o;
    o.centimetres = v & 1;
    o.rotated = v & 2;
    o.tail_two_shells = true;
    INFO("cm " << o.centimetres << " rotated " << o.rotated);
    Run r = rerig(o);
    REQUIRE(r.result.characters[0].chains.size() == 1);
    // The generator saves its bind pose in the nodes, so the saved pose is the bind pose.
    Eigen::MatrixX3d a =
        skin_all(r.in, r.min, retail::compose_world(r.min, retail::saved_locals(r.min)));
    Eigen::MatrixX3d b =
        skin_all(r.out, r.mout, retail::compose_world(r.mout, retail::saved_locals(r.mout)));
    double height = r.result.report["characters"][0]["height"].get<double>();
    REQUIRE(a.rows() == b.rows());
    CHECK((a - b).rowwise().norm().maxCoeff() <= 1e-5 * height);
  }
}

TEST_CASE("rerig: --mode rigid keeps every tail vertex pair at its distance under every clip",
          "[rerig]") {
  retail::RigOptions o;
  Run r = rerig(o, retail::Mode::Rigid);
  REQUIRE(r.result.characters[0].chains.size() == 1);
  CHECK(r.result.characters[0].chains[0].bones.empty()); // no new bones in rigid mode
  std::vector<int> tail;
  for (std::size_t v = 0; v < r.truth["membership"][0].size(); ++v)
    if (r.truth["membership"][0][v] == 1) tail.push_back(int(v));
  REQUIRE(tail.size() > 100);
  Eigen::MatrixX3d bind = retail::skin_primitive(
      r.out, r.mout, 0, 0, 0, retail::compose_world(r.mout, retail::saved_locals(r.mout)));
  double height = r.result.report["characters"][0]["height"].get<double>(), worst = 0;
  for (std::size_t a = 0; a < r.mout.animations.size(); ++a) {
    retail::ClipSampler clip(r.out, r.mout, int(a));
    for (int s = 0; s < 24; ++s) {
      auto world = retail::compose_world(r.mout, clip.locals(r.mout, clip.duration() * s / 23.0));
      Eigen::MatrixX3d posed = retail::skin_primitive(r.out, r.mout, 0, 0, 0, world);
      for (std::size_t i = 0; i < tail.size(); i += 7)
        for (std::size_t k = i + 1; k < tail.size(); k += 13) {
          double d0 = (bind.row(tail[i]) - bind.row(tail[k])).norm(),
                 d1 = (posed.row(tail[i]) - posed.row(tail[k])).norm();
          worst = std::max(worst, std::abs(d1 - d0));
        }
    }
  }
  CHECK(worst <= 1e-5 * height);
  // The input is not rigid: its tail stretches under the walk (the failure being fixed).
  Run c = rerig(o, retail::Mode::Detect);
  retail::ClipSampler walk(c.in, c.min, 0);
  auto w = retail::compose_world(c.min, walk.locals(c.min, 0.25));
  Eigen::MatrixX3d posed = retail::skin_primitive(c.in, c.min, 0, 0, 0, w);
  double moved = 0;
  for (std::size_t i = 1; i < tail.size(); ++i)
    moved = std::max(moved, std::abs((posed.row(tail[i]) - posed.row(tail[0])).norm() -
                                     (bind.row(tail[i]) - bind.row(tail[0])).norm()));
  CHECK(moved > 1e-3 * height);
}

TEST_CASE("rerig: weights are non-negative - sum to 1 - at most 4 - pieces left alone keep theirs",
          "[rerig]") {
  retail::RigOptions o;
  o.ears = o.cape = o.skirt = o.sheath = true;
  o.tail_two_shells = true;
  for (bool rigid_worn : {false, true}) {
    Run r = rerig(o, retail::Mode::Chain, rigid_worn);
    auto before = test::mesh0_influences(r.in, r.min),
         after = test::mesh0_influences(r.out, r.mout);
    REQUIRE(before.size() == after.size());
    std::vector<int> piece;
    for (const auto& prim : r.truth["membership"])
      for (const auto& p : prim) piece.push_back(p.get<int>());
    int worn_bone = -1; // the sheath's attachment, found from geometry
    for (const auto& p : r.result.report["characters"][0]["pieces"])
      if (p["decision"] == "worn" || p["decision"] == "worn_rigid")
        worn_bone = p["attachment"]["node"].get<int>();
    REQUIRE(worn_bone >= 0);
    std::size_t sheath = 0, pinned = 0;
    for (std::size_t v = 0; v < after.size(); ++v) {
      double sum = 0;
      for (const auto& [j, w] : after[v]) {
        CHECK(w >= 0);
        sum += w;
      }
      CHECK(sum == Approx(1.0).margin(1e-9));
      CHECK(after[v].size() <= 4);
      if (piece[v] == 2 || piece[v] == 3 || piece[v] == 4)
        CHECK(after[v] == before[v]); // ears, cape, skirt
      if (piece[v] == 5) {
        ++sheath;
        bool rigid = after[v] == std::map<int, double>{{worn_bone, 1.0}};
        pinned += rigid;
        if (rigid_worn)
          CHECK((rigid || after[v] == before[v]));
        else
          CHECK(after[v] == before[v]);
      }
      if (piece[v] == 1)
        for (const auto& [j, w] : after[v]) {
          const std::string& name = r.mout.nodes[std::size_t(j)].name;
          CHECK((name.rfind("Tail_", 0) == 0 || name == "mixamorig:Hips"));
        }
    }
    if (rigid_worn)
      CHECK(pinned * 2 > sheath); // the worn piece (its far part) rides its bone
    else
      CHECK(pinned == 0);
  }
}

TEST_CASE("rerig: bones under the hips - existing joint indices unchanged - IBMs appended",
          "[rerig]") {
  Run r = rerig(retail::RigOptions{});
  const auto& chain = r.result.characters[0].chains.at(0);
  const auto& sin = r.min.skins[0];
  const auto& sout = r.mout.skins[0];
  REQUIRE(sout.joints.size() == sin.joints.size() + chain.nodes.size());
  for (std::size_t k = 0; k < sin.joints.size(); ++k) CHECK(sout.joints[k] == sin.joints[k]);
  CHECK(r.mout.nodes[std::size_t(chain.nodes[0])].parent == sin.joints[0]); // Tail_1 under the hips
  for (std::size_t i = 1; i < chain.nodes.size(); ++i)
    CHECK(r.mout.nodes[std::size_t(chain.nodes[i])].parent == chain.nodes[i - 1]);
  for (int n : chain.nodes) { // pure translations: the hips' bind rotation is shared
    const auto& node = r.mout.nodes[std::size_t(n)];
    CHECK_FALSE(node.has_matrix);
    CHECK(node.rotation == std::array<double, 4>{0, 0, 0, 1});
  }
  auto ibm_in = retail::read_accessor(r.in, r.min, sin.inverse_bind_matrices);
  auto ibm_out = retail::read_accessor(r.out, r.mout, sout.inverse_bind_matrices);
  CHECK(ibm_out.topRows(ibm_in.rows()) == ibm_in);
}

TEST_CASE("rerig: a peel leaves the border skin an attempt tore as it was, never an island",
          "[rerig]") {
  // The harm check's peel (PieceOverride::peel): the piece's skin next to its root, all marked
  // as torn more than healed, borders the untouched body, so it is left with its input weights;
  // a tip vertex marked the same lies inside the piece, surrounded by skin that stays on the
  // chain, and stays on it (no island of input weights inside the chain).
  retail::RigOptions o;
  o.tail = retail::TailStyle::Carried;
  retail::GeneratedRig rig = test::make_rig(o);
  const retail::Model m = retail::parse_model(rig.doc);
  const retail::Character c = retail::build_characters(rig.doc, m, {})[0];
  retail::RerigParams params;
  const retail::CharacterPlan first = retail::plan_character(rig.doc, m, c, params);
  REQUIRE(first.result.chains.size() == 1);
  const retail::ChainResult& ch = first.result.chains[0];
  const retail::WeldedMesh mesh = retail::weld_character(rig.doc, m, c, params.weld);
  const auto& J = ch.chain.joints;
  auto at = [&](std::size_t v) { return Eigen::Vector3d(mesh.positions.row(Eigen::Index(v))); };
  std::size_t tip = ch.original_vertices[0];
  std::vector<std::size_t> root; // within half the first link of the root joint
  for (std::size_t v : ch.original_vertices) {
    if ((at(v) - J.back()).norm() < (at(tip) - J.back()).norm()) tip = v;
    if ((at(v) - J[0]).norm() < 0.5 * (J[1] - J[0]).norm()) root.push_back(v);
  }
  REQUIRE(!root.empty());
  retail::PieceOverride peel;
  for (std::size_t v : root) peel.peel.push_back({v, 5});
  peel.peel.push_back({tip, 5});
  std::sort(peel.peel.begin(), peel.peel.end());
  params.overrides[ch.piece] = peel;
  const retail::CharacterPlan second = retail::plan_character(rig.doc, m, c, params);
  REQUIRE(second.result.chains.size() == 1);
  const retail::ChainResult& peeled = second.result.chains[0];
  CHECK(peeled.peeled_vertices == root.size());
  std::set<std::size_t> changed(peeled.original_vertices.begin(), peeled.original_vertices.end());
  changed.insert(peeled.band_originals.begin(), peeled.band_originals.end());
  for (std::size_t v : root) CHECK(changed.count(v) == 0);
  CHECK(changed.count(tip) == 1);
  CHECK(peeled.original_vertices.size() == ch.original_vertices.size() - root.size());
}

TEST_CASE("rerig: two characters planned one after the other re-rig as each alone", "[rerig]") {
  // The driver plans every character against the plans before it and writes once: the second
  // copy of a tailed character gets the same chain, weights and keys as the first, on nodes of
  // its own with names of its own, and both measure as the character alone does.
  const retail::GeneratedRig rig = retail::generate_rig(retail::RigOptions{});
  const std::string dir = test::temp_dir();
  retail::write_document(rig.doc, dir + "/one.glb");
  retail::write_document(twice(rig.doc), dir + "/two.glb");
  retail::RunParams p;
  const retail::RunResult one = retail::run(dir + "/one.glb", dir + "/one-out.glb", p);
  const retail::RunResult two = retail::run(dir + "/two.glb", dir + "/two-out.glb", p);
  REQUIRE(one.characters.size() == 1);
  REQUIRE(two.characters.size() == 2);
  const retail::ChainResult& alone = one.characters[0].chains.at(0);
  const std::size_t n0 = rig.doc.gltf["nodes"].size();
  for (std::size_t k = 0; k < 2; ++k) {
    const retail::ChainResult& ch = two.characters[k].chains.at(0);
    CHECK(ch.bones.size() == alone.bones.size());
    CHECK(ch.original_vertices == alone.original_vertices);
    REQUIRE(two.stretch[k].size() == one.stretch[0].size());
    for (std::size_t c = 0; c < one.stretch[0].size(); ++c) {
      CHECK(two.stretch[k][c].result.p99 == Approx(one.stretch[0][c].result.p99).margin(1e-9));
      CHECK(two.stretch[k][c].result.torn_percent ==
            Approx(one.stretch[0][c].result.torn_percent).margin(1e-9));
    }
  }
  const retail::ChainResult &a = two.characters[0].chains[0], &b = two.characters[1].chains[0];
  CHECK(a.bones[0] == alone.bones[0]);
  CHECK(b.bones[0] != a.bones[0]); // its own names: Tail_A_1
  CHECK(a.nodes.front() == int(2 * n0));
  CHECK(b.nodes.front() == int(2 * n0 + a.nodes.size()));
  // Written once: every new node named once, under its own character's hips.
  const retail::Document out = retail::read_document(dir + "/two-out.glb");
  const retail::Model m = retail::parse_model(out);
  REQUIRE(m.nodes.size() == 2 * n0 + a.nodes.size() + b.nodes.size());
  std::set<std::string> names;
  for (std::size_t i = 2 * n0; i < m.nodes.size(); ++i) CHECK(names.insert(m.nodes[i].name).second);
  CHECK(m.nodes[std::size_t(b.nodes.front())].parent ==
        m.nodes[std::size_t(a.nodes.front())].parent + int(n0));
}

TEST_CASE("rerig: a root band over the lower legs crosses their skin, without it never",
          "[rerig][shared]") {
  // PieceOverride::band_legs (the harm check's step after a wider band; RootBandParams::
  // lower_legs): the band also blends skin the input moves with a lower leg or a foot. On the
  // shared rat its lower legs run back past the tail's root: the band stops at their skin
  // without it and crosses it with it.
  const std::string data = test::shared_data();
  if (data.empty()) return;
  std::vector<retail::StageStat> st;
  const retail::Input in = retail::load_input(data + "/../animals/auto-rigged/rat-tail-on-legs.glb",
                                              retail::BindParams{}, st);
  const retail::Character& c = in.characters.at(0);
  retail::RerigParams params;
  const retail::WeldedMesh mesh = retail::weld_character(in.doc, in.model, c, params.weld);
  const retail::SkinWeights sw = retail::read_skin_weights(in.doc, in.model, c, mesh);
  std::set<int> shins; // lower-leg and foot joints (indices into c.joints) and below
  for (std::size_t j = 0; j < c.joints.size(); ++j)
    for (int k = int(j); k >= 0; k = c.parent[std::size_t(k)])
      for (int s = 0; s < 2; ++s)
        if (c.joints[std::size_t(k)] == c.roles.lower_leg[s] ||
            c.joints[std::size_t(k)] == c.roles.foot[s])
          shins.insert(int(j));
  REQUIRE(!shins.empty());
  auto on_shins = [&](const std::vector<std::size_t>& band) { // more than half on them
    std::size_t n = 0;
    for (std::size_t v : band) {
      double on = 0;
      for (int k = 0; k < retail::SkinWeights::kMax; ++k)
        if (sw.joint[v][std::size_t(k)] >= 0 && shins.count(sw.joint[v][std::size_t(k)]))
          on += sw.weight[v][std::size_t(k)];
      n += on > 0.5;
    }
    return n;
  };
  const retail::CharacterPlan without = retail::plan_character(in.doc, in.model, c, params);
  REQUIRE(without.result.chains.size() == 1);
  const retail::ChainResult& a = without.result.chains[0];
  CHECK(on_shins(a.band_originals) == 0);
  retail::PieceOverride legs;
  legs.band_legs = true;
  params.overrides[a.piece] = legs;
  const retail::CharacterPlan with = retail::plan_character(in.doc, in.model, c, params);
  REQUIRE(with.result.chains.size() == 1);
  const retail::ChainResult& b = with.result.chains[0];
  CHECK(on_shins(b.band_originals) > 0);
  CHECK(b.band_originals.size() > a.band_originals.size());
  CHECK(b.original_vertices == a.original_vertices); // the piece itself is the same
}

} // namespace test_rerig
