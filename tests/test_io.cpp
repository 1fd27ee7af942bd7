// Container I/O: GLB/.gltf parsing and lossless, deterministic, atomic writing.
#include "retail/base/error.h"
#include "retail/base/files.h"
#include "retail/base/sha256.h"
#include "retail/io/builder.h"
#include "retail/io/io.h"
#include "support.h"

#include <catch2/catch.hpp>
#include <filesystem>

namespace test_io {

namespace fs = std::filesystem;
using retail::Bytes;
using retail::Json;

namespace {

/// A GLB from JSON text and a BIN chunk, built by hand (independent of our writer).
Bytes make_glb(const std::string& json, const Bytes& bin) {
  std::string text = json;
  while (text.size() % 4) text += ' ';
  Bytes b;
  auto u32 = [&](std::uint32_t v) {
    for (int i = 0; i < 4; ++i) b.push_back(std::uint8_t(v >> (8 * i)));
  };
  std::size_t bin_len = (bin.size() + 3) / 4 * 4;
  u32(0x46546C67);
  u32(2);
  u32(std::uint32_t(12 + 8 + text.size() + (bin.empty() ? 0 : 8 + bin_len)));
  u32(std::uint32_t(text.size()));
  u32(0x4E4F534A);
  b.insert(b.end(), text.begin(), text.end());
  if (!bin.empty()) {
    u32(std::uint32_t(bin_len));
    u32(0x004E4942);
    b.insert(b.end(), bin.begin(), bin.end());
    b.resize(b.size() + bin_len - bin.size(), 0);
  }
  return b;
}

const char* kTrickyJson =
    R"({"asset":{"version":"2.0","generator":"hand","extras":{"empty":[],"obj":{}}},)"
    R"("extensionsUsed":["VRM"],"extensions":{"VRM":{"secondaryAnimation":{"boneGroups":[)"
    R"({"comment":"","stiffiness":1.0,"bones":[],"colliderGroups":[]}]},)"
    R"("blendShapeMaster":{"blendShapeGroups":[{"name":"A","binds":[],"materialValues":[]}]}}},)"
    R"("buffers":[{"byteLength":8}],"bufferViews":[{"buffer":0,"byteOffset":0,"byteLength":8}],)"
    R"("nodes":[{"name":"ünïcødé ✓","translation":[0.1,1e-7,0],"rotation":[0,0,0,1],"scale":[1.0,1,1]}],)"
    R"("scenes":[{"nodes":[0]}],"scene":0,"zz_last_key":{"big":12345678901234,"neg":-3})"
    R"(})";

} // namespace

TEST_CASE("io: JSON is kept verbatim: key order - numbers - empty arrays - defaults - unicode",
          "[io]") {
  Bytes bin = {1, 2, 3, 4, 5, 6, 7, 8};
  Bytes glb = make_glb(kTrickyJson, bin);
  retail::Document doc = retail::parse_document(glb, "");
  Bytes out = retail::serialize_document(doc);
  retail::Document back = retail::parse_document(out, "");
  CHECK(back.gltf == Json::parse(kTrickyJson)); // ordered comparison: same keys in the same order
  std::string text(out.begin(), out.end());
  CHECK(text.find(R"("binds":[])") != std::string::npos);
  CHECK(text.find(R"("stiffiness":1.0)") != std::string::npos);
  CHECK(text.find(R"("byteOffset":0)") != std::string::npos);
  CHECK(back.buffers[0] == bin);
}

TEST_CASE("io: a generated GLB round-trips byte for byte and is deterministic", "[io]") {
  retail::RigOptions o;
  o.ears = o.cape = true;
  Bytes a = retail::serialize_document(retail::generate_rig(o).doc);
  Bytes b = retail::serialize_document(retail::generate_rig(o).doc);
  CHECK(a == b);
  Bytes c = retail::serialize_document(retail::parse_document(a, ""));
  CHECK(c == a);
}

TEST_CASE("io: unknown GLB chunks after BIN are kept", "[io]") {
  Bytes glb = make_glb(kTrickyJson, {1, 2, 3, 4, 5, 6, 7, 8});
  Bytes extra = {0xAA, 0xBB, 0xCC, 0xDD};
  for (std::uint32_t v : {std::uint32_t(4), std::uint32_t(0x12345678)})
    for (int i = 0; i < 4; ++i) glb.push_back(std::uint8_t(v >> (8 * i)));
  glb.insert(glb.end(), extra.begin(), extra.end());
  std::uint32_t len = std::uint32_t(glb.size());
  for (int i = 0; i < 4; ++i) glb[8 + std::size_t(i)] = std::uint8_t(len >> (8 * i));
  retail::Document doc = retail::parse_document(glb, "");
  REQUIRE(doc.extra_chunks.size() == 1);
  CHECK(doc.extra_chunks[0].type == 0x12345678u);
  retail::Bytes once = retail::serialize_document(doc);
  retail::Document back = retail::parse_document(once, "");
  REQUIRE(back.extra_chunks.size() == 1);
  CHECK(back.extra_chunks[0].bytes == extra);
  CHECK(retail::serialize_document(back) == once);
}

TEST_CASE("io: .gltf with a data URI buffer keeps it, appended data gets a new one", "[io]") {
  std::string text =
      R"({"asset":{"version":"2.0"},"buffers":[{"byteLength":4,"uri":"data:application/octet-stream;base64,AQIDBA=="}]})";
  retail::Document doc = retail::parse_document(Bytes(text.begin(), text.end()), "");
  CHECK(doc.container == retail::Container::Gltf);
  CHECK(doc.buffers[0] == Bytes({1, 2, 3, 4}));
  Bytes same = retail::serialize_document(doc);
  CHECK(std::string(same.begin(), same.end()) == text); // untouched: same text
  // builder.h: without a GLB BIN chunk, new bytes go to a new data-URI buffer.
  int view = retail::add_buffer_view(doc, {9, 8, 7}, 0);
  CHECK(view == 0);
  CHECK(doc.gltf["bufferViews"][0]["buffer"] == 1);
  retail::Document back = test::reparse(doc);
  REQUIRE(back.buffers.size() == 2);
  CHECK(back.buffers[0] == Bytes({1, 2, 3, 4}));
  CHECK(back.gltf["buffers"][0] == doc.gltf["buffers"][0]); // its uri text as it was
  CHECK(back.buffers[1] == Bytes({9, 8, 7}));
  CHECK(back.gltf["buffers"][1]["byteLength"] == 3);
  CHECK(back.gltf["buffers"][1]["uri"].get<std::string>().rfind("data:", 0) == 0);
}

TEST_CASE("io: .gltf sidecar buffers and images are read and copied byte for byte", "[io]") {
  std::string dir = test::temp_dir(), out_dir = test::temp_dir();
  fs::create_directories(dir + "/tex");
  test::write_bytes(dir + "/my data.bin", {1, 2, 3, 4});
  test::write_bytes(dir + "/tex/a.png", {0x89, 'P', 'N', 'G', 0, 1, 2});
  std::string text =
      R"({"asset":{"version":"2.0"},"buffers":[{"byteLength":4,"uri":"my%20data.bin"}],)"
      R"("images":[{"uri":"tex/a.png"}]})";
  test::write_bytes(dir + "/in.gltf", Bytes(text.begin(), text.end()));
  retail::Document doc = retail::read_document(dir + "/in.gltf");
  CHECK(doc.buffers[0] == Bytes({1, 2, 3, 4}));
  REQUIRE(doc.external.size() == 2);
  retail::write_document(doc, out_dir + "/out.gltf");
  CHECK(retail::read_file(out_dir + "/my data.bin") == Bytes({1, 2, 3, 4}));
  CHECK(retail::read_file(out_dir + "/tex/a.png") == Bytes({0x89, 'P', 'N', 'G', 0, 1, 2}));
  Bytes written = retail::read_file(out_dir + "/out.gltf");
  CHECK(std::string(written.begin(), written.end()) == text);
}

TEST_CASE("io: sidecar URIs outside the file's folder are refused", "[io]") {
  std::string dir = test::temp_dir();
  for (const char* uri : {"../x.bin", "/etc/passwd", "http://example.com/x.bin"}) {
    std::string text =
        std::string(R"({"asset":{"version":"2.0"},"buffers":[{"byteLength":4,"uri":")") + uri +
        "\"}]}";
    test::write_bytes(dir + "/in.gltf", Bytes(text.begin(), text.end()));
    try {
      retail::read_document(dir + "/in.gltf");
      FAIL("accepted " << uri);
    } catch (const retail::Error& e) {
      CHECK(e.code() == retail::ExitCode::Unsupported);
      CHECK(std::string(e.what()).find("buffers[0]") != std::string::npos);
    }
  }
}

TEST_CASE("io: writes are atomic and leave nothing behind on failure", "[io]") {
  std::string dir = test::temp_dir();
  retail::write_file_atomic(dir + "/a.glb", {1, 2, 3});
  CHECK(retail::read_file(dir + "/a.glb") == Bytes({1, 2, 3}));
  retail::write_file_atomic(dir + "/a.glb", {4});
  CHECK(retail::read_file(dir + "/a.glb") == Bytes({4}));
  std::size_t files = 0;
  for (const auto& e : fs::directory_iterator(dir)) files += e.is_regular_file();
  CHECK(files == 1); // no temp file left
  try {
    retail::write_file_atomic(dir + "/missing/b.glb", {1});
    FAIL("wrote into a missing folder");
  } catch (const retail::Error& e) {
    CHECK(e.code() == retail::ExitCode::OutputFailed);
  }
  CHECK_FALSE(fs::exists(dir + "/missing"));
}

TEST_CASE("builder: appending keeps every existing byte and view", "[io]") {
  retail::Document doc = test::make_rig().doc;
  Bytes before = doc.buffers[0];
  Json views = doc.gltf["bufferViews"];
  int acc = retail::add_float_accessor(doc, {1, 2, 3, 4, 5, 6}, "VEC3", 34962, true);
  CHECK(Bytes(doc.buffers[0].begin(), doc.buffers[0].begin() + long(before.size())) == before);
  for (std::size_t i = 0; i < views.size(); ++i) CHECK(doc.gltf["bufferViews"][i] == views[i]);
  CHECK(doc.gltf["accessors"][std::size_t(acc)]["max"] == Json::array({4.0, 5.0, 6.0}));
  CHECK(doc.gltf["bufferViews"].back()["byteOffset"].get<std::size_t>() % 4 == 0);
  retail::Document back = test::reparse(doc);
  CHECK_NOTHROW(retail::parse_model(back));
}

TEST_CASE("io: SHA-256 with the CPU's SHA extensions equals the portable code", "[io]") {
  // Every length around the block and padding boundaries, and one large buffer, of
  // deterministic pseudo-random bytes.
  std::uint32_t state = 12345;
  auto next = [&] { return std::uint8_t((state = state * 1664525u + 1013904223u) >> 24); };
  retail::Bytes data;
  for (std::size_t n = 0; n <= 200; ++n) {
    INFO("length " << n);
    CHECK(retail::sha256_hex(data) == retail::sha256_hex_portable(data));
    data.push_back(next());
  }
  data.resize(1 << 20);
  for (auto& b : data) b = next();
  CHECK(retail::sha256_hex(data) == retail::sha256_hex_portable(data));
  CHECK(retail::sha256_hex_portable({'a', 'b', 'c'}) ==
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  if (!retail::sha256_uses_hardware())
    WARN("this CPU has no SHA extensions: both sides ran the portable code");
}

TEST_CASE("io: SHA-256 known answers and the hash of the bytes read", "[io]") {
  CHECK(retail::sha256_hex({}) ==
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(retail::sha256_hex({'a', 'b', 'c'}) ==
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  retail::Bytes long_input(1000, 'a'); // crosses several 64-byte blocks and the padding boundary
  CHECK(retail::sha256_hex(long_input) ==
        "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3");
  std::string two_blocks = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
  CHECK(retail::sha256_hex(retail::Bytes(two_blocks.begin(), two_blocks.end())) ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  std::string dir = test::temp_dir();
  retail::Bytes glb = retail::serialize_document(test::make_rig().doc);
  test::write_bytes(dir + "/a.glb", glb);
  std::string hash;
  retail::read_document(dir + "/a.glb", &hash);
  CHECK(hash == retail::sha256_hex(glb));
}

} // namespace test_io
