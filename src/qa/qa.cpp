// Stretch tables and --fail-on checks (qa.h).
#include "retail/qa/qa.h"

#include "retail/base/error.h"
#include "retail/rig/animation.h"

#include <cmath>
#include <cstdio>
#include <regex>

namespace retail {
namespace {

double metric(const RegionStretch& r, const std::string& m) {
  if (m == "p95") return r.p95;
  if (m == "p99") return r.p99;
  if (m == "max") return r.max;
  if (m == "torn") return r.torn_percent;
  return r.edge_max_p99_percent; // edge_p99
}

bool compare(double a, const std::string& op, double b) {
  if (op == ">") return a > b;
  if (op == ">=") return a >= b;
  if (op == "<") return a < b;
  return a <= b;
}

/// A ratio in 5 columns: 1.23, 12.3, 123.
std::string ratio5(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, v < 9.995 ? "%5.2f" : v < 99.95 ? "%5.1f" : "%5.0f", v);
  return buf;
}

/// "p95 p99 max torn" in 23 columns.
std::string cell(const RegionStretch& r) {
  if (r.samples == 0) return "    -";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%s %s %s %4.1f%%", ratio5(r.p95).c_str(), ratio5(r.p99).c_str(),
                ratio5(r.max).c_str(), std::min(r.torn_percent, 99.9));
  return buf;
}

} // namespace

FailCheck parse_fail_on(const std::string& text) {
  static const std::regex form(
      R"(^\s*(p95|p99|max|torn|edge_p99|left_torn|chain_fail)\s*(>=|<=|>|<)\s*(?:(body)\.(p95|p99|max|torn|edge_p99)|([-+]?[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?))\s*$)");
  std::smatch m;
  if (!std::regex_match(text, m, form))
    throw Error(ExitCode::Usage,
                "--fail-on '" + text +
                    "': expected METRIC OP VALUE or METRIC OP body.METRIC "
                    "(METRIC: p95 p99 max torn edge_p99 left_torn chain_fail; OP: > >= "
                    "< <=)");
  FailCheck c;
  c.text = text;
  c.metric = m[1];
  c.op = m[2];
  c.against_body = m[3].matched;
  if (c.against_body)
    c.against_metric = m[4];
  else
    c.value = std::stod(m[5]);
  if ((c.metric == "left_torn" || c.metric == "chain_fail") && c.against_body)
    throw Error(ExitCode::Usage,
                "--fail-on '" + text + "': " + c.metric + " compares with a number");
  return c;
}

namespace {

/// The checks on `metric` (a count compared with a number) that `count` fails, each as
/// "<label>: <count><unit> <op> <value> (<text>)".
std::vector<std::string> evaluate_count(const std::vector<FailCheck>& checks,
                                        const std::string& metric, std::size_t count,
                                        const char* label, const char* unit) {
  std::vector<std::string> failures;
  for (const auto& c : checks)
    if (c.metric == metric && compare(double(count), c.op, c.value)) {
      char buf[160];
      std::snprintf(buf, sizeof buf, "%s: %zu%s %s %g (%s)", label, count, unit, c.op.c_str(),
                    c.value, c.text.c_str());
      failures.push_back(buf);
    }
  return failures;
}

} // namespace

std::vector<std::string> evaluate_left_torn(const std::vector<FailCheck>& checks,
                                            std::size_t left_torn) {
  return evaluate_count(checks, "left_torn", left_torn, "skin left torn", " vertices");
}

std::vector<std::string> evaluate_chain_fail(const std::vector<FailCheck>& checks,
                                             std::size_t failed) {
  return evaluate_count(checks, "chain_fail", failed, "chains failed their targets", "");
}

std::vector<std::string> evaluate_fail_on(const std::vector<FailCheck>& checks,
                                          const std::vector<StretchRow>& rows) {
  std::vector<std::string> failures;
  char buf[256];
  for (const auto& row : rows)
    for (const auto& c : checks) {
      if (row.result.samples == 0 || c.metric == "left_torn" || c.metric == "chain_fail") continue;
      double a = metric(row.result, c.metric),
             b = c.against_body ? metric(row.body, c.against_metric) : c.value;
      if (!compare(a, c.op, b)) continue;
      std::snprintf(buf, sizeof buf, "%s: tail %s %.4g %s %s%.4g (%s)", row.name.c_str(),
                    c.metric.c_str(), a, c.op.c_str(),
                    c.against_body ? ("body." + c.against_metric + " ").c_str() : "", b,
                    c.text.c_str());
      failures.push_back(buf);
    }
  return failures;
}

std::string format_stretch_table(const std::vector<StretchRow>& rows) {
  std::string out;
  char buf[256];
  bool before = !rows.empty() && rows[0].has_original;
  const char* metrics = "  p95   p99   max torn";
  if (before) {
    std::snprintf(buf, sizeof buf, "%-16s %-23s %-5s %-23s %s\n", "edge stretch",
                  "tail: original rig", "rigid", "tail: result", "body (result)");
    out += buf;
    std::snprintf(buf, sizeof buf, "%-16s %-23s %-5s %-23s %s\n", "clip", metrics, "  max", metrics,
                  "  p95   p99   max");
  } else {
    std::snprintf(buf, sizeof buf, "%-16s %-23s %s\n", "edge stretch", "tail", "body");
    out += buf;
    std::snprintf(buf, sizeof buf, "%-16s %-23s %s\n", "clip", metrics, metrics);
  }
  out += buf;
  for (const auto& r : rows) {
    std::string name = clip_base_name(r.name); // the armature prefix says nothing here
    if (name.size() > 16) name = name.substr(0, 15) + "~";
    std::string body = ratio5(r.body.p95) + " " + ratio5(r.body.p99) + " " + ratio5(r.body.max);
    if (before)
      std::snprintf(buf, sizeof buf, "%-16s %-23s %-5s %-23s %s\n", name.c_str(),
                    cell(r.original).c_str(), ratio5(r.rigid.max).c_str(), cell(r.result).c_str(),
                    body.c_str());
    else
      std::snprintf(buf, sizeof buf, "%-16s %-23s %s\n", name.c_str(), cell(r.result).c_str(),
                    cell(r.body).c_str());
    out += buf;
  }
  return out;
}

} // namespace retail
