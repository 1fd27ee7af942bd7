// retail — the `retail.report/1` JSON (docs/report-schema.md).
#pragma once

#include "retail/bake.h"
#include "retail/document.h"
#include "retail/model.h"
#include "retail/qa.h"
#include "retail/rerig.h"
#include "retail/skeleton.h"

#include <string>
#include <vector>

namespace retail {

struct StageStat;

/// What the report needs about one run; hashes are of the exact bytes read and written.
struct ReportInput {
  std::string input_path, input_sha256;
  std::string output_path, output_sha256;
  std::string mode;
  const Model* model = nullptr;
  const std::vector<Character>* characters = nullptr;
  const std::vector<CharacterResult>* results = nullptr;
  const std::vector<StageStat>* stages = nullptr;
  const std::vector<StageStat>* work = nullptr; ///< worker time inside the clip pass, or null
  std::vector<std::string> warnings;
  const std::vector<std::vector<StretchRow>>* stretch = nullptr; ///< per character
  StretchParams stretch_params;
  const std::vector<std::vector<ClipBake>>* bakes = nullptr;   ///< per character
  const std::vector<std::vector<PieceJudge>>* judge = nullptr; ///< per character: harm check
  std::vector<double> floors;
  std::vector<std::string> failures;
};

/// Builds the report object. Numbers in world units are rounded to 1e-6 (deterministic text).
Json make_report(const ReportInput& in);

/// Default report path: OUT with its extension replaced by `.report.json`.
std::string default_report_path(const std::string& out_path);

/// `v` rounded to 6 decimals: how figures are written into reports and summaries.
double round6(double v);

} // namespace retail
