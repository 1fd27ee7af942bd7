// A technical artist's first day (issue 32): help in groups, --dry-run, --config and
// --print-config, data on stdout, clip globs, piece selectors, units on figures.
#include "retail/app/pipeline.h"
#include "retail/base/error.h"
#include "retail/base/files.h"
#include "retail/base/glob.h"
#include "retail/base/units.h"
#include "retail/detect/selector.h"
#include "retail/io/io.h"
#include "support.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <sstream>

namespace test_cli_first_day {

namespace fs = std::filesystem;
using retail::Json;

namespace {

/// A generated rig written to dir/NAME; its clips renamed to `clips` (in order) when given.
std::string rig_file(const std::string& dir, retail::TailStyle tail,
                     const std::vector<std::string>& clips = {},
                     const std::string& name = "rig.glb") {
  retail::RigOptions o;
  o.tail = tail;
  o.ears = o.cape = true;
  retail::GeneratedRig rig = retail::generate_rig(o);
  for (std::size_t i = 0; i < clips.size() && i < rig.doc.gltf["animations"].size(); ++i)
    rig.doc.gltf["animations"][i]["name"] = clips[i];
  std::string path = dir + "/" + name;
  test::write_bytes(path, retail::serialize_document(rig.doc));
  return path;
}

std::string text_of(const std::string& path) {
  retail::Bytes b = retail::read_file(path);
  return std::string(b.begin(), b.end());
}

/// The report without what differs between two runs of the same job: timings and paths.
Json comparable(Json report) {
  report.erase("timings_ms");
  report.erase("work_ms");
  report["output"].erase("path");
  report["output"].erase("dry_run");
  return report;
}

std::size_t files_in(const std::string& dir) {
  std::size_t n = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir)) n += e.is_regular_file();
  return n;
}

retail::Model model_with_clips(const std::vector<std::string>& names) {
  retail::Model m;
  for (const auto& n : names) {
    retail::Animation a;
    a.name = n;
    m.animations.push_back(a);
  }
  return m;
}

} // namespace

TEST_CASE("cli first day: glob_match by hand", "[cli][glob]") {
  using retail::glob_match;
  CHECK(glob_match("*Walk*", "Armature|Velociraptor_Walk"));
  CHECK(glob_match("*Walk", "Armature|Velociraptor_Walk"));
  CHECK_FALSE(glob_match("*Walk", "Armature|Walk_Fast"));
  CHECK(glob_match("W?lk", "Walk"));
  CHECK_FALSE(glob_match("W?lk", "Wlk"));
  CHECK_FALSE(glob_match("?", ""));
  CHECK(glob_match("*", ""));
  CHECK(glob_match("", ""));
  CHECK_FALSE(glob_match("", "a"));
  CHECK(glob_match("**", "x"));
  CHECK(glob_match("a*b*c", "axxbyyc"));
  CHECK_FALSE(glob_match("a*b*c", "axxbyy"));
  CHECK(glob_match("a*c", "a*c"));         // a star in the text is a byte like any other
  CHECK_FALSE(glob_match("walk", "Walk")); // case-sensitive
  CHECK(glob_match("*ab", "aab"));         // the star gives back what the tail needs
  CHECK_FALSE(glob_match("*a*a*a*a*b", std::string(200, 'a'))); // no backtracking blow-up
  CHECK(retail::has_wildcard("*Walk"));
  CHECK(retail::has_wildcard("Wal?"));
  CHECK_FALSE(retail::has_wildcard("Armature|Walk"));
}

TEST_CASE("cli first day: --clips takes globs and the name after the last '|'", "[cli][glob]") {
  const retail::Model m = model_with_clips(
      {"Armature|Walk", "Armature|Velociraptor_Walk", "Armature|Run", "Idle", "A|B|Jump"});
  using V = std::vector<int>;
  CHECK(retail::select_clips(m, {"Walk"}) == V{0}); // exact after '|', not a suffix
  CHECK(retail::select_clips(m, {"Jump"}) == V{4}); // after the last '|'
  CHECK(retail::select_clips(m, {"*Walk"}) == V{0, 1});
  CHECK(retail::select_clips(m, {"*Walk*"}) == V{0, 1});
  CHECK(retail::select_clips(m, {"Armature|*"}) == V{0, 1, 2});
  CHECK(retail::select_clips(m, {"?dle"}) == V{3});
  CHECK(retail::select_clips(m, {"Idle", "*Walk", "Walk"}) == V{3, 0, 1}); // each once
  try {
    retail::select_clips(m, {"*Jog*"});
    FAIL("a pattern matching no clip must be refused");
  } catch (const retail::Error& e) {
    CHECK(e.code() == retail::ExitCode::Usage);
    const std::string what = e.what();
    CHECK(what.find("no clip matches '*Jog*'") != std::string::npos);
    CHECK(what.find("'Armature|Velociraptor_Walk'") != std::string::npos); // lists the clips
  }
  CHECK_THROWS_AS(retail::select_clips(m, {"Velociraptor"}), retail::Error);
}

TEST_CASE("cli first day: batch --clips Walk takes Armature|Walk - a file without it is named with "
          "its clips",
          "[cli][glob]") {
  std::string root = test::temp_dir();
  fs::create_directories(root + "/in");
  rig_file(root + "/in", retail::TailStyle::None, {"Armature|Walk"}, "a.glb");
  rig_file(root + "/in", retail::TailStyle::None, {"Armature|Velociraptor_Walk"}, "b.glb");
  std::string out, err;
  CHECK(test::run_retail(
            {"batch", root + "/in", root + "/out", "--clips", "Walk", "--mode", "detect", "-q"},
            &out, &err) == 5);
  CHECK(fs::exists(root + "/out/a.glb"));
  CHECK(err.find("error: b.glb: no clip named 'Walk' (clips: 'Armature|Velociraptor_Walk', "
                 "'HipSwing'") != std::string::npos);
  CHECK(err.find("a.glb") == std::string::npos);
  REQUIRE(test::run_retail(
              {"batch", root + "/in", root + "/out2", "--clips", "*Walk", "--mode", "detect", "-q"},
              &out, &err) == 0);
  CHECK(fs::exists(root + "/out2/b.glb"));
}

TEST_CASE("cli first day: --help in groups, defaults as typed - named retail - batch --help lists "
          "what it passes through",
          "[cli]") {
  std::string out, err;
  REQUIRE(test::run_retail({"--help"}, &out, &err) == 0);
  CHECK(out.find("Usage: retail [OPTIONS]") != std::string::npos);
  std::size_t at = 0;
  for (const char* group :
       {"\nEveryday:", "\nDetection:", "\nSpring:", "\nHair:", "\nOutput:", "\nAdvanced:"}) {
    INFO(group);
    std::size_t found = out.find(group);
    REQUIRE(found != std::string::npos);
    CHECK(found > at);
    at = found;
  }
  CHECK(out.find("{false}") == std::string::npos);
  CHECK(out.find("{true}") == std::string::npos);
  const std::size_t everyday = out.find("\nEveryday:"), detection = out.find("\nDetection:");
  for (const char* opt : {"--clips", "--tail", "--mode", "--dry-run", "--config", "--fail-on"}) {
    INFO(opt);
    std::size_t pos = out.find(std::string("  ") + opt);
    CHECK((pos > everyday && pos < detection));
  }
  const std::size_t vrm = out.find("--vrm-springs,--no-vrm-springs");
  REQUIRE(vrm != std::string::npos);
  CHECK(out.find("(default: on)", vrm) < out.find("\n  --", vrm + 1));
  CHECK(out.find("--far FLOAT=0.07") != std::string::npos);
  std::string batch;
  REQUIRE(test::run_retail({"batch", "--help"}, &batch, &err) == 0);
  CHECK(batch.find("Usage: retail batch") != std::string::npos);
  CHECK(batch.find("Options applied to every file") != std::string::npos);
  for (const char* opt : {"--clips", "--tail", "--carry", "--far", "--no-harm-check", "--config"})
    CHECK(batch.find(opt) != std::string::npos);
}

TEST_CASE("cli first day: --print-config then --config gives the flags' output byte for byte",
          "[cli][config]") {
  std::string dir = test::temp_dir(), in = rig_file(dir, retail::TailStyle::Carried);
  const std::vector<std::string> flags = {
      "--carry", "40", "--no-vrm-springs", "--clips", "Walk,Idle", "--segment", "0.05"};
  std::string config, err;
  std::vector<std::string> print = {"--print-config"};
  print.insert(print.end(), flags.begin(), flags.end());
  REQUIRE(test::run_retail(print, &config, &err) == 0);
  CHECK(config.find("\ncarry=40\n") != std::string::npos);
  CHECK(config.find("\nvrm-springs=false\n") != std::string::npos);
  CHECK(config.find("\nclips=[\"Walk\", \"Idle\"]\n") != std::string::npos);
  CHECK(config.find("\n# far=0.07\n") != std::string::npos); // the rest at its default
  CHECK(config.find("# --- Everyday ---") < config.find("# --- Detection ---"));
  test::write_bytes(dir + "/retail.toml", retail::Bytes(config.begin(), config.end()));

  std::vector<std::string> by_flags = flags;
  by_flags.insert(by_flags.end(), {in, dir + "/flags.glb", "-q"});
  REQUIRE(test::run_retail(by_flags) == 0);
  REQUIRE(test::run_retail({"--config", dir + "/retail.toml", in, dir + "/config.glb", "-q"}) == 0);
  CHECK(retail::read_file(dir + "/flags.glb") == retail::read_file(dir + "/config.glb"));
  Json a = Json::parse(text_of(dir + "/flags.report.json"));
  Json b = Json::parse(text_of(dir + "/config.report.json"));
  CHECK(comparable(a) == comparable(b));
  CHECK(a["characters"][0]["chains"].size() == 1);
  // The command line wins over the file; the file's options print again with --config.
  std::string again;
  REQUIRE(test::run_retail({"--config", dir + "/retail.toml", "--carry", "30", "--print-config"},
                           &again, &err) == 0);
  CHECK(again.find("\ncarry=30\n") != std::string::npos);
  CHECK(again.find("\nsegment=0.05\n") != std::string::npos);
  // A name retail does not know is refused, naming the file.
  test::write_bytes(dir + "/bad.toml", retail::Bytes{'c', 'a', 'r', 'y', '=', '1', '\n'});
  CHECK(test::run_retail({"--config", dir + "/bad.toml", in, dir + "/bad.glb"}, nullptr, &err) ==
        1);
  CHECK(err.find(dir + "/bad.toml") != std::string::npos);
  CHECK(err.find("cary") != std::string::npos);
  CHECK_FALSE(fs::exists(dir + "/bad.glb"));
}

TEST_CASE("cli first day: --dry-run writes nothing but the report", "[cli][dry-run]") {
  std::string dir = test::temp_dir(), in = rig_file(dir, retail::TailStyle::Carried);
  std::string out, err;
  REQUIRE(test::run_retail({in, dir + "/real.glb", "-q"}) == 0);
  REQUIRE(test::run_retail({in, dir + "/dry.gltf", "--dry-run", "--html", dir + "/dry.html"}, &out,
                           &err) == 0);
  CHECK(files_in(dir) == 3); // the input, real.glb and its report: nothing of the dry run
  Json dry = Json::parse(out);
  CHECK(dry["output"]["dry_run"] == true);
  CHECK(err.find("dry run") != std::string::npos);
  CHECK(err.find("dry.html") != std::string::npos); // says the page is not written
  // Without OUT, to a --report path: the same plan and judgement as the real run's report,
  // the output's hash that of the bytes a run would write.
  REQUIRE(test::run_retail({in, "--dry-run", "--report", dir + "/plan.json", "-q"}, &out, &err) ==
          0);
  CHECK(out.empty());
  CHECK(files_in(dir) == 4);
  Json plan = Json::parse(text_of(dir + "/plan.json"));
  Json real = Json::parse(text_of(dir + "/real.report.json"));
  CHECK(comparable(plan) == comparable(real));
  // A batch dry run: every file's report where the batch would write it, nothing else.
  std::string folder = test::temp_dir(), outs = test::temp_dir() + "/out";
  fs::copy_file(in, folder + "/a.glb");
  REQUIRE(test::run_retail({"batch", folder, outs, "--dry-run", "--html"}, nullptr, &err) == 0);
  CHECK(err.find("dry run") != std::string::npos);
  REQUIRE(test::run_retail({"batch", "--help"}, &out, nullptr) == 0);
  CHECK(out.find("--dry-run") != std::string::npos); // passed through to every file
  CHECK(files_in(folder) == 1);                      // the input alone
  CHECK(files_in(outs) == 1); // a.report.json alone: no a.glb, no page, no index
  CHECK(Json::parse(text_of(outs + "/a.report.json"))["output"]["dry_run"] == true);
}

TEST_CASE("cli first day: data on stdout, messages on stderr", "[cli]") {
  std::string dir = test::temp_dir(), in = rig_file(dir, retail::TailStyle::None);
  std::string out, err;
  REQUIRE(test::run_retail({"info", in}, &out, &err) == 0);
  CHECK(out.find("roles (names)") != std::string::npos);
  CHECK(out.find(" m, scale = ") != std::string::npos); // H in metres
  CHECK(err.empty());
  REQUIRE(test::run_retail({"report", in, "--clips", "Walk", "--samples", "4"}, &out, &err) == 0);
  CHECK(out.find("edge stretch") != std::string::npos); // the stretch table
  CHECK(out.find("Walk") != std::string::npos);
  CHECK(err.find("stretch") != std::string::npos); // the stage lines
  CHECK(err.find("Walk ") == std::string::npos);
  REQUIRE(test::run_retail({"report", in, "--clips", "Walk", "--samples", "4", "--json", "-"}, &out,
                           &err) == 0);
  CHECK(Json::parse(out)["schema"] == "retail.stretch/1"); // the JSON alone on stdout
}

TEST_CASE("cli first day: --tail piece:N and --not-tail piece:N name the report's pieces",
          "[cli][selector]") {
  int id = -1;
  CHECK(retail::parse_piece_selector("piece:0", id));
  CHECK(id == 0);
  CHECK(retail::parse_piece_selector("piece:12", id));
  CHECK(id == 12);
  for (const char* no :
       {"piece:", "piece:x", "piece:-1", "Piece:1", "piece:1a", "0/1", "piece:1234567890"})
    CHECK_FALSE(retail::parse_piece_selector(no, id));

  std::string dir = test::temp_dir(), in = rig_file(dir, retail::TailStyle::Carried);
  std::string out, err;
  REQUIRE(test::run_retail({in, dir + "/a.glb", "--mode", "detect", "--report", "-", "-q"}, &out,
                           &err) == 0);
  const Json pieces = Json::parse(out)["characters"][0]["pieces"];
  int tail = -1, other = -1;
  for (const auto& p : pieces) {
    if (p["decision"] == "tail_chain")
      tail = p["id"].get<int>();
    else if (p["vertices"].get<int>() >= 12 && other < 0)
      other = p["id"].get<int>();
  }
  REQUIRE(tail >= 0);
  REQUIRE(other >= 0);
  // --not-tail piece:T: detection's tail is no tail.
  REQUIRE(test::run_retail({in, dir + "/b.glb", "--mode", "detect", "--report", "-", "-q",
                            "--not-tail", "piece:" + std::to_string(tail)},
                           &out, &err) == 0);
  const Json without = Json::parse(out);
  for (const auto& p : without["characters"][0]["pieces"]) CHECK(p["decision"] != "tail_chain");
  // --tail piece:O: that piece, whatever detection said of it, is a tail chain.
  REQUIRE(test::run_retail({in, dir + "/c.glb", "--mode", "detect", "--report", "-", "-q", "--tail",
                            "piece:" + std::to_string(other)},
                           &out, &err) == 0);
  bool selected = false;
  const Json with = Json::parse(out);
  for (const auto& p : with["characters"][0]["pieces"])
    if (p["selected"] == "piece:" + std::to_string(other)) {
      selected = true;
      CHECK(p["decision"] == "tail_chain");
      for (const auto& q : pieces)
        if (q["id"] == other) CHECK(p["vertices"] == q["vertices"]);
    }
  CHECK(selected);
  // An id detection did not give: exit 1 naming the ids there are; nothing written.
  CHECK(test::run_retail({in, dir + "/d.glb", "--mode", "detect", "--tail", "piece:99"}, nullptr,
                         &err) == 1);
  CHECK(err.find("'piece:99' names no piece") != std::string::npos);
  CHECK(err.find("pieces: 0, 1") != std::string::npos);
  CHECK_FALSE(fs::exists(dir + "/d.glb"));
}

// The same for hair: a ponytail detection numbers is rebuilt as with its mesh name.
TEST_CASE("cli first day: --hair piece:N rebuilds the piece as --hair by name does",
          "[cli][selector]") {
  std::string dir = test::temp_dir(), in = dir + "/pony.glb";
  retail::RigOptions o;
  o.tail = retail::TailStyle::None;
  o.ponytail = true;
  test::write_bytes(in, retail::serialize_document(retail::generate_rig(o).doc));
  std::string out, err;
  REQUIRE(test::run_retail({in, "--dry-run", "--mode", "detect", "-q"}, &out, &err) == 0);
  const Json pieces = Json::parse(out)["characters"][0]["pieces"];
  REQUIRE(pieces.size() == 1); // the ponytail, far from the skeleton down the back
  const int pony = pieces[0]["id"].get<int>();
  const std::vector<std::string> fast = {"--no-harm-check", "--no-bake", "--dry-run", "-q"};
  std::vector<std::string> by_name = {in, "--hair", "Ponytail"},
                           by_piece = {in, "--hair", "piece:" + std::to_string(pony)};
  by_name.insert(by_name.end(), fast.begin(), fast.end());
  by_piece.insert(by_piece.end(), fast.begin(), fast.end());
  REQUIRE(test::run_retail(by_name, &out, &err) == 0);
  const Json named = Json::parse(out)["characters"][0]["hair"]["chains"];
  REQUIRE(test::run_retail(by_piece, &out, &err) == 0);
  const Json piece = Json::parse(out)["characters"][0]["hair"]["chains"];
  REQUIRE(named.size() == 1);
  REQUIRE(piece.size() == 1);
  CHECK(piece[0]["selector"] == "piece:" + std::to_string(pony));
  CHECK(piece[0]["vertices"] == named[0]["vertices"]);
  CHECK(piece[0]["joints"] == named[0]["joints"]);
  CHECK(test::run_retail({in, "--dry-run", "--hair", "piece:99"}, nullptr, &err) == 1);
  CHECK(err.find("--hair 'piece:99' names no piece") != std::string::npos);
}

TEST_CASE("cli first day: figures in messages carry units and their share of H", "[cli][units]") {
  CHECK(retail::length_text(0.463, 11.7) == "0.463 m (4.0% of H)");
  CHECK(retail::length_text(20.2, 11.7) == "20.2 m (172.6% of H)");
  CHECK(retail::length_text(0.5, 0) == "0.5 m");
  CHECK(retail::length_text(0.5, NAN) == "0.5 m");
  std::string dir = test::temp_dir(), in = rig_file(dir, retail::TailStyle::Carried);
  std::string err;
  REQUIRE(test::run_retail({in, dir + "/a.glb", "--clips", "Idle"}, nullptr, &err) == 0);
  const std::size_t line = err.find("tail chain:");
  REQUIRE(line != std::string::npos);
  const std::string text = err.substr(line, err.find('\n', line) - line);
  CHECK(text.find(", L 0.") != std::string::npos);
  CHECK(text.find(" m (") != std::string::npos);
  CHECK(text.find("% of H) ->") != std::string::npos);
  CHECK(err.find("; H 1.") != std::string::npos); // the skeleton stage: "H 1.8 m", not 1.800000
  CHECK(err.find(" m, ") != std::string::npos);
}

} // namespace test_cli_first_day
