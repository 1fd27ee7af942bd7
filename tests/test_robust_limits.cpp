// Issue 29, cost bounded by the input: a sidecar is read no further than its declared length, a
// file's spring work per substep is bounded (a 10,000-joint VRM 0 bone group is not simulated,
// with a warning naming it, in every command), and malformed VRM springs behave the same way in
// every command (a warning, exit 0).
#include "retail/base/error.h"
#include "retail/base/files.h"
#include "retail/io/io.h"
#include "robust_support.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <functional>
#include <unistd.h>

namespace test_robust_limits {

namespace fs = std::filesystem;
using retail::Bytes;
using retail::Json;

namespace {

const char* kGuard = "timeout -s KILL 300";

} // namespace

TEST_CASE("limits: a sidecar is read no further than its buffer's byteLength", "[robust][limits]") {
  retail::Document doc = test::small_rig();
  const std::string d = test::temp_dir(), err_dir = test::temp_dir();
  const std::size_t length = doc.buffers[0].size();
  Json g = doc.gltf;
  g["buffers"][0]["uri"] = "in.bin";
  g["buffers"][0]["byteLength"] = length;
  const std::string text = g.dump();
  test::write_bytes(d + "/in.gltf", Bytes(text.begin(), text.end()));
  test::write_bytes(d + "/in.bin", doc.buffers[0]);
  // The sidecar goes on, sparse, 64 MiB past what the buffer declares.
  const off_t sparse = off_t(length) + (off_t(64) << 20);
  REQUIRE(::truncate((d + "/in.bin").c_str(), sparse) == 0);
  std::string err;
  CHECK(test::run_retail_with(kGuard, {d + "/in.gltf", err_dir + "/out.gltf", "-q"}, nullptr,
                              &err) == 0);
  CHECK(fs::file_size(err_dir + "/in.bin") == length); // the declared bytes, copied
  // OUT beside IN: the input's own sidecar is never rewritten, whatever it holds past its end.
  CHECK(test::run_retail_with(kGuard, {d + "/in.gltf", d + "/out.gltf", "-q"}, nullptr, &err) == 0);
  CHECK(fs::file_size(d + "/in.bin") == std::uintmax_t(sparse));
  CHECK(test::no_temp_files(d));
  // A byteLength that is no count is refused before reading.
  for (const Json& bad : {Json(-1), Json("80952"), Json(1.5)}) {
    Json h = g;
    h["buffers"][0]["byteLength"] = bad;
    const std::string t = h.dump();
    test::write_bytes(d + "/bad.gltf", Bytes(t.begin(), t.end()));
    CHECK(test::run_retail_with(kGuard, {"info", d + "/bad.gltf"}, nullptr, &err) == 2);
    CHECK(err.find("buffers[0].byteLength: not a non-negative integer") != std::string::npos);
  }
  // The reader alone: at most what is asked.
  CHECK(retail::read_file(d + "/in.bin", 10).size() == 10);
}

namespace {

/// A generated VRM 0 rig (a spring tuft on the head, a ponytail) whose VRM 0 springs `edit`
/// changes, written to `path`.
void write_vrm0(const std::string& path, const std::function<void(Json&)>& edit) {
  retail::RigOptions o;
  o.vrm = 0;
  o.ponytail = true;
  o.tube_segments = 6;
  retail::Document doc = test::make_rig(o).doc;
  edit(doc.gltf);
  retail::write_document(doc, path);
}

/// Runs retail with `args` on `in`; returns the exit code and fills `err`.
int run(const std::vector<std::string>& args, std::string& err) {
  return test::run_retail_with(kGuard, args, nullptr, &err);
}

} // namespace

TEST_CASE("limits: a 10,000-joint spring bone group is not simulated - a warning names it",
          "[robust][limits][springs]") {
  const std::string d = test::temp_dir(), in = d + "/big.vrm";
  write_vrm0(in, [](Json& g) {
    Json& nodes = g["nodes"];
    std::size_t head = 0;
    for (std::size_t i = 0; i < nodes.size(); ++i)
      if (nodes[i].value("name", "").find("Head") != std::string::npos) head = i;
    const std::size_t first = nodes.size();
    for (std::size_t k = 0; k < 10000; ++k) {
      nodes.push_back({{"name", "spring" + std::to_string(k)}, {"translation", {0, 0.0005, 0}}});
      nodes[k == 0 ? head : first + k - 1]["children"].push_back(first + k);
    }
    Json& groups = g["extensions"]["VRM"]["secondaryAnimation"]["boneGroups"];
    Json big = groups[0];
    big["bones"] = {first};
    groups.push_back(big);
  });
  std::string err;
  // The re-rig (its spring bake and the VRM spring export), --hair, the head turn: each goes on
  // without the file's springs and says why, naming the bone group.
  const std::string why = "boneGroups[1].bones: more than 4096 spring joints in all";
  CHECK(run({in, d + "/out.vrm"}, err) == 0);
  CHECK(err.find("VRM springs not baked") != std::string::npos);
  CHECK(err.find(why) != std::string::npos);
  CHECK(run({in, d + "/hair.vrm", "--hair", "Ponytail", "--no-harm-check"}, err) == 0);
  CHECK(err.find("--hair: the file's VRM colliders are not used") != std::string::npos);
  CHECK(run({"report", in, "--head-turn", "--json", d + "/ht.json"}, err) == 0);
  CHECK(err.find(why) != std::string::npos);
  const Json ht = Json::parse(retail::read_file(d + "/ht.json"));
  CHECK(ht["warnings"].dump().find(why) != std::string::npos);
  CHECK(test::no_temp_files(d));
}

TEST_CASE("limits: malformed VRM 0 springs warn and exit 0 in every command",
          "[robust][limits][springs]") {
  const std::vector<std::pair<std::string, std::function<void(Json&)>>> cases = {
      {"dragForce",
       [](Json& g) {
         g["extensions"]["VRM"]["secondaryAnimation"]["boneGroups"][0]["dragForce"] = 2;
       }},
      {"boneGroups: must be an array",
       [](Json& g) { g["extensions"]["VRM"]["secondaryAnimation"]["boneGroups"] = 5; }},
      {"is not a valid node index",
       [](Json& g) {
         g["extensions"]["VRM"]["secondaryAnimation"]["boneGroups"][0]["bones"] = {99999};
       }},
  };
  for (const auto& [why, edit] : cases) {
    INFO(why);
    const std::string d = test::temp_dir(), in = d + "/bad.vrm";
    write_vrm0(in, edit);
    std::string err;
    CHECK(run({in, d + "/out.vrm"}, err) == 0); // spring bake and VRM spring export
    CHECK(err.find(why) != std::string::npos);
    CHECK(run({in, d + "/hair.vrm", "--hair", "Ponytail", "--no-harm-check"}, err) == 0);
    CHECK(err.find(why) != std::string::npos);
    CHECK(run({"report", in, "--head-turn"}, err) == 0);
    CHECK(err.find("VRM springs not measured") != std::string::npos);
    CHECK(err.find(why) != std::string::npos);
  }
}

} // namespace test_robust_limits
