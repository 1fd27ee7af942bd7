// retail's command line: what the options bind to (the params structs of every stage, and the
// rest in Cli) and the binders, one per stage's params and one per command (tools/retail_main.cpp
// runs the commands).
#pragma once

#include "retail/app/batch.h"
#include "retail/app/pipeline.h"
#include "retail/motion/head_turn.h"

#include <string>
#include <vector>

namespace CLI {
class App;
}

/// What the command line gave beyond the params structs: flags turned into params after
/// parsing, the subcommands' own arguments, and the log level.
struct Cli {
  std::string in_path, out_path, mode = "chain";
  int verbose = 0;
  bool quiet = false, no_floor = false, units_fixed = false, carry_always = false;
  bool geodesic_weights = false;
  bool hair_stiffer = true;  ///< --no-hair-stiffer: no stiffer try (HarmParams::hair_stiffer)
  bool print_config = false; ///< --print-config: print the config text and exit
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

/// The subcommands bind_options added; the one `parsed()` says which command to run (none:
/// `retail IN OUT`).
struct Subcommands {
  CLI::App* info = nullptr;
  CLI::App* report = nullptr;
  CLI::App* batch = nullptr;
};

/// Adds every option of `retail IN OUT` and the info, report and batch subcommands to `app`,
/// bound to `cli`, with retail's help (cli_help.h): the options in groups (everyday, detection,
/// spring, hair, output, advanced), `--config FILE` and `--print-config`.
Subcommands bind_options(CLI::App& app, Cli& cli);

/// The params the flags stand for, once parsed (--dry-run without --report: the report on
/// stdout). Failure: Error(Usage) for a bad --fail-on.
void finish_params(Cli& cli);
