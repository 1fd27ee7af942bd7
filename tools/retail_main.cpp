// retail — command-line driver (SPEC §11). Exit codes: docs/exit-codes.md.
#include "retail/error.h"
#include "retail/info.h"
#include "retail/pipeline.h"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

namespace {

void setup_logging(int verbose, bool quiet) {
  auto logger = spdlog::stderr_logger_st("retail");
  logger->set_pattern("retail: %^%l%$: %v");
  logger->set_level(quiet         ? spdlog::level::warn
                    : verbose > 0 ? spdlog::level::debug
                                  : spdlog::level::info);
  spdlog::set_default_logger(logger);
}

void log_stages(const std::vector<retail::StageStat>& stages) {
  for (const auto& s : stages) spdlog::info("{:<9} {:8.1f} ms  {}", s.stage, s.ms, s.summary);
}

int report_error(const std::string& file, const retail::Error& e) {
  std::fprintf(stderr, "error: %s: %s\n", file.c_str(), e.what());
  return int(e.code());
}

} // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "retail: finds a tail an auto-rigger missed, gives it bones, and re-rigs the file.\n"
      "  retail IN OUT          re-rig IN into OUT (a faithful copy until detection lands)\n"
      "  retail info IN [--json] what retail sees in IN"};
  app.set_version_flag("--version", std::string("retail ") + RETAIL_VERSION);
  std::string in_path, out_path;
  int verbose = 0;
  bool quiet = false;
  retail::RunParams params;
  app.add_option("IN", in_path, "input .glb/.vrm/.gltf");
  app.add_option("OUT", out_path, "output file (same container as IN)");
  app.add_flag("-v,--verbose", verbose, "more log detail on stderr");
  app.add_flag("-q,--quiet", quiet, "only warnings and errors on stderr");
  app.add_option("--reference-height", params.bind.reference_height_m,
                 "model height (m) at which metre-given defaults apply unscaled")
      ->capture_default_str();
  bool units_fixed = false;
  app.add_flag("--units-fixed", units_fixed,
               "do not scale metre-given defaults by H/1.8 (SPEC --units auto is the default)");

  auto* info_cmd =
      app.add_subcommand("info", "what retail sees: meshes, skins, roles, clips, H, scale");
  std::string info_in;
  bool info_json = false;
  info_cmd->add_option("IN", info_in, "input file")->required();
  info_cmd->add_flag("--json", info_json,
                     "print retail.info/1 JSON on stdout (docs/info-schema.md)");
  info_cmd->add_flag("-v,--verbose", verbose, "more log detail on stderr");
  info_cmd->add_flag("-q,--quiet", quiet, "only warnings and errors on stderr");
  app.require_subcommand(0, 1);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : int(retail::ExitCode::Usage);
  }
  setup_logging(verbose, quiet);
  params.bind.units_auto = !units_fixed;

  if (info_cmd->parsed()) {
    try {
      std::vector<retail::StageStat> stats;
      retail::Input in = retail::load_input(info_in, params.bind, stats);
      retail::Json info = retail::make_info(info_in, in.doc, in.model, in.characters);
      if (info_json)
        std::cout << info.dump(2) << "\n";
      else
        std::cerr << retail::format_info(info);
      return 0;
    } catch (const retail::Error& e) {
      return report_error(info_in, e);
    }
  }
  if (in_path.empty() || out_path.empty()) {
    std::fprintf(stderr, "error: need IN and OUT (see retail --help)\n");
    return int(retail::ExitCode::Usage);
  }
  try {
    retail::RunResult r = retail::run(in_path, out_path, params);
    log_stages(r.stages);
    for (const auto& w : r.warnings) spdlog::warn("{}", w);
    spdlog::info("wrote {}", out_path);
    return 0;
  } catch (const retail::Error& e) {
    return report_error(in_path, e);
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "error: %s: out of memory\n", in_path.c_str());
    return int(retail::ExitCode::Unsupported);
  }
}
