// Restarting with glibc's transparent-huge-page malloc (huge_pages.h).
#include "huge_pages.h"

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <system_error>
#include <unistd.h>

namespace {

constexpr const char* kTunable = "glibc.malloc.hugetlb";
constexpr const char* kRequest = "glibc.malloc.hugetlb=1";

constexpr bool glibc_has_hugetlb() {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 35))
  return true;
#else
  return false;
#endif
}

} // namespace

std::string thp_mode() {
  std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string line;
  if (!in || !std::getline(in, line)) return "";
  const std::size_t open = line.find('['), close = line.find(']', open);
  if (open == std::string::npos || close == std::string::npos) return "";
  return line.substr(open + 1, close - open - 1);
}

std::uintmax_t job_input_bytes(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path p(path);
  if (!fs::is_regular_file(p, ec)) return 0;
  std::uintmax_t bytes = fs::file_size(p, ec);
  if (ec) return 0;
  std::string ext = p.extension().string();
  for (char& c : ext) c = char(std::tolower(static_cast<unsigned char>(c)));
  if (ext == ".gltf") {
    fs::path bin = p;
    bin.replace_extension(".bin");
    const std::uintmax_t more = fs::is_regular_file(bin, ec) ? fs::file_size(bin, ec) : 0;
    if (!ec) bytes += more;
  }
  return bytes;
}

bool want_huge_pages(std::uintmax_t input_bytes, const char* tunables, const std::string& mode,
                     std::string& why) {
  if (!glibc_has_hugetlb()) {
    why = "not glibc 2.35 or later";
    return false;
  }
  if (tunables && std::strstr(tunables, kTunable)) {
    why = std::string("GLIBC_TUNABLES names ") + kTunable;
    return false;
  }
  if (mode != "madvise") {
    why = "the kernel's transparent huge pages are '" + (mode.empty() ? "unknown" : mode) + "'";
    return false;
  }
  if (input_bytes < kHugePageMinBytes) {
    why = "the input is under " + std::to_string(kHugePageMinBytes >> 20) + " MiB";
    return false;
  }
  why = "the input is " + std::to_string(input_bytes >> 20) + " MiB";
  return true;
}

std::string restart_with_huge_pages(char** argv) {
  // Started as `ld-linux.so retail ...`, /proc/self/exe is the loader, which would take argv[1]
  // for the program: not restarted then.
  std::error_code ec;
  const std::string exe = std::filesystem::read_symlink("/proc/self/exe", ec).filename().string();
  if (ec) return "/proc/self/exe: " + ec.message();
  if (exe.rfind("ld-", 0) == 0 || exe.find("ld.so") != std::string::npos)
    return "started through the dynamic loader (" + exe + ")";
  const char* old = std::getenv("GLIBC_TUNABLES");
  const std::string value = old && *old ? std::string(old) + ":" + kRequest : kRequest;
  if (setenv("GLIBC_TUNABLES", value.c_str(), 1) != 0) return std::strerror(errno);
  execv("/proc/self/exe", argv);
  const std::string reason = std::strerror(errno); // execv returned: it failed
  if (old)
    setenv("GLIBC_TUNABLES", old, 1);
  else
    unsetenv("GLIBC_TUNABLES");
  return reason;
}

bool huge_pages_requested() {
  const char* t = std::getenv("GLIBC_TUNABLES");
  return t && std::strstr(t, kRequest);
}
