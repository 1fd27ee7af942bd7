// The QA page's models: every view of a .gltf input is a whole model (no buffer without data),
// an image a relative uri names is in the page (nothing to fetch), each distinct run of bytes is
// embedded once, and a buffer view no accessor or image reads costs the page neither bytes nor
// memory. Read back here as the page's loader reads them (tools/html/page.js: each view's glTF
// JSON, its buffer views from the blobs); the page in Chromium: tests/js/html_page.mjs.
#include "retail/base/error.h"
#include "retail/io/io.h"
#include "retail/record/html_page.h"
#include "robust_support.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace test_robust_pages {

namespace fs = std::filesystem;
using retail::Bytes;
using retail::Json;

namespace {

std::string read_text(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

/// The JSON in the page's <script id="retail-data"> element.
Json page_data(const std::string& html) {
  const std::string open = "id=\"retail-data\">";
  const std::size_t a = html.find(open) + open.size(), b = html.find("</script>", a);
  return Json::parse(html.substr(a, b - a));
}

/// How many <script id="retail-blob-N"> elements the page has.
std::size_t blob_count(const std::string& html) {
  std::size_t n = 0;
  for (std::size_t at = html.find("id=\"retail-blob-"); at != std::string::npos;
       at = html.find("id=\"retail-blob-", at + 1))
    ++n;
  return n;
}

/// The bytes of the page's <script id="retail-blob-N"> element (base64).
Bytes page_blob(const std::string& html, int n) {
  const std::string open = "id=\"retail-blob-" + std::to_string(n) + "\">";
  const std::size_t a = html.find(open);
  REQUIRE(a != std::string::npos);
  const std::size_t from = a + open.size(), to = html.find("</script>", from);
  Bytes out;
  REQUIRE(retail::decode_data_uri("data:;base64," + html.substr(from, to - from), out));
  return out;
}

/// View `view` of the page as the page's loader sees it, made a GLB: no buffer or image has a
/// uri, and every buffer view an accessor or image reads has its blob, of its byteLength.
retail::Document view_document(const std::string& html, const Json& view) {
  REQUIRE(view.contains("gltf"));
  Json g = view["gltf"];
  for (const char* list : {"buffers", "images"})
    for (const Json& item : g.value(list, Json::array())) CHECK(!item.contains("uri"));
  Bytes bin;
  Json& views = g["bufferViews"];
  REQUIRE(view["blobs"].size() == views.size());
  for (std::size_t i = 0; i < views.size(); ++i) {
    const int b = view["blobs"][i].get<int>();
    const std::size_t length = views[i]["byteLength"].get<std::size_t>();
    const Bytes bytes = b >= 0 ? page_blob(html, b) : Bytes(length, 0);
    CHECK(bytes.size() == length);
    views[i]["buffer"] = 0;
    views[i]["byteOffset"] = bin.size();
    bin.insert(bin.end(), bytes.begin(), bytes.end());
    while (bin.size() % 4) bin.push_back(0);
  }
  g["buffers"] = {{{"byteLength", bin.size()}}};
  retail::Document doc;
  doc.gltf = g;
  doc.buffers = {bin};
  doc.buffer_is_glb = {true};
  doc.buffer_external = {-1};
  return test::reparse(doc);
}

/// Every view of the page at `path` loads as a whole model with `want`'s characters (count,
/// height, skinned vertices) and clips.
void check_views(const std::string& path, const retail::Document& want, std::size_t views) {
  const std::string html = read_text(path);
  const Json data = page_data(html);
  REQUIRE(data["views"].size() == views);
  const retail::Model want_model = retail::parse_model(want);
  const auto want_chars = test::characters_of(want);
  for (const Json& v : data["views"]) {
    INFO(path << ": view " << v["key"]);
    const retail::Document doc = view_document(html, v);
    const retail::Model model = retail::parse_model(doc);
    const auto chars = test::characters_of(doc);
    CHECK(model.animations.size() == want_model.animations.size());
    REQUIRE(chars.size() == want_chars.size());
    for (std::size_t k = 0; k < chars.size(); ++k) {
      CHECK(chars[k].height == Approx(want_chars[k].height).epsilon(1e-6));
      std::size_t n = 0, m = 0;
      for (const auto& p : chars[k].primitives) n += p.vertex_count;
      for (const auto& p : want_chars[k].primitives) m += p.vertex_count;
      CHECK(n == m);
    }
  }
}

/// A valid 1x1 PNG.
Bytes tiny_png() {
  Bytes out;
  REQUIRE(retail::decode_data_uri(
      "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFB"
      "QIAX8jx0gAAAABJRU5ErkJggg==",
      out));
  return out;
}

/// `n` bytes no two runs of which are alike (a linear congruential sequence).
Bytes noise(std::size_t n, std::uint32_t seed) {
  Bytes out(n);
  for (std::size_t i = 0; i < n; ++i) {
    seed = seed * 1664525u + 1013904223u;
    out[i] = std::uint8_t(seed >> 24);
  }
  return out;
}

/// Appends `bytes` to buffer 0 of `doc` (a GLB's) as a new buffer view; returns its index.
int append_view(retail::Document& doc, const Bytes& bytes) {
  Bytes& bin = doc.buffers[0];
  while (bin.size() % 4) bin.push_back(0);
  const std::size_t at = bin.size();
  bin.insert(bin.end(), bytes.begin(), bytes.end());
  doc.gltf["buffers"][0]["byteLength"] = bin.size();
  doc.gltf["bufferViews"].push_back(
      {{"buffer", 0}, {"byteOffset", at}, {"byteLength", bytes.size()}});
  return int(doc.gltf["bufferViews"].size()) - 1;
}

} // namespace

TEST_CASE("pages: every view of a .gltf or GLB input is a whole model", "[robust][pages]") {
  if (!retail::page_supported()) {
    WARN("SKIPPED: built without three.js (scripts/setup.sh, then configure again)");
    return;
  }
  const std::string dir = test::temp_dir(), in = dir + "/in/rig.gltf";
  fs::create_directories(dir + "/in");
  retail::write_document(test::small_rig(), dir + "/rig.glb");
  REQUIRE(test::run_retail({"-q", "--mode", "detect", dir + "/rig.glb", in}) == 0);
  const retail::Document want = test::reparse(retail::read_document(dir + "/rig.glb"));
  for (const char* out : {"out.glb", "out.gltf"}) {
    INFO(out);
    REQUIRE(test::run_retail({"-q", in, dir + "/" + out, "--html", dir + "/" + out + ".html"}) ==
            0);
    check_views(dir + "/" + out + ".html", want, 3);
  }
  // The same from the GLB (its rig edit's accessors written as signed integers).
  REQUIRE(test::run_retail(
              {"-q", dir + "/rig.glb", dir + "/glb.glb", "--html", dir + "/glb.html"}) == 0);
  check_views(dir + "/glb.html", want, 3);
  REQUIRE(test::run_retail({"report", "-q", in, "--html", dir + "/report.html"}) == 0);
  check_views(dir + "/report.html", want, 1);
  REQUIRE(test::run_retail({"batch", "-q", dir + "/in", dir + "/batch", "--html"}) == 0);
  check_views(dir + "/batch/rig.html", want, 3);
}

TEST_CASE("pages: images by uri are in the page, each distinct run of bytes once",
          "[robust][pages]") {
  if (!retail::page_supported()) {
    WARN("SKIPPED: built without three.js (scripts/setup.sh, then configure again)");
    return;
  }
  const std::string dir = test::temp_dir();
  retail::Document doc = test::small_rig();
  retail::write_document(doc, dir + "/plain.glb");
  // A relative uri, the same PNG as a data URI, and 4 MiB in a buffer view, all used.
  const Bytes png = tiny_png(), big = noise(4u << 20, 7);
  const int big_view = append_view(doc, big);
  doc.gltf["images"] = {
      {{"uri", "tex.png"}},
      {{"uri", "data:image/png;base64," + retail::base64(png.data(), png.size())}},
      {{"bufferView", big_view}, {"mimeType", "image/png"}}};
  doc.gltf["textures"] = {{{"source", 0}}, {{"source", 1}}, {{"source", 2}}};
  doc.gltf["materials"][0]["pbrMetallicRoughness"]["baseColorTexture"] = {{"index", 0}};
  doc.gltf["materials"][0]["normalTexture"] = {{"index", 1}};
  doc.gltf["materials"][0]["occlusionTexture"] = {{"index", 2}};
  test::write_bytes(dir + "/tex.png", png);
  test::write_bytes(dir + "/rig.glb", retail::serialize_document(doc));
  REQUIRE(test::run_retail({"-q", dir + "/plain.glb", dir + "/plain-out.glb", "--html",
                            dir + "/plain.html"}) == 0);
  REQUIRE(test::run_retail(
              {"-q", dir + "/rig.glb", dir + "/out.glb", "--html", dir + "/rig.html"}) == 0);
  const std::string html = read_text(dir + "/rig.html");
  const Json data = page_data(html);
  REQUIRE(data["views"].size() == 3);
  for (const Json& v : data["views"]) {
    INFO("view " << v["key"]);
    const Json& images = v["gltf"]["images"];
    REQUIRE(images.size() == 3);
    for (std::size_t i = 0; i < 3; ++i) {
      CHECK(!images[i].contains("uri"));
      REQUIRE(images[i].contains("bufferView"));
      const int blob = v["blobs"][images[i]["bufferView"].get<std::size_t>()].get<int>();
      CHECK(page_blob(html, blob) == (i < 2 ? png : big));
    }
    CHECK(images[0]["mimeType"] == "image/png");
  }
  // Each distinct run once: no two blobs alike, and the 4 MiB image once in the page's size.
  const std::size_t blobs = blob_count(html);
  for (std::size_t a = 0; a < blobs; ++a)
    for (std::size_t b = a + 1; b < blobs; ++b)
      CHECK(page_blob(html, int(a)) != page_blob(html, int(b)));
  const double extra = double(html.size()) - double(fs::file_size(dir + "/plain.html"));
  CHECK(extra > double(big.size()) * 4 / 3);
  CHECK(extra < double(big.size()) * 4 / 3 * 1.1); // three copies before
}

namespace {

/// `in` with a 40 MiB buffer view nothing reads, its page and peak memory with and without
/// --html against the page of `in` itself: the dead view costs the page neither bytes nor
/// memory.
void check_dead_view(const std::string& in) {
  const std::string dir = test::temp_dir();
  retail::Document doc = retail::read_document(in);
  const Bytes dead = noise(40u << 20, 11);
  append_view(doc, dead);
  test::write_bytes(dir + "/dead.glb", retail::serialize_document(doc));
  REQUIRE(test::run_retail({"-q", in, dir + "/plain.glb", "--html", dir + "/plain.html"}) == 0);
  int code = -1;
  const long without = test::peak_kb({"-q", dir + "/dead.glb", dir + "/a.glb"}, code);
  REQUIRE(code == 0);
  const long with =
      test::peak_kb({"-q", dir + "/dead.glb", dir + "/b.glb", "--html", dir + "/b.html"}, code);
  REQUIRE(code == 0);
  const double page = double(fs::file_size(dir + "/b.html")),
               plain = double(fs::file_size(dir + "/plain.html"));
  INFO(in << ": peak " << without / 1024 << " MB without --html, " << with / 1024
          << " MB with; page " << page / 1e6 << " MB, " << plain / 1e6 << " MB without the view");
  CHECK(page < plain + 64e3); // 171 MB before
  // The page may copy the document once (the rigid view); the dead bytes are not embedded.
#if !RETAIL_TEST_ASAN // the sanitizer's shadow memory and quarantine say nothing of retail's
  CHECK(double(with - without) * 1024 < 2.5 * double(dead.size())); // 24 times before
  CHECK(double(with) * 1024 < 1e9);
#endif
}

} // namespace

TEST_CASE("pages: a buffer view nothing reads costs the page nothing", "[robust][pages]") {
  if (!retail::page_supported()) {
    WARN("SKIPPED: built without three.js (scripts/setup.sh, then configure again)");
    return;
  }
  const std::string dir = test::temp_dir();
  retail::write_document(test::small_rig(), dir + "/rig.glb");
  check_dead_view(dir + "/rig.glb");
}

TEST_CASE("pages: the fox with a dead 40 MiB buffer view", "[shared][pages]") {
  const std::string shared = test::shared_data();
  if (shared.empty() || !retail::page_supported()) return;
  check_dead_view(shared + "/auto-rigged/fox-tail-on-legs.glb");
}

} // namespace test_robust_pages
