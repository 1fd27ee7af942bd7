// retail batch (batch.h).
#include "retail/app/batch.h"

#include "retail/base/error.h"
#include "retail/base/files.h"
#include "retail/base/parallel.h"
#include "retail/record/report.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <set>
#include <sys/stat.h>

namespace fs = std::filesystem;

namespace retail {

void BatchParams::validate() const {
  run.validate();
  if (jobs < 0 || shard_count < 1 || shard_index < 0 || shard_index >= shard_count)
    throw Error(ExitCode::Usage,
                "batch parameters out of range (-j >= 0, --shard I/N, 0 <= I < N)");
}

std::pair<int, int> parse_shard(const std::string& text) {
  std::size_t slash = text.find('/');
  try {
    if (slash != std::string::npos && slash > 0 && slash + 1 < text.size()) {
      std::size_t a = 0, b = 0;
      int i = std::stoi(text.substr(0, slash), &a), n = std::stoi(text.substr(slash + 1), &b);
      if (a == slash && b == text.size() - slash - 1 && n >= 1 && i >= 0 && i < n) return {i, n};
    }
  } catch (const std::exception&) {
  }
  throw Error(ExitCode::Usage, "--shard wants I/N with 0 <= I < N, got '" + text + "'");
}

namespace {

bool is_model(const fs::path& p) {
  std::string ext = p.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  return ext == ".glb" || ext == ".vrm" || ext == ".gltf";
}

} // namespace

std::vector<std::string> list_models(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throw Error(ExitCode::InvalidInput, "'" + dir + "' is not a folder");
  std::vector<std::string> out;
  fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end;
  if (ec) throw Error(ExitCode::InvalidInput, "cannot list '" + dir + "': " + ec.message());
  for (; it != end; it.increment(ec)) {
    if (ec) throw Error(ExitCode::InvalidInput, "cannot list '" + dir + "': " + ec.message());
    // Anything named like a model but a real folder (which is listed in turn): links of any
    // kind, FIFOs and devices too, so that they fail with their reason instead of vanishing.
    const fs::file_status st = it->symlink_status(ec);
    if (!ec && st.type() != fs::file_type::directory && is_model(it->path()))
      out.push_back(it->path().lexically_relative(dir).generic_string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string summary_line(const BatchEntry& e) {
  Json j = {{"path", e.path},
            {"status", e.status},
            {"exit_code", e.exit_code},
            {"chains", e.chains},
            {"harm_stepped_down", e.stepped_down},
            {"left_torn", e.left_torn},
            {"stretch", e.stretch},
            {"ms", std::round(e.ms * 10) / 10},
            {"error", e.error}};
  return j.dump(-1, ' ', false, Json::error_handler_t::replace); // paths need not be UTF-8
}

namespace {

/// The worst result tail over a run's clips: largest p99 and torn share, with their clips.
Json worst_stretch(const RunResult& r) {
  Json out = Json::object();
  double p99 = -1, torn = -1;
  for (const auto& rows : r.stretch)
    for (const auto& row : rows) {
      if (row.result.p99 > p99)
        p99 = row.result.p99, out["p99"] = round6(row.result.p99), out["p99_clip"] = row.name;
      if (row.result.torn_percent > torn)
        torn = row.result.torn_percent, out["torn_percent"] = round6(row.result.torn_percent),
        out["torn_clip"] = row.name;
    }
  return out;
}

/// Is `path` newer than the input (its modification time later)? False when either is missing.
bool newer_than(const fs::path& path, const fs::path& in) {
  std::error_code ec;
  if (!fs::exists(path, ec)) return false;
  auto t = fs::last_write_time(path, ec);
  if (ec) return false;
  auto t_in = fs::last_write_time(in, ec);
  return !ec && t > t_in;
}

/// What the run found, in a few words: "1 tail chain; 6 pieces: 1 tail_chain, 5 limb".
std::string found_text(const RunResult& r) {
  std::size_t chains = 0, pieces = 0;
  std::map<std::string, std::size_t> decisions;
  for (const auto& c : r.characters) {
    chains += c.chains.size();
    pieces += c.detection.pieces.size();
  }
  for (const auto& c : r.report["characters"])
    for (const auto& p : c.value("pieces", Json::array())) ++decisions[p.value("decision", "?")];
  std::string text = std::to_string(chains) + (chains == 1 ? " tail chain" : " tail chains") +
                     "; " + std::to_string(pieces) + (pieces == 1 ? " piece" : " pieces");
  std::string sep = ": ";
  for (const auto& [d, n] : decisions) text += sep + std::to_string(n) + " " + d, sep = ", ";
  return text;
}

/// The index row's figures of a run: the clip where the input's tail tears most (its torn share
/// before and after) and whether any clip tears more after than before.
void index_figures(const RunResult& r, IndexRow& row) {
  double worst = -1;
  for (const auto& rows : r.stretch)
    for (const auto& s : rows) {
      if (s.original.torn_percent > worst) {
        worst = s.original.torn_percent;
        row.figures = true;
        row.worst_clip = s.name;
        row.torn_before = s.original.torn_percent;
        row.torn_after = s.result.torn_percent;
      }
      if (s.result.torn_percent > s.original.torn_percent + 1e-9) row.worse = true;
    }
}

/// Why the entry at `in` cannot be read as a model, when it is a link that leads nowhere ("" for
/// anything else: reading says what is wrong with a FIFO, a folder or a device).
std::string link_problem(const fs::path& in) {
  struct stat st {};
  if (::lstat(in.c_str(), &st) != 0 || !S_ISLNK(st.st_mode) || ::stat(in.c_str(), &st) == 0)
    return "";
  const int err = errno;
  std::error_code ec;
  const std::string target = fs::read_symlink(in, ec).string();
  if (err == ELOOP) return "a symbolic link that loops ('" + target + "'): not read";
  if (err == ENOENT) return "a symbolic link to nothing ('" + target + "' does not exist)";
  return "a symbolic link that cannot be followed ('" + target + "'): " + std::strerror(err);
}

/// What the harm check did in the end, from its verdict ("harm check: WHY: STEP"): "left as it
/// was", "rigid on the hips instead", "a root band twice as wide", "the chain without the N
/// vertices ..." (a leading "trying " is dropped).
std::string step_taken(const std::string& verdict) {
  const std::size_t colon = verdict.rfind(": ");
  std::string step = colon == std::string::npos ? verdict : verdict.substr(colon + 2);
  const std::string trying = "trying ";
  return step.compare(0, trying.size(), trying) == 0 ? step.substr(trying.size()) : step;
}

/// The index row's copy of the entry's own fields.
void fill_row(BatchEntry& e) {
  e.row.path = e.path;
  e.row.status = e.status;
  e.row.error = e.error;
  e.row.stepped_down = e.stepped_down;
  e.row.left_torn = e.left_torn;
  e.row.ms = e.ms;
}

/// One file: skipped when up to date (its output and its report both newer than it: a run
/// killed between writing the two left an incomplete item, which is redone), else run; every
/// failure becomes the entry's status.
BatchEntry process(const BatchItem& item, const BatchParams& params, const std::string& in_root) {
  BatchEntry e;
  e.path = item.rel;
  if (!item.refused.empty()) { // a path it would write clashes (plan_batch): never run
    e.status = "failed", e.exit_code = int(ExitCode::Usage), e.error = item.refused;
    fill_row(e);
    return e;
  }
  const fs::path in = item.in, out = item.out;
  const std::string &report_path = item.report, &page_path = item.page;
  auto start = std::chrono::steady_clock::now();
  std::error_code ec;
  // A dry run writes no output to be newer than its input: every file is planned again.
  if (!params.force && !params.run.dry_run && newer_than(out, in) && newer_than(report_path, in) &&
      (!params.html || newer_than(page_path, in))) {
    e.status = "skipped";
    fill_row(e);
    return e;
  }
  try {
    if (const std::string why = link_problem(in); !why.empty())
      throw Error(ExitCode::InvalidInput, why);
    if (!path_inside(in.string(), in_root))
      throw Error(ExitCode::InvalidInput, "a link leading outside IN_DIR (not followed)");
    fs::create_directories(out.parent_path(), ec);
    if (ec)
      throw Error(ExitCode::OutputFailed, "cannot create '" + out.parent_path().string() + "'");
    RunParams rp = params.run;
    rp.report_path = report_path;
    if (params.html && !params.run.dry_run) rp.html_path = page_path; // a dry run: reports only
    RunResult r = run(in.string(), out.string(), rp);
    e.row.found = found_text(r);
    e.row.warnings = r.warnings;
    index_figures(r, e.row);
    for (const auto& c : r.characters)
      for (const auto& ch : c.chains) ++e.chains, e.rigid += ch.rigid;
    for (const auto& pieces : r.judge)
      for (const auto& pj : pieces)
        if (pj.verdict != "kept")
          ++e.stepped_down, e.steps.push_back("piece " + std::to_string(pj.piece) + ": " +
                                              step_taken(pj.verdict));
    for (const auto& left : r.left_torn)
      for (const auto& t : left) e.left_torn += t.vertices;
    e.row.left_torn = e.left_torn;
    for (std::size_t k = 0; k < r.chain_verdicts.size() && k < r.chain_records.size(); ++k)
      for (std::size_t i = 0; i < r.chain_verdicts[k].size(); ++i)
        if (r.chain_verdicts[k][i].verdict == "fail")
          e.row.chain_fail.push_back(r.chain_records[k][i].name());
    e.stretch = worst_stretch(r);
    e.status = "ok";
    if (!r.failures.empty()) {
      e.exit_code = int(ExitCode::ChecksFailed);
      for (const auto& f : r.failures) e.error += (e.error.empty() ? "" : "; ") + f;
    }
  } catch (const Error& err) {
    e.status = "failed", e.exit_code = int(err.code()), e.error = err.what();
  } catch (const std::bad_alloc&) {
    e.status = "failed", e.exit_code = int(ExitCode::Unsupported), e.error = "out of memory";
  } catch (const std::exception& err) {
    e.status = "failed", e.exit_code = int(ExitCode::Unsupported), e.error = err.what();
  }
  e.ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  fill_row(e);
  return e;
}

/// The index of a finished batch: one row per entry (its page relative to OUT_DIR when it has
/// one), written atomically to OUT_DIR/index.html.
void write_index(const std::string& in_dir, const std::string& out_dir,
                 std::vector<BatchEntry>& entries, const std::vector<std::string>& pages) {
  std::vector<IndexRow> rows;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    BatchEntry& e = entries[i];
    std::error_code ec;
    if (e.status != "failed" && fs::exists(pages[i], ec))
      e.row.page = fs::relative(pages[i], out_dir, ec).generic_string();
    rows.push_back(e.row);
  }
  const std::string text = make_batch_index(in_dir, rows);
  write_file_atomic((fs::path(out_dir) / "index.html").string(), Bytes(text.begin(), text.end()));
}

} // namespace

std::vector<std::string> look_reasons(const BatchEntry& e) {
  std::vector<std::string> out;
  if (e.status == "failed")
    out.push_back("failed (exit " + std::to_string(e.exit_code) + "): " + e.error);
  else if (!e.error.empty())
    out.push_back("--fail-on: " + e.error);
  for (const auto& step : e.steps) out.push_back("stepped down by the harm check, " + step);
  if (e.left_torn > 0) {
    const std::string n = std::to_string(e.left_torn) + " vertices of torn skin left as they came";
    out.push_back(e.chains == 0 && e.stepped_down == 0 ? "nothing found while the input tears: " + n
                                                       : n);
  }
  if (!e.row.chain_fail.empty()) {
    std::string names;
    for (const auto& n : e.row.chain_fail) names += (names.empty() ? "" : ", ") + n;
    out.push_back(std::to_string(e.row.chain_fail.size()) +
                  " chain(s) failed their targets: " + names);
  }
  if (e.row.worse) out.push_back("the output's tail tears more than the input's in some clip");
  if (out.empty() && !e.row.warnings.empty())
    out.push_back(std::to_string(e.row.warnings.size()) +
                  (e.row.warnings.size() == 1 ? " warning: " : " warnings, the first: ") +
                  e.row.warnings.front());
  return out;
}

std::vector<std::string> batch_report_paths(const std::vector<std::string>& outs) {
  std::vector<std::string> paths;
  std::set<std::string> taken;
  for (const auto& o : outs) {
    std::string p = fs::path(o).replace_extension(".report.json").string();
    if (taken.count(p)) p = o + ".report.json";
    taken.insert(p);
    paths.push_back(p);
  }
  return paths;
}

std::vector<std::string> page_paths(const std::vector<std::string>& outs,
                                    const std::string& out_dir) {
  std::vector<std::string> paths;
  std::vector<std::string> taken = {(fs::path(out_dir) / "index.html").lexically_normal().string()};
  for (const auto& o : outs) {
    std::string p = fs::path(o).replace_extension(".html").lexically_normal().string();
    if (std::find(taken.begin(), taken.end(), p) != taken.end())
      p = fs::path(o + ".html").lexically_normal().string();
    taken.push_back(p);
    paths.push_back(p);
  }
  return paths;
}

/// The summary stream (stdout, a file or none); `file` owns it when it is a file.
std::ostream* open_summary(const std::string& path, std::unique_ptr<std::ofstream>& file) {
  if (path == "-") return &std::cout;
  if (path.empty()) return nullptr;
  file = std::make_unique<std::ofstream>(path, std::ios::binary);
  if (!*file) throw Error(ExitCode::OutputFailed, "cannot write the summary '" + path + "'");
  return file.get();
}

BatchResult run_batch(const std::string& in_dir, const std::string& out_dir,
                      const BatchParams& params, const BatchProgress& progress) {
  const BatchPlan plan = plan_batch(in_dir, out_dir, params); // before anything is written
  std::vector<const BatchItem*> files;
  for (std::size_t i = 0; i < plan.items.size(); ++i)
    if (int(i % std::size_t(params.shard_count)) == params.shard_index)
      files.push_back(&plan.items[i]);
  std::error_code ec;
  fs::create_directories(out_dir, ec);
  if (ec || !fs::is_directory(out_dir, ec))
    throw Error(ExitCode::OutputFailed, "cannot create the output folder '" + out_dir + "'");
  std::unique_ptr<std::ofstream> summary_file;
  std::ostream* summary = open_summary(params.summary_path, summary_file);

  // Files run side by side on the workers; each file's per-clip work shares what cores are
  // left (one thread each when there are as many files at a time as cores).
  std::size_t n = std::min<std::size_t>(std::size_t(worker_count(params.jobs)),
                                        std::max<std::size_t>(files.size(), 1));
  BatchParams per_file = params;
  if (per_file.run.threads == 0) per_file.run.threads = std::max(1, worker_count(0) / int(n));

  BatchResult result;
  result.entries.resize(files.size());
  std::vector<bool> done(files.size(), false);
  std::mutex mutex;
  std::size_t flushed = 0;
  BatchTally tally;
  tally.total = files.size();
  if (progress) progress(nullptr, tally);
  parallel_for(files.size(), int(n), [&](std::size_t i) {
    BatchEntry e = process(*files[i], per_file, in_dir);
    const bool look = needs_look(e.row);
    std::lock_guard<std::mutex> lock(mutex);
    result.entries[i] = std::move(e);
    done[i] = true;
    ++tally.done;
    if (result.entries[i].status == "failed") ++result.failed;
    if (result.entries[i].stepped_down > 0) ++result.stepped_down;
    result.look += look;
    tally.failed = result.failed, tally.look = result.look;
    for (; flushed < files.size() && done[flushed]; ++flushed)
      if (summary) *summary << summary_line(result.entries[flushed]) << "\n" << std::flush;
    if (progress) progress(&result.entries[i], tally);
  });
  if (summary_file && !*summary_file)
    throw Error(ExitCode::OutputFailed, "cannot write the summary '" + params.summary_path + "'");
  if (params.html && !params.run.dry_run) {
    std::vector<std::string> pages;
    for (const BatchItem* f : files) pages.push_back(f->page);
    write_index(in_dir, out_dir, result.entries, pages);
  }
  result.exit_code = result.failed ? int(ExitCode::BatchFailed) : 0;
  return result;
}

} // namespace retail
