// Container conversion on the command line (docs/containers.md): GLB <-> .gltf both ways,
// lossless (images byte for byte, the same JSON but for the references, the same report
// figures), deterministic, and nothing left behind on failure.
#include "retail/app/pipeline.h"
#include "retail/base/files.h"
#include "retail/io/builder.h"
#include "retail/io/container.h"
#include "retail/io/io.h"
#include "support.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <set>

namespace test_convert {

namespace fs = std::filesystem;
using retail::Bytes;
using retail::Json;

namespace {

const Bytes kPng = {0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3, 4, 5};
const Bytes kJpeg = {0xFF, 0xD8, 0xFF, 0xE0, 9, 8, 7};

/// A generated rig with a carried tail and one PNG image held in a buffer view, as `dir/NAME`.
std::string rig_with_image(const std::string& dir, const std::string& name = "rig.glb") {
  retail::RigOptions o;
  o.tail = retail::TailStyle::Carried;
  retail::Document doc = retail::generate_rig(o).doc;
  int view = retail::add_buffer_view(doc, kPng, 0);
  doc.gltf["images"] = Json::array({{{"bufferView", view}, {"mimeType", "image/png"}}});
  std::string path = dir + "/" + name;
  test::write_bytes(path, retail::serialize_document(doc));
  return path;
}

/// Bytes of every image of the file at `path`, in image order (buffer view, data URI or sidecar).
std::vector<Bytes> image_bytes(const std::string& path) {
  retail::Document d = retail::read_document(path);
  std::vector<Bytes> out;
  for (const Json& im : d.gltf.value("images", Json::array())) {
    Bytes bytes;
    if (im.contains("bufferView")) {
      const Json& v = d.gltf["bufferViews"][im["bufferView"].get<std::size_t>()];
      const Bytes& b = d.buffers[v["buffer"].get<std::size_t>()];
      std::size_t off = v.value("byteOffset", std::size_t(0));
      std::size_t n = v["byteLength"].get<std::size_t>();
      bytes.assign(b.begin() + long(off), b.begin() + long(off + n));
    } else {
      const std::string uri = im["uri"].get<std::string>();
      if (!retail::decode_data_uri(uri, bytes))
        for (const auto& e : d.external)
          if (e.uri == uri) bytes = e.bytes; // a sidecar, as read beside the file
    }
    out.push_back(std::move(bytes));
  }
  return out;
}

/// A report's figures: the characters (pieces, chains, stretch, bake) without paths or times.
Json figures(const std::string& report_path) {
  Json r = Json::parse(retail::read_file(report_path));
  return r["characters"];
}

/// The files in `dir`, by name.
std::set<std::string> files_in(const std::string& dir) {
  std::set<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out.insert(e.path().filename().string());
  return out;
}

} // namespace

TEST_CASE("convert: GLB -> .gltf writes OUT.bin beside it - same model, figures and images",
          "[cli][convert]") {
  std::string dir = test::temp_dir(), in = rig_with_image(dir);
  REQUIRE(test::run_retail({"-q", in, dir + "/a.glb"}) == 0);
  REQUIRE(test::run_retail({"-q", in, dir + "/a.gltf"}) == 0);
  CHECK(files_in(dir) ==
        std::set<std::string>{"rig.glb", "a.glb", "a.report.json", "a.gltf", "a.bin"});
  retail::Document glb = retail::read_document(dir + "/a.glb");
  retail::Document gltf = retail::read_document(dir + "/a.gltf");
  CHECK(gltf.container == retail::Container::Gltf);
  REQUIRE(gltf.external.size() == 1);
  CHECK(gltf.gltf["buffers"][0]["uri"] == "a.bin");
  Json without_uri = gltf.gltf;
  without_uri["buffers"][0].erase("uri");
  CHECK(without_uri == glb.gltf); // the same JSON, key order included, but for the reference
  const std::size_t n = glb.gltf["buffers"][0]["byteLength"];
  CHECK(gltf.buffers[0] == Bytes(glb.buffers[0].begin(), glb.buffers[0].begin() + long(n)));
  CHECK(image_bytes(dir + "/a.gltf") == std::vector<Bytes>{kPng});
  // Both containers are the same re-rig: one chain, the same stretch and bake figures.
  Json fig = figures(dir + "/a.report.json");
  CHECK(fig[0]["chains"].size() == 1);
  std::string dir2 = test::temp_dir();
  REQUIRE(test::run_retail({"-q", in, dir2 + "/a.glb"}) == 0);
  CHECK(figures(dir2 + "/a.report.json") == fig);
}

TEST_CASE("convert: glb -> gltf -> glb round trip is byte-identical - conversion deterministic",
          "[cli][convert]") {
  std::string dir = test::temp_dir(), in = rig_with_image(dir);
  std::string d1 = dir + "/one", d2 = dir + "/two";
  fs::create_directories(d1), fs::create_directories(d2);
  REQUIRE(test::run_retail({"-q", in, d1 + "/x.gltf"}) == 0);
  REQUIRE(test::run_retail({"-q", in, d2 + "/x.gltf"}) == 0);
  CHECK(retail::read_file(d1 + "/x.gltf") == retail::read_file(d2 + "/x.gltf"));
  CHECK(retail::read_file(d1 + "/x.bin") == retail::read_file(d2 + "/x.bin"));
  CHECK(figures(d1 + "/x.report.json") == figures(d2 + "/x.report.json"));
  // Back to GLB without changing the model (--mode detect): the same bytes as IN -> GLB.
  REQUIRE(test::run_retail({"-q", in, dir + "/direct.glb"}) == 0);
  REQUIRE(test::run_retail({"-q", "--mode", "detect", d1 + "/x.gltf", dir + "/back.glb"}) == 0);
  CHECK(retail::read_file(dir + "/back.glb") == retail::read_file(dir + "/direct.glb"));
  CHECK(image_bytes(dir + "/back.glb") == std::vector<Bytes>{kPng});
  // A second detect pass over the GLB gives the same .gltf and .bin again.
  fs::create_directories(dir + "/three");
  REQUIRE(test::run_retail({"-q", "--mode", "detect", dir + "/back.glb", dir + "/three/x.gltf"}) ==
          0);
  CHECK(retail::read_file(dir + "/three/x.gltf") == retail::read_file(d1 + "/x.gltf"));
  CHECK(retail::read_file(dir + "/three/x.bin") == retail::read_file(d1 + "/x.bin"));
}

TEST_CASE("convert: .gltf with sidecars and data URIs -> one self-contained GLB",
          "[cli][convert]") {
  std::string dir = test::temp_dir(), src = rig_with_image(dir, "src.glb");
  fs::create_directories(dir + "/in");
  REQUIRE(test::run_retail({"-q", "--mode", "detect", src, dir + "/in/m.gltf"}) == 0);
  // The .gltf gains a sidecar image, a data-URI image, an image of unknown type, and a second,
  // data-URI buffer with a view of its own.
  Json j = Json::parse(retail::read_file(dir + "/in/m.gltf"));
  test::write_bytes(dir + "/in/tex 1.png", kJpeg); // named .png, holds a JPEG: sniffed
  test::write_bytes(dir + "/in/odd.xyz", Bytes{1, 2, 3});
  j["images"].push_back({{"uri", "tex%201.png"}});
  j["images"].push_back({{"uri", "data:image/png;base64,iVBORw0KGgoBAgMEBQ=="}});
  j["images"].push_back({{"uri", "odd.xyz"}});
  j["buffers"].push_back(
      {{"uri", "data:application/octet-stream;base64,AQIDBAUG"}, {"byteLength", 6}});
  j["bufferViews"].push_back({{"buffer", 1}, {"byteLength", 6}});
  std::string text = j.dump();
  test::write_bytes(dir + "/in/m.gltf", Bytes(text.begin(), text.end()));
  const std::vector<Bytes> before = image_bytes(dir + "/in/m.gltf");
  REQUIRE(test::run_retail({"-q", dir + "/in/m.gltf", dir + "/out.glb"}) == 0);
  retail::Document out = retail::read_document(dir + "/out.glb");
  CHECK(out.container == retail::Container::Glb);
  CHECK(out.gltf["buffers"].size() == 1);
  CHECK(image_bytes(dir + "/out.glb") == before);
  CHECK(out.gltf["images"][1]["mimeType"] == "image/jpeg");
  CHECK(out.gltf["images"][2]["mimeType"] == "image/png");
  CHECK(out.gltf["images"][3]["uri"] == "odd.xyz"); // unknown type: kept by reference
  CHECK(fs::exists(dir + "/odd.xyz"));
  const Json& moved = out.gltf["bufferViews"][j["bufferViews"].size() - 1];
  CHECK(moved["buffer"] == 0);
  const std::size_t off = moved["byteOffset"];
  CHECK(Bytes(out.buffers[0].begin() + long(off), out.buffers[0].begin() + long(off + 6)) ==
        Bytes{1, 2, 3, 4, 5, 6});
  CHECK(off % 4 == 0);
  // And back: the embedded images stay in buffer views, in OUT.bin.
  REQUIRE(test::run_retail({"-q", "--mode", "detect", dir + "/out.glb", dir + "/back.gltf"}) == 0);
  CHECK(image_bytes(dir + "/back.gltf") == before);
}

TEST_CASE("convert: a failed conversion leaves nothing - names that clash are refused",
          "[cli][convert]") {
  std::string dir = test::temp_dir(), in = rig_with_image(dir);
  std::string err;
  // The report cannot be written: neither OUT nor its .bin stays.
  CHECK(test::run_retail({in, dir + "/a.gltf", "--report", dir + "/no/such/r.json"}, nullptr,
                         &err) == 4);
  // The .bin would be the report, or the input itself (a GLB named .bin).
  CHECK(test::run_retail({in, dir + "/b.gltf", "--report", dir + "/b.bin"}, nullptr, &err) == 1);
  fs::copy_file(in, dir + "/c.bin");
  CHECK(test::run_retail({dir + "/c.bin", dir + "/c.gltf"}, nullptr, &err) == 1);
  CHECK(err.find("c.bin") != std::string::npos);
  // A GLB chunk that is neither JSON nor BIN has no place in a .gltf (exit 3, named).
  retail::Document doc = retail::read_document(in);
  doc.extra_chunks.push_back({0x12345678, Bytes{1, 2, 3, 4}});
  test::write_bytes(dir + "/d.glb", retail::serialize_document(doc));
  CHECK(test::run_retail({dir + "/d.glb", dir + "/d.gltf"}, nullptr, &err) == 3);
  CHECK(err.find("has no place in a .gltf") != std::string::npos);
  CHECK(test::run_retail({in, dir + "/e.obj"}, nullptr, &err) == 1);
  CHECK(files_in(dir) == std::set<std::string>{"rig.glb", "c.bin", "d.glb"});
}

TEST_CASE("convert: .vrm is a GLB - a .vrm name without VRM metadata is said once",
          "[cli][convert]") {
  std::string dir = test::temp_dir(), in = rig_with_image(dir, "avatar.vrm");
  std::string err;
  REQUIRE(test::run_retail({"-q", in, dir + "/a.gltf"}, nullptr, &err) == 0);
  CHECK(retail::read_document(dir + "/a.gltf").container == retail::Container::Gltf);
  REQUIRE(test::run_retail({"-q", dir + "/a.gltf", dir + "/b.vrm"}, nullptr, &err) == 0);
  CHECK(retail::read_document(dir + "/b.vrm").container == retail::Container::Glb);
  CHECK(err.find("no VRM metadata") != std::string::npos);
  REQUIRE(test::run_retail({"-q", in, dir + "/c.glb"}, nullptr, &err) == 0);
  CHECK(err.find("VRM") == std::string::npos);
}

TEST_CASE("shared: every shared model converts both ways - images, JSON and figures kept",
          "[shared][convert]") {
  std::string data = test::shared_data();
  if (data.empty()) return;
  for (const auto& in : test::model_files(data)) {
    INFO(in);
    std::string dir = test::temp_dir();
    const bool glb = retail::read_document(in).container == retail::Container::Glb;
    const std::string same = dir + (glb ? "/same.glb" : "/same.gltf");
    const std::string other = dir + (glb ? "/other.gltf" : "/other.glb");
    const std::string back = dir + (glb ? "/back.glb" : "/back.gltf");
    int rc_same = test::run_retail({"-q", in, same}),
        rc_other = test::run_retail({"-q", in, other});
    CHECK(rc_other == rc_same);
    if (rc_same != 0 && rc_same != 6) continue; // not re-riggable: the same refusal either way
    CHECK(figures(dir + "/same.report.json") == figures(dir + "/other.report.json"));
    CHECK(image_bytes(other) == image_bytes(same));
    CHECK(image_bytes(same) == image_bytes(in)); // textures are never touched
    REQUIRE(test::run_retail({"-q", "--mode", "detect", other, back}) == 0);
    CHECK(image_bytes(back) == image_bytes(in));
    if (glb) // GLB -> .gltf -> GLB: the same bytes as the same-container run
      CHECK(retail::read_file(back) == retail::read_file(same));
  }
}

} // namespace test_convert
