// parallel_for: a shared counter, a few threads, the first failure by index (parallel.h).
#include "retail/base/parallel.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <system_error>
#include <thread>
#include <vector>

namespace retail {

int worker_count(int requested) {
  if (requested > 0) return requested;
  return int(std::max(1u, std::thread::hardware_concurrency()));
}

void parallel_for_workers(std::size_t n, int threads,
                          const std::function<void(std::size_t, std::size_t)>& fn) {
  std::vector<std::exception_ptr> errors(n);
  std::atomic<std::size_t> next{0};
  auto work = [&](std::size_t worker) {
    for (std::size_t i; (i = next.fetch_add(1)) < n;) {
      try {
        fn(i, worker);
      } catch (...) {
        errors[i] = std::current_exception();
      }
    }
  };
  std::size_t workers = std::min<std::size_t>(std::size_t(worker_count(threads)), n);
  std::vector<std::thread> pool;
  for (std::size_t t = 1; t < workers; ++t) {
    try {
      pool.emplace_back(work, t);
    } catch (const std::system_error&) {
      break; // no more threads to be had: the ones running (and this one) do the rest
    }
  }
  work(0);
  for (auto& t : pool) t.join();
  for (const auto& e : errors)
    if (e) std::rethrow_exception(e);
}

void parallel_for(std::size_t n, int threads, const std::function<void(std::size_t)>& fn) {
  parallel_for_workers(n, threads, [&](std::size_t i, std::size_t) { fn(i); });
}

} // namespace retail
