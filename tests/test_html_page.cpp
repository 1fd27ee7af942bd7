// The QA page: the heat map on a rig whose answer is worked out by hand, the heat codes, the page
// writer's escaping and embedding, and --html on the command line (OUT and its report unchanged,
// no partial output). The page in a browser: tests/js/html_page.mjs.
#include "retail/base/error.h"
#include "retail/grow/rerig.h"
#include "retail/grow/rig_edit.h"
#include "retail/io/io.h"
#include "retail/io/validate.h"
#include "retail/motion/bake.h"
#include "retail/qa/heat_map.h"
#include "retail/qa/stretch.h"
#include "retail/record/html_index.h"
#include "retail/record/html_page.h"
#include "retail/rig/animation.h"
#include "support.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace test_html_page {

namespace fs = std::filesystem;
using retail::Bytes;
using retail::Json;

namespace {

template <typename T> void put(Bytes& b, const std::vector<T>& values) {
  const std::size_t at = b.size();
  b.resize(at + values.size() * sizeof(T));
  std::memcpy(b.data() + at, values.data(), values.size() * sizeof(T));
  while (b.size() % 4) b.push_back(0);
}

/// One triangle v0 (0,0,0), v1 (1,0,0), v2 (0,1,0): v0 and v1 on joint Root, v2 on joint B (both
/// at the origin at bind, identity inverse bind matrices). Clip "Move" translates B by (0,0,0),
/// (0,1,0), (0,-0.6,0) at t = 0, 1, 2 s, so with 3 samples v2 sits at (0,1,0), (0,2,0) and
/// (0,0.4,0). Edge ratios at t = 1: v0v1 1, v0v2 2, v1v2 sqrt(5/2); at t = 2: v0v1 1, v0v2 0.4,
/// v1v2 sqrt(1.16/2). Worst per vertex: v0 max 2, min 0.4 -> 0.4 (2 * 0.4 < 1: the squash is
/// farther from 1); v1 max sqrt(2.5), min sqrt(0.58) -> sqrt(2.5); v2 as v0 -> 0.4.
retail::Document triangle_rig() {
  Bytes bin;
  put<float>(bin, {0, 0, 0, 1, 0, 0, 0, 1, 0});                 // 0: positions, 36 bytes
  put<std::uint16_t>(bin, {0, 1, 2});                           // 36: indices, 6 (+2)
  put<std::uint8_t>(bin, {0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0}); // 44: joints, 12
  put<float>(bin, {1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0});        // 56: weights, 48
  std::vector<float> ibm;
  for (int k = 0; k < 2; ++k)
    for (int i = 0; i < 16; ++i) ibm.push_back(i % 5 == 0 ? 1.0f : 0.0f);
  put<float>(bin, ibm);                             // 104: IBMs, 128
  put<float>(bin, {0, 1, 2});                       // 232: times, 12
  put<float>(bin, {0, 0, 0, 0, 1, 0, 0, -0.6f, 0}); // 244: translations, 36
  auto view = [](int offset, int length) {
    return Json{{"buffer", 0}, {"byteOffset", offset}, {"byteLength", length}};
  };
  auto acc = [](int v, int type, int count, const char* kind) {
    return Json{{"bufferView", v}, {"componentType", type}, {"count", count}, {"type", kind}};
  };
  Json g = {
      {"asset", {{"version", "2.0"}}},
      {"scene", 0},
      {"scenes", {{{"nodes", {0, 2}}}}},
      {"nodes",
       {{{"name", "Root"}, {"children", {1}}},
        {{"name", "B"}},
        {{"name", "Mesh"}, {"mesh", 0}, {"skin", 0}}}},
      {"skins", {{{"joints", {0, 1}}, {"inverseBindMatrices", 4}}}},
      {"meshes",
       {{{"primitives",
          {{{"attributes", {{"POSITION", 0}, {"JOINTS_0", 2}, {"WEIGHTS_0", 3}}},
            {"indices", 1}}}}}}},
      {"animations",
       {{{"name", "Move"},
         {"samplers", {{{"input", 5}, {"output", 6}}}},
         {"channels", {{{"sampler", 0}, {"target", {{"node", 1}, {"path", "translation"}}}}}}}}},
      {"buffers", {{{"byteLength", bin.size()}}}},
      {"bufferViews",
       {view(0, 36), view(36, 6), view(44, 12), view(56, 48), view(104, 128), view(232, 12),
        view(244, 36)}},
      {"accessors",
       {acc(0, 5126, 3, "VEC3"), acc(1, 5123, 3, "SCALAR"), acc(2, 5121, 3, "VEC4"),
        acc(3, 5126, 3, "VEC4"), acc(4, 5126, 2, "MAT4"), acc(5, 5126, 3, "SCALAR"),
        acc(6, 5126, 3, "VEC3")}}};
  g["accessors"][0]["min"] = {0, 0, 0};
  g["accessors"][0]["max"] = {1, 1, 0};
  g["accessors"][5]["min"] = {0};
  g["accessors"][5]["max"] = {2};
  retail::Document doc;
  doc.container = retail::Container::Glb;
  doc.gltf = g;
  doc.buffers = {bin};
  doc.buffer_is_glb = {true};
  doc.buffer_external = {-1};
  return test::reparse(doc);
}

std::string read_text(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

/// The JSON in the page's <script id="retail-data"> element.
Json page_data(const std::string& page) {
  const std::string open = "id=\"retail-data\">";
  const std::size_t a = page.find(open) + open.size(), b = page.find("</script>", a);
  return Json::parse(page.substr(a, b - a));
}

Json without_timings(Json report) {
  report.erase("timings_ms");
  report.erase("work_ms");
  report["output"].erase("path");
  return report;
}

} // namespace

TEST_CASE("heat map: per vertex the worst ratio of its edges over the clip", "[html]") {
  const retail::Document doc = triangle_rig();
  const retail::Model model = retail::parse_model(doc);
  const auto characters = test::characters_of(doc);
  REQUIRE(characters.size() == 1);
  const auto heat = retail::heat_map(doc, model, characters, {0}, 3, 1);
  REQUIRE(heat.size() == 1);
  REQUIRE(heat[0].worst.size() == 1);
  const auto& w = heat[0].worst[0];
  REQUIRE(w.size() == 3);
  CHECK(w[0] == Approx(0.4).epsilon(1e-6));
  CHECK(w[1] == Approx(std::sqrt(2.5)).epsilon(1e-6));
  CHECK(w[2] == Approx(0.4).epsilon(1e-6));
  // Two samples (t = 0 and 2 s) never see the stretch at 1 s: v1 then reads its squash.
  const auto two = retail::heat_map(doc, model, characters, {0}, 2, 1);
  CHECK(two[0].worst[0][1] == Approx(std::sqrt(0.58)).epsilon(1e-6));
  // The same values on more threads.
  CHECK(retail::heat_map(doc, model, characters, {0, 0}, 3, 2)[0].worst[1] == w);
  CHECK_THROWS_AS(retail::heat_map(doc, model, characters, {0}, 1, 1), retail::Error);
}

TEST_CASE("heat map: a planned rig with its keys as values reads as the written document",
          "[html]") {
  // The page's output view is measured on the rig the plans make in memory with the keys added
  // as values (nothing parsed back); it must read what the written document reads.
  retail::GeneratedRig rig = test::make_rig(retail::RigOptions{});
  const retail::Model input = retail::parse_model(rig.doc);
  const retail::Character c = retail::build_characters(rig.doc, input, {})[0];
  const retail::CharacterPlan plan = retail::plan_character(rig.doc, input, c, {});
  REQUIRE(plan.edit.nodes.size() >= 2);
  retail::BakedClip baked; // a bend on the chain's first two bones, over clip 0
  baked.bake.clip = 0;
  baked.times = {0.0f, 0.5f, 1.0f};
  baked.authored = {false, false};
  const float s = std::sin(0.3f), co = std::cos(0.3f);
  baked.values = {{0, 0, 0, 1, s, 0, 0, co, 0, 0, 0, 1}, {0, 0, 0, 1, 0, s, 0, co, 0, s, 0, co}};
  const std::vector<int> nodes = {plan.edit.first_node, plan.edit.first_node + 1};
  retail::Document written = rig.doc;
  retail::apply_rig_edit(written, input, plan.edit);
  retail::write_baked_clip(written, baked, nodes);
  const retail::Model parsed = retail::parse_model(written);
  const auto from_file =
      retail::heat_map(written, parsed, retail::build_characters(written, parsed, {}), {0}, 7, 1);
  std::vector<retail::RotationTrack> tracks;
  retail::append_baked_tracks(baked, nodes, tracks);
  REQUIRE(tracks.size() == 2);
  const retail::PlannedRig planned = retail::planned_rig(written, input, plan.edit);
  const auto in_memory = retail::heat_map(
      written, planned.model, retail::build_characters(written, planned.model, {}, &planned.held),
      {0}, 7, 1, &planned.held, &tracks);
  REQUIRE(from_file.size() == 1);
  REQUIRE(in_memory.size() == 1);
  CHECK(in_memory[0].worst[0] == from_file[0].worst[0]);
  // Without the keys the chain does not bend: the heat differs, so the keys were read.
  const auto unkeyed = retail::heat_map(
      written, planned.model, retail::build_characters(written, planned.model, {}, &planned.held),
      {0}, 7, 1, &planned.held);
  CHECK(unkeyed[0].worst[0] != from_file[0].worst[0]);
}

TEST_CASE("heat map: one byte per vertex, 1.0 at 128, 2^(1/64) a step", "[html]") {
  CHECK(retail::heat_code(1.0) == 128);
  CHECK(retail::heat_code(2.0) == 192);
  CHECK(retail::heat_code(0.5) == 64);
  CHECK(retail::heat_code(1.5) == 165); // 128 + 64 log2 1.5 = 165.4
  CHECK(retail::heat_code(100.0) == 255);
  CHECK(retail::heat_code(0.01) == 0);
  CHECK(retail::heat_code(0.0) == 0);
  CHECK(retail::heat_code(INFINITY) == 255);
  CHECK(retail::heat_code(NAN) == 128);
  for (int c = 0; c < 256; ++c) CHECK(retail::heat_code(retail::heat_ratio(std::uint8_t(c))) == c);
}

TEST_CASE("page writer: escaping, base64, templates", "[html]") {
  CHECK(retail::script_safe("a</script>b<!--c</SCRIPT x") == "a<\\/script>b<\\!--c<\\/SCRIPT x");
  CHECK(retail::script_safe("x < y && a</b") == "x < y && a</b");
  const Json j = {{"name", "</script><script>alert(1)</script>&"}};
  const std::string text = retail::json_in_script(j);
  CHECK(text.find('<') == std::string::npos);
  CHECK(text.find('>') == std::string::npos);
  CHECK(text.find('&') == std::string::npos);
  CHECK(Json::parse(text) == j);
  CHECK(retail::html_text("<a href=\"x\">'&'</a>") ==
        "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
  auto b64 = [](const std::string& s) {
    return retail::base64(reinterpret_cast<const std::uint8_t*>(s.data()), s.size());
  };
  CHECK(b64("") == "");
  CHECK(b64("f") == "Zg==");
  CHECK(b64("fo") == "Zm8=");
  CHECK(b64("foo") == "Zm9v");
  CHECK(b64("foobar") == "Zm9vYmFy");
  CHECK(retail::fill_template("<{{a}}|{{b}}>", {{"a", "{{b}}"}, {"b", "2"}}) == "<{{b}}|2>");
  CHECK_THROWS_AS(retail::fill_template("{{c}}", {{"a", "1"}}), std::logic_error);
}

TEST_CASE("page writer: the models, heat maps and report embedded, names escaped", "[html]") {
  if (!retail::page_supported()) {
    WARN("SKIPPED: built without three.js (scripts/setup.sh, then configure again)");
    return;
  }
  retail::Document doc = triangle_rig();
  doc.gltf["animations"][0]["name"] = "</script><script>alert(1)</script>";
  doc = test::reparse(doc);
  const retail::Model model = retail::parse_model(doc);
  retail::PageData page;
  page.kind = "report";
  page.title = "<tri>.glb";
  page.clips = retail::page_clips(doc, model, {0});
  page.views.push_back(
      retail::make_view("rig", "Rig", doc, model, test::characters_of(doc), {0}, 3, 1, page.blobs));
  page.tail = {{2}};
  page.report = {{"schema", "retail.stretch/1"}, {"file", "</script>"}};
  const std::string html = retail::make_page(page);
  CHECK(html == retail::make_page(page)); // deterministic
  CHECK(html.find("<script>alert") == std::string::npos);
  CHECK(html.find("<title>retail QA: &lt;tri&gt;.glb</title>") != std::string::npos);
  const Json data = page_data(html);
  CHECK(data["title"] == "<tri>.glb");
  CHECK(data["report"]["file"] == "</script>");
  CHECK(data["clips"][0]["name"] == "</script><script>alert(1)</script>");
  CHECK(data["clips"][0]["duration"] == Approx(2.0));
  // The heat map: one entry for the mesh's primitive, its codes those of the worked example.
  const Json& heat = data["views"][0]["heat"];
  REQUIRE(heat.size() == 1);
  CHECK(heat[0]["node"] == 2);
  const std::uint8_t want[3] = {retail::heat_code(0.4), retail::heat_code(std::sqrt(2.5)),
                                retail::heat_code(0.4)};
  CHECK(heat[0]["clips"][0] == retail::base64(want, 3));
  const std::uint8_t flags[3] = {0, 0, 1};
  CHECK(data["tail"][0]["vertices"] == retail::base64(flags, 3));
  // The model: its JSON without buffer data, each buffer view's bytes in a blob element.
  const Json& view = data["views"][0];
  CHECK(view["gltf"]["buffers"] == Json::array({{{"byteLength", doc.buffers[0].size()}}}));
  REQUIRE(view["blobs"].size() == doc.gltf["bufferViews"].size());
  for (std::size_t i = 0; i < view["blobs"].size(); ++i) {
    const Json& bv = doc.gltf["bufferViews"][i];
    const std::uint8_t* at = doc.buffers[0].data() + bv.value("byteOffset", 0);
    const std::string id =
        "id=\"retail-blob-" + std::to_string(view["blobs"][i].get<int>()) + "\">";
    CHECK(html.find(id + retail::base64(at, bv["byteLength"].get<std::size_t>()) + "</script>") !=
          std::string::npos);
  }
  // A wrong clip count is a caller's bug.
  page.clips.push_back(page.clips[0]);
  CHECK_THROWS_AS(retail::make_page(page), std::invalid_argument);
}

TEST_CASE("batch index: rows and the needs-a-look rule", "[html]") {
  retail::IndexRow ok, warned, worse, failed;
  ok.path = "a/<ok>.glb", ok.status = "ok";
  warned = ok, warned.warnings = {"w"};
  worse = ok, worse.worse = true;
  failed = ok, failed.status = "failed", failed.error = "bad";
  retail::IndexRow torn = ok;
  torn.left_torn = 12; // skin left tearing as it came, with no warning copied into the row
  CHECK(!retail::needs_look(ok));
  CHECK(retail::needs_look(torn));
  CHECK(retail::needs_look(warned));
  CHECK(retail::needs_look(worse));
  CHECK(retail::needs_look(failed));
  const std::string html = retail::make_batch_index("in</script>", {ok, warned, worse, failed});
  CHECK(html.find("in</script>") == std::string::npos);
  const Json data = page_data(html);
  REQUIRE(data["rows"].size() == 4);
  CHECK(data["rows"][0]["path"] == "a/<ok>.glb");
  CHECK(data["rows"][0]["needs_look"] == false);
  CHECK(data["rows"][3]["needs_look"] == true);
}

TEST_CASE("cli: --html leaves OUT and its report as they are - no partial output", "[html][cli]") {
  if (!retail::page_supported()) {
    WARN("SKIPPED: built without three.js (scripts/setup.sh, then configure again)");
    return;
  }
  const std::string dir = test::temp_dir(), in = dir + "/rig.glb";
  retail::RigOptions o;
  o.tail = retail::TailStyle::Carried;
  test::write_bytes(in, retail::serialize_document(retail::generate_rig(o).doc));
  REQUIRE(test::run_retail({"-q", in, dir + "/a.glb"}) == 0);
  REQUIRE(test::run_retail({"-q", in, dir + "/b.glb", "--html", dir + "/b.html"}) == 0);
  CHECK(read_text(dir + "/a.glb") == read_text(dir + "/b.glb"));
  CHECK(without_timings(Json::parse(read_text(dir + "/a.report.json"))) ==
        without_timings(Json::parse(read_text(dir + "/b.report.json"))));
  const std::string page = read_text(dir + "/b.html");
  const Json data = page_data(page);
  CHECK(data["kind"] == "rerig");
  REQUIRE(data["views"].size() == 3);
  CHECK(data["views"][2]["chain_nodes"].size() > 0);
  CHECK(data["report"].contains("timings_ms") == false);
  // Deterministic: the same run, the same page.
  REQUIRE(test::run_retail({"-q", in, dir + "/c.glb", "--html", dir + "/c.html"}) == 0);
  Json again = page_data(read_text(dir + "/c.html"));
  again["report"]["output"] = data["report"]["output"];
  CHECK(again == data);
  // A page that cannot be written: exit 4, and neither OUT nor its report is left.
  std::string err;
  CHECK(test::run_retail({"-q", in, dir + "/d.glb", "--html", dir + "/no/d.html"}, nullptr, &err) ==
        4);
  CHECK(err.find("no") != std::string::npos);
  CHECK(!fs::exists(dir + "/d.glb"));
  CHECK(!fs::exists(dir + "/d.report.json"));
  // The page over the input: a usage error, nothing written.
  CHECK(test::run_retail({"-q", in, dir + "/e.glb", "--html", in}) == 1);
  CHECK(!fs::exists(dir + "/e.glb"));
  // retail report IN --html: one view.
  REQUIRE(test::run_retail({"report", "-q", dir + "/b.glb", "--html", dir + "/r.html"}) == 0);
  const Json rd = page_data(read_text(dir + "/r.html"));
  CHECK(rd["kind"] == "report");
  CHECK(rd["views"].size() == 1);
  CHECK(rd["tail"].size() > 0);
}

} // namespace test_html_page
