// The file system boundary: reading regular files only, atomic writes through unpredictable
// temporary names, distinct read and write paths, removal on signals (files.h, document.h).
#include "retail/base/files.h"

#include "retail/base/error.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <limits>
#include <pthread.h>
#include <random>
#include <sys/stat.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace retail {
namespace {

/// The paths to remove on a signal. A slot is free (0), being filled (1) or live (2); the
/// handler reads only live slots. std::atomic<int> is lock-free, so usable from the handler.
struct CleanupSlot {
  std::atomic<int> state{0};
  char path[4096] = {};
};
constexpr int kCleanupSlots = 256;
CleanupSlot g_cleanup[kCleanupSlots]; // process-wide by necessity (files.h)

extern "C" void on_cleanup_signal(int sig) {
  remove_registered_files();
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

/// What kind of thing `st` is, for "not a regular file" messages.
const char* file_kind(const struct stat& st) {
  if (S_ISDIR(st.st_mode)) return "a folder";
  if (S_ISFIFO(st.st_mode)) return "a FIFO";
  if (S_ISSOCK(st.st_mode)) return "a socket";
  if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) return "a device";
  return "a special file";
}

std::string random_suffix() {
  static const char* hex = "0123456789abcdef";
  std::random_device rd;
  std::string out;
  for (int i = 0; i < 2; ++i) {
    unsigned v = rd();
    for (int k = 0; k < 8; ++k, v >>= 4) out.push_back(hex[v & 15]);
  }
  return out;
}

/// The longest file name `dir` takes (pathconf NAME_MAX; 255 when it cannot say).
std::size_t name_max(const fs::path& dir) {
  errno = 0;
  const long n = ::pathconf(dir.c_str(), _PC_NAME_MAX);
  return n > 0 ? std::size_t(n) : 255;
}

/// Creates a new temporary file for `target` in `dir`: O_EXCL | O_NOFOLLOW under a name no
/// other process can predict, so nothing planted there (a symbolic link) is ever followed.
/// The name stays within the folder's name limit: the target's name is shortened to fit.
int create_temp(const fs::path& dir, const fs::path& target, fs::path& tmp) {
  const std::string tag = ".retail-tmp-" + std::to_string(::getpid()) + "-";
  std::string name = target.filename().string();
  const std::size_t room = 1 + tag.size() + 16, limit = name_max(dir);
  if (room + name.size() > limit) name.resize(limit > room ? limit - room : 0);
  const std::string stem = "." + name + tag;
  for (int attempt = 0; attempt < 64; ++attempt) {
    tmp = dir / (stem + random_suffix());
    int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  errno = EEXIST;
  return -1;
}

bool write_all(int fd, const std::uint8_t* data, std::size_t size) {
  std::size_t done = 0;
  while (done < size) {
    ssize_t n = ::write(fd, data + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += std::size_t(n);
  }
  return true;
}

} // namespace

Bytes read_file(const std::string& path) {
  return read_file(path, std::numeric_limits<std::size_t>::max());
}

Bytes read_file(const std::string& path, std::size_t max_bytes) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused below.
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) fail_invalid(std::string("cannot read the file: ") + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    ::close(fd);
    fail_invalid("cannot read the file");
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    fail_invalid(std::string("cannot read the file: not a regular file (") + file_kind(st) + ")");
  }
  Bytes bytes(std::min(static_cast<std::size_t>(st.st_size), max_bytes));
  std::size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::read(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += std::size_t(n);
  }
  ::close(fd);
  if (done != bytes.size()) fail_invalid("cannot read the file");
  return bytes;
}

namespace {

void write_bytes_atomic(const std::string& path, const std::uint8_t* data, std::size_t size) {
  fs::path target(path);
  fs::path dir = target.parent_path().empty() ? fs::path(".") : target.parent_path();
  std::error_code ec;
  if (fs::is_directory(target, ec)) fail_output("cannot write '" + path + "': it is a folder");
  // The cleanup signals wait while the temporary file is created and registered: one arriving
  // between the two would leave the file behind.
  sigset_t cleanup_signals, previous;
  sigemptyset(&cleanup_signals);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&cleanup_signals, sig);
  ::pthread_sigmask(SIG_BLOCK, &cleanup_signals, &previous);
  fs::path tmp;
  int fd = create_temp(dir, target, tmp);
  if (fd < 0) {
    const int err = errno;
    ::pthread_sigmask(SIG_SETMASK, &previous, nullptr);
    fail_output("cannot create a temporary file in '" + dir.string() + "': " + std::strerror(err));
  }
  RemoveOnSignal guard(tmp.string());
  ::pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  bool ok = write_all(fd, data, size);
  int err = ok ? 0 : errno;
  if (::close(fd) != 0 && ok) ok = false, err = errno;
  if (!ok) {
    ::unlink(tmp.c_str());
    fail_output("cannot write '" + path + "': " + std::strerror(err ? err : EIO));
  }
  if (::rename(tmp.c_str(), target.c_str()) != 0) {
    err = errno;
    ::unlink(tmp.c_str());
    fail_output("cannot write '" + path + "': " + std::strerror(err));
  }
}

} // namespace

void write_file_atomic(const std::string& path, const Bytes& bytes) {
  write_bytes_atomic(path, bytes.data(), bytes.size());
}

void write_file_atomic(const std::string& path, std::string_view text) {
  write_bytes_atomic(path, reinterpret_cast<const std::uint8_t*>(text.data()), text.size());
}

std::string resolved_path(const std::string& path) {
  std::error_code ec;
  fs::path abs = fs::absolute(path, ec);
  if (ec) return path;
  fs::path r = fs::weakly_canonical(abs, ec);
  return (ec ? abs.lexically_normal() : r).string();
}

bool path_inside(const std::string& path, const std::string& dir) {
  fs::path rel = fs::path(resolved_path(path)).lexically_relative(resolved_path(dir));
  return !rel.empty() && *rel.begin() != ".." && rel != ".";
}

namespace {

bool same_file(const std::string& a, const std::string& b) {
  if (resolved_path(a) == resolved_path(b)) return true;
  std::error_code ec;
  return fs::exists(a, ec) && fs::exists(b, ec) && fs::equivalent(a, b, ec) && !ec;
}

} // namespace

void check_distinct_paths(const std::vector<PathUse>& reads, const std::vector<PathUse>& writes) {
  for (std::size_t w = 0; w < writes.size(); ++w) {
    if (writes[w].path.empty()) continue;
    for (const PathUse& r : reads)
      if (same_file(writes[w].path, r.path))
        throw Error(ExitCode::Usage, writes[w].role + " '" + writes[w].path + "' is " + r.role +
                                         (r.path == writes[w].path ? "" : " '" + r.path + "'") +
                                         "; retail never overwrites what it reads");
    for (std::size_t o = 0; o < w; ++o)
      if (!writes[o].path.empty() && same_file(writes[w].path, writes[o].path))
        throw Error(ExitCode::Usage, writes[w].role + " '" + writes[w].path + "' is also " +
                                         writes[o].role + " '" + writes[o].path +
                                         "'; retail never writes two things to one file");
  }
}

std::vector<PathUse> input_files(const std::string& path, const Document& doc) {
  std::vector<PathUse> out{{path, "the input"}};
  fs::path dir = fs::path(path).parent_path();
  for (const ExternalFile& e : doc.external)
    out.push_back({(dir / e.path).string(), "the input's sidecar '" + e.uri + "'"});
  return out;
}

int remove_on_signal(const std::string& path) {
  if (path.size() >= sizeof(CleanupSlot::path)) return -1;
  for (int i = 0; i < kCleanupSlots; ++i) {
    int expected = 0;
    if (!g_cleanup[i].state.compare_exchange_strong(expected, 1)) continue;
    std::memcpy(g_cleanup[i].path, path.c_str(), path.size() + 1);
    g_cleanup[i].state.store(2, std::memory_order_release);
    return i;
  }
  return -1;
}

void unregister_on_signal(int id) {
  if (id >= 0 && id < kCleanupSlots) g_cleanup[id].state.store(0, std::memory_order_release);
}

void remove_registered_files() {
  for (auto& slot : g_cleanup)
    if (slot.state.load(std::memory_order_acquire) == 2) ::unlink(slot.path);
}

void install_signal_cleanup() {
  struct sigaction sa {};
  sa.sa_handler = on_cleanup_signal;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) ::sigaction(sig, &sa, nullptr);
}

} // namespace retail
