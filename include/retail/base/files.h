// retail — the file system boundary: which paths a run reads and writes, and what is removed
// when the process is interrupted (docs/robustness.md).
//
// Every path retail writes must differ from every path it reads and from each other, after
// resolving symbolic links (and hard links, for files that exist): check_distinct_paths().
// Temporary files and outputs not yet backed by their report are registered for removal on
// SIGINT/SIGTERM/SIGHUP (install_signal_cleanup()); the registry is the one piece of process-wide
// state in retail, because a signal handler can reach nothing else.
#pragma once

#include "retail/base/document.h"

#include <string>
#include <string_view>
#include <vector>

namespace retail {

/// A path a run reads or writes, with what it is for the messages ("the input", "the report").
struct PathUse {
  std::string path;
  std::string role;
};

/// `path` made absolute with every symbolic link of its existing part resolved.
std::string resolved_path(const std::string& path);

/// Failure: Error(Usage) naming both paths when a write path is the same file as a read path
/// or as another write path (the same resolved path, or the same inode for existing files).
/// `writes` with an empty path are ignored (e.g. a report going to stdout).
void check_distinct_paths(const std::vector<PathUse>& reads, const std::vector<PathUse>& writes);

/// The files reading `path` touched: the file itself, then its sidecars (Document::external)
/// relative to its folder.
std::vector<PathUse> input_files(const std::string& path, const Document& doc);

/// Is `path` (resolved) inside the folder `dir` (resolved)? A path equal to `dir` is not.
bool path_inside(const std::string& path, const std::string& dir);

/// Registers `path` for removal should the process get SIGINT, SIGTERM or SIGHUP while it is
/// registered. At most 256 paths at a time (more are not registered: best effort). Release
/// with unregister_on_signal(); the returned id is -1 when not registered.
int remove_on_signal(const std::string& path);
void unregister_on_signal(int id);

/// Holds a registration for its lifetime (release() ends it early).
class RemoveOnSignal {
public:
  explicit RemoveOnSignal(const std::string& path) : id_(remove_on_signal(path)) {}
  ~RemoveOnSignal() { release(); }
  RemoveOnSignal(const RemoveOnSignal&) = delete;
  RemoveOnSignal& operator=(const RemoveOnSignal&) = delete;
  void release() {
    unregister_on_signal(id_);
    id_ = -1;
  }

private:
  int id_;
};

/// Removes every registered path now (async-signal-safe; what the handler does).
void remove_registered_files();

/// Installs handlers for SIGINT, SIGTERM and SIGHUP that remove the registered paths, then
/// end the process with the same signal (default action). Call once, from main.
void install_signal_cleanup();

/// Writes `bytes` to `path` atomically (temp file in the same folder, then rename).
void write_file_atomic(const std::string& path, const Bytes& bytes);

/// The same for text (a page written without another copy of it).
void write_file_atomic(const std::string& path, std::string_view text);

/// Reads a whole file. Failure: Error InvalidInput ("cannot read").
Bytes read_file(const std::string& path);

/// Reads at most `max_bytes` from the start of a regular file (all of it when shorter).
/// Failure: as read_file.
Bytes read_file(const std::string& path, std::size_t max_bytes);

} // namespace retail
