// retail — the driver: a list of stages from input file to output file.
//
// Stages are pure functions; the driver times them and hands their stats to the caller, which
// logs one line per stage. Nothing here prints.
#pragma once

#include "retail/document.h"
#include "retail/model.h"
#include "retail/rerig.h"
#include "retail/skeleton.h"

#include <string>
#include <vector>

namespace retail {

/// One stage's wall time and a short summary for the log.
struct StageStat {
  std::string stage;
  double ms = 0;
  std::string summary;
};

/// A read and validated input: the document, its typed view and its characters.
struct Input {
  std::string path;
  Document doc;
  Model model;
  std::vector<Character> characters;
};

/// read -> validate -> bind skeleton (characters, H, roles). Roles are not required here.
/// Failure: Error (InvalidInput / Unsupported) with a message naming the JSON path.
Input load_input(const std::string& path, const BindParams& bind, std::vector<StageStat>& stats);

struct RunParams {
  BindParams bind;
  RerigParams rerig;
  std::string report_path; ///< "" = default (OUT with .report.json), "-" = stdout (returned)
  /// Failure: Error(Usage).
  void validate() const {
    bind.validate();
    rerig.validate();
  }
};

struct RunResult {
  std::vector<StageStat> stages;
  std::vector<std::string> warnings;
  std::vector<std::string> notes; ///< how ambiguities were settled (logged at info level)
  std::vector<CharacterResult> characters;
  Json report;             ///< retail.report/1
  std::string report_path; ///< where it was written ("-": not written, the caller prints it)
};

/// `retail IN OUT`: load, validate, bind skeleton, then per character detect / chain / weights
/// (mode), write OUT atomically and the report. Nothing found: OUT is a faithful copy.
/// Failure: Error with the exit-code class (Usage when OUT is IN or the container differs;
/// OutputFailed when OUT or the report cannot be written, in which case neither is left).
RunResult run(const std::string& in_path, const std::string& out_path, const RunParams& params);

} // namespace retail
