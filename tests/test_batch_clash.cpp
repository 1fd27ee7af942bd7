// Issue 29, what a batch writes: every path it will write (outputs, sidecars, reports, pages,
// the index, the summary) is checked against every path it reads and every other path it writes
// before anything is written; no link on the way to a written path leaves OUT_DIR; and every
// entry named like a model is listed, the ones that cannot be read as failed with their reason.
#include "retail/app/batch.h"
#include "retail/base/error.h"
#include "retail/base/files.h"
#include "retail/io/io.h"
#include "robust_support.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sys/stat.h>

namespace test_batch_clash {

namespace fs = std::filesystem;
using retail::Bytes;
using retail::Json;

namespace {

/// Every file below `dir` with its bytes (links listed by their name, not followed).
std::map<std::string, Bytes> snapshot(const std::string& dir) {
  std::map<std::string, Bytes> out;
  if (!fs::exists(dir)) return out;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_symlink())
      out[fs::relative(e.path(), dir).generic_string()] = {};
    else if (e.is_regular_file())
      out[fs::relative(e.path(), dir).generic_string()] = retail::read_file(e.path().string());
  return out;
}

retail::BatchParams params(bool html = false) {
  retail::BatchParams p;
  p.jobs = 2;
  p.html = html;
  p.run.stretch.samples = 4; // the file system, not the stretch, is under test
  return p;
}

/// The entry of `rel` in `r` (fails the case when missing).
const retail::BatchEntry& entry(const retail::BatchResult& r, const std::string& rel) {
  for (const auto& e : r.entries)
    if (e.path == rel) return e;
  FAIL("no entry for " << rel);
  return r.entries.front();
}

/// A .gltf of the small rig whose buffer is the file `bin` and whose first image, when `image`
/// is set, is the file `image` (the bytes of a 1x1 PNG).
void write_gltf(const std::string& path, const std::string& bin, const std::string& image = "") {
  retail::Document doc = test::small_rig();
  Json g = doc.gltf;
  g["buffers"][0]["uri"] = bin;
  const std::string dir = fs::path(path).parent_path().string();
  test::write_bytes(dir + "/" + bin, doc.buffers[0]);
  if (!image.empty()) {
    g["images"] = {{{"uri", image}, {"mimeType", "image/png"}}};
    test::write_bytes(dir + "/" + image, Bytes{0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'});
  }
  const std::string text = g.dump();
  test::write_bytes(path, Bytes(text.begin(), text.end()));
}

} // namespace

TEST_CASE("batch: IN_DIR inside OUT_DIR - no output, report or page lands in IN_DIR",
          "[batch][clash]") {
  const std::string w = test::temp_dir();
  fs::create_directories(w + "/in/in");
  retail::write_document(test::small_rig(), w + "/in/a.glb");
  retail::write_document(test::small_rig(), w + "/in/in/a.glb");
  const auto before = snapshot(w + "/in");
  retail::BatchResult r = retail::run_batch(w + "/in", w, params(true), nullptr);
  REQUIRE(r.entries.size() == 2);
  CHECK(snapshot(w + "/in") == before); // no input replaced, nothing added to IN_DIR
  CHECK(entry(r, "a.glb").status == "ok");
  const retail::BatchEntry& inner = entry(r, "in/a.glb");
  CHECK(inner.status == "failed");
  CHECK(inner.exit_code == 1);
  CHECK(inner.error.find("inside IN_DIR") != std::string::npos);
  CHECK(r.exit_code == 5);
  CHECK(fs::exists(w + "/a.glb"));
  CHECK(fs::exists(w + "/index.html"));
  CHECK(test::no_temp_files(w));
}

TEST_CASE("batch: a sidecar, report, page, index or summary never lands on another write",
          "[batch][clash]") {
  const std::string root = test::temp_dir(), in = root + "/in", out = root + "/out";
  fs::create_directories(in + "/tex");
  retail::write_document(test::small_rig(), in + "/a.glb");
  write_gltf(in + "/b.gltf", "a.report.json");       // its sidecar is a.glb's report
  write_gltf(in + "/c.gltf", "c.bin", "index.html"); // its texture is the index
  write_gltf(in + "/tex/d.gltf", "shared.bin");      // d and e share one sidecar: no clash
  write_gltf(in + "/tex/e.gltf", "shared.bin");
  const auto before = snapshot(in);
  retail::BatchParams p = params(true);
  p.summary_path = root + "/s.jsonl";
  retail::BatchResult r = retail::run_batch(in, out, p, nullptr);
  CHECK(snapshot(in) == before);
  for (const char* rel : {"a.glb", "b.gltf", "c.gltf"}) {
    INFO(rel);
    CHECK(entry(r, rel).status == "failed");
    CHECK(entry(r, rel).exit_code == 1);
  }
  CHECK(entry(r, "b.gltf").error.find("a.report.json") != std::string::npos);
  CHECK(entry(r, "c.gltf").error.find("the index") != std::string::npos);
  CHECK(entry(r, "tex/d.gltf").status == "ok");
  CHECK(entry(r, "tex/e.gltf").status == "ok");
  // Nothing of the refused files; the index is the index.
  for (const char* f : {"a.glb", "a.report.json", "a.html", "b.gltf", "c.gltf", "c.bin"})
    CHECK_FALSE(fs::exists(out + "/" + f));
  std::ifstream index(out + "/index.html");
  std::string text((std::istreambuf_iterator<char>(index)), std::istreambuf_iterator<char>());
  CHECK(text.find("retail.index/1") != std::string::npos);
  CHECK(retail::read_file(out + "/tex/shared.bin") == retail::read_file(in + "/tex/shared.bin"));
  // Every shard finds the clash of its own files, whichever shard the other file is in.
  for (int s = 0; s < 2; ++s) {
    retail::BatchParams ps = params();
    ps.shard_index = s, ps.shard_count = 2;
    retail::BatchResult part = retail::run_batch(in, root + "/shard", ps, nullptr);
    for (const auto& e : part.entries)
      if (e.path == "a.glb" || e.path == "b.gltf") CHECK(e.status == "failed");
  }
  CHECK(test::no_temp_files(root));
  // The summary on the index or on a page: a usage error, nothing written.
  fs::create_directories(root + "/in2");
  retail::write_document(test::small_rig(), root + "/in2/x.glb");
  for (const std::string& summary : {root + "/out2/index.html", root + "/out2/x.html",
                                     root + "/out2/x.report.json", root + "/in2/new.jsonl"}) {
    INFO(summary);
    retail::BatchParams ps = params(true);
    ps.summary_path = summary;
    try {
      retail::run_batch(root + "/in2", root + "/out2", ps, nullptr);
      FAIL("no error");
    } catch (const retail::Error& e) {
      CHECK(e.code() == retail::ExitCode::Usage);
    }
    CHECK_FALSE(fs::exists(root + "/out2"));
    CHECK_FALSE(fs::exists(root + "/in2/new.jsonl"));
  }
}

TEST_CASE("batch: a link in OUT_DIR leading elsewhere is never written through", "[batch][clash]") {
  const std::string root = test::temp_dir(), in = root + "/in", out = root + "/out";
  fs::create_directories(in + "/sub");
  fs::create_directories(out);
  fs::create_directories(root + "/elsewhere");
  retail::write_document(test::small_rig(), in + "/a.glb");
  retail::write_document(test::small_rig(), in + "/sub/b.glb");
  fs::create_directory_symlink(root + "/elsewhere", out + "/sub");
  retail::BatchResult r = retail::run_batch(in, out, params(true), nullptr);
  CHECK(entry(r, "a.glb").status == "ok");
  CHECK(entry(r, "sub/b.glb").status == "failed");
  CHECK(entry(r, "sub/b.glb").error.find("leads outside OUT_DIR") != std::string::npos);
  CHECK(snapshot(root + "/elsewhere").empty());
  CHECK(r.exit_code == 5);
}

TEST_CASE("batch: links to nothing, looping links and FIFOs are listed as failed with why",
          "[batch][clash]") {
  const std::string root = test::temp_dir(), in = root + "/in", out = root + "/out";
  fs::create_directories(in + "/folder.glb"); // a folder named like a model is a folder
  retail::write_document(test::small_rig(), in + "/folder.glb/a.glb");
  fs::create_symlink(in + "/missing.glb", in + "/dangling.glb");
  fs::create_symlink(in + "/loop.glb", in + "/loop.glb");
  REQUIRE(::mkfifo((in + "/pipe.glb").c_str(), 0600) == 0);
  retail::BatchParams p = params();
  p.summary_path = root + "/s.jsonl";
  retail::BatchResult r = retail::run_batch(in, out, p, nullptr);
  REQUIRE(r.entries.size() == 4);
  CHECK(entry(r, "folder.glb/a.glb").status == "ok");
  const std::vector<std::pair<std::string, std::string>> why = {
      {"dangling.glb", "a symbolic link to nothing"},
      {"loop.glb", "a symbolic link that loops"},
      {"pipe.glb", "not a regular file (a FIFO)"}};
  for (const auto& [rel, text] : why) {
    INFO(rel << ": " << entry(r, rel).error);
    CHECK(entry(r, rel).status == "failed");
    CHECK(entry(r, rel).exit_code == 2);
    CHECK(entry(r, rel).error.find(text) != std::string::npos);
  }
  CHECK(r.failed == 3);
  CHECK(r.exit_code == 5);
  std::ifstream f(p.summary_path);
  std::string line;
  std::size_t lines = 0;
  while (std::getline(f, line)) ++lines;
  CHECK(lines == 4);
}

} // namespace test_batch_clash
