// Restarting retail with glibc's transparent-huge-page malloc (docs/performance.md, "Huge
// pages"). glibc reads its tunables only when a process starts, so the CLI asks for
// `glibc.malloc.hugetlb=1` by executing itself again, once, before it reads or writes any file.
// Only the speed changes: the same input gives the same output bytes either way.
#pragma once

#include <cstdint>
#include <string>

/// The kernel's transparent-huge-page mode, as /sys/kernel/mm/transparent_hugepage/enabled
/// marks it: "always", "madvise" or "never"; "" where the file is missing or unreadable.
std::string thp_mode();

/// The bytes a job on `path` reads: the file's size, plus for a `.gltf` the size of the `.bin`
/// beside it with the same stem (the usual exporters' layout). 0 for a path that is not a
/// regular file (the job will say why when it opens it).
std::uintmax_t job_input_bytes(const std::string& path);

/// Whether to restart: glibc 2.35 or later, the kernel's mode "madvise" (under "always" every
/// large mapping already gets huge pages; under "never" none can), `tunables` (GLIBC_TUNABLES,
/// nullptr when unset) not naming glibc.malloc.hugetlb (the user's own setting wins, and the
/// restarted process sees its own request there and never restarts again), and at least
/// `kHugePageMinBytes` of input. `why` says which condition decided.
bool want_huge_pages(std::uintmax_t input_bytes, const char* tunables, const std::string& mode,
                     std::string& why);

/// Input size from which a restart pays for itself (see docs/performance.md's sweep).
constexpr std::uintmax_t kHugePageMinBytes = 1u << 20;

/// Executes /proc/self/exe with `argv` (argv[argc] is null, as main receives it) and
/// GLIBC_TUNABLES extended by glibc.malloc.hugetlb=1. Returns only when that fails, with the
/// reason; the caller then goes on in this process as it is (nothing has been read or written).
/// Not tried when /proc/self/exe is the dynamic loader (`ld-linux.so retail ...`).
std::string restart_with_huge_pages(char** argv);

/// In a restarted process: true when GLIBC_TUNABLES asks for glibc.malloc.hugetlb=1.
bool huge_pages_requested();
