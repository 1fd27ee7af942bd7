// retail — what `retail batch` tells the person watching it (docs/batch.md): a live progress
// line, one line per file, and the end summary naming the files that need a look and why.
// Text only, from the batch's own results: the command decides where and when it is shown (a
// terminal, -v); nothing here prints or reads a clock.
#pragma once

#include "retail/app/batch.h"

#include <string>
#include <vector>

namespace retail {

/// What became of one file, in a few words: "1 tail chain", "2 tail chains, 1 rigid on the
/// hips", "stepped down, nothing grown", "nothing found", "up to date", "failed (exit 2)".
std::string batch_outcome(const BatchEntry& e);

/// One finished file: "[3/12] chars/fox.glb: ok, 1 tail chain, 1.24 s", with ", needs a look"
/// when needs_look(e.row) holds.
std::string batch_file_line(const BatchEntry& e, const BatchTally& tally);

/// The live line: "[###.........] 3/12 files, 1 failed, 2 need a look, ETA 0:14", the ETA from
/// the seconds since the batch began and the files done so far ("ETA --:--" before the first).
/// Fits 80 columns up to 9,999 files and an ETA of 99 hours.
std::string batch_progress_line(const BatchTally& tally, double elapsed_seconds);

/// The end of a batch: a totals line ("batch: 4 files: 1 with a tail chain, 2 with nothing
/// grown, 0 up to date, 1 failed; 2 need a look"), then per file that needs a look
/// (needs_look(e.row)), in list order, "  PATH: REASON; REASON" (look_reasons).
std::vector<std::string> batch_summary_lines(const BatchResult& result);

} // namespace retail
