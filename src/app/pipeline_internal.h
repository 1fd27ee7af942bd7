// retail — the QA page's share of the driver (private to src/: pipeline.cpp and pipeline_page.cpp).
// What `--html` adds to a run: the page's path checked up front, its three rigs built before
// anything is written (the input as read, the rigid reference and the output, all in memory), and
// the page written after the report.
#pragma once

#include "retail/app/pipeline.h"
#include "retail/io/builder.h"
#include "retail/record/html_page.h"

#include <string>
#include <vector>

namespace retail {

/// The page with the run's report (its timings left out: the page is deterministic), written
/// atomically to `path`; the time it took is added to result.page_ms.
void write_page(PageData& page, const Json& report, const std::string& path, RunResult& result);

/// --html PAGE: three.js is built in, PAGE's folder exists and PAGE is no folder.
/// Failure: Error(Unsupported) without three.js, Error(OutputFailed) for the path.
void check_page_path(const std::string& page);

/// The QA page of `retail IN OUT --html` but its report (added once written): the input as read
/// (in.doc rewound to `as_read`, in memory), the rigid reference (the same job in mode rigid on
/// another such copy, never written) and the output (in.doc: the re-rigged document with its
/// keys), each with its heat map under `clips`; the tail (every chain's re-weighted vertices)
/// and the output's chain nodes. Pre: `as_read` marked in.doc as read (builder.h); in.model and
/// in.characters the input's.
PageData rerig_page(const Input& in, const DocumentMark& as_read, const std::vector<int>& clips,
                    const RunParams& params, const RunResult& result);

/// The QA page of `retail report IN --html`: the one rig with its heat map; "tail motion off"
/// holds the joints whose names match `region_bones` still; the tail box covers `regions`.
std::string report_page(const Input& in, const std::vector<int>& clips,
                        const StretchParams& stretch, int threads,
                        const std::vector<std::vector<std::size_t>>& regions,
                        const std::string& region_bones, const Json& report);

} // namespace retail
