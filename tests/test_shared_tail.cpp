// Issue acceptance on the shared models: one tail chain per auto-rigged file matching the
// artist's tail (the same model under originals/, same vertex order), chain joints on the
// artist's tail-bone polyline, weighted bone distance at least halved, and nothing else changed.
#include "retail/app/pipeline.h"
#include "retail/detect/distance.h"
#include "retail/io/accessor.h"
#include "retail/io/io.h"
#include "retail/qa/harm.h"
#include "retail/rig/transform.h"
#include "support.h"
#include "tail_eval.h"

#include <Eigen/Eigenvalues>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>

namespace test_shared_tail {

namespace fs = std::filesystem;
using retail::Json;

namespace {

/// The artist's tail polyline in world space at bind: tail joints in chain order, then the end
/// node below the last one (a non-joint "_end" node placed by its parent's bind transform).
std::vector<Eigen::Vector3d> artist_polyline(const std::string& path) {
  std::vector<retail::StageStat> st;
  retail::Input in = retail::load_input(path, retail::BindParams{}, st);
  const auto& c = in.characters.at(0);
  std::vector<Eigen::Vector3d> line;
  int last = -1;
  for (std::size_t j = 0; j < c.joints.size(); ++j) {
    if (in.model.nodes[std::size_t(c.joints[j])].name.find("Tail") == std::string::npos) continue;
    line.push_back(c.bind_position(int(j)));
    last = int(j);
  }
  for (int child : in.model.nodes[std::size_t(c.joints[std::size_t(last)])].children)
    if (c.joint_index(child) < 0)
      line.push_back(
          retail::transform_point(c.bind_world[std::size_t(last)] *
                                      retail::local_matrix(in.model.nodes[std::size_t(child)]),
                                  Eigen::Vector3d::Zero()));
  if (line.size() == std::size_t(std::count_if(c.joints.begin(), c.joints.end(), [&](int n) {
        return in.model.nodes[std::size_t(n)].name.find("Tail") != std::string::npos;
      }))) {
    // No end node: the last bone runs from its joint through its own skin (towards that skin's
    // centroid) as far as the skin reaches.
    retail::WeldedMesh m = retail::weld_character(in.doc, in.model, c, retail::WeldParams{});
    std::string last_name = in.model.nodes[std::size_t(c.joints[std::size_t(last)])].name;
    std::vector<bool> skin = test::largest_weight_on(path, std::regex("^" + last_name + "$"));
    // Its direction: the principal axis of that skin, oriented away from the previous joint.
    Eigen::Vector3d b = line.back(), centroid = Eigen::Vector3d::Zero();
    std::vector<Eigen::Vector3d> pts;
    for (std::size_t v = 0; v < skin.size(); ++v)
      if (skin[v])
        pts.push_back(m.positions.row(Eigen::Index(v)).transpose()), centroid += pts.back();
    centroid /= double(pts.size());
    Eigen::Matrix3d cov = Eigen::Matrix3d::Zero();
    for (const auto& p : pts) cov += (p - centroid) * (p - centroid).transpose();
    Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d> eig(cov);
    Eigen::Vector3d dir = eig.eigenvectors().col(2);
    if (dir.dot(b - line[line.size() - 2]) < 0) dir = -dir;
    double reach = 0;
    for (const auto& p : pts) reach = std::max(reach, (p - b).dot(dir));
    line.push_back(b + reach * dir);
  }
  return line;
}

} // namespace

TEST_CASE("shared tail: one chain per auto-rigged file that matches the artist's tail",
          "[shared]") {
  std::string data = test::shared_data();
  if (data.empty()) return;
  const std::regex tail("Tail"), ours("^Tail_");
  for (const char* name : {"khronos-fox", "velociraptor", "fox"}) {
    std::string in = data + "/auto-rigged/" + name + "-tail-on-legs.glb",
                original = data + "/originals/" + name + ".glb";
    INFO(in);
    std::string dir = test::temp_dir(), out = dir + "/out.glb";
    retail::RunResult r = retail::run(in, out, retail::RunParams{});
    REQUIRE(r.characters.size() == 1);
    REQUIRE(r.characters[0].chains.size() == 1);
    const auto& chain = r.characters[0].chains[0];
    std::vector<bool> artist = test::largest_weight_on(original, tail),
                      mine = test::largest_weight_on(out, ours);
    REQUIRE(artist.size() == mine.size());
    std::size_t both = 0, either = 0;
    for (std::size_t v = 0; v < artist.size(); ++v)
      both += artist[v] && mine[v], either += artist[v] || mine[v];
    double iou = double(both) / double(either);
    CHECK(iou >= 0.85);
    double height = r.report["characters"][0]["height"].get<double>();
    std::vector<Eigen::Vector3d> line = artist_polyline(original);
    REQUIRE(line.size() >= 3);
    double worst = 0;
    std::string per_joint;
    for (const auto& j : chain.chain.joints) {
      worst = std::max(worst, retail::polyline_distance(j, line));
      per_joint += " " + std::to_string(retail::polyline_distance(j, line) / height);
    }
    INFO("joint distances / H:" << per_joint);
    CHECK(worst <= 0.05 * height);
    CHECK(chain.distance_after <= 0.5 * chain.distance_before);
    WARN(name << ": IoU " << iou << ", worst joint " << worst / height
              << " H, weighted bone distance " << chain.distance_before << " -> "
              << chain.distance_after);
  }
}

TEST_CASE("shared tail: grafted humanoid tails - two shells - one chain over all their vertices",
          "[shared]") {
  std::string data = test::shared_data();
  if (data.empty()) return;
  for (const char* name : {"character-grafted-tail", "character-grafted-tail-hanging"}) {
    std::string in = data + "/auto-rigged/" + name + ".glb";
    INFO(in);
    std::string out = test::temp_dir() + "/out.glb";
    retail::RunResult r = retail::run(in, out, retail::RunParams{});
    REQUIRE(r.characters[0].chains.size() == 1);
    CHECK(r.characters[0].chains[0].vertices == 756); // the data README: 756 tail vertices
    CHECK(r.characters[0].chains[0].distance_after <=
          0.5 * r.characters[0].chains[0].distance_before);
  }
}

TEST_CASE("shared tail: no chain where there is no tail - ears keep their weights", "[shared]") {
  std::string data = test::shared_data();
  if (data.empty()) return;
  for (const char* name : {"platformer-character.glb", "cyberpunk-character.glb", "godette.vrm"}) {
    std::string in = data + "/originals/" + name,
                out = test::temp_dir() + "/out" + fs::path(name).extension().string();
    INFO(in);
    retail::RunResult r = retail::run(in, out, retail::RunParams{});
    for (const auto& c : r.characters) CHECK(c.chains.empty());
    retail::Document din = retail::read_document(in), dout = retail::read_document(out);
    CHECK(dout.gltf == din.gltf);
    if (std::string(name) == "godette.vrm")
      CHECK(dout.gltf["extensions"]["VRM"] == din.gltf["extensions"]["VRM"]);
  }
  // The fox's ears: every vertex weighted to an ear bone keeps exactly its weights.
  std::string in = data + "/auto-rigged/fox-tail-on-legs.glb", out = test::temp_dir() + "/fox.glb";
  retail::run(in, out, retail::RunParams{});
  std::vector<bool> ears = test::largest_weight_on(in, std::regex("^Ear"));
  std::vector<retail::StageStat> st;
  retail::Input a = retail::load_input(in, retail::BindParams{}, st),
                b = retail::load_input(out, retail::BindParams{}, st);
  retail::WeldedMesh ma = retail::weld_character(a.doc, a.model, a.characters[0], {});
  retail::WeldedMesh mb = retail::weld_character(b.doc, b.model, b.characters[0], {});
  auto wa = retail::read_skin_weights(a.doc, a.model, a.characters[0], ma);
  auto wb = retail::read_skin_weights(b.doc, b.model, b.characters[0], mb);
  std::size_t n = 0;
  for (std::size_t v = 0; v < ears.size(); ++v) {
    if (!ears[v]) continue;
    ++n;
    CHECK(wa.joint[v] == wb.joint[v]);
    CHECK(wa.weight[v] == wb.weight[v]);
  }
  CHECK(n > 20);
}

TEST_CASE("shared tail: a re-rig and bake only append - everything else is kept", "[shared]") {
  std::string data = test::shared_data();
  if (data.empty()) return;
  for (const auto& in : test::model_files(data + "/auto-rigged")) {
    INFO(in);
    std::string out = test::temp_dir() + "/out.glb";
    retail::run(in, out, retail::RunParams{});
    retail::Document a = retail::read_document(in), b = retail::read_document(out);
    for (const auto& [key, value] : a.gltf.items()) {
      if (key == "nodes" || key == "skins" || key == "meshes" || key == "accessors" ||
          key == "bufferViews" || key == "buffers" || key == "animations")
        continue;
      CHECK(b.gltf[key] == value); // materials, images, scenes, extensions, asset
    }
    // Animations: every existing sampler and channel kept at its index; the bake only appends
    // rotation channels, and only for the new tail bones (never hips, root or feet).
    REQUIRE(b.gltf["animations"].size() == a.gltf["animations"].size());
    std::size_t old_nodes = a.gltf["nodes"].size();
    for (std::size_t k = 0; k < a.gltf["animations"].size(); ++k) {
      const Json &aa = a.gltf["animations"][k], &ab = b.gltf["animations"][k];
      for (const char* part : {"samplers", "channels"}) {
        REQUIRE(ab[part].size() > aa[part].size());
        for (std::size_t i = 0; i < aa[part].size(); ++i) CHECK(ab[part][i] == aa[part][i]);
      }
      for (std::size_t i = aa["channels"].size(); i < ab["channels"].size(); ++i) {
        CHECK(ab["channels"][i]["target"]["path"] == "rotation");
        std::size_t node = ab["channels"][i]["target"]["node"].get<std::size_t>();
        CHECK(node >= old_nodes);
        CHECK(b.gltf["nodes"][node]["name"].get<std::string>().rfind("Tail_", 0) == 0);
      }
      for (const auto& [field, v] : aa.items())
        if (field != "samplers" && field != "channels") CHECK(ab[field] == v);
    }
    for (const char* key : {"accessors", "bufferViews"})
      for (std::size_t i = 0; i < a.gltf[key].size(); ++i) CHECK(b.gltf[key][i] == a.gltf[key][i]);
    for (std::size_t i = 0; i < a.gltf["nodes"].size(); ++i) {
      Json na = a.gltf["nodes"][i], nb = b.gltf["nodes"][i];
      na.erase("children"), nb.erase("children");
      CHECK(na == nb);
    }
    for (std::size_t m = 0; m < a.gltf["meshes"].size(); ++m)
      for (std::size_t p = 0; p < a.gltf["meshes"][m]["primitives"].size(); ++p) {
        Json pa = a.gltf["meshes"][m]["primitives"][p], pb = b.gltf["meshes"][m]["primitives"][p];
        for (const char* k : {"JOINTS_0", "WEIGHTS_0", "JOINTS_1", "WEIGHTS_1"})
          pa["attributes"].erase(k), pb["attributes"].erase(k);
        CHECK(pa == pb);
      }
    for (std::size_t s = 0; s < a.gltf["skins"].size(); ++s) {
      const Json &ja = a.gltf["skins"][s]["joints"], &jb = b.gltf["skins"][s]["joints"];
      for (std::size_t k = 0; k < ja.size(); ++k)
        CHECK(jb[k] == ja[k]); // existing joint indices unchanged
    }
    REQUIRE(b.buffers[0].size() >= a.buffers[0].size());
    CHECK(std::equal(a.buffers[0].begin(), a.buffers[0].end(), b.buffers[0].begin()));
  }
}

namespace {

struct TailCase {
  std::string input, truth; // truth: an artist original, or "" for the grafted shells
};

/// Every tailed shared model: data/ and animals/ auto-rigged files (an artist original beside a
/// `-tail-on-legs` file, else the grafted shells Body/3 and Body/4), and real-rigger/ files.
std::vector<TailCase> tailed_cases(const std::string& data) {
  std::string root = data + "/..";
  std::vector<TailCase> cases;
  for (const char* dir : {"/data", "/animals"})
    for (const auto& f : test::model_files(root + dir + "/auto-rigged")) {
      std::string base = fs::path(f).stem().string();
      std::size_t at = base.find("-tail-on-legs");
      if (at == std::string::npos) {
        cases.push_back({f, ""});
        continue;
      }
      cases.push_back({f, root + dir + "/originals/" + base.substr(0, at) + ".glb"});
    }
  if (fs::is_directory(root + "/real-rigger"))
    for (const auto& f : test::model_files(root + "/real-rigger")) cases.push_back({f, ""});
  return cases;
}

std::vector<bool> truth_of(const TailCase& k) {
  return k.truth.empty() ? test::primitive_tail(k.input, {{"Body", 3}, {"Body", 4}})
                         : test::artist_tail(k.truth);
}

/// Every acceptance point of the tails issue that `k` misses, one line each (empty: it meets
/// them all): re-rigged (a chain, or rigid with the harm check's reason), recall >= 0.90 and
/// precision >= 0.80 against the artist's tail, in every clip no edge-sample of the artist's
/// tail newly torn beyond the noise floor and its torn share no higher than the input's nor
/// max(artist, 0.5%), Walk no higher than the artist's, tip swing >= 5 deg on Walk, loops
/// closed within 1 deg, no extremity skin taken. (The legs' depth is the colliders' test below.)
std::vector<std::string> acceptance_failures(const retail::RunResult& r, const test::TailEval& e) {
  std::vector<std::string> out;
  std::size_t chains = 0, rigid = 0;
  for (const auto& c : r.characters)
    for (const auto& ch : c.chains) ++chains, rigid += ch.rigid;
  if (chains == 0) out.push_back("not re-rigged");
  for (const auto& pieces : r.judge)
    for (const auto& pj : pieces)
      if (pj.verdict != "kept" && pj.verdict.find("rigid") != std::string::npos &&
          pj.verdict.find("harm check") == std::string::npos)
        out.push_back("rigid without the harm check's reason");
  if (e.recall < 0.9) out.push_back("recall " + std::to_string(e.recall));
  if (e.precision < 0.8) out.push_back("precision " + std::to_string(e.precision));
  if (e.extremity_taken > 0) out.push_back("extremity skin taken");
  for (const auto& row : e.clips) {
    const std::string clip = row.clip.substr(row.clip.rfind('|') + 1);
    if (row.newly_torn > test::noise_floor(row.edge_samples))
      out.push_back(clip + ": " + std::to_string(row.newly_torn) + " edge-samples newly torn");
    if (row.output_torn > row.input_torn + 1e-9)
      out.push_back(clip + ": torn " + std::to_string(row.output_torn) + "% > input's");
    if (row.output_torn > std::max(row.artist_torn, 0.5) + 1e-9)
      out.push_back(clip + ": torn " + std::to_string(row.output_torn) + "% > max(artist, 0.5)");
    if (clip.find("Walk") != std::string::npos && row.artist_torn >= 0 &&
        row.output_torn > row.artist_torn + 1e-9)
      out.push_back(clip + ": torn more than the artist's");
  }
  if (chains > rigid)
    for (const auto& bakes : r.bakes)
      for (const auto& cb : bakes) {
        if (!cb.one_shot && !(cb.loop_closure_deg < 1.0))
          out.push_back(cb.name + ": loop closes at " + std::to_string(cb.loop_closure_deg));
        if (cb.name.find("Walk") != std::string::npos && cb.tip_swing_deg < 5.0)
          out.push_back(cb.name + ": tip swing " + std::to_string(cb.tip_swing_deg));
      }
  return out;
}

/// A ratchet's list: the tailed shared models still failing an acceptance, one file name a line
/// in tests/`file` ('#' comments): shared_tail_failing.txt (the tails issue's),
/// shared_skin_failing.txt (issue 31's skin bound). The one list each, in one place.
std::set<std::string> still_failing(const std::string& file = "shared_tail_failing.txt") {
  std::ifstream in(std::string(RETAIL_SOURCE_DIR) + "/tests/" + file);
  std::set<std::string> out;
  for (std::string line; std::getline(in, line);) {
    line = line.substr(0, line.find('#'));
    line.erase(line.find_last_not_of(" \t") + 1);
    if (!line.empty()) out.insert(line);
  }
  return out;
}

} // namespace

// Every tailed shared model, whatever its body: retail's own invariants (the harm check judged
// every grown piece and says why it stepped one down; a kept piece is harmless in every clip by
// its own rule and tears nothing in a clip it mends nothing in; no extremity skin taken), then the
// tails issue's acceptance with a ratchet: a model failing it must be on the list, and a model on
// the list must still fail it.
TEST_CASE("shared tail: every tailed model - invariants, and the acceptance with a ratchet",
          "[shared][heavy]") {
  std::string data = test::shared_data();
  if (data.empty()) return;
  std::vector<TailCase> cases = tailed_cases(data);
  REQUIRE(!cases.empty());
  const std::set<std::string> listed = still_failing();
  std::string list;
  for (const auto& name : listed) list += " " + name;
  WARN("still failing the tails acceptance (tests/shared_tail_failing.txt):"
       << (list.empty() ? " none" : list));
  std::set<std::string> seen;
  for (const TailCase& k : cases) {
    const std::string name = fs::path(k.input).filename().string();
    seen.insert(name);
    INFO(name);
    std::string out = test::temp_dir() + "/out.glb";
    retail::RunResult r = retail::run(k.input, out, retail::RunParams{});
    test::TailEval e = test::evaluate_tail(truth_of(k), k.input, out, k.truth, false);
    std::size_t grown = 0, judged = 0;
    for (const auto& c : r.characters) grown += c.chains.size();
    for (const auto& pieces : r.judge)
      for (const auto& pj : pieces) {
        ++judged;
        if (pj.verdict != "kept")
          CHECK(pj.verdict.find("harm check") != std::string::npos);
        else
          for (std::size_t c = 0; c < pj.clips.size(); ++c) {
            CHECK(retail::harmless_clip(pj.flips[c], pj.seam_flips[c], pj.body_torn[c],
                                        retail::HarmParams{}));
            // A clip the kept chain mends nothing in, it tears nothing in (held at rest there
            // when its spring would: docs/spring.md "Held clips").
            INFO("clip " << pj.clips[c]);
            if (pj.flips[c].healed + pj.seam_flips[c].healed == 0)
              CHECK(pj.flips[c].newly_torn + pj.seam_flips[c].newly_torn == 0);
          }
      }
    CHECK(judged >= grown);
    CHECK(e.extremity_taken == 0);
    const std::vector<std::string> failures = acceptance_failures(r, e);
    std::string why;
    for (const auto& f : failures) why += "\n  " + f;
    if (!failures.empty() && !listed.count(name))
      FAIL_CHECK(name << " fails the tails acceptance and is not on the ratchet list:" << why);
    if (failures.empty() && listed.count(name))
      FAIL_CHECK(name << " now meets the tails acceptance: take it off "
                         "tests/shared_tail_failing.txt");
    if (!failures.empty() && listed.count(name))
      WARN(name << " still fails the tails acceptance (on the ratchet list):" << why);
    std::string clips;
    for (const auto& row : e.clips)
      clips += " " + row.clip.substr(row.clip.rfind('|') + 1) + " " +
               std::to_string(row.artist_torn).substr(0, 5) + "/" +
               std::to_string(row.input_torn).substr(0, 5) + "/" +
               std::to_string(row.output_torn).substr(0, 5);
    WARN(name << ": recall " << e.recall << ", precision " << e.precision
              << "; torn % artist/input/output:" << clips);
  }
  for (const auto& name : listed)
    if (!seen.count(name)) WARN(name << " is on the ratchet list but not among the shared models");
}

// The limb colliders (on by default, docs/spring.md "Limb colliders"): on every tailed shared
// model no clip tears the artist's tail more with them than without, and the tail's bones go
// no deeper into the legs than max(1% H, the artist's) beyond their depth at bind (issue 31's
// bound, tail_eval's measure over the written keys). The tail's skin, the same bound, with a
// ratchet: a model past it in some clip must be on tests/shared_skin_failing.txt, and a model on
// it must still be past it.
TEST_CASE("shared tail: the leg colliders tear no clip more than without them",
          "[shared][paired]") {
  std::string data = test::shared_data();
  if (data.empty()) return;
  const std::set<std::string> listed = still_failing("shared_skin_failing.txt");
  for (const TailCase& k : tailed_cases(data)) {
    const std::string name = fs::path(k.input).filename().string();
    INFO(name);
    std::string past;
    const std::string dir = test::temp_dir();
    retail::RunParams without;
    without.bake.colliders = false;
    retail::run(k.input, dir + "/with.glb", retail::RunParams{});
    retail::run(k.input, dir + "/without.glb", without);
    const std::vector<bool> truth = truth_of(k);
    const test::TailEval a = test::evaluate_tail(truth, k.input, dir + "/with.glb", "");
    const test::TailEval b = test::evaluate_tail(truth, k.input, dir + "/without.glb", "");
    REQUIRE(a.clips.size() == b.clips.size());
    for (std::size_t c = 0; c < a.clips.size(); ++c) {
      INFO(a.clips[c].clip);
      CHECK(a.clips[c].output_torn <= b.clips[c].output_torn + 1e-9);
      CHECK(a.clips[c].newly_torn <= b.clips[c].newly_torn);
      const double bound = std::max(1.0, a.clips[c].artist_leg_depth);
      INFO("bones " << a.clips[c].output_leg_depth << "% H into the legs with the colliders, "
                    << b.clips[c].output_leg_depth << " without; bound " << bound);
      CHECK(a.clips[c].output_leg_depth <= bound + 1e-9);
      const double skin_bound = std::max(1.0, a.clips[c].artist_skin_leg_depth);
      if (a.clips[c].output_skin_leg_depth > skin_bound + 1e-9)
        past += "\n  " + a.clips[c].clip + ": the skin " +
                std::to_string(a.clips[c].output_skin_leg_depth) + "% H (" +
                std::to_string(b.clips[c].output_skin_leg_depth) + " without colliders; bound " +
                std::to_string(skin_bound) + ")";
    }
    if (!past.empty() && !listed.count(name))
      FAIL_CHECK(name << " goes past the skin bound and is not on the ratchet list:" << past);
    if (past.empty() && listed.count(name))
      FAIL_CHECK(name << " now meets the skin bound: take it off tests/shared_skin_failing.txt");
    if (!past.empty() && listed.count(name))
      WARN(name << " still goes past the skin bound (on the ratchet list):" << past);
  }
}

} // namespace test_shared_tail
