// The command line: exit codes, streams, faithful copies, refusal to touch the input.
#include "retail/app/pipeline.h"
#include "retail/base/error.h"
#include "retail/base/files.h"
#include "retail/io/io.h"
#include "robust_support.h"
#include "support.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace test_cli {

namespace fs = std::filesystem;
using retail::Json;

namespace {
std::string rig_file(const std::string& dir, retail::TailStyle tail = retail::TailStyle::None) {
  retail::RigOptions o;
  o.tail = tail;
  o.ears = o.cape = true;
  std::string path = dir + "/rig.glb";
  test::write_bytes(path, retail::serialize_document(retail::generate_rig(o).doc));
  return path;
}
} // namespace

TEST_CASE("cli: without a tail retail IN OUT writes a faithful copy - deterministic - stdout empty",
          "[cli]") {
  std::string dir = test::temp_dir(), in = rig_file(dir);
  std::string out, err;
  REQUIRE(test::run_retail({in, dir + "/a.glb"}, &out, &err) == 0);
  CHECK(out.empty());
  CHECK(err.find("wrote " + dir + "/a.glb") != std::string::npos);
  REQUIRE(test::run_retail({"-q", in, dir + "/b.glb"}, &out, &err) == 0);
  CHECK(err.empty());
  retail::Bytes a = retail::read_file(dir + "/a.glb");
  CHECK(a == retail::read_file(dir + "/b.glb"));
  retail::Document din = retail::read_document(in), dout = retail::read_document(dir + "/a.glb");
  CHECK(test::normalize_defaults(dout.gltf) == test::normalize_defaults(din.gltf));
  CHECK(dout.buffers == din.buffers);
  Json report = Json::parse(retail::read_file(dir + "/a.report.json"));
  CHECK(report["schema"] == "retail.report/1");
  CHECK(report["characters"][0]["chains"].empty());
}

TEST_CASE("cli: a tail gets a chain - the report goes beside OUT or to stdout", "[cli]") {
  std::string dir = test::temp_dir(), in = rig_file(dir, retail::TailStyle::Carried);
  std::string out, err;
  REQUIRE(test::run_retail({in, dir + "/a.glb"}, &out, &err) == 0);
  CHECK(out.empty());
  CHECK(err.find("tail chain:") != std::string::npos);
  Json report = Json::parse(retail::read_file(dir + "/a.report.json"));
  REQUIRE(report["characters"][0]["chains"].size() == 1);
  CHECK(report["output"]["sha256"].get<std::string>().size() == 64);
  REQUIRE(test::run_retail({in, dir + "/b.glb", "--report", "-", "-q"}, &out, &err) == 0);
  Json printed = Json::parse(out);
  CHECK(printed["characters"][0]["chains"] == report["characters"][0]["chains"]);
  CHECK(printed["output"]["sha256"] == report["output"]["sha256"]); // same bytes both runs
  CHECK(retail::read_file(dir + "/a.glb") == retail::read_file(dir + "/b.glb"));
  CHECK_FALSE(fs::exists(dir + "/b.report.json"));
  REQUIRE(test::run_retail({in, dir + "/c.glb", "--mode", "detect", "-q"}, &out, &err) == 0);
  retail::Document din = retail::read_document(in), dc = retail::read_document(dir + "/c.glb");
  CHECK(dc.gltf == din.gltf); // detect: report only, the model unchanged
  CHECK(Json::parse(retail::read_file(dir + "/c.report.json"))["characters"][0]["chains"].size() ==
        0);
}

TEST_CASE("cli: info prints its text or retail.info/1 on stdout only", "[cli]") {
  std::string dir = test::temp_dir(), in = rig_file(dir);
  std::string out, err;
  REQUIRE(test::run_retail({"info", in, "--json"}, &out, &err) == 0);
  Json j = Json::parse(out);
  CHECK(j["schema"] == "retail.info/1");
  CHECK(j["characters"][0]["roles"]["head"]["name"] == "mixamorig:Head");
  REQUIRE(test::run_retail({"info", in}, &out, &err) == 0);
  CHECK(err.empty()); // `retail info x.glb | less` shows it all
  CHECK(out.find("roles (names)") != std::string::npos);
}

TEST_CASE("cli: usage errors exit 1 - unreadable input 2 - unwritable output 4", "[cli]") {
  std::string dir = test::temp_dir(), in = rig_file(dir);
  retail::Bytes original = retail::read_file(in);
  std::string err;
  CHECK(test::run_retail({}, nullptr, &err) == 1);
  CHECK(test::run_retail({in}, nullptr, &err) == 1);
  CHECK(test::run_retail({"--no-such-option", in, dir + "/x.glb"}, nullptr, &err) == 1);
  CHECK(test::run_retail({in, in}, nullptr, &err) == 1); // never overwrite the input
  CHECK(err.find("is the input file") != std::string::npos);
  CHECK(retail::read_file(in) == original);
  CHECK(test::run_retail({in, dir + "/x.obj"}, nullptr, &err) == 1); // not a glTF container
  CHECK(err.find("must end in .glb, .vrm or .gltf") != std::string::npos);
  CHECK(test::run_retail({dir + "/missing.glb", dir + "/x.glb"}, nullptr, &err) == 2);
  CHECK(err == "error: " + dir + "/missing.glb: cannot read the file: No such file or directory\n");
  CHECK(test::run_retail({in, dir + "/no/such/dir/x.glb"}, nullptr, &err) == 4);
  CHECK_FALSE(fs::exists(dir + "/no"));
  CHECK(test::run_retail({in, dir + "/y.glb", "--report", dir + "/no/such/dir/y.json"}, nullptr,
                         &err) == 4);
  CHECK_FALSE(fs::exists(dir + "/y.glb")); // the output goes with its report
  CHECK(test::run_retail({in, dir + "/z.glb", "--mode", "sideways"}, nullptr, &err) == 1);
  CHECK(test::run_retail({in, dir + "/z.glb", "--threads", "-1"}, nullptr, &err) == 1);
  CHECK(err.find("--threads") != std::string::npos);
  // --skin-try takes SHARE:BEND or SHARE:BEND:RATIO, each within its range.
  for (const char* bad : {"1", "1:1:0.9:2", "1:x", "1:1:1", "1:1:-0.1", "3:1", "1:1:"}) {
    INFO(bad);
    CHECK(test::run_retail({in, dir + "/z.glb", "--skin-try", bad}, nullptr, &err) == 1);
    CHECK(err.find("--skin-try") != std::string::npos);
  }
  std::size_t files = 0;
  for (const auto& e : fs::directory_iterator(dir)) files += e.is_regular_file();
  CHECK(files == 1); // only the input: no temp or partial files
}

namespace {
/// The kernel's transparent-huge-page mode as the sysfs file marks it ("" when unreadable).
std::string thp_mode_here() {
  std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string line;
  std::getline(in, line);
  const std::size_t a = line.find('['), b = line.find(']');
  return a == std::string::npos || b == std::string::npos ? "" : line.substr(a + 1, b - a - 1);
}
} // namespace

// [heavy]: three whole runs of a 1.5 MB rig for one outcome; under the sanitizers the restart's
// code path runs in every batch test (a batch always restarts where the kernel allows it).
TEST_CASE("cli: a large input restarts with glibc's huge-page malloc, and writes the same bytes",
          "[cli][heavy]") {
  const std::string dir = test::temp_dir();
  retail::RigOptions o;
  o.tail = retail::TailStyle::Hanging;
  o.tube_segments = 64; // 1.5 MB: over the 1 MiB from which the restart pays
  o.ring_subdivision = 6;
  const std::string big = dir + "/big.glb", small = rig_file(dir);
  test::write_bytes(big, retail::serialize_document(retail::generate_rig(o).doc));
  REQUIRE(fs::file_size(big) > (1u << 20));
  REQUIRE(fs::file_size(small) < (1u << 20));
  const bool glibc_235 = __GLIBC__ > 2 || __GLIBC_MINOR__ >= 35;
  const bool restarts = glibc_235 && thp_mode_here() == "madvise";
  std::string err;
  REQUIRE(test::run_retail_with("unset GLIBC_TUNABLES;", {"-v", big, dir + "/a.glb"}, nullptr,
                                &err) == 0);
  CHECK(err.find(restarts ? "memory: glibc's huge-page malloc (GLIBC_TUNABLES)"
                          : "memory: glibc's default malloc: ") != std::string::npos);
  // The user's own setting wins, and nothing restarts.
  REQUIRE(test::run_retail_with("GLIBC_TUNABLES=glibc.malloc.hugetlb=0",
                                {"-v", big, dir + "/b.glb"}, nullptr, &err) == 0);
  CHECK(err.find("memory: glibc's default malloc: GLIBC_TUNABLES names glibc.malloc.hugetlb") !=
        std::string::npos);
  CHECK(retail::read_file(dir + "/a.glb") == retail::read_file(dir + "/b.glb"));
  REQUIRE(test::run_retail_with("unset GLIBC_TUNABLES;", {"-v", small, dir + "/c.glb"}, nullptr,
                                &err) == 0);
  CHECK(err.find(restarts ? "memory: glibc's default malloc: the input is under 1 MiB"
                          : "memory: glibc's default malloc: ") != std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("cli: clips are named in full or by the part after the armature prefix", "[cli]") {
  retail::Model m;
  for (const char* n : {"Armature|Walk", "Armature|Run", "Other|Run", "Idle"}) {
    retail::Animation a;
    a.name = n;
    m.animations.push_back(a);
  }
  CHECK(retail::select_clips(m, {"Walk"}) == std::vector<int>{0});
  CHECK(retail::select_clips(m, {"Armature|Run", "Idle"}) == std::vector<int>{1, 3});
  CHECK_THROWS_AS(retail::select_clips(m, {"Run"}), retail::Error); // two clips end in |Run
  CHECK_THROWS_AS(retail::select_clips(m, {"Jump"}), retail::Error);
  CHECK(retail::select_clips(m, {}).size() == 4);
}

TEST_CASE("cli: retail batch - exit 5 with a failed file - no progress bar off a terminal",
          "[cli]") {
  std::string root = test::temp_dir();
  fs::create_directories(root + "/in/sub");
  retail::write_document(retail::generate_rig(retail::RigOptions{}).doc, root + "/in/sub/a.glb");
  test::write_bytes(root + "/in/b.glb", retail::Bytes{'n', 'o'});
  std::string out, err;
  int code = test::run_retail(
      {"batch", root + "/in", root + "/out", "--summary", "-", "-j", "2", "--carry", "40"}, &out,
      &err);
  CHECK(code == 5);
  CHECK(err.find('\r') == std::string::npos); // stderr is not a terminal here
  CHECK(err.find("error: b.glb: not a glTF file") != std::string::npos);
  CHECK(err.find("0 up to date, 1 failed; 1 needs a look:") != std::string::npos);
  // stdout: the summary only, one JSON line per file in list order.
  std::istringstream lines(out);
  std::string first, second, extra;
  std::getline(lines, first), std::getline(lines, second);
  CHECK_FALSE(std::getline(lines, extra));
  CHECK(retail::Json::parse(first)["path"] == "b.glb");
  CHECK(retail::Json::parse(second)["path"] == "sub/a.glb");
  CHECK(retail::Json::parse(second)["chains"] == 1);
  CHECK(fs::exists(root + "/out/sub/a.glb"));
  CHECK_FALSE(fs::exists(root + "/out/b.glb"));
  CHECK(test::run_retail({"batch", root + "/in", root + "/out", "--shard", "3/2"}) == 1);
}

TEST_CASE("cli: --help names every command with an example - no stale text", "[cli]") {
  std::string out, err;
  REQUIRE(test::run_retail({"--help"}, &out, &err) == 0);
  for (const char* cmd :
       {"retail IN OUT", "retail info IN", "retail report IN", "retail batch IN_DIR OUT_DIR",
        "e.g. retail fox.glb", "e.g. retail info", "e.g. retail report", "e.g. retail batch"})
    CHECK(out.find(cmd) != std::string::npos);
  for (const char* sub : {"info", "report", "batch"}) {
    INFO(sub);
    std::string sub_out;
    REQUIRE(test::run_retail({sub, "--help"}, &sub_out, &err) == 0);
    CHECK(sub_out.find(std::string("Example:\n  retail ") + sub) != std::string::npos);
    out += sub_out;
  }
  for (const char* stale : {"until detection lands", "same container as IN", "does not convert"})
    CHECK(out.find(stale) == std::string::npos);
  CHECK(out.find("clips to bake, judge and measure") != std::string::npos); // what --clips does
  // README's command list: the four commands, and no claim that containers do not convert.
  retail::Bytes readme = retail::read_file(std::string(RETAIL_SOURCE_DIR) + "/README.md");
  std::string text(readme.begin(), readme.end());
  for (const char* cmd : {"retail IN OUT", "retail info IN", "retail report IN", "retail batch"})
    CHECK(text.find(cmd) != std::string::npos);
  CHECK(text.find("same container:") == std::string::npos);
}

// Never silent: a tail grown from a haunch whose seam the chain would tear (a strict harm check
// without its hold step, --harm-noise 0 --harm-skin-ratio 0 --min-skin-ratio 0 --no-hold, leaves
// it as it came: tests/test_tail_classes.cpp) still
// tears 18% under Crouch. The run says so in a warning naming the bones, in the report's left_torn,
// in the batch summary, and
// --fail-on left_torn>0 gates it (exit 6, the output still written).
TEST_CASE("cli: skin left torn is never silent - warning, report, --fail-on left_torn, batch",
          "[cli]") {
  std::string root = test::temp_dir();
  retail::RigOptions o;
  o.tail = retail::TailStyle::Carried;
  o.thick_base = true;
  fs::create_directories(root + "/in");
  const std::string in = root + "/in/haunch.glb";
  test::write_bytes(in, retail::serialize_document(retail::generate_rig(o).doc));
  std::string out, err;
  REQUIRE(test::run_retail({in, root + "/a.glb", "--harm-noise", "0", "--harm-skin-ratio", "0",
                            "--min-skin-ratio", "0", "--no-hold"},
                           &out, &err) == 0);
  CHECK(err.find("warning: skin left torn as it was:") != std::string::npos);
  CHECK(err.find("mixamorig:") != std::string::npos); // names the bones its skin is weighted to
  Json report = Json::parse(retail::read_file(root + "/a.report.json"));
  const Json& left = report["characters"][0]["left_torn"];
  REQUIRE(left.size() == 1);
  CHECK(left[0]["vertices"].get<int>() > 100);
  CHECK(left[0]["torn_percent"].get<double>() > 5.0); // above RunParams::left_torn_percent
  CHECK(left[0]["reason"].get<std::string>().find("harm check") != std::string::npos);
  CHECK(left[0]["bones"].size() >= 1);
  // The gate: exit 6 with the output and its report written; the check is named on stderr.
  CHECK(test::run_retail({in, root + "/b.glb", "--harm-noise", "0", "--harm-skin-ratio", "0",
                          "--min-skin-ratio", "0", "--no-hold", "--fail-on", "left_torn>0", "-q"},
                         &out, &err) == 6);
  CHECK(err.find("left_torn") != std::string::npos);
  CHECK(fs::exists(root + "/b.glb"));
  CHECK(test::run_retail({in, root + "/c.glb", "--harm-noise", "0", "--harm-skin-ratio", "0",
                          "--min-skin-ratio", "0", "--no-hold", "--fail-on", "left_torn>1000",
                          "-q"}) == 0);
  // A batch counts the vertices left torn in its summary line for the file.
  REQUIRE(test::run_retail({"batch", root + "/in", root + "/out", "--harm-noise", "0",
                            "--harm-skin-ratio", "0", "--min-skin-ratio", "0", "--no-hold",
                            "--summary", "-"},
                           &out, &err) == 0);
  Json row = Json::parse(out.substr(0, out.find('\n')));
  CHECK(row["path"] == "haunch.glb");
  CHECK(row["left_torn"].get<int>() == left[0]["vertices"].get<int>());
}

// The other side of the rule: a tail the chain heals is not reported left torn.
TEST_CASE("cli: a healed tail is not reported left torn", "[cli]") {
  std::string dir = test::temp_dir(), in = rig_file(dir, retail::TailStyle::Carried);
  REQUIRE(test::run_retail({in, dir + "/a.glb", "--fail-on", "left_torn>0", "-q"}) == 0);
  Json report = Json::parse(retail::read_file(dir + "/a.report.json"));
  CHECK(report["characters"][0]["left_torn"].empty());
  CHECK(report["characters"][0]["chains"].size() == 1);
}

} // namespace test_cli
