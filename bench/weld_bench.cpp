// Microbenchmark of the weld (detect/weld.h, weld_positions) on a file's first character: the
// best of 7 runs, in milliseconds, with 1 worker and with `threads` workers, and the welded
// count (equal in both: the weld does not depend on the thread count). docs/performance.md
// quotes it.
//   build/bench/weld_bench IN.glb [threads=2]
#include "retail/app/pipeline.h"
#include "retail/detect/weld.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: weld_bench IN.glb [threads]\n");
    return 1;
  }
  const int threads = argc > 2 ? std::atoi(argv[2]) : 2;
  std::vector<retail::StageStat> stats;
  const retail::Input in = retail::load_input(argv[1], retail::BindParams{}, stats);
  if (in.characters.empty()) return 1;
  retail::WeldParams params;
  retail::WeldedMesh full = retail::weld_character(in.doc, in.model, in.characters[0], params);
  const double tol = std::max(params.weld_tolerance_h * in.characters[0].height, 1e-12);
  for (int t : {1, threads}) {
    double best = INFINITY;
    std::size_t count = 0;
    for (int run = 0; run < 7; ++run) {
      retail::WeldedMesh m;
      m.positions = full.positions;
      const auto t0 = std::chrono::steady_clock::now();
      retail::weld_positions(tol, t, m);
      const auto t1 = std::chrono::steady_clock::now();
      best = std::min(best, std::chrono::duration<double, std::milli>(t1 - t0).count());
      count = m.size();
    }
    std::printf("%zu vertices, %d worker(s): %.1f ms, %zu welded\n",
                std::size_t(full.positions.rows()), t, best, count);
  }
  return 0;
}
