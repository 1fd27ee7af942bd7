// Issue 16, the file system: writes never land on what is read (or on each other), temporary
// files cannot be hijacked by a planted link, sidecar links do not lead out of the asset's
// folder, and signals leave no temporary file and no output without its report (batch redoes an
// item that has only one of them).
#include "retail/base/error.h"
#include "retail/base/files.h"
#include "retail/io/io.h"
#include "robust_support.h"

#include <catch2/catch.hpp>
#include <csignal>
#include <fcntl.h>
#include <filesystem>
#include <spawn.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace test_robust_files {

namespace fs = std::filesystem;
using retail::Bytes;
using retail::Json;

namespace {

const char* kGuard = "timeout -s KILL 300";

/// A folder with a .gltf rig (sidecar `in.bin`) and a .glb rig; returns the folder.
std::string assets() {
  std::string dir = test::temp_dir();
  retail::Document doc = test::small_rig();
  retail::write_document(doc, dir + "/in.glb");
  Json g = doc.gltf;
  g["buffers"][0]["uri"] = "in.bin";
  test::write_bytes(dir + "/in.bin", doc.buffers[0]);
  std::string text = g.dump();
  test::write_bytes(dir + "/in.gltf", Bytes(text.begin(), text.end()));
  return dir;
}

/// Every file below `dir` with its bytes.
std::map<std::string, Bytes> snapshot(const std::string& dir) {
  std::map<std::string, Bytes> out;
  for (const auto& f : test::files_in(dir))
    if (fs::is_regular_file(dir + "/" + f)) out[f] = retail::read_file(dir + "/" + f);
  return out;
}

} // namespace

TEST_CASE("robust: a path retail writes is never one it reads, nor another it writes", "[robust]") {
  std::string d = assets();
  fs::create_symlink(d + "/in.glb", d + "/link.glb");
  fs::create_hard_link(d + "/in.glb", d + "/hard.glb");
  fs::create_symlink(d, d + "/dirlink");
  std::vector<std::vector<std::string>> cases = {
      {d + "/in.glb", d + "/o.glb", "--report", d + "/in.glb"},
      {d + "/in.glb", d + "/o.glb", "--report", d + "/link.glb"},
      {d + "/in.glb", d + "/o.glb", "--report", d + "/hard.glb"},
      {d + "/in.glb", d + "/o.glb", "--report", d + "/dirlink/in.glb"},
      {d + "/in.glb", d + "/o.glb", "--report", d + "/o.glb"},
      {d + "/in.glb", d + "/o.glb", "--report", d + "/./o.glb"},
      {d + "/in.glb", d + "/link.glb"},
      {d + "/in.glb", d + "/dirlink/in.glb"},
      {d + "/in.gltf", d + "/o.gltf", "--report", d + "/in.bin"},
      {d + "/in.gltf", d + "/o.gltf", "--report", d + "/in.gltf"},
      {"report", d + "/in.glb", "--json", d + "/in.glb"},
      {"report", d + "/in.glb", "--json", d + "/link.glb"},
      {"report", d + "/in.gltf", "--json", d + "/in.bin"},
      {"report", d + "/in.gltf", "--json", d + "/dirlink/in.bin"},
  };
  auto before = snapshot(d);
  for (const auto& args : cases) {
    std::string err;
    std::vector<std::string> all = args;
    all.push_back("-q");
    CHECK(test::run_retail_with(kGuard, all, nullptr, &err) == 1);
    CHECK((err.find("retail never overwrites what it reads") != std::string::npos ||
           err.find("retail never modifies its input") != std::string::npos ||
           err.find("retail never writes two things to one file") != std::string::npos));
    CHECK(std::count(err.begin(), err.end(), '\n') == 1);
    CHECK(snapshot(d) == before); // nothing written, nothing changed
  }
  // An input named like the default report path of its output.
  std::string e = test::temp_dir(), err;
  retail::Document doc = test::small_rig();
  Json g = doc.gltf;
  g["buffers"][0]["uri"] = "o.report.json";
  test::write_bytes(e + "/o.report.json", doc.buffers[0]);
  std::string text = g.dump();
  test::write_bytes(e + "/in.gltf", Bytes(text.begin(), text.end()));
  retail::write_document(doc, e + "/o.report.json.glb");
  fs::copy_file(e + "/o.report.json.glb", e + "/x.report.json");
  auto before_e = snapshot(e);
  CHECK(test::run_retail_with(kGuard, {e + "/in.gltf", e + "/o.gltf"}, nullptr, &err) == 1);
  CHECK(test::run_retail_with(kGuard, {e + "/x.report.json", e + "/x.glb"}, nullptr, &err) == 1);
  CHECK(snapshot(e) == before_e);
  // Batch: a summary over one of its inputs or outputs.
  std::string root = test::temp_dir();
  fs::create_directories(root + "/in");
  retail::write_document(doc, root + "/in/a.glb");
  Bytes a = retail::read_file(root + "/in/a.glb");
  CHECK(test::run_retail_with(
            kGuard, {"batch", root + "/in", root + "/out", "--summary", root + "/in/a.glb"},
            nullptr, &err) == 1);
  CHECK(retail::read_file(root + "/in/a.glb") == a);
  CHECK(test::run_retail_with(
            kGuard, {"batch", root + "/in", root + "/out", "--summary", root + "/out/a.glb"},
            nullptr, &err) == 1);
  CHECK_FALSE(fs::exists(root + "/out/a.glb"));
}

TEST_CASE("robust: a link planted at a temporary name is never followed", "[robust]") {
  std::string d = test::temp_dir(), victim = d + "/victim.txt";
  test::write_bytes(victim, {'k', 'e', 'e', 'p'});
  // Links at every name the old scheme could use (pid-based) and a few more.
  for (int pid = 1; pid < 4096; pid += 1)
    fs::create_symlink(victim, d + "/.out.glb.retail-tmp-" + std::to_string(pid));
  for (int k = 0; k < 3; ++k) {
    retail::write_file_atomic(d + "/out.glb", {1, 2, 3, std::uint8_t(k)});
    CHECK(retail::read_file(d + "/out.glb") == Bytes({1, 2, 3, std::uint8_t(k)}));
    CHECK_FALSE(fs::is_symlink(d + "/out.glb"));
    CHECK(retail::read_file(victim) == Bytes({'k', 'e', 'e', 'p'}));
  }
  // Through the CLI too (the output and its report).
  std::string in = d + "/in.glb", err;
  retail::write_document(test::small_rig(), in);
  CHECK(test::run_retail_with(kGuard, {in, d + "/out.glb", "-q", "--no-bake"}, nullptr, &err) == 0);
  CHECK(retail::read_file(victim) == Bytes({'k', 'e', 'e', 'p'}));
  CHECK_FALSE(fs::is_symlink(d + "/out.glb"));
  std::size_t temps = 0;
  for (const auto& f : test::files_in(d)) temps += f.find("retail-tmp") != std::string::npos;
  CHECK(temps == 4095); // only the planted links
}

TEST_CASE("robust: sidecar links leading out of the asset's folder are refused", "[robust]") {
  std::string outside = test::temp_dir();
  test::write_bytes(outside + "/secret.bin", Bytes(4096, 7));
  retail::Document doc = test::small_rig();
  for (const std::string& target :
       {outside + "/secret.bin", std::string("/etc/passwd"), std::string("/etc/hostname")}) {
    for (const char* kind : {"buffer", "image", "folder link"}) {
      std::string d = test::temp_dir(), err;
      Json g = doc.gltf;
      if (std::string(kind) == "buffer") {
        fs::create_symlink(target, d + "/data.bin");
        g["buffers"][0]["uri"] = "data.bin";
      } else if (std::string(kind) == "image") {
        test::write_bytes(d + "/data.bin", doc.buffers[0]);
        g["buffers"][0]["uri"] = "data.bin";
        fs::create_symlink(target, d + "/tex.png");
        g["images"] = {{{"uri", "tex.png"}}};
      } else {
        test::write_bytes(d + "/data.bin", doc.buffers[0]);
        g["buffers"][0]["uri"] = "data.bin";
        fs::create_symlink(fs::path(target).parent_path(), d + "/up");
        g["images"] = {{{"uri", "up/" + fs::path(target).filename().string()}}};
      }
      std::string text = g.dump();
      test::write_bytes(d + "/in.gltf", Bytes(text.begin(), text.end()));
      fs::create_directories(d + "/out");
      CHECK(test::run_retail_with(kGuard, {d + "/in.gltf", d + "/out/o.gltf"}, nullptr, &err) == 2);
      CHECK(err.find("is a link leading outside the file's folder") != std::string::npos);
      CHECK(test::files_in(d + "/out").empty());
    }
  }
  // A folder beside OUT that is a link out of it: the sidecar copy is not written through it.
  {
    std::string d = test::temp_dir(), err;
    fs::create_directories(d + "/in/tex");
    fs::create_directories(d + "/out");
    test::write_bytes(d + "/in/data.bin", doc.buffers[0]);
    test::write_bytes(d + "/in/tex/a.png", {1, 2, 3});
    fs::create_symlink(outside, d + "/out/tex");
    Json g = doc.gltf;
    g["buffers"][0]["uri"] = "data.bin";
    g["images"] = {{{"uri", "tex/a.png"}}};
    std::string text = g.dump();
    test::write_bytes(d + "/in/in.gltf", Bytes(text.begin(), text.end()));
    CHECK(test::run_retail_with(kGuard, {d + "/in/in.gltf", d + "/out/o.gltf", "--no-bake"},
                                nullptr, &err) == 4);
    CHECK(err.find("leads outside the output's folder") != std::string::npos);
    CHECK_FALSE(fs::exists(outside + "/a.png"));
    CHECK_FALSE(fs::exists(d + "/out/o.gltf"));
    CHECK_FALSE(fs::exists(d + "/out/data.bin")); // written before, removed on the failure
  }
  // A link inside the folder is fine.
  std::string d = test::temp_dir(), err;
  fs::create_directories(d + "/real");
  test::write_bytes(d + "/real/data.bin", doc.buffers[0]);
  fs::create_symlink("real/data.bin", d + "/data.bin");
  Json g = doc.gltf;
  g["buffers"][0]["uri"] = "data.bin";
  std::string text = g.dump();
  test::write_bytes(d + "/in.gltf", Bytes(text.begin(), text.end()));
  CHECK(test::run_retail_with(kGuard, {d + "/in.gltf", d + "/o.gltf", "-q", "--no-bake"}, nullptr,
                              &err) == 0);
  // Batch: a model that is a link out of IN_DIR fails, the others run.
  std::string root = test::temp_dir();
  fs::create_directories(root + "/in");
  retail::write_document(doc, root + "/in/a.glb");
  retail::write_document(doc, outside + "/b.glb");
  fs::create_symlink(outside + "/b.glb", root + "/in/b.glb");
  std::string out;
  CHECK(test::run_retail_with(kGuard,
                              {"batch", root + "/in", root + "/out", "--summary", "-", "--no-bake"},
                              &out, &err) == 5);
  CHECK(err.find("b.glb: a link leading outside IN_DIR") != std::string::npos);
  CHECK(fs::exists(root + "/out/a.glb"));
  CHECK_FALSE(fs::exists(root + "/out/b.glb"));
}

TEST_CASE("robust: the signal handler removes registered files", "[robust]") {
  std::string d = test::temp_dir();
  test::write_bytes(d + "/a.tmp", {1});
  test::write_bytes(d + "/b.tmp", {2});
  int a = retail::remove_on_signal(d + "/a.tmp");
  {
    retail::RemoveOnSignal b(d + "/b.tmp");
    retail::unregister_on_signal(a);
  } // b released: neither registered now
  retail::remove_registered_files();
  CHECK(fs::exists(d + "/a.tmp"));
  CHECK(fs::exists(d + "/b.tmp"));
  retail::RemoveOnSignal c(d + "/a.tmp");
  retail::remove_registered_files();
  CHECK_FALSE(fs::exists(d + "/a.tmp"));
  CHECK(fs::exists(d + "/b.tmp"));
}

TEST_CASE("robust: SIGINT or SIGTERM at any moment leaves no temp file and no lone output",
          "[robust]") {
  std::string d = test::temp_dir();
  retail::write_document(test::small_rig(), d + "/in.glb");
  int ended_by_signal = 0;
  for (int k = 0; k < 24; ++k) {
    std::string out = d + "/out" + std::to_string(k) + ".glb";
    // posix_spawn: the child has default signal actions from the start (a fork would carry
    // this process's handlers until exec).
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    sigset_t defaults;
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGINT);
    sigaddset(&defaults, SIGTERM);
    posix_spawnattr_setsigdefault(&attr, &defaults);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF);
    posix_spawn_file_actions_t files;
    posix_spawn_file_actions_init(&files);
    posix_spawn_file_actions_addopen(&files, 2, "/dev/null", O_WRONLY, 0);
    std::string in = d + "/in.glb";
    std::vector<std::string> args = {RETAIL_BIN, in, out, "--threads", "1", "--clips", "Walk"};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_t pid = -1;
    REQUIRE(::posix_spawn(&pid, RETAIL_BIN, &files, &attr, argv.data(), environ) == 0);
    posix_spawn_file_actions_destroy(&files);
    posix_spawnattr_destroy(&attr);
    // Spread the signals over the run: from the start to past its end.
    std::this_thread::sleep_for(std::chrono::milliseconds(25 * k));
    ::kill(pid, k % 2 ? SIGINT : SIGTERM);
    int status = 0;
    ::waitpid(pid, &status, 0);
    ended_by_signal += WIFSIGNALED(status);
    std::string report = d + "/out" + std::to_string(k) + ".report.json";
    CHECK(fs::exists(out) == fs::exists(report)); // both or neither
    CHECK(test::no_temp_files(d));
  }
  CHECK(ended_by_signal > 0);
}

TEST_CASE("robust: batch redoes an item with an output but no report (a killed run)", "[robust]") {
  std::string root = test::temp_dir(), err, out;
  fs::create_directories(root + "/in");
  retail::Document doc = test::small_rig();
  retail::write_document(doc, root + "/in/a.glb");
  retail::write_document(doc, root + "/in/b.glb");
  std::vector<std::string> args = {"batch", root + "/in", root + "/out", "--summary",
                                   "-",     "--no-bake",  "-q"};
  REQUIRE(test::run_retail_with(kGuard, args, &out, &err) == 0);
  fs::remove(root + "/out/a.report.json"); // as SIGKILL between the two renames left it
  fs::remove(root + "/out/b.glb");         // and the other order
  REQUIRE(test::run_retail_with(kGuard, args, &out, &err) == 0);
  CHECK(out.find(R"("path":"a.glb","status":"ok")") != std::string::npos);
  CHECK(out.find(R"("path":"b.glb","status":"ok")") != std::string::npos);
  CHECK(fs::exists(root + "/out/a.report.json"));
  CHECK(fs::exists(root + "/out/b.glb"));
  REQUIRE(test::run_retail_with(kGuard, args, &out, &err) == 0);
  CHECK(out.find(R"("path":"a.glb","status":"skipped")") != std::string::npos);
}

} // namespace test_robust_files
