// The malformed-input corpus: each broken file gets its documented exit code, one line naming
// the file and the offending object, no output file, and an untouched input. Built from a
// generated rig so the corpus needs no binary fixtures; fuzz crashers go to tests/malformed/.
#include "retail/app/pipeline.h"
#include "retail/base/error.h"
#include "retail/base/files.h"
#include "retail/io/io.h"
#include "support.h"

#include <catch2/catch.hpp>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <sstream>

namespace test_malformed {

namespace fs = std::filesystem;
using retail::Bytes;
using retail::Json;

namespace {

struct Case {
  std::string name;
  std::function<void(retail::Document&)> mutate; ///< edits JSON and/or buffers before writing
  std::function<void(Bytes&)> mutate_file;       ///< edits the written bytes (container damage)
  int exit_code;
  std::string message; ///< must appear in the error line
};

std::size_t data_offset(const retail::Document& d, int accessor) {
  const Json& a = d.gltf["accessors"][std::size_t(accessor)];
  const Json& v = d.gltf["bufferViews"][a["bufferView"].get<std::size_t>()];
  return v.value("byteOffset", std::size_t(0)) + a.value("byteOffset", std::size_t(0));
}

int attribute(const retail::Document& d, const char* name) {
  return d.gltf["meshes"][0]["primitives"][0]["attributes"][name].get<int>();
}

/// Printable ASCII lines only: what every error message must be.
bool plain_text(const std::string& text) {
  return std::all_of(text.begin(), text.end(), [](char ch) {
    auto u = static_cast<unsigned char>(ch);
    return ch == '\n' || (u >= 0x20 && u < 0x7f);
  });
}

void put_u32(Bytes& b, std::size_t at, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) b[at + std::size_t(i)] = std::uint8_t(v >> (8 * i));
}

/// Appends cases to `cases`: one edit of the parsed JSON, of the document, or of the file bytes.
struct Adder {
  std::vector<Case>& c;
  void json(std::string name, std::function<void(Json&)> f, int code, std::string msg) {
    c.push_back({name, [f](retail::Document& d) { f(d.gltf); }, nullptr, code, msg});
  }
  void data(std::string name, std::function<void(retail::Document&)> f, int code, std::string msg) {
    c.push_back({name, f, nullptr, code, msg});
  }
  void file(std::string name, std::function<void(Bytes&)> f, int code, std::string msg) {
    c.push_back({name, nullptr, f, code, msg});
  }
};

/// The container's cases.
void container_cases(Adder add) {
  add.file(
      "wrong magic", [](Bytes& b) { b[0] = 'X'; }, 2, "not a glTF file");
  add.file( // found by the fuzzer: the parser's excerpt of the bad bytes went into the message raw
      "a stray byte in a JSON key", [](Bytes& b) { b[22] = 0xC6; }, 2, "JSON: ");
  add.file(
      "GLB version 1", [](Bytes& b) { put_u32(b, 4, 1); }, 3, "GLB header: container version 1");
  add.file(
      "length past the end", [](Bytes& b) { put_u32(b, 8, std::uint32_t(b.size() + 100)); }, 2,
      "GLB header: declares");
  add.file(
      "JSON chunk past the end", [](Bytes& b) { put_u32(b, 12, 0x7FFFFFF0u); }, 2,
      "GLB chunk 0: declares");
  add.file(
      "truncated in half", [](Bytes& b) { b.resize(b.size() / 2); }, 2, "GLB header: declares");
  add.file(
      "truncated header", [](Bytes& b) { b.resize(10); }, 2, "GLB header: file is 10 bytes");
  add.file(
      "broken JSON", [](Bytes& b) { b[20] = '['; }, 2, "JSON: ");
}

/// The JSON's cases.
void json_cases(Adder add) {
  add.json(
      "accessor bufferView out of range", [](Json& g) { g["accessors"][0]["bufferView"] = 999; }, 2,
      "accessors[0] (inverseBindMatrices of skins[0]).bufferView: bufferView 999 out of range");
  add.json(
      "huge accessor count", [](Json& g) { g["accessors"][1]["count"] = std::uint64_t(1) << 40; },
      2, "accessors[1] (POSITION of meshes[0].primitives[0]): count 1099511627776 is too large");
  add.json(
      "accessor count past its view", [](Json& g) { g["accessors"][1]["count"] = 100000; }, 2,
      "accessors[1] (POSITION of meshes[0].primitives[0]): needs 1200000 bytes, bufferViews[1] "
      "has");
  add.json(
      "huge implicit accessor",
      [](Json& g) {
        g["accessors"][1].erase("bufferView");
        g["accessors"][1]["count"] = 1u << 31;
      },
      3, "accessors[1] (POSITION of meshes[0].primitives[0]): 2147483648 implicit elements");
  add.json(
      "buffer view past the buffer", [](Json& g) { g["bufferViews"][2]["byteLength"] = 1u << 30; },
      2, "bufferViews[2]: bytes");
  add.json(
      "buffer longer than the BIN chunk", [](Json& g) { g["buffers"][0]["byteLength"] = 1u << 30; },
      2, "buffers[0]: byteLength 1073741824 but the data has");
  add.json(
      "mesh index out of range", [](Json& g) { g["nodes"].back()["mesh"] = 99; }, 2,
      ".mesh: mesh 99 out of range (1 meshs)");
  add.json(
      "skin index out of range", [](Json& g) { g["nodes"].back()["skin"] = 5; }, 2,
      ".skin: skin 5 out of range");
  add.json(
      "joint index out of range", [](Json& g) { g["skins"][0]["joints"][3] = 500; }, 2,
      "skins[0].joints[3]: node 500 out of range");
  add.json(
      "material index out of range",
      [](Json& g) { g["meshes"][0]["primitives"][0]["material"] = 7; }, 2,
      "meshes[0].primitives[0].material: material 7 out of range");
  add.json(
      "animation sampler out of range",
      [](Json& g) { g["animations"][0]["channels"][0]["sampler"] = 99; }, 2,
      "animations[0].channels[0].sampler: sampler 99 out of range");
  add.json(
      "animation target node out of range",
      [](Json& g) { g["animations"][1]["channels"][0]["target"]["node"] = 1000; }, 2,
      "animations[1].channels[0].target.node: node 1000 out of range");
  add.json(
      "node cycle", [](Json& g) { g["nodes"][1]["children"].push_back(0); }, 2,
      "the node hierarchy has a cycle");
  add.json(
      "node with two parents", [](Json& g) { g["nodes"][0]["children"].push_back(2); }, 2,
      "already has parent");
  add.json(
      "scene root out of range", [](Json& g) { g["scenes"][0]["nodes"].push_back(4000); }, 2,
      "scenes[0].nodes[2]: node 4000 out of range");
  add.json(
      "missing inverse bind matrices", [](Json& g) { g["skins"][0].erase("inverseBindMatrices"); },
      3, "skins[0]: no inverseBindMatrices");
  add.json(
      "too few inverse bind matrices", [](Json& g) { g["accessors"][0]["count"] = 3; }, 2,
      "accessors[0] (inverseBindMatrices of skins[0]): 3 matrices for 23 joints");
  add.json(
      "JOINTS as signed bytes", [](Json& g) { g["accessors"][3]["componentType"] = 5120; }, 2,
      "accessors[3] (JOINTS_0 of meshes[0].primitives[0]): JOINTS must be");
  add.json(
      "unknown accessor type", [](Json& g) { g["accessors"][2]["type"] = "VEC5"; }, 2,
      "accessors[2] (TEXCOORD_0 of meshes[0].primitives[0]): type 'VEC5'");
  add.json(
      "Draco required", [](Json& g) { g["extensionsRequired"] = {"KHR_draco_mesh_compression"}; },
      3, "extensionsRequired: KHR_draco_mesh_compression");
  add.json(
      "glTF 1.0 asset", [](Json& g) { g["asset"]["version"] = "1.0"; }, 3, "asset.version: '1.0'");
}

/// The cases in the buffers' data.
void data_cases(Adder add) {
  add.data(
      "NaN position",
      [](retail::Document& d) {
        float nan = std::numeric_limits<float>::quiet_NaN();
        std::memcpy(d.buffers[0].data() + data_offset(d, attribute(d, "POSITION")) + 12 * 7 + 4,
                    &nan, 4);
      },
      2, "(POSITION of meshes[0].primitives[0]): element 7 is not finite");
  add.data(
      "all-zero weights",
      [](retail::Document& d) {
        int w = attribute(d, "WEIGHTS_0");
        std::size_t count = d.gltf["accessors"][std::size_t(w)]["count"].get<std::size_t>();
        std::memset(d.buffers[0].data() + data_offset(d, w), 0, count * 4);
      },
      2, "(WEIGHTS_0 of meshes[0].primitives[0]): all weights are zero");
  add.data(
      "vertex index out of range",
      [](retail::Document& d) {
        int i = d.gltf["meshes"][0]["primitives"][0]["indices"].get<int>();
        std::uint16_t bad = 65000;
        std::memcpy(d.buffers[0].data() + data_offset(d, i) + 2 * 5, &bad, 2);
      },
      2, "(indices of meshes[0].primitives[0]): index 5 is vertex 65000");
  add.data(
      "joint index past the skin",
      [](retail::Document& d) {
        d.buffers[0][data_offset(d, attribute(d, "JOINTS_0")) + 4 * 3] = 200;
      },
      2, "(JOINTS_0 of meshes[0].primitives[0]): vertex 3 uses joint 200, skins[0] has 23");
  add.data(
      "singular inverse bind matrix",
      [](retail::Document& d) {
        std::memset(d.buffers[0].data() + data_offset(d, 0) + 64 * 2, 0, 64);
      },
      2, "(inverseBindMatrices of skins[0]): matrix 2 is singular");
}

std::vector<Case> corpus() {
  std::vector<Case> c;
  container_cases(Adder{c});
  json_cases(Adder{c});
  data_cases(Adder{c});
  return c;
}

} // namespace

TEST_CASE("malformed corpus: documented exit code - one line naming the object - no output",
          "[malformed]") {
  retail::RigOptions o;
  o.ears = true;
  retail::GeneratedRig rig = test::make_rig(o);
  REQUIRE(rig.doc.gltf["accessors"][1]["count"].get<int>() > 100); // layout the cases rely on
  std::string dir = test::temp_dir();
  int n = 0;
  for (const Case& k : corpus()) {
    ++n;
    INFO("case: " << k.name);
    retail::Document d = rig.doc;
    if (k.mutate) k.mutate(d);
    Bytes bytes = retail::serialize_document(d);
    if (k.mutate_file) k.mutate_file(bytes);
    std::string in = dir + "/case" + std::to_string(n) + ".glb",
                out = dir + "/case" + std::to_string(n) + ".out.glb";
    test::write_bytes(in, bytes);
    std::string err;
    int code = test::run_retail({in, out}, nullptr, &err);
    CHECK(code == k.exit_code);
    CHECK(err.rfind("error: " + in + ": ", 0) == 0);
    CHECK(err.find(k.message) != std::string::npos);
    CHECK(std::count(err.begin(), err.end(), '\n') == 1);
    CHECK(plain_text(err)); // whatever the input
    CHECK_FALSE(fs::exists(out));
    CHECK(retail::read_file(in) == bytes); // input untouched
    int info_code = test::run_retail({"info", in}, nullptr, &err);
    CHECK(info_code == k.exit_code);
  }
  CHECK(n >= 20);
  for (const auto& e : fs::directory_iterator(dir))
    CHECK(e.path().string().find(".out.glb") == std::string::npos);
}

TEST_CASE("malformed: truncation at many offsets and byte flips never crash", "[malformed]") {
  retail::RigOptions o;
  o.cape = true;
  Bytes good = retail::serialize_document(test::make_rig(o).doc);
  auto load = [](const Bytes& b) {
    retail::Document d = retail::parse_document(b, "");
    retail::Model m = retail::parse_model(d);
    return retail::build_characters(d, m, retail::BindParams{}).size();
  };
  REQUIRE(load(good) == 1);
  for (std::size_t cut = 0; cut < good.size(); cut += 1 + good.size() / 300) {
    INFO("truncated at " << cut);
    try {
      load(Bytes(good.begin(), good.begin() + long(cut)));
      FAIL("a truncated file was accepted");
    } catch (const retail::Error& e) {
      CHECK(e.code() == retail::ExitCode::InvalidInput);
    }
  }
  // Deterministic byte flips over the whole file (LCG): either accepted or a retail::Error.
  std::uint64_t state = 12345;
  for (int i = 0; i < 600; ++i) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    Bytes b = good;
    std::size_t at = std::size_t(state >> 33) % b.size();
    b[at] = std::uint8_t(b[at] ^ (1u << ((state >> 20) % 8)));
    try {
      load(b);
    } catch (const retail::Error&) {
    }
  }
}

TEST_CASE("malformed corpus: the fuzzer's finds replay with their exit code and message",
          "[malformed]") {
  std::string dir = std::string(RETAIL_SOURCE_DIR) + "/tests/malformed";
  std::ifstream list(dir + "/expected.tsv");
  REQUIRE(list);
  std::string line;
  int n = 0;
  while (std::getline(list, line)) {
    std::istringstream fields(line);
    std::string file, code, message;
    std::getline(fields, file, '\t'), std::getline(fields, code, '\t'),
        std::getline(fields, message);
    INFO(file);
    std::string out, err;
    int exit_code = test::run_retail({"info", dir + "/" + file}, &out, &err);
    CHECK(exit_code == std::stoi(code));
    // An error is a message (stderr); what info reads from a file it accepts is data (stdout).
    CHECK((exit_code == 0 ? out : err).find(message) != std::string::npos);
    CHECK(plain_text(err)); // whatever the input
    CHECK(plain_text(out));
    ++n;
  }
  CHECK(n >= 2);
}

} // namespace test_malformed
