// Issue 29, names and flags: an output name at the folder's limit (its temporary names stay
// within it), a PAGE whose folder is a file, a NUL in a URI, characters that reorder or break
// terminal lines, an index link to a name that is not UTF-8, and number flags that are infinite,
// not a number or past their range (each refused naming the flag).
#include "retail/base/error.h"
#include "retail/base/files.h"
#include "retail/io/io.h"
#include "retail/motion/bake.h"
#include "retail/motion/spring.h"
#include "retail/qa/stretch.h"
#include "retail/record/html_index.h"
#include "robust_support.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>

namespace test_robust_names {

namespace fs = std::filesystem;
using retail::Bytes;
using retail::Json;

namespace {

const char* kGuard = "timeout -s KILL 300";

} // namespace

TEST_CASE("names: an output name at the folder's limit - temporary names stay within it",
          "[robust][names]") {
  std::string dir = test::temp_dir(), err;
  retail::write_document(test::small_rig(), dir + "/in.glb");
  // 215 bytes: valid, its report 223; a temporary name adding ~37 bytes to either is too long.
  const std::string name = std::string(211, 'n') + ".glb";
  REQUIRE(name.size() == 215);
  CHECK(test::run_retail_with(kGuard, {dir + "/in.glb", dir + "/" + name, "-q"}, nullptr, &err) ==
        0);
  CHECK(err.empty());
  CHECK(fs::exists(dir + "/" + name));
  CHECK(fs::exists(dir + "/" + std::string(211, 'n') + ".report.json"));
  CHECK(test::no_temp_files(dir));
  // The atomic writer alone, at exactly the limit.
  const std::string longest = dir + "/" + std::string(255, 'x');
  CHECK_NOTHROW(retail::write_file_atomic(longest, Bytes{1, 2, 3}));
  CHECK(retail::read_file(longest) == Bytes{1, 2, 3});
  CHECK(test::no_temp_files(dir));
}

TEST_CASE("names: --html PAGE whose folder is a file says so - exit 4, nothing written",
          "[robust][names]") {
  std::string dir = test::temp_dir(), err;
  retail::write_document(test::small_rig(), dir + "/in.glb");
  CHECK(test::run_retail_with(kGuard,
                              {dir + "/in.glb", dir + "/out.glb", "--html", dir + "/in.glb/p.html"},
                              nullptr, &err) == 4);
  CHECK(err.find("the page's folder '" + dir + "/in.glb' is not a folder") != std::string::npos);
  CHECK(err.find("does not exist") == std::string::npos);
  CHECK_FALSE(fs::exists(dir + "/out.glb"));
  CHECK(test::run_retail_with(kGuard, {dir + "/in.glb", dir + "/in.glb/out.glb"}, nullptr, &err) ==
        4);
  CHECK(err.find("the output folder '" + dir + "/in.glb' is not a folder") != std::string::npos);
}

TEST_CASE("names: a URI holding NUL once percent-decoded is refused - exit 2 naming it",
          "[robust][names]") {
  retail::Document doc = test::small_rig();
  for (const std::string& uri : {std::string("in.bin%00.png"), std::string("%00in.bin")}) {
    std::string d = test::temp_dir(), err;
    test::write_bytes(d + "/in.bin", doc.buffers[0]);
    Json g = doc.gltf;
    g["buffers"][0]["uri"] = uri;
    std::string text = g.dump();
    test::write_bytes(d + "/in.gltf", Bytes(text.begin(), text.end()));
    CHECK(test::run_retail_with(kGuard, {d + "/in.gltf", d + "/out.gltf"}, nullptr, &err) == 2);
    CHECK(err.find("buffers[0]: uri '" + uri + "' holds a NUL byte") != std::string::npos);
    CHECK(std::count(err.begin(), err.end(), '\n') == 1);
    CHECK_FALSE(fs::exists(d + "/out.gltf"));
    // The same as an image's uri.
    g["buffers"][0]["uri"] = "in.bin";
    g["images"] = {{{"uri", uri}}};
    text = g.dump();
    test::write_bytes(d + "/in.gltf", Bytes(text.begin(), text.end()));
    CHECK(test::run_retail_with(kGuard, {"info", d + "/in.gltf"}, nullptr, &err) == 2);
    CHECK(err.find("images[0]: uri '" + uri + "' holds a NUL byte") != std::string::npos);
  }
}

TEST_CASE("names: bidirectional controls and line separators are escaped like C0 and C1",
          "[robust][names]") {
  // U+202E (right-to-left override), U+2066 (isolate), U+200F, U+2028, U+2029.
  for (const std::string& c :
       {std::string("\xe2\x80\xae"), std::string("\xe2\x81\xa6"), std::string("\xe2\x80\x8f"),
        std::string("\xe2\x80\xa8"), std::string("\xe2\x80\xa9"), std::string("\xd8\x9c")}) {
    const std::string safe = retail::terminal_safe("a" + c + "b");
    CHECK(safe.find(c) == std::string::npos);
    CHECK(safe.find("\\x") == 1);
  }
  CHECK(retail::terminal_safe("caf\xc3\xa9 \xe2\x80\x94 \xe6\x97\xa5") ==
        "caf\xc3\xa9 \xe2\x80\x94 \xe6\x97\xa5"); // other UTF-8 kept
  // Through the binary: a clip and a file named with them.
  retail::Document doc = test::small_rig();
  const std::string bad = "Walk\xe2\x80\xae\xe2\x80\xa8x";
  doc.gltf["animations"][std::size_t(test::animation_named(doc, "Walk"))]["name"] = bad;
  std::string dir = test::temp_dir(), in = dir + "/in\xe2\x80\xae.glb", err, all;
  test::write_bytes(in, retail::serialize_document(doc));
  CHECK(test::run_retail_with(kGuard, {in, dir + "/o.glb", "--clips", "nope"}, nullptr, &err) == 1);
  all += err;
  CHECK(test::run_retail_with(kGuard, {"info", in}, nullptr, &err) == 0);
  all += err;
  CHECK(test::run_retail_with(kGuard, {in, dir + "/o.glb", "-v"}, nullptr, &err) == 0);
  all += err;
  CHECK(all.find("\xe2\x80\xae") == std::string::npos);
  CHECK(all.find("\xe2\x80\xa8") == std::string::npos);
  CHECK(all.find("\\xe2\\x80\\xae") != std::string::npos);
}

TEST_CASE("names: the batch index links a page whose name is not UTF-8 by its bytes",
          "[robust][names]") {
  CHECK(retail::url_path("a b/odd\xff.html") == "a%20b/odd%FF.html");
  CHECK(retail::url_path("x/y-z_1.~.html") == "x/y-z_1.~.html");
  retail::IndexRow row;
  row.path = "odd\xff.glb";
  row.status = "ok";
  row.page = "odd\xff.html";
  const std::string page = retail::make_batch_index("in", {row});
  CHECK(page.find("\"href\":\"odd%FF.html\"") != std::string::npos);
}

TEST_CASE("flags: infinite, not-a-number and out-of-range values are refused naming the flag",
          "[robust][flags]") {
  std::string dir = test::temp_dir(), err;
  retail::write_document(test::small_rig(), dir + "/in.glb");
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--frequency", "inf"}, "--frequency"},
      {{"--gravity", "inf"}, "--gravity"},
      {{"--gravity", "nan"}, "--gravity"},
      {{"--damping", "-inf"}, "--damping"},
      {{"--frequency", "1e999"}, "--frequency"},
      {{"--far", "inf"}, "--far"},
      {{"--segment", "nan"}, "--segment"},
      {{"--floor", "inf"}, "--floor"},
      {{"--fps", "0"}, "--fps"},
      {{"--max-warmup", "0"}, "--max-warmup"},
      {{"--bend-limit", "200"}, "--bend-limit"},
      {{"--samples", "200000"}, "--samples"},
      {{"--samples", "1"}, "--samples"},
      {{"--reference-height", "inf"}, "--reference-height"},
      {{"--substep", "1"}, "--substep"},
      {{"--loop-tolerance", "0"}, "--loop-tolerance"},
  };
  for (const auto& [flags, name] : cases) {
    std::vector<std::string> args = {dir + "/in.glb", dir + "/out.glb", "-q"};
    args.insert(args.end(), flags.begin(), flags.end());
    INFO(flags[0] << " " << flags[1]);
    CHECK(test::run_retail_with(kGuard, args, nullptr, &err) == 1);
    CHECK(err.find(name) != std::string::npos);
    CHECK(err.find("out of range") == std::string::npos); // the flag, not a struct, is named
    CHECK_FALSE(fs::exists(dir + "/out.glb"));
  }
  // The library says the same to its own callers.
  retail::SpringParams sp;
  sp.root_frequency_hz = INFINITY;
  CHECK_THROWS_WITH(sp.validate(), Catch::Contains("--frequency"));
  sp = retail::SpringParams{};
  sp.gravity_mps2 = INFINITY;
  CHECK_THROWS_WITH(sp.validate(), Catch::Contains("--gravity"));
  retail::BakeParams bp;
  bp.fps = 0;
  CHECK_THROWS_WITH(bp.validate(), Catch::Contains("--fps"));
  retail::StretchParams st;
  st.samples = 200000;
  CHECK_THROWS_WITH(st.validate(), Catch::Contains("--samples"));
  // The stretch's memory: samples x edges and samples x posed nodes are bounded.
  CHECK_NOTHROW(retail::check_stretch_work(100000, 100, 24));
  CHECK_THROWS_WITH(retail::check_stretch_work(100000, 100, 10000), Catch::Contains("--samples"));
  CHECK_THROWS_WITH(retail::check_stretch_work(10, 100000, 10000), Catch::Contains("posed nodes"));
}

} // namespace test_robust_names
