// Issue 29, cost bounded by the input: a sidecar is read no further than its declared length, a
// file's spring work per substep is bounded (a 10,000-joint VRM 0 bone group is not simulated,
// with a warning naming it, in every command), and malformed VRM springs behave the same way in
// every command.
#include "retail/base/error.h"
#include "retail/base/files.h"
#include "robust_support.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <unistd.h>

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
