// retail — error classes and the exit codes they map to (docs/exit-codes.md).
#pragma once

#include <stdexcept>
#include <string>

namespace retail {

/// Process exit codes; the command-line contract of SPEC §11.
enum class ExitCode : int {
  Ok = 0,
  Usage = 1,        ///< bad command line
  InvalidInput = 2, ///< unreadable or invalid input; message names the JSON path
  Unsupported = 3,  ///< valid input using a feature retail does not handle (named)
  OutputFailed = 4, ///< the output could not be written
  BatchFailed = 5,  ///< batch finished with some files failed
  ChecksFailed = 6, ///< a --fail-on check failed (outputs are still written)
};

/// The one exception type stages throw. `what()` is the message without the file name;
/// the driver prefixes `error: FILE: `. Messages name the offending object by JSON path
/// (`accessors[7] (WEIGHTS_0 of meshes[0].primitives[1]): ...`).
class Error : public std::runtime_error {
public:
  Error(ExitCode code, const std::string& message) : std::runtime_error(message), code_(code) {}
  ExitCode code() const { return code_; }

private:
  ExitCode code_;
};

/// Shorthands: throw an InvalidInput (exit 2) / Unsupported (exit 3) / OutputFailed (exit 4) error.
/// `text` with every byte outside printable ASCII written as \xNN: for messages that quote file
/// content (a parser's "last read" excerpt), so logs and JSON reports stay valid text.
std::string printable(const std::string& text);

/// `text` safe to print on a terminal: control characters (C0 including newline and ESC, DEL,
/// and C1 in their UTF-8 form), bidirectional controls (U+061C, U+200E, U+200F, U+202A..U+202E,
/// U+2066..U+2069), the line and paragraph separators (U+2028, U+2029) and bytes that are not
/// valid UTF-8 are written as \xNN (each byte); other UTF-8 is kept. With `keep_newlines`, '\n'
/// stays (multi-line tables). Names in files can hold anything; every message and log line goes
/// through this before it is printed.
std::string terminal_safe(const std::string& text, bool keep_newlines = false);

[[noreturn]] void fail_usage(const std::string& message);
[[noreturn]] void fail_invalid(const std::string& message);
[[noreturn]] void fail_unsupported(const std::string& message);
[[noreturn]] void fail_output(const std::string& message);

} // namespace retail
