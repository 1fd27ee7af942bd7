// Validation and typed reads: hand-made documents with hand-computed answers.
#include "retail/base/error.h"
#include "retail/io/accessor.h"
#include "support.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>

namespace test_model {

using retail::Bytes;
using retail::Json;

namespace {

retail::Document doc_with(const Json& gltf, const Bytes& bin) {
  retail::Document d;
  d.container = retail::Container::Glb;
  d.gltf = gltf;
  d.buffers = {bin};
  d.buffer_is_glb = {true};
  d.buffer_external = {-1};
  return d;
}

std::string error_of(const retail::Document& d, retail::ExitCode* code = nullptr) {
  try {
    retail::parse_model(d);
  } catch (const retail::Error& e) {
    if (code) *code = e.code();
    return e.what();
  }
  return "";
}

Json base() {
  return Json::parse(R"({"asset":{"version":"2.0"},"buffers":[{"byteLength":64}],
    "bufferViews":[{"buffer":0,"byteOffset":0,"byteLength":64}]})");
}

} // namespace

TEST_CASE("model: accessor past its buffer view names accessor - use and sizes", "[model]") {
  Json g = base();
  g["accessors"] =
      Json::parse(R"([{"bufferView":0,"componentType":5126,"count":5,"type":"VEC4"}])");
  g["meshes"] = Json::parse(R"([{"primitives":[{"attributes":{"WEIGHTS_0":0}}]}])");
  retail::ExitCode code{};
  std::string msg = error_of(doc_with(g, Bytes(64)), &code);
  CHECK(code == retail::ExitCode::InvalidInput);
  CHECK(
      msg ==
      "accessors[0] (WEIGHTS_0 of meshes[0].primitives[0]): needs 80 bytes, bufferViews[0] has 64");
}

TEST_CASE("model: strided accessor bound is offset + stride*(count-1) + element", "[model]") {
  Json g = base();
  g["bufferViews"][0]["byteStride"] = 16;
  // 4 VEC3 floats at stride 16 from offset 4: 4 + 16*3 + 12 = 64 fits exactly; count 5 does not.
  g["accessors"] = Json::parse(
      R"([{"bufferView":0,"byteOffset":4,"componentType":5126,"count":4,"type":"VEC3"}])");
  CHECK(error_of(doc_with(g, Bytes(64))).empty());
  g["accessors"][0]["count"] = 5;
  CHECK(error_of(doc_with(g, Bytes(64))) == "accessors[0]: needs 80 bytes, bufferViews[0] has 64");
  g["accessors"][0]["count"] = 0; // an empty accessor is allowed
  CHECK(error_of(doc_with(g, Bytes(64))).empty());
}

TEST_CASE("model: normalized integers decode as glTF defines", "[model]") {
  Json g = base();
  g["accessors"] = Json::parse(
      R"([{"bufferView":0,"componentType":5121,"normalized":true,"count":4,"type":"SCALAR"},
    {"bufferView":0,"byteOffset":4,"componentType":5120,"normalized":true,"count":2,"type":"SCALAR"},
    {"bufferView":0,"byteOffset":8,"componentType":5123,"normalized":true,"count":2,"type":"SCALAR"}])");
  Bytes bin(64, 0);
  bin[0] = 0;
  bin[1] = 255;
  bin[2] = 51;
  bin[3] = 102;
  bin[4] = 0x80; // -128 -> -1
  bin[5] = 127;  // -> 1
  bin[8] = 0xFF;
  bin[9] = 0xFF; // 65535 -> 1
  retail::Document d = doc_with(g, bin);
  retail::Model m = retail::parse_model(d);
  auto a = retail::read_accessor(d, m, 0);
  CHECK(a(1, 0) == Approx(1.0));
  CHECK(a(2, 0) == Approx(0.2));
  CHECK(a(3, 0) == Approx(0.4));
  auto b = retail::read_accessor(d, m, 1);
  CHECK(b(0, 0) == Approx(-1.0));
  CHECK(b(1, 0) == Approx(1.0));
  CHECK(retail::read_accessor(d, m, 2)(0, 0) == Approx(1.0));
}

TEST_CASE("model: sparse accessors substitute their values", "[model]") {
  Json g = base();
  // Base: 4 floats 1,2,3,4 at 0; sparse indices (ubyte) [1,3] at 16; values [20,40] at 20.
  g["accessors"] = Json::parse(R"([{"bufferView":0,"componentType":5126,"count":4,"type":"SCALAR",
    "sparse":{"count":2,"indices":{"bufferView":0,"byteOffset":16,"componentType":5121},
              "values":{"bufferView":0,"byteOffset":20}}}])");
  Bytes bin(64, 0);
  float base_values[4] = {1, 2, 3, 4}, sparse_values[2] = {20, 40};
  std::memcpy(bin.data(), base_values, 16);
  bin[16] = 1;
  bin[17] = 3;
  std::memcpy(bin.data() + 20, sparse_values, 8);
  retail::Document d = doc_with(g, bin);
  retail::Model m = retail::parse_model(d);
  auto a = retail::read_accessor(d, m, 0);
  CHECK(a(0, 0) == 1);
  CHECK(a(1, 0) == 20);
  CHECK(a(2, 0) == 3);
  CHECK(a(3, 0) == 40);
  bin[17] = 9; // past count
  CHECK(error_of(doc_with(g, bin)).find("sparse.indices: 9 out of range") != std::string::npos);
  // A non-finite value substituted by the sparse part is found where a reader would see it; a
  // non-finite base value that the sparse part replaces is not.
  bin[17] = 3;
  float inf = INFINITY, nan = NAN;
  std::memcpy(bin.data() + 24, &inf, 4); // the value for element 3
  std::memcpy(bin.data() + 4, &nan, 4);  // base element 1, replaced by 20
  CHECK(error_of(doc_with(g, bin)).find("accessors[0]: element 3 is not finite") !=
        std::string::npos);
  g["accessors"][0].erase("sparse"); // now the base NaN is what a reader sees
  CHECK(error_of(doc_with(g, bin)).find("accessors[0]: element 1 is not finite") !=
        std::string::npos);
}

TEST_CASE("model: node hierarchy must be a forest", "[model]") {
  Json g = base();
  g["nodes"] = Json::parse(R"([{"children":[1]},{"children":[2]},{"children":[0]}])");
  CHECK(error_of(doc_with(g, Bytes(64))).find("cycle") != std::string::npos);
  g["nodes"] = Json::parse(R"([{"children":[2]},{"children":[2]},{}])");
  CHECK(error_of(doc_with(g, Bytes(64))) ==
        "nodes[1].children[0]: node 2 already has parent nodes[0]");
  g["nodes"] = Json::parse(R"([{"children":[0]}])");
  CHECK_FALSE(error_of(doc_with(g, Bytes(64))).empty());
}

TEST_CASE("model: compressed geometry is unsupported and named", "[model]") {
  Json g = base();
  g["extensionsUsed"] = {"KHR_draco_mesh_compression"};
  retail::ExitCode code{};
  std::string msg = error_of(doc_with(g, Bytes(64)), &code);
  CHECK(code == retail::ExitCode::Unsupported);
  CHECK(msg.find("KHR_draco_mesh_compression") != std::string::npos);
}

TEST_CASE("model: a generated rig parses - with one skin and four clips", "[model]") {
  retail::Document d = test::make_rig().doc;
  retail::Model m = retail::parse_model(d);
  CHECK(m.skins.size() == 1);
  CHECK(m.animations.size() == 4);
  CHECK(m.tolerated.empty());
}

} // namespace test_model
