// retail — command-line driver (SPEC §11). Exit codes: docs/exit-codes.md.
#include "retail/app/batch.h"
#include "retail/app/info.h"
#include "retail/app/pipeline.h"
#include "retail/base/error.h"
#include "retail/base/files.h"
#include "retail/motion/head_turn.h"

#include <CLI/CLI.hpp>
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
    for (const auto& ch : c.value("chains", retail::Json::array())) {
      const auto& wbd = ch["weighted_bone_distance"];
      spdlog::info("tail chain: {} bones ({}..), L {:.3g}, {} vertices, weighted bone distance "
                   "{:.3g} -> {:.3g}",
                   ch["K"].get<int>(), ch["bones"].empty() ? "" : ch["bones"][0].get<std::string>(),
                   ch["L"].get<double>(), ch["vertices"].get<std::size_t>(),
                   wbd["before"].get<double>(), wbd["after"].get<double>());
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

/// `retail batch`: a progress bar on a terminal (none otherwise), one error line per failed
/// file, exit 5 when any failed.
int run_batch_command(const std::string& in_dir, const std::string& out_dir,
                      const std::string& shard, const retail::RunParams& run,
                      retail::BatchParams batch, bool quiet) {
  try {
    std::tie(batch.shard_index, batch.shard_count) = retail::parse_shard(shard);
    batch.run = run;
    bool bar = !quiet && ::isatty(STDERR_FILENO);
    auto progress = [&](std::size_t done, std::size_t total, std::size_t failed) {
      if (!bar) return;
      int width = 30, filled = total ? int(width * done / total) : width;
      std::fprintf(stderr, "\r[%s%s] %zu/%zu files, %zu failed",
                   std::string(std::size_t(filled), '#').c_str(),
                   std::string(std::size_t(width - filled), '.').c_str(), done, total, failed);
      if (done == total) std::fprintf(stderr, "\n");
    };
    retail::BatchResult r = retail::run_batch(in_dir, out_dir, batch, progress);
    std::size_t ok = 0, skipped = 0;
    for (const auto& e : r.entries) {
      ok += e.status == "ok", skipped += e.status == "skipped";
      if (e.status == "failed")
        std::fprintf(stderr, "error: %s: %s\n", retail::terminal_safe(e.path).c_str(),
                     retail::terminal_safe(e.error).c_str());
    }
    spdlog::info("batch: {} file(s): {} re-rigged, {} up to date, {} failed; {} with a piece the "
                 "harm check stepped down (see their reports)",
                 r.entries.size(), ok, skipped, r.failed, r.stepped_down);
    return r.exit_code;
  } catch (const retail::Error& e) {
    return report_error(in_dir, e);
  } catch (const std::exception& e) {
    return internal_error(in_dir, e);
  }
}

/// What the command line gave beyond the params structs: flags turned into params after
/// parsing, the subcommands' own arguments, and the log level.
struct Cli {
  std::string in_path, out_path, mode = "chain";
  int verbose = 0;
  bool quiet = false, no_floor = false, units_fixed = false;
  std::vector<std::string> clips, fail_on;
  std::string info_in;
  bool info_json = false;
  std::string report_in, report_json, report_html, region_bones = "tail";
  bool head_turn = false;
  retail::HeadTurnReportParams head_turn_params;
  std::string batch_in, batch_out, shard = "0/1";
  retail::RunParams params;
  retail::BatchParams batch;
};

void bind_log_level(CLI::App& app, Cli& cli) {
  app.add_flag("-v,--verbose", cli.verbose, "more log detail on stderr");
  app.add_flag("-q,--quiet", cli.quiet, "only warnings and errors on stderr");
}

/// `retail IN OUT`'s own arguments, the bind skeleton's and the mode.
void bind_run(CLI::App& app, Cli& cli) {
  app.add_option("IN", cli.in_path, "input .glb/.vrm/.gltf");
  app.add_option("OUT", cli.out_path,
                 "output .glb/.vrm (GLB) or .gltf (+ OUT-stem.bin beside it); IN converts when "
                 "the container differs (docs/containers.md)");
  bind_log_level(app, cli);
  app.add_option("--reference-height", cli.params.bind.reference_height_m,
                 "model height (m) at which metre-given defaults apply unscaled")
      ->capture_default_str();
  app.add_option("--mode", cli.mode,
                 "chain (bones along the tail), rigid (tail on the hips), detect (report only: "
                 "OUT is a faithful copy, converted if asked)")
      ->check(CLI::IsMember({"chain", "rigid", "detect"}))
      ->capture_default_str();
  app.add_option("--report", cli.params.report_path,
                 "report path (default: OUT with .report.json; - for stdout)");
  app.add_option("--html", cli.params.html_path,
                 "also write a self-contained QA page: input, rigid reference and output side by "
                 "side with the heat map and the report (docs/html-page.md)");
}

/// Detection (detect.h).
void bind_detect(CLI::App& app, retail::DetectParams& dp) {
  app.add_flag("--rigid-worn", dp.rigid_worn,
               "give worn pieces (sheath, quiver) weight 1 on their bone");
  app.add_option("--far", dp.distance.far_fraction_h, "far: skeleton distance above this x H")
      ->capture_default_str();
  app.add_option("--centroid-ratio", dp.centroid_ratio,
                 "appendage: centroid distance >= this x reach")
      ->capture_default_str();
  app.add_option("--elongation", dp.elongation_min, "long: elongation >= this")
      ->capture_default_str();
  app.add_option("--merge-overlap", dp.merge_overlap, "merge shells whose box overlap exceeds this")
      ->capture_default_str();
  app.add_option("--junction-slope", dp.junction_slope,
                 "isoline growth rate where a body begins (docs/detection.md)")
      ->capture_default_str();
  app.add_option("--min-tail-length", dp.min_tail_length_h, "shortest tail, x H")
      ->capture_default_str();
  app.add_option("--slenderness", dp.slenderness_min,
                 "also long: pi L^2 / area >= this (curled tails; 0: off, sheets pass it too)")
      ->capture_default_str();
  app.add_option("--misweight-ratio", dp.misweight_ratio,
                 "mis-weighted skin: weighted bone distance > this x skeleton distance (+0.02 H)")
      ->capture_default_str();
  app.add_option("--base-zone", dp.base_zone_radii,
                 "a tail's base grows over mis-weighted skin up to this many neck radii")
      ->capture_default_str();
}

/// The chain and its root band (chain.h, root_band.h), then what is a tail by hand and the harm
/// check (rerig.h, pipeline.h).
void bind_rerig(CLI::App& app, retail::RunParams& params) {
  retail::RerigParams& rp = params.rerig;
  app.add_option("--short-tail", rp.chain.short_tail_h,
                 "tails shorter than this x H may get 1-2 bones (0: at least --min-bones)")
      ->capture_default_str();
  app.add_option("--segment", rp.chain.segment_h, "chain segment length, x H")
      ->capture_default_str();
  app.add_option("--min-bones", rp.chain.min_bones, "fewest chain bones")->capture_default_str();
  app.add_option("--root-band", rp.root_band.width_radii,
                 "blend the body's weights into the tail's root over this many collar radii "
                 "(0: off)")
      ->capture_default_str();
  app.add_option("--max-bones", rp.chain.max_bones, "most chain bones")->capture_default_str();
}

void bind_selection(CLI::App& app, retail::RunParams& params) {
  app.add_option("--tail", params.rerig.tail,
                 "treat this geometry as a tail chain whatever detection says (repeatable): "
                 "a mesh/primitive index like 0/2, a mesh name or a material name");
  app.add_option("--not-tail", params.rerig.not_tail,
                 "never treat this geometry as part of a tail (repeatable; same syntax)");
  app.add_option("--hair", params.hair.hair,
                 "rebuild this hair clump as a chain under the head (repeatable; same syntax): "
                 "its weights erased, a pinned band on the head, baked with the hair solver "
                 "(docs/hair.md)")
      ->allow_extra_args(false); // one value per --hair: `--hair H IN OUT` keeps IN and OUT
  app.add_option("--hair-joints", params.hair.joints, "joints per --hair chain (1..32)")
      ->capture_default_str();
  app.add_flag("--vrm-springs,!--no-vrm-springs", params.vrm_springs,
               "on a VRM output, also append every grown chain (tails and --hair) to the file's "
               "own springs (VRM 0.x bone groups / VRMC_springBone), so VRM runtimes swing it "
               "live; existing entries are kept as they were (default; docs/hair.md)");
  app.add_flag("--spring-bake,!--no-spring-bake", params.spring_bake,
               "re-simulate the input's own VRM spring chains (VRM 0.x bone groups / "
               "VRMC_springBone) and bake them into every selected clip; a clip's own track on a "
               "chain joint is kept (default; docs/hair.md)");
  app.add_flag("--harm-check,!--no-harm-check", params.harm_check,
               "judge every grown piece against the input under its own clips before writing; "
               "one that tears more steps down to a wider root band, rigid, or left as it was "
               "(default; --no-harm-check: write what detection grew)");
}

/// The spring (spring.h) and the bake (bake.h).
void bind_bake(CLI::App& app, retail::RunParams& params, bool& no_floor) {
  app.add_flag("--bake,!--no-bake", params.bake_enabled,
               "bake the spring into every selected clip (default; --no-bake: chain and weights "
               "only, the tail then follows the hips rigidly)");
  auto& sp = params.bake.spring;
  app.add_option("--fps", params.bake.fps, "baked keys per second")->capture_default_str();
  app.add_option("--no-loop", params.bake.no_loop,
                 "bake this clip (its full name) from rest without looping (repeatable)");
  app.add_option("--loop", params.bake.loop,
                 "bake this clip (its full name) as a loop even if its name reads one-shot "
                 "(repeatable)");
  app.add_option("--frequency", sp.root_frequency_hz, "spring frequency at the root, Hz")
      ->capture_default_str();
  app.add_option("--tip-frequency", sp.tip_frequency_hz, "spring frequency at the tip, Hz")
      ->capture_default_str();
  app.add_option("--damping", sp.damping_ratio, "damping ratio zeta")->capture_default_str();
  app.add_option("--gravity", sp.gravity_mps2, "gravity on the tail, m/s^2 (scaled to the model)")
      ->capture_default_str();
  app.add_option("--carry", sp.carry_deg, "total lift of the tail's rest arc, degrees")
      ->capture_default_str();
  app.add_option("--rest-curve", sp.rest_curve, "0 centred arc .. 1 the modelled curl")
      ->capture_default_str();
  app.add_option("--coupling", sp.coupling_rate, "bend coupling rate k, 1/s")
      ->capture_default_str();
  app.add_option("--bend-limit", sp.bend_limit_deg, "elastic bend limit per joint, degrees")
      ->capture_default_str();
  app.add_option("--min-skin-ratio", sp.min_skin_ratio,
                 "skin limit: no joint bends so far that a tail edge keeps less than this "
                 "ratio of its length (0: off)")
      ->capture_default_str();
  app.add_option("--substep", sp.substep_s, "fixed solver substep, s")->capture_default_str();
  app.add_option("--floor-clearance", sp.floor_clearance_m,
                 "tail thickness below its centreline at the floor (rho), m (scaled)")
      ->capture_default_str();
  app.add_option("--contact-damping", sp.contact_damping, "sliding damping on the floor, 1/s")
      ->capture_default_str();
  app.add_option("--loop-tolerance", params.bake.loop_tolerance_deg,
                 "warm-up ends when every bone's start state repeats within this, degrees")
      ->capture_default_str();
  app.add_option("--max-warmup", params.bake.max_warmup_cycles,
                 "most warm-up cycles before baking anyway (with a warning)")
      ->capture_default_str();
  app.add_option("--floor", params.bake.floor_y,
                 "floor height g0 (world Y; default: lowest body skin at bind)");
  app.add_flag("--no-floor", no_floor, "no floor contact");
}

/// The stretch and its checks (stretch.h, qa.h), the worker threads and the units.
void bind_measure(CLI::App& app, Cli& cli) {
  app.add_option("--clips", cli.clips,
                 "clips to bake, judge and measure, comma-separated: a full name or the part "
                 "after 'Armature|' (default: all; a clip left out gets no tail keys, the tail "
                 "follows the hips rigidly in it)")
      ->delimiter(',');
  app.add_option("--samples", cli.params.stretch.samples, "stretch samples per clip")
      ->capture_default_str();
  app.add_option("--fail-on", cli.fail_on,
                 "QA checks on the tail, e.g. torn>0 p99>body.p99 (exit 6 when one fails)");
  app.add_option("--threads", cli.params.threads,
                 "worker threads for the per-clip bake and stretch (0: one per core; the "
                 "output does not depend on it)")
      ->capture_default_str();
  app.add_flag("--units-fixed", cli.units_fixed,
               "do not scale metre-given defaults by H/1.8 (SPEC --units auto is the default)");
}

CLI::App* bind_info_command(CLI::App& app, Cli& cli) {
  auto* cmd = app.add_subcommand("info", "what retail sees: meshes, skins, roles, clips, H, scale");
  cmd->footer("Example:\n  retail info fox.glb --json > fox.info.json");
  cmd->add_option("IN", cli.info_in, "input file")->required();
  cmd->add_flag("--json", cli.info_json,
                "print retail.info/1 JSON on stdout (docs/info-schema.md)");
  bind_log_level(*cmd, cli);
  return cmd;
}

/// `retail report --head-turn` (head_turn.h).
void bind_head_turn(CLI::App& cmd, Cli& cli) {
  cmd.add_flag("--head-turn", cli.head_turn,
               "instead of the clips: the article's head turn (4 s of turns, 8 s to settle, "
               "120 Hz solver, mesh sampled at 30 Hz) on the file's VRM spring chains; "
               "--json writes retail.headturn/1 (docs/hair.md)");
  cmd.add_option("--head-turn-sample-hz", cli.head_turn_params.turn.sample_hz,
                 "--head-turn: mesh samples per second (a whole divisor of 120)")
      ->capture_default_str();
}

CLI::App* bind_report_command(CLI::App& app, Cli& cli) {
  auto* cmd =
      app.add_subcommand("report", "edge stretch of any rig under its clips; changes nothing");
  cmd->footer("Example:\n  retail report fox-rigged.glb --clips Walk --json stretch.json "
              "--fail-on 'torn>0'\n  retail report godette.vrm --head-turn --json headturn.json");
  cmd->add_option("IN", cli.report_in, "input file")->required();
  cmd->add_option("--json", cli.report_json, "write retail.stretch/1 JSON to PATH (- for stdout)");
  cmd->add_option("--html", cli.report_html,
                  "write a self-contained QA page: the rig with its heat map and the stretch "
                  "(docs/html-page.md)");
  cmd->add_option("--clips", cli.clips,
                  "clips to measure, comma-separated: a full name or the part after "
                  "'Armature|' (default: all)")
      ->delimiter(',');
  cmd->add_option("--region-bones", cli.region_bones,
                  "tail region: largest weight on a bone matching this regex")
      ->capture_default_str();
  cmd->add_option("--samples", cli.params.stretch.samples, "samples per clip")
      ->capture_default_str();
  cmd->add_option("--fail-on", cli.fail_on, "QA checks on the tail region (exit 6 when one fails)");
  cmd->add_option("--threads", cli.params.threads, "worker threads (0: one per core)")
      ->capture_default_str();
  bind_head_turn(*cmd, cli);
  bind_log_level(*cmd, cli);
  return cmd;
}

CLI::App* bind_batch_command(CLI::App& app, Cli& cli) {
  auto* cmd = app.add_subcommand(
      "batch", "re-rig every .glb/.vrm/.gltf below IN_DIR into OUT_DIR (docs/batch.md); "
               "the options of `retail IN OUT` apply to every file");
  cmd->fallthrough();
  cmd->footer("Outputs keep their input's container (convert single files with retail IN OUT).\n"
              "Example:\n  retail batch assets/ rigged/ -j 4 --summary rigged/summary.jsonl "
              "--fail-on 'torn>0'");
  cmd->add_option("IN_DIR", cli.batch_in, "input folder (recursive)")->required();
  cmd->add_option("OUT_DIR", cli.batch_out, "output folder (mirrors IN_DIR)")->required();
  cmd->add_option("-j,--jobs", cli.batch.jobs, "worker threads (0: one per core)")
      ->capture_default_str();
  cmd->add_option("--shard", cli.shard, "take every N-th file from the I-th: I/N")
      ->capture_default_str();
  cmd->add_option("--summary", cli.batch.summary_path,
                  "one JSON line per file (- for stdout; docs/batch.md)");
  cmd->add_flag("--force", cli.batch.force, "re-rig even outputs newer than their input");
  cmd->add_flag("--html", cli.batch.html,
                "a QA page beside every output (OUT with .html) and OUT_DIR/index.html "
                "listing them (docs/html-page.md)");
  bind_log_level(*cmd, cli);
  return cmd;
}

/// The params the flags stand for, once parsed. Failure: Error(Usage) for a bad --fail-on.
void finish_params(Cli& cli) {
  retail::RunParams& params = cli.params;
  params.bind.units_auto = !cli.units_fixed;
  params.clips = cli.clips;
  if (cli.no_floor) params.bake.spring.floor = false;
  for (const auto& f : cli.fail_on) params.fail_on.push_back(retail::parse_fail_on(f));
  params.rerig.mode = cli.mode == "rigid"    ? retail::Mode::Rigid
                      : cli.mode == "detect" ? retail::Mode::Detect
                                             : retail::Mode::Chain;
}

/// `retail info IN [--json]`.
int info_command(const Cli& cli) {
  try {
    std::vector<retail::StageStat> stats;
    retail::Input in = retail::load_input(cli.info_in, cli.params.bind, stats);
    retail::Json info = retail::make_info(cli.info_in, in.doc, in.model, in.characters);
    if (cli.info_json)
      std::cout << info.dump(2, ' ', false, retail::Json::error_handler_t::replace) << "\n";
    else
      std::cerr << retail::terminal_safe(retail::format_info(safe_strings(info)), true);
    return 0;
  } catch (const retail::Error& e) {
    return report_error(cli.info_in, e);
  } catch (const std::exception& e) {
    return internal_error(cli.info_in, e);
  }
}

/// `retail report IN --head-turn`: the table on stderr, retail.headturn/1 where --json says.
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
        retail::head_turn_report(in.doc, in.model, in.characters, cli.head_turn_params);
    for (const auto& w : r.warnings) spdlog::warn("{}", w);
    if (r.chains.empty())
      spdlog::info("head turn: {} has no spring chains (no VRM secondaryAnimation or "
                   "VRMC_springBone): nothing to measure",
                   cli.report_in);
    else if (!cli.quiet)
      std::cerr << retail::terminal_safe(retail::format_head_turn_table(r), true);
    if (r.torso.fitted)
      for (const auto& c : r.chains)
        if (c.torso_capsule_added)
          spdlog::info("head turn: chain '{}': its colliders cover {:.0f}% of the trunk; a torso "
                       "capsule (radius {:.3f}) was added",
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

/// `retail report IN`: the stretch table on stderr, the JSON where asked, exit 6 on a failed check.
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
      if (!cli.quiet) std::cerr << safe_table(m.stretch[k]);
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

/// `retail IN OUT`: the stage lines, notes, warnings and the table on stderr; exit 6 on a failed
/// check.
int rerig_command(const Cli& cli) {
  if (cli.in_path.empty() || cli.out_path.empty()) {
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
    spdlog::info("wrote {}{}", cli.out_path, r.report_path == "-" ? "" : " and " + r.report_path);
    if (!cli.params.html_path.empty())
      spdlog::info("wrote {} ({} bytes, {:.1f} ms)", cli.params.html_path, r.page_bytes, r.page_ms);
    for (const auto& f : r.failures) spdlog::error("check failed: {}", f);
    return r.failures.empty() ? 0 : int(retail::ExitCode::ChecksFailed);
  } catch (const retail::Error& e) {
    return report_error(cli.in_path, e);
  } catch (const std::exception& e) {
    return internal_error(cli.in_path, e);
  }
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
  bind_run(app, cli);
  bind_detect(app, cli.params.rerig.detect);
  bind_rerig(app, cli.params);
  bind_selection(app, cli.params);
  bind_bake(app, cli.params, cli.no_floor);
  bind_measure(app, cli);
  CLI::App* info = bind_info_command(app, cli);
  CLI::App* report = bind_report_command(app, cli);
  CLI::App* batch = bind_batch_command(app, cli);
  app.require_subcommand(0, 1);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : int(retail::ExitCode::Usage);
  }
  setup_logging(cli.verbose, cli.quiet);
  retail::install_signal_cleanup();
  try {
    finish_params(cli);
  } catch (const retail::Error& e) {
    std::fprintf(stderr, "error: %s\n", retail::terminal_safe(e.what()).c_str());
    return int(e.code());
  }
  if (info->parsed()) return info_command(cli);
  if (batch->parsed())
    return run_batch_command(cli.batch_in, cli.batch_out, cli.shard, cli.params, cli.batch,
                             cli.quiet);
  if (report->parsed()) return report_command(cli);
  return rerig_command(cli);
}
