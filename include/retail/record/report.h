// retail — the `retail.report/1` JSON (docs/report-schema.md), built from a complete run record.
#pragma once

#include "retail/base/document.h"
#include "retail/qa/qa.h"
#include "retail/qa/stretch.h"
#include "retail/record/run_record.h"

#include <string>
#include <vector>

namespace retail {

/// The report of a run: pieces, chains, bakes, the harm check, stretch, timings, warnings.
/// Numbers in world units are rounded to 1e-6 (deterministic text).
Json make_report(const RunRecord& record);

/// Stretch rows as JSON (docs/report-schema.md, "stretch").
Json stretch_json(const std::vector<StretchRow>& rows, const StretchParams& params);

/// One region's figures as JSON (docs/report-schema.md, "A region object").
Json region_json(const RegionStretch& r);

/// Default report path: OUT with its extension replaced by `.report.json`.
std::string default_report_path(const std::string& out_path);

} // namespace retail
