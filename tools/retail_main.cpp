// retail — command-line driver (SPEC §11). Exit codes: docs/exit-codes.md.
#include "cli_help.h"
#include "cli_options.h"
#include "huge_pages.h"
#include "retail/app/batch.h"
#include "retail/app/batch_progress.h"
#include "retail/app/info.h"
#include "retail/app/pipeline.h"
#include "retail/base/error.h"
#include "retail/base/files.h"
#include "retail/base/units.h"
#include "retail/motion/hair_qa.h"
#include "retail/motion/head_turn.h"

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <mutex>
#include <spdlog/sinks/base_sink.h>
#include <spdlog/spdlog.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

namespace {

/// `retail --help`'s header: every command with one example (README.md, "Commands").
constexpr const char* kHeader =
    "retail: finds the tail an auto-rigger weighted to the legs, grows a bone chain along it,\n"
    "re-weights its skin, bakes spring motion into every clip and writes a JSON report that\n"
    "measures the tail's edge stretch before and after. Exit codes: docs/exit-codes.md.\n"
    "\n"
    "Commands (each has its own --help):\n"
    "  retail IN OUT [OPTIONS]         re-rig IN into OUT, report in OUT.report.json; OUT's\n"
    "                                  extension picks the container (.glb/.vrm, or .gltf + .bin)\n"
    "      e.g. retail fox.glb fox-rigged.glb --clips Walk,Run --fail-on 'torn>0'\n"
    "  retail info IN [--json]         what retail sees: meshes, skins, roles, clips, H, scale\n"
    "      e.g. retail info fox.glb --json\n"
    "  retail report IN [OPTIONS]      edge stretch of any rig under its clips; changes nothing\n"
    "      e.g. retail report fox-rigged.glb --clips Walk --json stretch.json\n"
    "  retail report IN --head-turn [--json PATH|-]\n"
    "                                  the article's head turn on the file's spring chains\n"
    "      e.g. retail report godette.vrm --head-turn --json headturn.json\n"
    "  retail batch IN_DIR OUT_DIR [OPTIONS]\n"
    "                                  every .glb/.vrm/.gltf below IN_DIR into OUT_DIR\n"
    "      e.g. retail batch assets/ rigged/ -j 4 --summary rigged/summary.jsonl\n";

/// stderr, every line through terminal_safe: names from files cannot forge lines or send
/// escape sequences to the terminal.
class SafeStderrSink : public spdlog::sinks::base_sink<std::mutex> {
protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    spdlog::memory_buf_t buf;
    formatter_->format(msg, buf);
    std::string line(buf.data(), buf.size());
    while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
    line = retail::terminal_safe(line) + "\n";
    std::fwrite(line.data(), 1, line.size(), stderr);
  }
  void flush_() override { std::fflush(stderr); }
};

void setup_logging(int verbose, bool quiet) {
  auto logger = std::make_shared<spdlog::logger>("retail", std::make_shared<SafeStderrSink>());
  logger->set_pattern("retail: %^%l%$: %v");
  logger->set_level(quiet         ? spdlog::level::warn
                    : verbose > 0 ? spdlog::level::debug
                                  : spdlog::level::info);
  spdlog::set_default_logger(logger);
}

/// `j` with every string (keys too) made terminal_safe: names from the file, before they are
/// laid out as text.
retail::Json safe_strings(const retail::Json& j) {
  if (j.is_string()) return retail::terminal_safe(j.get<std::string>());
  if (j.is_array()) {
    retail::Json out = retail::Json::array();
    for (const auto& v : j) out.push_back(safe_strings(v));
    return out;
  }
  if (!j.is_object()) return j;
  retail::Json out = retail::Json::object();
  for (const auto& [k, v] : j.items()) out[retail::terminal_safe(k)] = safe_strings(v);
  return out;
}

/// The stretch table with the clip names made terminal_safe.
std::string safe_table(std::vector<retail::StretchRow> rows) {
  for (auto& r : rows) r.name = retail::terminal_safe(r.name);
  return retail::terminal_safe(retail::format_stretch_table(rows), true);
}

void log_stages(const std::vector<retail::StageStat>& stages) {
  for (const auto& s : stages) spdlog::info("{:<9} {:8.1f} ms  {}", s.stage, s.ms, s.summary);
}

/// One line per tail chain and per piece left alone, for people reading the log.
void log_summary(const retail::RunResult& r) {
  for (const auto& c : r.report["characters"]) {
    const double h = c.value("height", 0.0);
    for (const auto& ch : c.value("chains", retail::Json::array())) {
      const auto& wbd = ch["weighted_bone_distance"];
      spdlog::info("tail chain: {} bones ({}..), L {}, {} vertices, weighted bone distance "
                   "{} -> {}",
                   ch["K"].get<int>(), ch["bones"].empty() ? "" : ch["bones"][0].get<std::string>(),
                   retail::length_text(ch["L"].get<double>(), h), ch["vertices"].get<std::size_t>(),
                   retail::length_text(wbd["before"].get<double>(), h),
                   retail::length_text(wbd["after"].get<double>(), h));
    }
    for (const auto& p : c.value("pieces", retail::Json::array()))
      if (p["decision"] != "tail_chain" && p["vertices"].get<std::size_t>() >= 8)
        spdlog::debug("piece {} ({} vertices): {}", p["id"].get<int>(),
                      p["vertices"].get<std::size_t>(), p["reason"].get<std::string>());
  }
}

/// Anything but retail::Error is a bug; still a line and exit 3, never a crash (exit-codes.md).
int internal_error(const std::string& file, const std::exception& e) {
  if (dynamic_cast<const std::bad_alloc*>(&e)) {
    std::fprintf(stderr, "error: %s: out of memory\n", retail::terminal_safe(file).c_str());
  } else {
    std::fprintf(stderr, "error: %s: internal error (please report): %s\n",
                 retail::terminal_safe(file).c_str(), retail::printable(e.what()).c_str());
  }
  return int(retail::ExitCode::Unsupported);
}

int report_error(const std::string& file, const retail::Error& e) {
  std::fprintf(stderr, "error: %s: %s\n", retail::terminal_safe(file).c_str(),
               retail::terminal_safe(e.what()).c_str());
  return int(e.code());
}

/// `retail batch`: on a terminal a live progress line, redrawn in place and cleared at the end;
/// with -v one line per file (terminal or not); one error line per failed file; the summary
/// naming the files that need a look (batch_progress.h); exit 5 when any failed.
int run_batch_command(const std::string& in_dir, const std::string& out_dir,
                      const std::string& shard, const retail::RunParams& run,
                      retail::BatchParams batch, bool quiet, bool verbose) {
  try {
    std::tie(batch.shard_index, batch.shard_count) = retail::parse_shard(shard);
    batch.run = run;
    const bool live = !quiet && ::isatty(STDERR_FILENO);
    const auto start = std::chrono::steady_clock::now();
    auto progress = [&](const retail::BatchEntry* e, const retail::BatchTally& tally) {
      if (live) std::fputs("\r\033[K", stderr);
      if (e && verbose && !quiet) spdlog::info("{}", retail::batch_file_line(*e, tally));
      if (!live) return;
      const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
      std::fputs(retail::batch_progress_line(tally, elapsed.count()).c_str(), stderr);
      std::fflush(stderr);
    };
    retail::BatchResult r = retail::run_batch(in_dir, out_dir, batch, progress);
    if (live) std::fputs("\r\033[K", stderr);
    for (const auto& e : r.entries)
      if (e.status == "failed")
        std::fprintf(stderr, "error: %s: %s\n", retail::terminal_safe(e.path).c_str(),
                     retail::terminal_safe(e.error).c_str());
    for (const auto& line : retail::batch_summary_lines(r)) spdlog::info("{}", line);
    return r.exit_code;
  } catch (const retail::Error& e) {
    return report_error(in_dir, e);
  } catch (const std::exception& e) {
    return internal_error(in_dir, e);
  }
}

/// `retail report`'s data, its tables: stdout, unless `--json -` puts the JSON there (the tables
/// then go to stderr beside the log, not into the JSON; -q: not at all).
void print_table(const Cli& cli, const std::string& text) {
  if (cli.report_json != "-")
    std::cout << text;
  else if (!cli.quiet)
    std::cerr << text;
}

/// `retail info IN [--json]`: the text or the JSON on stdout.
int info_command(const Cli& cli) {
  try {
    std::vector<retail::StageStat> stats;
    retail::Input in = retail::load_input(cli.info_in, cli.params.bind, stats);
    retail::Json info = retail::make_info(cli.info_in, in.doc, in.model, in.characters);
    if (cli.info_json)
      std::cout << info.dump(2, ' ', false, retail::Json::error_handler_t::replace) << "\n";
    else
      std::cout << retail::terminal_safe(retail::format_info(safe_strings(info)), true);
    return 0;
  } catch (const retail::Error& e) {
    return report_error(cli.info_in, e);
  } catch (const std::exception& e) {
    return internal_error(cli.info_in, e);
  }
}

/// `retail report IN --head-turn`: the table on stdout (on stderr when --json - takes stdout),
/// retail.headturn/1 where --json says.
int head_turn_command(const Cli& cli) {
  try {
    if (!cli.report_html.empty() || !cli.fail_on.empty() || !cli.clips.empty())
      throw retail::Error(retail::ExitCode::Usage,
                          "--head-turn runs its own sequence: --html, --fail-on and --clips do "
                          "not apply to it");
    cli.head_turn_params.validate();
    std::vector<retail::StageStat> stats;
    retail::Input in = retail::load_input(cli.report_in, cli.params.bind, stats, true);
    log_stages(stats);
    retail::HeadTurnReport r =
        retail::head_turn_report_grown(in.doc, in.model, in.characters, cli.head_turn_params);
    for (const auto& w : r.warnings) spdlog::warn("{}", w);
    if (r.chains.empty() && r.warnings.empty())
      spdlog::info("head turn: {} has no spring chains (no VRM secondaryAnimation or "
                   "VRMC_springBone, no Hair_<n> chains retail grew): nothing to measure",
                   cli.report_in);
    else if (r.chains.empty())
      spdlog::info("head turn: {}: no spring chains measured (see the warnings)", cli.report_in);
    else
      print_table(cli, retail::terminal_safe(retail::format_head_turn_table(r), true));
    if (r.torso.fitted)
      for (const auto& c : r.chains)
        if (c.torso_capsule_added)
          spdlog::info("head turn: chain '{}': its colliders cover {:.0f}% of the trunk; a torso "
                       "capsule (radius {:.3f} m) was added",
                       c.name, 100 * c.torso_covered_fraction, r.torso.capsule.radius_m);
    retail::Json j =
        retail::head_turn_json(r, in.model, cli.head_turn_params, cli.report_in, in.sha256);
    std::string text = j.dump(2, ' ', false, retail::Json::error_handler_t::replace) + "\n";
    if (cli.report_json == "-")
      std::cout << text;
    else if (!cli.report_json.empty()) {
      retail::check_distinct_paths(retail::input_files(cli.report_in, in.doc),
                                   {{cli.report_json, "the report"}});
      retail::write_file_atomic(cli.report_json, retail::Bytes(text.begin(), text.end()));
    }
    return 0;
  } catch (const retail::Error& e) {
    return report_error(cli.report_in, e);
  } catch (const std::exception& e) {
    return internal_error(cli.report_in, e);
  }
}

/// `retail report IN`: the stretch table on stdout (on stderr when --json - takes stdout), the
/// JSON where asked, exit 6 on a failed check.
int report_command(const Cli& cli) {
  if (cli.head_turn) return head_turn_command(cli);
  const retail::RunParams& params = cli.params;
  try {
    if (!cli.report_html.empty()) {
      const std::vector<retail::PathUse> writes = {
          {cli.report_json == "-" ? "" : cli.report_json, "the report"},
          {cli.report_html, "the page"}};
      retail::check_distinct_paths({{cli.report_in, "the input"}}, writes);
    }
    retail::MeasureResult m = retail::measure_rig(cli.report_in, params.bind, params.stretch,
                                                  params.clips, cli.region_bones, params.fail_on,
                                                  params.threads, !cli.report_html.empty());
    log_stages(m.stages);
    for (std::size_t k = 0; k < m.stretch.size(); ++k) {
      spdlog::info("character {}: {} vertices in the tail region ('{}')", k, m.region_vertices[k],
                   cli.region_bones);
      print_table(cli, safe_table(m.stretch[k]));
    }
    if (cli.report_json == "-")
      std::cout << m.json.dump(2, ' ', false, retail::Json::error_handler_t::replace) << "\n";
    else if (!cli.report_json.empty()) {
      retail::check_distinct_paths(m.inputs, {{cli.report_json, "the report"}});
      std::string text = m.json.dump(2, ' ', false, retail::Json::error_handler_t::replace) + "\n";
      retail::write_file_atomic(cli.report_json, retail::Bytes(text.begin(), text.end()));
    }
    if (!cli.report_html.empty()) {
      retail::check_distinct_paths(m.inputs, {{cli.report_html, "the page"}});
      retail::write_file_atomic(cli.report_html, retail::Bytes(m.page.begin(), m.page.end()));
      spdlog::info("wrote {} ({} bytes)", cli.report_html, m.page.size());
    }
    for (const auto& f : m.failures) spdlog::error("check failed: {}", f);
    return m.failures.empty() ? 0 : int(retail::ExitCode::ChecksFailed);
  } catch (const retail::Error& e) {
    return report_error(cli.report_in, e);
  } catch (const std::exception& e) {
    return internal_error(cli.report_in, e);
  }
}

/// `retail IN OUT`: the stage lines, notes, warnings and the table on stderr, the report on stdout
/// when asked (--report -, or --dry-run without --report); exit 6 on a failed check.
int rerig_command(const Cli& cli) {
  if (cli.in_path.empty() || (cli.out_path.empty() && !cli.params.dry_run)) {
    std::fprintf(stderr, "error: need IN and OUT (see retail --help)\n");
    return int(retail::ExitCode::Usage);
  }
  try {
    retail::RunResult r = retail::run(cli.in_path, cli.out_path, cli.params);
    log_stages(r.stages);
    for (const auto& n : r.notes) spdlog::info("note: {}", n);
    for (const auto& w : r.warnings) spdlog::warn("{}", w);
    log_summary(r);
    for (const auto& rows : r.stretch)
      if (!rows.empty() && !cli.quiet) std::cerr << safe_table(rows);
    if (r.report_path == "-")
      std::cout << r.report.dump(2, ' ', false, retail::Json::error_handler_t::replace) << "\n";
    if (cli.params.dry_run)
      spdlog::info("dry run: wrote {} and nothing else{}",
                   r.report_path == "-" ? "the report to stdout" : r.report_path,
                   cli.out_path.empty() ? "" : " (" + cli.out_path + " not written)");
    else
      spdlog::info("wrote {}{}", cli.out_path, r.report_path == "-" ? "" : " and " + r.report_path);
    if (!cli.params.html_path.empty() && !cli.params.dry_run)
      spdlog::info("wrote {} ({} bytes, {:.1f} ms)", cli.params.html_path, r.page_bytes, r.page_ms);
    for (const auto& f : r.failures) spdlog::error("check failed: {}", f);
    return r.failures.empty() ? 0 : int(retail::ExitCode::ChecksFailed);
  } catch (const retail::Error& e) {
    return report_error(cli.in_path, e);
  } catch (const std::exception& e) {
    return internal_error(cli.in_path, e);
  }
}

/// A --config file CLI11 could not read (`what` ""), or with an option retail does not know:
/// one line naming the file, exit 1.
int config_error(const CLI::App& app, std::string what) {
  const std::string file = app.get_config_ptr()->as<std::string>();
  const std::string unknown = "INI was not able to parse ";
  if (what.empty())
    what = "cannot read the config file";
  else if (what.compare(0, unknown.size(), unknown) == 0)
    what = "unknown option '" + what.substr(unknown.size()) +
           "' (names as on the command line without the dashes; retail --print-config lists "
           "them)";
  std::fprintf(stderr, "error: %s: %s\n", retail::terminal_safe(file).c_str(),
               retail::terminal_safe(what).c_str());
  return int(retail::ExitCode::Usage);
}

/// Restarts the process with glibc's huge-page malloc when it pays (huge_pages.h): for a re-rig
/// or report of a large input, and for a batch (many inputs, one process). Before anything is
/// read or written, so a restart repeats nothing but the parsing of the command line. Returns
/// what was decided, for the debug log; returns at all only when no restart took place.
std::string memory_note(const Subcommands& sub, const Cli& cli, char** argv) {
  if (huge_pages_requested()) return "glibc's huge-page malloc (GLIBC_TUNABLES)";
  if (sub.info->parsed()) return "glibc's default malloc (info)";
  const std::uintmax_t bytes = sub.batch->parsed()    ? UINTMAX_MAX
                               : sub.report->parsed() ? job_input_bytes(cli.report_in)
                                                      : job_input_bytes(cli.in_path);
  std::string why;
  if (!want_huge_pages(bytes, std::getenv("GLIBC_TUNABLES"), thp_mode(), why))
    return "glibc's default malloc: " + why;
  return "glibc's default malloc: restarting with huge pages failed (" +
         restart_with_huge_pages(argv) + ")";
}

} // namespace

int main(int argc, char** argv) {
#ifdef __GLIBC__
  // Large scratch buffers (per-clip ratios, percentiles) are allocated and freed over and over;
  // glibc would map and unmap each one, paying page faults every time. Keep freed memory for
  // reuse instead (peak memory grows a little, +5% at 1M vertices; it is released at exit).
  mallopt(M_MMAP_THRESHOLD, 256 << 20);
  mallopt(M_TRIM_THRESHOLD, 512 << 20);
#endif
  CLI::App app{kHeader};
  app.set_version_flag("--version", std::string("retail ") + RETAIL_VERSION);
  Cli cli;
  const Subcommands sub = bind_options(app, cli);
  app.require_subcommand(0, 1);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ConfigError& e) {
    return config_error(app, e.what());
  } catch (const CLI::FileError& e) {
    return config_error(app, "");
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : int(retail::ExitCode::Usage);
  }
  if (cli.print_config) {
    std::cout << config_text(app);
    return 0;
  }
  const std::string memory = memory_note(sub, cli, argv);
  setup_logging(cli.verbose, cli.quiet);
  spdlog::debug("memory: {}", memory);
  retail::install_signal_cleanup();
  try {
    finish_params(cli);
  } catch (const retail::Error& e) {
    std::fprintf(stderr, "error: %s\n", retail::terminal_safe(e.what()).c_str());
    return int(e.code());
  }
  if (sub.info->parsed()) return info_command(cli);
  if (sub.batch->parsed() && cli.params.dry_run && !cli.quiet)
    std::fprintf(stderr, "retail: dry run: each file's report is written beside where its output "
                         "would be; no output, page or index\n");
  if (sub.batch->parsed())
    return run_batch_command(cli.batch_in, cli.batch_out, cli.shard, cli.params, cli.batch,
                             cli.quiet, cli.verbose > 0);
  if (sub.report->parsed()) return report_command(cli);
  return rerig_command(cli);
}
