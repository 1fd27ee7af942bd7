// retail batch (batch.h): 50 good and 10 malformed files in nested folders - every good file
// re-rigged, every bad one reported with its message, exit 5, no partial output, nothing written
// outside OUT_DIR; the same results with 1 or 3 workers; shards that partition the list; up-to-date
// outputs skipped unless --force; one summary line per file in list order.
#include "retail/app/batch.h"
#include "retail/base/error.h"
#include "retail/base/files.h"
#include "retail/io/io.h"
#include "support.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

namespace test_batch {

namespace fs = std::filesystem;
using retail::Bytes;

namespace {

/// A folder tree of 50 good generated rigs (variants spread over three levels) and 10 broken
/// files; returns the relative paths of the bad ones.
std::set<std::string> make_tree(const std::string& in) {
  std::vector<Bytes> good;
  for (int v = 0; v < 5; ++v) {
    retail::RigOptions o;
    o.tail = v % 2 ? retail::TailStyle::Hanging : retail::TailStyle::Carried;
    o.ears = v == 2, o.cape = v == 3, o.centimetres = v == 4;
    if (v == 1) o.tail = retail::TailStyle::None;
    std::string tmp = test::temp_dir() + "/g.glb";
    retail::write_document(retail::generate_rig(o).doc, tmp);
    good.push_back(retail::read_file(tmp));
  }
  for (int i = 0; i < 50; ++i) {
    std::string dir = in + (i % 3 == 0 ? "" : i % 3 == 1 ? "/props" : "/chars/batch 2");
    fs::create_directories(dir);
    test::write_bytes(dir + "/rig" + std::to_string(i) + (i % 7 == 0 ? ".vrm" : ".glb"),
                      good[std::size_t(i) % good.size()]);
  }
  const Bytes& g = good[0];
  std::vector<std::pair<std::string, Bytes>> bad = {
      {"bad/empty.glb", {}},
      {"bad/text.glb", Bytes{'h', 'e', 'l', 'l', 'o'}},
      {"bad/cut20.glb", Bytes(g.begin(), g.begin() + 20)},
      {"bad/half.glb", Bytes(g.begin(), g.begin() + std::ptrdiff_t(g.size() / 2))},
      {"bad/magic.glb", g},
      {"bad/json.glb", g},
      {"bad/count.glb", {}},
      {"bad/joint.glb", {}},
      {"bad/sidecar.gltf", {}},
      {"chars/bad-view.glb", {}}};
  bad[4].second[0] = 'X';
  bad[5].second[20] = '#'; // the JSON chunk no longer parses
  auto edited = [&](const std::function<void(retail::Json&)>& f) {
    std::string tmp = test::temp_dir() + "/g.glb";
    test::write_bytes(tmp, g);
    retail::Document d = retail::read_document(tmp);
    f(d.gltf);
    retail::write_document(d, tmp);
    return retail::read_file(tmp);
  };
  bad[6].second = edited([](retail::Json& j) { j["accessors"][0]["count"] = 1000000000; });
  bad[7].second = edited([](retail::Json& j) { j["skins"][0]["joints"][0] = 9999; });
  bad[9].second = edited([](retail::Json& j) { j["bufferViews"][0]["byteLength"] = 1u << 30; });
  std::string s = "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"uri\":\"nope.bin\","
                  "\"byteLength\":4}]}";
  bad[8].second = Bytes(s.begin(), s.end());
  std::set<std::string> names;
  for (const auto& [rel, bytes] : bad) {
    fs::create_directories(fs::path(in + "/" + rel).parent_path());
    test::write_bytes(in + "/" + rel, bytes);
    names.insert(rel);
  }
  return names;
}

/// Every file below `dir` with its bytes (to prove a folder unchanged).
std::map<std::string, Bytes> snapshot(const std::string& dir) {
  std::map<std::string, Bytes> out;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file())
      out[fs::relative(e.path(), dir).generic_string()] = retail::read_file(e.path().string());
  return out;
}

retail::BatchParams params(int jobs) {
  retail::BatchParams p;
  p.jobs = jobs;
  p.run.stretch.samples = 6; // the batch, not the stretch, is under test
  return p;
}

} // namespace

TEST_CASE("batch: 50 good and 10 malformed files - reported - exit 5 - nothing partial",
          "[batch]") {
  std::string root = test::temp_dir(), in = root + "/in", out = root + "/out";
  std::set<std::string> bad = make_tree(in);
  auto before = snapshot(in);
  retail::BatchParams p = params(3);
  p.summary_path = root + "/summary.jsonl";
  retail::BatchResult r = retail::run_batch(in, out, p, nullptr);
  REQUIRE(r.entries.size() == 60);
  CHECK(r.exit_code == 5);
  CHECK(r.failed == 10);
  std::size_t chains = 0;
  for (const auto& e : r.entries) {
    INFO(e.path << ": " << e.error);
    bool is_bad = bad.count(e.path) > 0;
    CHECK(e.status == (is_bad ? "failed" : "ok"));
    if (is_bad) {
      CHECK((e.exit_code == 2 || e.exit_code == 3));
      CHECK_FALSE(e.error.empty());
      CHECK_FALSE(fs::exists(out + "/" + e.path)); // no partial output, no report
      CHECK_FALSE(fs::exists(fs::path(out + "/" + e.path).replace_extension(".report.json")));
    } else {
      CHECK(e.exit_code == 0);
      CHECK(fs::exists(out + "/" + e.path));
      CHECK(fs::exists(fs::path(out + "/" + e.path).replace_extension(".report.json")));
      chains += e.chains;
    }
  }
  CHECK(chains == 40);           // the 10 tail-less rigs grow none
  CHECK(snapshot(in) == before); // inputs untouched
  // Nothing outside OUT_DIR: the root holds only in/, out/ and the summary; no temp files.
  std::set<std::string> top;
  for (const auto& e : fs::directory_iterator(root)) top.insert(e.path().filename().string());
  CHECK(top == std::set<std::string>{"in", "out", "summary.jsonl"});
  for (const auto& [rel, bytes] : snapshot(out))
    CHECK(rel.find(".retail-tmp-") == std::string::npos);
  // The summary: one parsable line per file, in list order.
  std::ifstream f(p.summary_path);
  std::string line;
  std::size_t k = 0;
  while (std::getline(f, line)) {
    retail::Json j = retail::Json::parse(line);
    REQUIRE(k < r.entries.size());
    CHECK(j["path"] == r.entries[k].path);
    CHECK(j["status"] == r.entries[k].status);
    ++k;
  }
  CHECK(k == 60);
}

TEST_CASE(
    "batch: the same results with 1 or 3 workers - shards partition the list - skip and force",
    "[batch][heavy]") {
  std::string root = test::temp_dir(), in = root + "/in";
  make_tree(in);
  retail::BatchResult one = retail::run_batch(in, root + "/one", params(1), nullptr);
  retail::BatchResult three = retail::run_batch(in, root + "/three", params(3), nullptr);
  REQUIRE(one.entries.size() == three.entries.size());
  for (std::size_t i = 0; i < one.entries.size(); ++i) {
    const auto &a = one.entries[i], &b = three.entries[i];
    CHECK(a.path == b.path);
    CHECK(a.status == b.status);
    CHECK(a.exit_code == b.exit_code);
    CHECK(a.chains == b.chains);
    CHECK(a.stretch == b.stretch);
    CHECK(a.error == b.error);
  }
  // Byte-identical models (reports differ only in their paths and timings).
  auto models = [](std::map<std::string, Bytes> files) {
    for (auto it = files.begin(); it != files.end();)
      it = it->first.find(".report.json") != std::string::npos ? files.erase(it) : std::next(it);
    return files;
  };
  auto a = models(snapshot(root + "/one")), b = models(snapshot(root + "/three"));
  CHECK(a.size() == 50);
  CHECK((a == b));
  // Shards: disjoint, together the whole list, each in list order.
  std::vector<std::string> all = retail::list_models(in), joined;
  for (int s = 0; s < 3; ++s) {
    retail::BatchParams p = params(2);
    p.shard_index = s, p.shard_count = 3;
    retail::BatchResult part = retail::run_batch(in, root + "/shards", p, nullptr);
    for (std::size_t i = 0; i < part.entries.size(); ++i) {
      CHECK(part.entries[i].path == all[std::size_t(s) + 3 * i]);
      joined.push_back(part.entries[i].path);
    }
  }
  std::sort(joined.begin(), joined.end());
  CHECK(joined == all);
  // Up to date: skipped; --force re-rigs; the failures fail again.
  retail::BatchResult again = retail::run_batch(in, root + "/one", params(2), nullptr);
  retail::BatchParams forced = params(2);
  forced.force = true;
  retail::BatchResult redo = retail::run_batch(in, root + "/one", forced, nullptr);
  for (std::size_t i = 0; i < again.entries.size(); ++i) {
    bool failed = one.entries[i].status == "failed";
    CHECK(again.entries[i].status == (failed ? "failed" : "skipped"));
    CHECK(redo.entries[i].status == one.entries[i].status);
  }
  CHECK(again.exit_code == 5);
}

TEST_CASE("batch: --shard parses I/N - OUT_DIR inside IN_DIR is refused", "[batch]") {
  CHECK(retail::parse_shard("2/5") == std::make_pair(2, 5));
  for (const char* bad : {"5/5", "-1/2", "1/0", "1", "a/b", "1/2x", "/2"})
    CHECK_THROWS_AS(retail::parse_shard(bad), retail::Error);
  std::string root = test::temp_dir();
  fs::create_directories(root + "/in");
  try {
    retail::run_batch(root + "/in", root + "/in/out", params(1), nullptr);
    FAIL("no error");
  } catch (const retail::Error& e) {
    CHECK(e.code() == retail::ExitCode::Usage);
  }
  CHECK_THROWS_AS(retail::run_batch(root + "/missing", root + "/out", params(1), nullptr),
                  retail::Error);
}

TEST_CASE("batch: a file name that is not UTF-8 - the summary and report stay valid JSON",
          "[batch]") {
  std::string root = test::temp_dir(), name = std::string("odd\xff") + ".glb";
  fs::create_directories(root + "/in");
  retail::write_document(retail::generate_rig(retail::RigOptions{}).doc, root + "/in/" + name);
  retail::BatchParams p = params(1);
  p.summary_path = root + "/s.jsonl";
  retail::BatchResult r = retail::run_batch(root + "/in", root + "/out", p, nullptr);
  REQUIRE(r.entries.size() == 1);
  CHECK(r.entries[0].status == "ok");
  std::ifstream f(p.summary_path);
  std::string line;
  REQUIRE(std::getline(f, line));
  CHECK(retail::Json::parse(line)["status"] == "ok"); // the path's bad byte became U+FFFD
  CHECK_NOTHROW(retail::Json::parse(std::ifstream(root + "/out/odd\xff.report.json")));
}

} // namespace test_batch
