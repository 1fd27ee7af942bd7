// Issue 16, the inputs: clips with odd timing (one pose, negative, decreasing, huge), deep JSON,
// FIFOs and folders where files should be, meshopt fallbacks, control characters in names.
// Every case: the documented exit code, one line on stderr, no output, the input untouched, no
// temporary file; runs are guarded by `timeout` so a hang fails instead of blocking the suite.
#include "retail/base/error.h"
#include "retail/base/files.h"
#include "retail/base/model.h"
#include "retail/io/accessor.h"
#include "retail/io/io.h"
#include "robust_support.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace test_robust {

namespace fs = std::filesystem;
using retail::Bytes;
using retail::Json;

namespace {

const char* kGuard = "timeout -s KILL 300"; // a hang fails the case instead of the suite

struct Outcome {
  int code = -1;
  std::string err;
};

/// Runs `retail IN OUT args...` on `bytes` written to a fresh folder; checks the invariants of
/// every run (input untouched, no temp file, on failure one line and no output).
Outcome run_on(const Bytes& bytes, const std::vector<std::string>& args = {},
               const std::string& name = "in.glb") {
  std::string dir = test::temp_dir(), in = dir + "/" + name, out = dir + "/out.glb";
  test::write_bytes(in, bytes);
  Outcome o;
  std::vector<std::string> all{in, out};
  all.insert(all.end(), args.begin(), args.end());
  o.code = test::run_retail_with(kGuard, all, nullptr, &o.err);
  CHECK(retail::read_file(in) == bytes);
  CHECK(test::no_temp_files(dir));
  if (o.code != 0 && o.code != 6) {
    CHECK(std::count(o.err.begin(), o.err.end(), '\n') == 1);
    CHECK(o.err.rfind("error: " + in + ": ", 0) == 0);
    CHECK_FALSE(fs::exists(out));
    CHECK_FALSE(fs::exists(dir + "/out.report.json"));
  }
  return o;
}

/// Every baked rotation channel of the written output: key times strictly increasing (a single
/// key allowed), unit quaternions. Returns the key counts per clip (the first baked channel).
std::vector<std::size_t> check_baked(const std::string& path) {
  retail::Document d = retail::read_document(path);
  retail::Model m = retail::parse_model(d);
  std::vector<std::size_t> keys;
  for (const auto& a : m.animations) {
    std::size_t first = 0;
    for (const auto& ch : a.channels) {
      if (m.nodes[std::size_t(ch.node)].name.rfind("Tail_", 0) != 0) continue;
      const auto& s = a.samplers[std::size_t(ch.sampler)];
      retail::AccessorData t = retail::read_accessor(d, m, s.input);
      retail::AccessorData q = retail::read_accessor(d, m, s.output);
      for (Eigen::Index k = 1; k < t.rows(); ++k) CHECK(t(k, 0) > t(k - 1, 0));
      for (Eigen::Index k = 0; k < q.rows(); ++k) CHECK(std::abs(q.row(k).norm() - 1) < 1e-5);
      if (!first) first = std::size_t(t.rows());
    }
    keys.push_back(first);
  }
  return keys;
}

} // namespace

TEST_CASE("robust: one-pose clips bake a constant pose - every timing variant", "[robust]") {
  using Change = std::function<std::vector<float>(std::vector<float>)>;
  std::vector<std::pair<std::string, Change>> variants = {
      {"all keys at 0", [](std::vector<float> t) { return std::vector<float>(t.size(), 0.f); }},
      {"all keys at one later time",
       [](std::vector<float> t) { return std::vector<float>(t.size(), 0.75f); }},
      {"all negative",
       [](std::vector<float> t) {
         float top = t.back() + 1;
         for (float& x : t) x -= top;
         return t;
       }},
      {"tiny (1e-9 s)",
       [](std::vector<float> t) {
         for (float& x : t) x *= 1e-9f;
         return t;
       }},
  };
  for (const auto& [name, change] : variants) {
    DYNAMIC_SECTION(name) {
      retail::Document doc = test::small_rig();
      int idle = test::animation_named(doc, "Idle");
      test::rewrite_clip_times(doc, idle, change);
      std::string dir = test::temp_dir(), in = dir + "/in.glb";
      Bytes bytes = retail::serialize_document(doc);
      test::write_bytes(in, bytes);
      std::string err;
      REQUIRE(test::run_retail_with(kGuard, {in, dir + "/out.glb", "-q"}, nullptr, &err) == 0);
      std::vector<std::size_t> keys = check_baked(dir + "/out.glb");
      // One pose: one key at 0 (keys all at 0.75 s: a clip from 0 to 0.75 s, 30 keys/s).
      CHECK(keys[std::size_t(idle)] == (name == "all keys at one later time" ? 24u : 1u));
      CHECK(keys[std::size_t(test::animation_named(doc, "Walk"))] == 31); // the others as before
      CHECK(test::no_temp_files(dir));
    }
  }
  SECTION("one key per sampler in every clip") {
    retail::Document doc = test::small_rig();
    for (int i : test::clip_inputs(doc)) doc.gltf["accessors"][std::size_t(i)]["count"] = 1;
    std::string dir = test::temp_dir(), in = dir + "/in.glb";
    test::write_bytes(in, retail::serialize_document(doc));
    REQUIRE(test::run_retail_with(kGuard, {in, dir + "/out.glb", "-q"}, nullptr, nullptr) == 0);
    for (std::size_t k : check_baked(dir + "/out.glb")) CHECK(k == 1);
  }
  SECTION("times straddling zero bake from 0 to the last key") {
    retail::Document doc = test::small_rig();
    int walk = test::animation_named(doc, "Walk");
    test::rewrite_clip_times(doc, walk, [](std::vector<float> t) {
      for (float& x : t) x -= 0.5f;
      return t;
    });
    std::string dir = test::temp_dir(), in = dir + "/in.glb";
    test::write_bytes(in, retail::serialize_document(doc));
    REQUIRE(test::run_retail_with(kGuard, {in, dir + "/out.glb", "-q"}, nullptr, nullptr) == 0);
    CHECK(check_baked(dir + "/out.glb")[std::size_t(walk)] == 16); // 0.5 s at 30 keys/s
  }
}

TEST_CASE("robust: decreasing key times are invalid input naming the accessor", "[robust]") {
  using Change = std::function<std::vector<float>(std::vector<float>)>;
  std::vector<std::pair<std::string, Change>> variants = {
      {"reversed",
       [](std::vector<float> t) {
         std::reverse(t.begin(), t.end());
         return t;
       }},
      {"two keys swapped",
       [](std::vector<float> t) {
         std::swap(t[1], t[2]);
         return t;
       }},
      {"the last key before the first", [](std::vector<float> t) {
         t.back() = -1;
         return t;
       }}};
  for (const auto& [name, change] : variants) {
    DYNAMIC_SECTION(name) {
      retail::Document doc = test::small_rig();
      int input = test::clip_inputs(doc).back();
      test::rewrite_times(doc, input, change);
      Outcome o = run_on(retail::serialize_document(doc));
      CHECK(o.code == 2);
      CHECK(o.err.find("accessors[" + std::to_string(input) + "]") != std::string::npos);
      CHECK(o.err.find("key times must not decrease") != std::string::npos);
    }
  }
}

TEST_CASE("robust: the work a clip may ask of the bake is bounded - exit 3 naming it", "[robust]") {
  SECTION("one key far away: 1e30 s, 1e7 s, 1e5 s") {
    for (float far : {1e30f, 1e7f, 1e5f}) {
      retail::Document doc = test::small_rig();
      int walk = test::animation_named(doc, "Walk");
      int input = doc.gltf["animations"][std::size_t(walk)]["samplers"][0]["input"].get<int>();
      test::rewrite_times(doc, input, [far](std::vector<float> t) {
        t.back() = far;
        return t;
      });
      Bytes bytes = retail::serialize_document(doc);
      Outcome o = run_on(bytes);
      CHECK(o.code == 3);
      CHECK(o.err.find("animations[" + std::to_string(walk) + "] ('Walk')") != std::string::npos);
      CHECK(o.err.find("limit") != std::string::npos);
      // Measuring without the bake reads 24 samples whatever the length: not refused.
      CHECK(run_on(bytes, {"--no-bake", "-q"}).code == 0);
    }
  }
  SECTION("a normal clip at a substep or key rate that asks too much") {
    Bytes bytes = retail::serialize_document(test::small_rig());
    Outcome o = run_on(bytes, {"--substep", "1e-7"});
    CHECK(o.code == 3);
    CHECK(o.err.find("substeps") != std::string::npos);
  }
  SECTION("a long clip within the limit bakes, its keys made as it plays") {
    retail::Document doc = test::small_rig();
    int walk = test::animation_named(doc, "Walk");
    test::rewrite_clip_times(doc, walk, [](std::vector<float> t) {
      for (float& x : t) x *= 40;
      return t;
    });
    std::string dir = test::temp_dir(), in = dir + "/in.glb";
    test::write_bytes(in, retail::serialize_document(doc));
    REQUIRE(test::run_retail_with(kGuard, {in, dir + "/out.glb", "-q", "--clips", "Walk"}, nullptr,
                                  nullptr) == 0);
    CHECK(check_baked(dir + "/out.glb")[std::size_t(walk)] == 40 * 30 + 1);
  }
}

TEST_CASE("robust: JSON nested deeper than 256 levels is refused when reading", "[robust]") {
  retail::Document doc = test::small_rig();
  auto nest = [](const std::string& open, const std::string& close, int depth) {
    std::string s;
    for (int i = 0; i < depth; ++i) s += open;
    for (int i = 0; i < depth; ++i) s += close;
    return s;
  };
  auto with_extras = [&](const std::string& value) {
    return test::with_json_text(
        doc, [&](std::string text) { return "{\"extras\":" + value + "," + text.substr(1); });
  };
  for (const std::string& deep : {nest("[", "]", 100000), nest("{\"a\":", "}", 3000),
                                  nest("[{\"b\":", "}]", 200), nest("[", "]", 257)}) {
    Outcome o = run_on(with_extras(deep));
    CHECK(o.code == 2);
    CHECK(o.err.find("JSON: nested deeper than 256 levels") != std::string::npos);
  }
  // At the limit, and brackets inside strings, are fine.
  CHECK(run_on(with_extras(nest("[", "]", 250)), {"--no-bake", "-q"}).code == 0);
  CHECK(run_on(with_extras("\"" + std::string(5000, '[') + "\""), {"--no-bake", "-q"}).code == 0);
}

TEST_CASE("robust: FIFOs, folders and devices where a file should be: exit 2, no hang",
          "[robust]") {
  std::string dir = test::temp_dir();
  std::string err;
  REQUIRE(::mkfifo((dir + "/fifo.glb").c_str(), 0600) == 0);
  fs::create_directories(dir + "/folder.glb");
  for (const std::string& in : {dir + "/fifo.glb", dir + "/folder.glb", std::string("/dev/zero")}) {
    CHECK(test::run_retail_with(kGuard, {in, dir + "/out.glb"}, nullptr, &err) == 2);
    CHECK(err.find("cannot read the file: not a regular file") != std::string::npos);
    CHECK(test::run_retail_with(kGuard, {"info", in}, nullptr, &err) == 2);
  }
  // Sidecars: a FIFO, a folder ("." and a named one).
  retail::Document doc = test::small_rig();
  Bytes bin = doc.buffers[0];
  for (const std::string& uri : std::vector<std::string>{"fifo.bin", ".", "sub", "sub/"}) {
    std::string d = test::temp_dir();
    ::mkfifo((d + "/fifo.bin").c_str(), 0600);
    fs::create_directories(d + "/sub");
    Json g = doc.gltf;
    g["buffers"][0]["uri"] = uri;
    std::string text = g.dump();
    test::write_bytes(d + "/in.gltf", Bytes(text.begin(), text.end()));
    CHECK(test::run_retail_with(kGuard, {d + "/in.gltf", d + "/out.gltf"}, nullptr, &err) == 2);
    CHECK(err.find("buffers[0]: cannot read '" + uri + "': not a regular file") !=
          std::string::npos);
    CHECK(std::count(err.begin(), err.end(), '\n') == 1);
    CHECK_FALSE(fs::exists(d + "/out.gltf"));
    // An image URI that is a FIFO.
    g["buffers"][0]["uri"] = "data.bin";
    test::write_bytes(d + "/data.bin", bin);
    g["images"] = {{{"uri", "fifo.bin"}}};
    text = g.dump();
    test::write_bytes(d + "/in.gltf", Bytes(text.begin(), text.end()));
    CHECK(test::run_retail_with(kGuard, {d + "/in.gltf", d + "/out.gltf"}, nullptr, &err) == 2);
    CHECK(err.find("images[0]: cannot read 'fifo.bin'") != std::string::npos);
  }
  // A batch whose input folder holds a FIFO named like a model finishes: the FIFO fails with
  // its reason (exit 5), the file is written.
  std::string root = test::temp_dir();
  fs::create_directories(root + "/in");
  ::mkfifo((root + "/in/pipe.glb").c_str(), 0600);
  retail::write_document(doc, root + "/in/a.glb");
  CHECK(test::run_retail_with(kGuard, {"batch", root + "/in", root + "/out", "-q"}, nullptr,
                              &err) == 5);
  CHECK(err.find("pipe.glb: cannot read the file: not a regular file (a FIFO)") !=
        std::string::npos);
  CHECK(fs::exists(root + "/out/a.glb"));
}

TEST_CASE("robust: exit codes - meshopt fallbacks - OUT a folder", "[robust]") {
  retail::Document doc = test::small_rig();
  for (const char* ext : {"EXT_meshopt_compression", "KHR_meshopt_compression"}) {
    // A fallback buffer without data (the geometry only compressed): unsupported, named.
    Json g = doc.gltf;
    g["extensionsUsed"] = {ext};
    g["buffers"].push_back({{"byteLength", 64}, {"extensions", {{ext, {{"fallback", true}}}}}});
    retail::Document d = doc;
    d.gltf = g;
    d.buffers.push_back({});
    d.buffer_is_glb.push_back(false);
    d.buffer_external.push_back(-1);
    Bytes bytes = test::with_json_text(d, [&](std::string) { return g.dump(); });
    Outcome o = run_on(bytes);
    CHECK(o.code == 3);
    CHECK(o.err.find(std::string("buffers[1]: a ") + ext + " fallback buffer") !=
          std::string::npos);
    // The uncompressed data there (views carry the extension over a fallback that has it):
    // read as it is, the output as any other.
    Json h = doc.gltf;
    h["extensionsUsed"] = {ext};
    for (auto& v : h["bufferViews"])
      v["extensions"] = {{ext,
                          {{"buffer", 0},
                           {"byteLength", 4},
                           {"count", 1},
                           {"byteStride", 4},
                           {"mode", "ATTRIBUTES"}}}};
    o = run_on(test::with_json_text(doc, [&](std::string) { return h.dump(); }), {"-q"});
    CHECK(o.code == 0);
    // Required: the data only compressed.
    h["extensionsRequired"] = {ext};
    o = run_on(test::with_json_text(doc, [&](std::string) { return h.dump(); }));
    CHECK(o.code == 3);
    CHECK(o.err.find(std::string("extensionsRequired: ") + ext) != std::string::npos);
  }
  std::string dir = test::temp_dir(), in = dir + "/in.glb", err;
  retail::write_document(doc, in);
  fs::create_directories(dir + "/out.glb");
  CHECK(test::run_retail_with(kGuard, {in, dir + "/out.glb"}, nullptr, &err) == 4);
  CHECK(err.find("is a folder") != std::string::npos);
  CHECK(err.find("Success") == std::string::npos);
  CHECK(fs::is_directory(dir + "/out.glb"));
}

TEST_CASE("robust: control characters in names never reach the terminal", "[robust]") {
  const std::vector<std::string> names = {"Walk\nerror: forged line",
                                          "\x1b[31mRed\x1b[0m",
                                          "Carriage\rReturn",
                                          "C1\xc2\x9b"
                                          "31m",
                                          "del\x7f",
                                          "tab\there"};
  for (const std::string& bad : names) {
    retail::Document doc = test::small_rig();
    int walk = test::animation_named(doc, "Walk");
    doc.gltf["animations"][std::size_t(walk)]["name"] = bad;
    doc.gltf["nodes"][1]["name"] = bad + " node";
    // An error naming the clip (its bake asks too much), an info listing, a usage error.
    int input = doc.gltf["animations"][std::size_t(walk)]["samplers"][0]["input"].get<int>();
    retail::Document huge = doc;
    test::rewrite_times(huge, input, [](std::vector<float> t) {
      t.back() = 1e30f;
      return t;
    });
    std::string dir = test::temp_dir(), in = dir + "/in\n\x1b[2Jx.glb", err, all;
    test::write_bytes(in, retail::serialize_document(huge));
    CHECK(test::run_retail_with(kGuard, {in, dir + "/out.glb"}, nullptr, &err) == 3);
    CHECK(std::count(err.begin(), err.end(), '\n') == 1);
    CHECK(err.find("\\x0a") != std::string::npos); // the name's newline, escaped
    all += err;
    test::write_bytes(dir + "/ok.glb", retail::serialize_document(doc));
    CHECK(test::run_retail_with(kGuard, {"info", dir + "/ok.glb"}, nullptr, &err) == 0);
    all += err;
    CHECK(test::run_retail_with(kGuard, {dir + "/ok.glb", dir + "/o.glb", "--clips", "nope"},
                                nullptr, &err) == 1);
    CHECK(std::count(err.begin(), err.end(), '\n') == 1);
    all += err;
    CHECK(test::run_retail_with(kGuard, {dir + "/ok.glb", dir + "/o.glb", "-v"}, nullptr, &err) ==
          0);
    all += err;
    for (char c : all) {
      auto u = static_cast<unsigned char>(c);
      CHECK((c == '\n' || u >= 0x20) == true);
      CHECK(u != 0x7f);
    }
    CHECK(all.find("\xc2\x9b") == std::string::npos);
    std::size_t forged = 0;
    for (std::size_t at = all.find("\nerror: forged"); at != std::string::npos;
         at = all.find("\nerror: forged", at + 1))
      ++forged;
    CHECK(forged == 0);
  }
}

// [heavy]: a memory figure, which under the sanitizers is their shadow and quarantine more than
// retail's (scripts/test.sh runs the label in the release build only).
TEST_CASE("robust: memory per node is what the data needs", "[robust][heavy]") {
  retail::Document base = test::small_rig();
  std::string dir = test::temp_dir(), err;
  retail::write_document(base, dir + "/base.glb");
  const int extra = 100000;
  for (const char* shape : {"flat", "chain"}) {
    retail::Document doc = base;
    Json& nodes = doc.gltf["nodes"];
    std::size_t first = nodes.size();
    for (int i = 0; i < extra; ++i) {
      Json n = {{"name", "n" + std::to_string(i)}};
      if (std::string(shape) == "chain" && i + 1 < extra)
        n["children"] = {first + std::size_t(i) + 1};
      nodes.push_back(n);
      if (std::string(shape) == "flat" || i == 0)
        doc.gltf["scenes"][0]["nodes"].push_back(first + std::size_t(i));
    }
    std::string in = dir + "/" + shape + ".glb";
    retail::write_document(doc, in);
    int code = -1, base_code = -1;
    long with = test::peak_kb({in, dir + "/out.glb", "-q", "--threads", "1"}, code);
    long without =
        test::peak_kb({dir + "/base.glb", dir + "/b.glb", "-q", "--threads", "1"}, base_code);
    REQUIRE(code == 0);
    REQUIRE(base_code == 0);
    double per_node = double(with - without) * 1024 / extra;
    INFO(shape << ": " << per_node << " bytes per node");
#if RETAIL_TEST_ASAN
    CHECK(per_node < 8000); // shadow memory and redzones
#else
    CHECK(per_node < 1500); // was ~4,000 (24 world matrices per node per clip)
#endif
  }
}

TEST_CASE("robust: the fuzzer's finds through the whole pipeline - no crash, no temp file",
          "[robust]") {
  std::string dir = std::string(RETAIL_SOURCE_DIR) + "/tests/malformed";
  std::size_t n = 0;
  for (const auto& f : test::model_files(dir)) {
    std::string out = test::temp_dir(), err;
    int code = test::run_retail_with(kGuard, {f, out + "/o" + fs::path(f).extension().string()},
                                     nullptr, &err);
    INFO(f << ": " << err);
    CHECK((code == 0 || code == 2 || code == 3 || code == 6));
    CHECK(test::no_temp_files(out));
    ++n;
  }
  CHECK(n >= 3);
}

TEST_CASE("robust: a skinned vertex far from the rest is refused before the re-rig", "[robust]") {
  for (const auto& [axis, far] :
       std::vector<std::pair<int, float>>{{0, 1e30f}, {2, -1e8f}, {0, 4e4f}}) {
    retail::Document doc = test::small_rig();
    int pos = doc.gltf["meshes"][0]["primitives"][0]["attributes"]["POSITION"].get<int>();
    const Json& a = doc.gltf["accessors"][std::size_t(pos)];
    const Json& v = doc.gltf["bufferViews"][a["bufferView"].get<std::size_t>()];
    std::size_t at = v.value("byteOffset", std::size_t(0)) + a.value("byteOffset", std::size_t(0)) +
                     std::size_t(axis) * 4;
    std::memcpy(doc.buffers[0].data() + at, &far, 4);
    Json& max = doc.gltf["accessors"][std::size_t(pos)]["max"];
    Json& min = doc.gltf["accessors"][std::size_t(pos)]["min"];
    (far > 0 ? max : min)[std::size_t(axis)] = far;
    Outcome o = run_on(retail::serialize_document(doc));
    CHECK(o.code == 3);
    CHECK(o.err.find("skins[0]: the skinned vertices span") != std::string::npos);
  }
}

} // namespace test_robust
