// What `retail batch` tells the person watching it (batch_progress.h).
#include "retail/app/batch_progress.h"

#include <cmath>
#include <cstdio>

namespace retail {

namespace {

/// "1 tail chain", "3 tail chains".
std::string count_of(std::size_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

/// "0:14", "12:05", "1:02:03"; "--:--" when not known.
std::string clock_text(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "--:--";
  const long s = std::lround(seconds);
  char buf[32];
  if (s >= 3600)
    std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
  else
    std::snprintf(buf, sizeof buf, "%ld:%02ld", s / 60, s % 60);
  return buf;
}

/// "joined; by; sep".
std::string joined(const std::vector<std::string>& parts, const char* sep) {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : sep) + p;
  return out;
}

} // namespace

std::string batch_outcome(const BatchEntry& e) {
  if (e.status == "failed") return "failed (exit " + std::to_string(e.exit_code) + ")";
  if (e.status == "skipped") return "up to date";
  std::vector<std::string> parts;
  if (e.stepped_down > 0) parts.push_back("stepped down");
  if (e.chains > e.rigid)
    parts.push_back(count_of(e.chains - e.rigid, "tail chain", "tail chains"));
  if (e.rigid > 0) parts.push_back(std::to_string(e.rigid) + " rigid on the hips");
  if (e.chains == 0) parts.push_back(e.stepped_down > 0 ? "nothing grown" : "nothing found");
  return joined(parts, ", ");
}

std::string batch_file_line(const BatchEntry& e, const BatchTally& tally) {
  char secs[32];
  std::snprintf(secs, sizeof secs, "%.2f s", e.ms / 1000);
  std::string line = "[" + std::to_string(tally.done) + "/" + std::to_string(tally.total) + "] " +
                     e.path + ": " + (e.status == "failed" ? "" : e.status + ", ") +
                     batch_outcome(e);
  if (e.status != "skipped") line += std::string(", ") + secs;
  if (needs_look(e.row)) line += ", needs a look";
  return line;
}

std::string batch_progress_line(const BatchTally& tally, double elapsed_seconds) {
  constexpr std::size_t width = 12;
  const std::size_t filled = tally.total ? width * tally.done / tally.total : width;
  const double eta = tally.done ? elapsed_seconds / double(tally.done) *
                                      double(tally.total - std::min(tally.done, tally.total))
                                : NAN;
  return "[" + std::string(filled, '#') + std::string(width - filled, '.') + "] " +
         std::to_string(tally.done) + "/" + std::to_string(tally.total) + " files, " +
         std::to_string(tally.failed) + " failed, " + std::to_string(tally.look) +
         (tally.look == 1 ? " needs" : " need") + " a look, ETA " + clock_text(eta);
}

std::vector<std::string> batch_summary_lines(const BatchResult& result) {
  std::size_t grown = 0, rigid_only = 0, nothing = 0, skipped = 0;
  for (const auto& e : result.entries) {
    if (e.status == "skipped") ++skipped;
    if (e.status != "ok") continue;
    if (e.chains > e.rigid)
      ++grown;
    else if (e.chains > 0)
      ++rigid_only;
    else
      ++nothing;
  }
  std::vector<std::string> lines = {
      "batch: " + count_of(result.entries.size(), "file", "files") + ": " + std::to_string(grown) +
      " with a tail chain, " + std::to_string(rigid_only) + " rigid on the hips, " +
      std::to_string(nothing) + " with nothing grown, " + std::to_string(skipped) +
      " up to date, " + std::to_string(result.failed) + " failed; " + std::to_string(result.look) +
      (result.look == 1 ? " needs" : " need") + " a look" + (result.look ? ":" : "")};
  for (const auto& e : result.entries)
    if (needs_look(e.row)) lines.push_back("  " + e.path + ": " + joined(look_reasons(e), "; "));
  return lines;
}

} // namespace retail
