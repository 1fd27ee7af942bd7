// What `retail batch` tells the person watching it (batch_progress.h, docs/batch.md): on a
// terminal a live line redrawn in place and cleared at the end; with -v one line per file; off a
// terminal without -v no progress at all; at the end the files that need a look, each with why.
// Three tiny generated files: a tail that grows a chain, a tail on a thick haunch that a strict
// harm check (--harm-noise 0: a floor of 3 edge-samples; no bending less: --harm-skin-ratio 0;
// no skin limit on the spring: --min-skin-ratio 0; no held clips: --no-hold) leaves as it came
// (its skin still tears),
// and a file that is not glTF.
#include "retail/app/batch_progress.h"
#include "retail/base/document.h"
#include "retail/base/files.h"
#include "retail/io/io.h"
#include "support.h"

#include <catch2/catch.hpp>
#include <cerrno>
#include <fcntl.h>
#include <filesystem>
#include <stdlib.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

namespace test_batch_progress {

namespace fs = std::filesystem;

namespace {

/// IN_DIR with good.glb (a hanging tail: one chain), haunch.glb (a tail grown from a thick
/// haunch: run with --harm-noise 0 --harm-skin-ratio 0 --min-skin-ratio 0 --no-hold, the harm check
/// leaves it as it was, its
/// skin left torn) and bad.glb (not glTF).
std::string make_folder(const std::string& root) {
  const std::string in = root + "/in";
  fs::create_directories(in);
  retail::RigOptions good; // a hanging tail: one chain, kept as first planned by that judge
  good.tail = retail::TailStyle::Hanging;
  test::write_bytes(in + "/good.glb", retail::serialize_document(retail::generate_rig(good).doc));
  retail::RigOptions haunch;
  haunch.tail = retail::TailStyle::Carried;
  haunch.thick_base = true;
  test::write_bytes(in + "/haunch.glb",
                    retail::serialize_document(retail::generate_rig(haunch).doc));
  test::write_bytes(in + "/bad.glb", retail::Bytes{'n', 'o'});
  return in;
}

/// Runs the retail binary with stdout and stderr on a pseudo-terminal in raw mode (no "\n" ->
/// "\r\n", so every '\r' seen is retail's own); returns its exit code, `got` what the terminal
/// received.
int run_on_terminal(const std::vector<std::string>& args, std::string& got) {
  const int master = ::posix_openpt(O_RDWR | O_NOCTTY);
  REQUIRE(master >= 0);
  REQUIRE(::grantpt(master) == 0);
  REQUIRE(::unlockpt(master) == 0);
  const int slave = ::open(::ptsname(master), O_RDWR | O_NOCTTY);
  REQUIRE(slave >= 0);
  termios raw{};
  REQUIRE(::tcgetattr(slave, &raw) == 0);
  ::cfmakeraw(&raw);
  REQUIRE(::tcsetattr(slave, TCSANOW, &raw) == 0);
  std::vector<std::string> words = {RETAIL_BIN};
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) { // the child: only async-signal-safe calls until exec
    ::setsid();
    const int null = ::open("/dev/null", O_RDONLY);
    ::dup2(null, 0), ::dup2(slave, 1), ::dup2(slave, 2);
    ::close(master), ::close(slave), ::close(null);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  ::close(slave); // the master reads EIO once the child's side is closed
  got.clear();
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(master, buf, sizeof buf);
    if (n > 0)
      got.append(buf, std::size_t(n));
    else if (n < 0 && errno == EINTR)
      continue;
    else
      break;
  }
  ::close(master);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

/// The summary's line for `path` ("" when it has none).
std::string look_line(const std::string& err, const std::string& path) {
  const std::size_t at = err.find("info:   " + path + ": ");
  return at == std::string::npos ? "" : err.substr(at, err.find('\n', at) - at);
}

/// The end summary, the same on a terminal or not: the totals, then the files that need a look
/// with their reasons; the good file is not among them.
void check_summary(const std::string& err) {
  INFO(err);
  CHECK(has(err, "error: bad.glb: not a glTF file"));
  CHECK(has(err, "batch: 3 files: 1 with a tail chain, 0 rigid on the hips, 1 with nothing "
                 "grown, 0 up to date, 1 failed; 2 need a look:"));
  CHECK(has(look_line(err, "bad.glb"), "failed (exit 2): not a glTF file"));
  const std::string haunch = look_line(err, "haunch.glb");
  CHECK(has(haunch, "stepped down by the harm check, piece "));
  CHECK(has(haunch, ": left as it was; "));
  CHECK(has(haunch, " vertices of torn skin left as they came"));
  CHECK(look_line(err, "good.glb").empty());
}

/// `e` with its index row's copy of its own fields, as the batch fills it (needs_look reads the
/// row).
retail::BatchEntry with_row(retail::BatchEntry e) {
  e.row.path = e.path, e.row.status = e.status, e.row.error = e.error;
  e.row.stepped_down = e.stepped_down, e.row.left_torn = e.left_torn, e.row.ms = e.ms;
  return e;
}

} // namespace

TEST_CASE("batch progress: the live line, the ETA, and why a file needs a look", "[batch]") {
  retail::BatchTally t;
  t.total = 12;
  CHECK(retail::batch_progress_line(t, 0) ==
        "[............] 0/12 files, 0 failed, 0 need a look, ETA --:--");
  t.done = 3, t.failed = 1, t.look = 1;
  CHECK(retail::batch_progress_line(t, 6.0) == // 2 s a file, 9 to go
        "[###.........] 3/12 files, 1 failed, 1 needs a look, ETA 0:18");
  t.done = 12;
  CHECK(retail::batch_progress_line(t, 4000) ==
        "[############] 12/12 files, 1 failed, 1 needs a look, ETA 0:00");
  t.total = t.failed = t.look = 9999, t.done = 1;
  CHECK(retail::batch_progress_line(t, 36) == // 99 h to go: still fits 80 columns
        "[............] 1/9999 files, 9999 failed, 9999 need a look, ETA 99:58:48");

  // Nothing grown while the input tears is said as such; with a chain it is torn skin left.
  retail::BatchEntry e;
  e.path = "a.glb", e.status = "ok", e.left_torn = 12, e.ms = 1234;
  REQUIRE(retail::look_reasons(e).size() == 1);
  CHECK(retail::look_reasons(e)[0] ==
        "nothing found while the input tears: 12 vertices of torn skin left as they came");
  CHECK(retail::batch_outcome(e) == "nothing found");
  retail::BatchTally one;
  one.done = 1, one.total = 2;
  CHECK(retail::needs_look(with_row(e).row));
  CHECK(retail::batch_file_line(with_row(e), one) ==
        "[1/2] a.glb: ok, nothing found, 1.23 s, needs a look");
  e.chains = 2, e.rigid = 1;
  CHECK(retail::look_reasons(e)[0] == "12 vertices of torn skin left as they came");
  CHECK(retail::batch_outcome(e) == "1 tail chain, 1 rigid on the hips");
  e.left_torn = 0;
  CHECK(retail::look_reasons(e).empty());
  CHECK(!retail::needs_look(with_row(e).row));
  CHECK(retail::batch_file_line(with_row(e), one) ==
        "[1/2] a.glb: ok, 1 tail chain, 1 rigid on the hips, 1.23 s");
  // A warning alone: the reasons give it, and the row (the index's) needs a look too.
  e.row.warnings = {"tolerated: a skin on a node without a mesh"};
  e = with_row(e);
  CHECK(retail::needs_look(e.row));
  CHECK(retail::look_reasons(e) ==
        std::vector<std::string>{"1 warning: tolerated: a skin on a node without a mesh"});
}

TEST_CASE("batch progress: on a terminal - a live line redrawn in place, cleared at the end",
          "[batch]") {
  const std::string root = test::temp_dir(), in = make_folder(root);
  std::string got;
  REQUIRE(
      run_on_terminal({"batch", in, root + "/out", "--samples", "12", "--harm-noise", "0",
                       "--harm-skin-ratio", "0", "--min-skin-ratio", "0", "--no-hold", "-j", "2"},
                      got) == 5);
  INFO(got);
  // Drawn before the first file, after every file, each time over the last one.
  CHECK(has(got, "\r\033[K[............] 0/3 files, 0 failed, 0 need a look, ETA --:--"));
  CHECK(has(got, "\r\033[K[############] 3/3 files, 1 failed, 2 need a look, ETA 0:00"));
  // Cleared before anything else is written, and never drawn again.
  const std::size_t last = got.rfind("\r\033[K");
  REQUIRE(last != std::string::npos);
  CHECK(got.substr(last, 9) == "\r\033[Kerror");
  CHECK_FALSE(has(got.substr(last), "ETA"));
  CHECK_FALSE(has(got, "[1/3] ")); // no per-file lines without -v
  check_summary(got);
  // With -v one line per file between the redraws: name, outcome, seconds.
  REQUIRE(run_on_terminal({"batch", in, root + "/v", "--samples", "12", "--harm-noise", "0",
                           "--harm-skin-ratio", "0", "--min-skin-ratio", "0", "--no-hold", "-j",
                           "1", "-v"},
                          got) == 5);
  CHECK(has(got, "\r\033[Kretail: info: [1/3] bad.glb: failed (exit 2), "));
  CHECK(has(got, "[2/3] good.glb: ok, 1 tail chain, "));
  CHECK(has(got, "[3/3] haunch.glb: ok, stepped down, nothing grown, "));
  CHECK(has(got, " s, needs a look\n[############] 3/3 files"));
}

TEST_CASE("batch progress: off a terminal - no progress line, with -v the per-file lines",
          "[batch]") {
  const std::string root = test::temp_dir(), in = make_folder(root);
  std::string out, err;
  REQUIRE(test::run_retail({"batch", in, root + "/out", "--samples", "12", "--harm-noise", "0",
                            "--harm-skin-ratio", "0", "--min-skin-ratio", "0", "--no-hold"},
                           &out, &err) == 5);
  CHECK_FALSE(has(err, "\r"));
  CHECK_FALSE(has(err, "ETA"));
  CHECK_FALSE(has(err, "[1/3] "));
  check_summary(err);
  REQUIRE(test::run_retail({"batch", in, root + "/v", "--samples", "12", "--harm-noise", "0",
                            "--harm-skin-ratio", "0", "--min-skin-ratio", "0", "--no-hold", "-j",
                            "1", "-v"},
                           &out, &err) == 5);
  CHECK_FALSE(has(err, "\r"));
  CHECK_FALSE(has(err, "ETA"));
  CHECK(has(err, "retail: info: [1/3] bad.glb: failed (exit 2), "));
  CHECK(has(err, "retail: info: [2/3] good.glb: ok, 1 tail chain, "));
  CHECK(has(err, "retail: info: [3/3] haunch.glb: ok, stepped down, nothing grown, "));
  check_summary(err);
  // -q: the error lines only.
  REQUIRE(test::run_retail({"batch", in, root + "/q", "--samples", "12", "--harm-noise", "0",
                            "--harm-skin-ratio", "0", "--min-skin-ratio", "0", "--no-hold", "-q"},
                           &out, &err) == 5);
  CHECK(err == "error: bad.glb: not a glTF file (no GLB magic and no JSON object)\n");
}

} // namespace test_batch_progress
