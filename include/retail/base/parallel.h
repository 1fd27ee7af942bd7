// retail — independent work items on a few threads, with results that do not depend on how many.
//
// Used for per-clip work (the bake and the stretch): each item writes only its own output slot,
// the caller merges the slots in index order afterwards, so the output is the same whether one
// thread or eight ran it.
#pragma once

#include <cstddef>
#include <functional>

namespace retail {

/// Worker threads for `requested`: requested itself when positive, else one per hardware thread
/// (at least 1).
int worker_count(int requested);

/// Calls fn(i) for every i in [0, n) on up to worker_count(threads) threads (the calling thread
/// is one of them; no thread is started for n <= 1 or one worker). Items are taken in index
/// order from a shared counter. Every item runs even when one throws; afterwards the exception
/// of the lowest failing index is rethrown, so the error does not depend on the thread count.
void parallel_for(std::size_t n, int threads, const std::function<void(std::size_t)>& fn);

/// The same, calling fn(i, w) with w in [0, min(worker_count(threads), n)) naming the worker
/// that runs item i, so each worker can reuse scratch memory of its own (which worker runs which
/// item varies from run to run: scratch must not carry results from one item to the next).
void parallel_for_workers(std::size_t n, int threads,
                          const std::function<void(std::size_t, std::size_t)>& fn);

} // namespace retail
