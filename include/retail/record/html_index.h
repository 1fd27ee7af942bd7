// retail — the batch index (docs/html-page.md): OUT_DIR/index.html of `retail batch --html`,
// one row per file linking to its QA page, sortable, filterable to the files that need a look.
// Self-contained (its script and data inlined), no three.js, no network request.
#pragma once

#include <string>
#include <vector>

namespace retail {

/// One file of the batch.
struct IndexRow {
  std::string path;       ///< relative to IN_DIR
  std::string status;     ///< "ok", "skipped" (up to date), "failed"
  std::string page;       ///< its QA page relative to OUT_DIR ("" when none)
  std::string found;      ///< what was found, e.g. "1 tail chain; 6 pieces: 1 tail_chain, 5 limb"
  bool figures = false;   ///< the torn figures below are known (the file ran and has a chain)
  std::string worst_clip; ///< the clip where the input's tail tears most
  double torn_before = 0, torn_after = 0; ///< the tail's torn share there, %, input -> output
  bool worse = false;           ///< the output's tail tears more than the input's in some clip
  std::size_t stepped_down = 0; ///< pieces the harm check stepped down (rigid or left alone)
  std::size_t left_torn = 0;    ///< welded vertices of torn skin left as it was
  std::vector<std::string> chain_fail; ///< grown chains whose verdict is "fail" (chain_record.h)
  std::vector<std::string> warnings;
  std::string error; ///< the failure, or the failed --fail-on checks
  double ms = 0;     ///< wall time of the file
};

/// Does the row need a look: failed, a piece stepped down, torn skin left as it was, a chain
/// that failed its targets, a warning, a failed check, or an output worse than its input? The one
/// test of it: the index's filter and `retail batch`'s per-file lines, tally and summary all ask
/// this.
bool needs_look(const IndexRow& row);

/// `path` (relative, '/'-separated, any bytes) as a relative URL that names exactly those bytes:
/// every byte but A-Z a-z 0-9 - . _ ~ and '/' percent-encoded (a name that is not UTF-8 too).
std::string url_path(const std::string& path);

/// The index page's HTML text: `title` as its heading, the rows in the order given (the page
/// sorts them on demand). Deterministic but for the rows' times.
std::string make_batch_index(const std::string& title, const std::vector<IndexRow>& rows);

} // namespace retail
