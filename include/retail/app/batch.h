// retail — batch over asset folders (SPEC §11): `retail batch IN_DIR OUT_DIR`.
//
// Every .glb/.vrm/.gltf below IN_DIR (recursive, symlinked folders not followed) is re-rigged
// into the same relative path below OUT_DIR by N worker threads, each holding one file at a time
// (memory is bounded by N files). A file that fails is reported and the batch goes on; nothing
// is written outside OUT_DIR and a failed file leaves no output. The file list is sorted by
// relative path, so `--shard I/N` (every N-th file from the I-th) splits it the same way on every
// machine, and results do not depend on N workers.
#pragma once

#include "retail/app/pipeline.h"
#include "retail/record/html_index.h"

#include <functional>
#include <string>
#include <vector>

namespace retail {

struct BatchParams {
  RunParams run;       ///< what every file gets (report: beside its output)
  int jobs = 0;        ///< files at a time (worker threads); 0: one per hardware thread. Each
                       ///< file's per-clip work gets run.threads, or when that is 0 the cores
                       ///< divided among the workers (at least 1)
  int shard_index = 0; ///< --shard I/N: this job takes files i with i % N == I
  int shard_count = 1;
  std::string summary_path; ///< JSON lines, one per file in list order ("" none, "-" stdout)
  bool force = false;       ///< re-rig even when the output is newer than its input
  /// --html: a QA page beside every output (OUT with .html, html_page.h) and OUT_DIR/index.html
  /// (html_index.h) listing every file of the shard.
  bool html = false;
  void validate() const; ///< Failure: Error(Usage)
};

/// "I/N" with 0 <= I < N. Failure: Error(Usage).
std::pair<int, int> parse_shard(const std::string& text);

/// Relative paths (generic '/' form) of every model below `dir`, sorted bytewise: every entry
/// named .glb/.vrm/.gltf (any case) that is not a folder: regular files, and also links
/// (dangling, looping or to anything), FIFOs, sockets and devices, which then fail with their
/// reason instead of being left out. Symbolic links to folders are not followed.
/// Failure: Error(InvalidInput) when `dir` is not a readable folder.
std::vector<std::string> list_models(const std::string& dir);

/// One model of a batch and every path its run reads and writes.
struct BatchItem {
  std::string rel;                 ///< relative to IN_DIR
  std::string in, out, report;     ///< IN_DIR/rel, OUT_DIR/rel, its report
  std::string page;                ///< its QA page (--html), else ""
  std::vector<std::string> reads;  ///< its sidecars as read (below IN_DIR)
  std::vector<std::string> writes; ///< the same sidecars as copied beside its output
  /// Why it may not run ("" when it may): a path it would write is a path the batch reads (or
  /// lies inside IN_DIR), is written by another item or is the index, or a link on the way leads
  /// out of OUT_DIR. Such an item fails (exit 1) and nothing of it is written.
  std::string refused;
};

/// Every model below IN_DIR (all shards: a clash between shards is found by each), its paths,
/// and the paths checked against each other before anything is written. The summary (when a
/// file) and OUT_DIR/index.html (--html) take part.
struct BatchPlan {
  std::vector<BatchItem> items; ///< in list order
  std::string index;            ///< OUT_DIR/index.html with --html, else ""
};

/// Plans a batch (reads only the inputs' JSON, writes nothing). Failure: Error(Usage) for bad
/// params, OUT_DIR inside IN_DIR, or a summary path that is a path the batch reads or another
/// path it writes; Error(InvalidInput) when IN_DIR cannot be listed.
BatchPlan plan_batch(const std::string& in_dir, const std::string& out_dir,
                     const BatchParams& params);

struct BatchEntry {
  std::string path;               ///< relative to IN_DIR
  std::string status;             ///< "ok", "skipped" (output up to date), "failed"
  int exit_code = 0;              ///< as `retail IN OUT` would exit (6: a --fail-on check failed)
  std::size_t chains = 0;         ///< tail chains grown
  std::size_t stepped_down = 0;   ///< pieces the harm check stepped down (rigid or left as it was)
  std::size_t rigid = 0;          ///< of `chains`, those rigid on the hips (no bones)
  std::vector<std::string> steps; ///< per stepped piece, what became of it: "piece 1: rigid on
                                  ///< the hips instead" (its full reason is in the report)
  std::size_t left_torn = 0;      ///< welded vertices of torn skin left as it was (pipeline.h)
  Json stretch = Json::object();  ///< worst result tail over the clips: p99, torn_percent, clip
  double ms = 0;
  std::string error; ///< the message when failed, and failed checks
  IndexRow row;      ///< its row of the index (--html; filled whatever the params)
};

struct BatchResult {
  std::vector<BatchEntry> entries; ///< this shard's files in list order
  std::size_t failed = 0;
  std::size_t stepped_down = 0; ///< files with a piece the harm check stepped down
  std::size_t look = 0;         ///< files that need a look (needs_look on their row)
  int exit_code = 0;            ///< 0, or 5 when any file failed
};

/// Why a file needs a look, one short reason each (empty: it does not): failed (exit code and
/// message), failed --fail-on checks, each piece the harm check stepped down, torn skin left as
/// it came (said as "nothing found while the input tears" when no chain grew and nothing was
/// stepped down), the grown chains that failed their targets (the report's chain_records), an
/// output whose tail tears more than the input's in some clip; else, when the
/// run warned, its warnings. Whether a file needs a look is needs_look(e.row) (html_index.h),
/// for the index, the progress line and the summary alike; with the row filled from the entry
/// (as the batch fills it), the reasons are not empty exactly when it holds.
std::vector<std::string> look_reasons(const BatchEntry& e);

/// Where a batch stands, handed to the progress callback.
struct BatchTally {
  std::size_t done = 0, total = 0;  ///< files finished (skipped included), files of this shard
  std::size_t failed = 0, look = 0; ///< of those done: failed; needing a look (failed included)
};

/// Called from the workers, serialised: once before the first file (entry null, done 0), then
/// after each file with its entry.
using BatchProgress = std::function<void(const BatchEntry* entry, const BatchTally& tally)>;

/// One summary line (without the newline).
std::string summary_line(const BatchEntry& e);

/// The report paths: OUT with .report.json, unless two outputs in one folder share a stem
/// (a.glb and a.gltf), when the later ones keep their extension (a.gltf.report.json).
std::vector<std::string> batch_report_paths(const std::vector<std::string>& outs);

/// The page paths: OUT with .html, unless two outputs in one folder share a stem (a.glb and
/// a.gltf) or the page would be OUT_DIR/index.html, when the output's name is kept (a.gltf.html).
std::vector<std::string> page_paths(const std::vector<std::string>& outs,
                                    const std::string& out_dir);

/// Runs the batch. `progress` (may be empty) hears of every file as it finishes, in the order
/// files finish; nothing here prints. Summary lines are written in list order as files complete.
/// With params.html each file's page is written beside its output and, after every file,
/// OUT_DIR/index.html (atomically) lists them all.
/// Failure: Error(Usage) for bad params or OUT_DIR inside IN_DIR's files, Error(InvalidInput)
/// when IN_DIR cannot be listed, Error(OutputFailed) when OUT_DIR, the summary or the index
/// cannot be made.
BatchResult run_batch(const std::string& in_dir, const std::string& out_dir,
                      const BatchParams& params, const BatchProgress& progress);

} // namespace retail
