// parallel_for and the per-clip work on threads: every item once, the first failure by index,
// and outputs that do not depend on the thread count (bake, stretch, the whole CLI run).
#include "retail/app/pipeline.h"
#include "retail/base/error.h"
#include "retail/base/files.h"
#include "retail/base/parallel.h"
#include "retail/io/io.h"
#include "support.h"

#include <atomic>
#include <catch2/catch.hpp>
#include <stdexcept>

namespace test_parallel {

using retail::Json;

TEST_CASE("parallel: every item runs once whatever the thread count", "[parallel]") {
  for (int threads : {1, 2, 5, 64}) {
    std::vector<int> hits(100, 0);
    retail::parallel_for(hits.size(), threads, [&](std::size_t i) { ++hits[i]; });
    CHECK(hits == std::vector<int>(100, 1));
  }
  // Worker ids stay below both the thread count and the item count (callers size scratch so).
  std::atomic<std::size_t> top{0};
  retail::parallel_for_workers(3, 1000, [&](std::size_t, std::size_t w) {
    for (std::size_t seen = top; w > seen && !top.compare_exchange_weak(seen, w);) {
    }
  });
  CHECK(top < 3);
  std::atomic<int> calls{0};
  retail::parallel_for(0, 4, [&](std::size_t) { ++calls; });
  CHECK(calls == 0);
  CHECK(retail::worker_count(3) == 3);
  CHECK(retail::worker_count(0) >= 1);
}

TEST_CASE("parallel: the lowest failing index is rethrown after every item ran", "[parallel]") {
  for (int threads : {1, 3}) {
    std::atomic<int> ran{0};
    try {
      retail::parallel_for(20, threads, [&](std::size_t i) {
        ++ran;
        if (i == 13 || i == 7) throw std::runtime_error("item " + std::to_string(i));
      });
      FAIL("no exception");
    } catch (const std::runtime_error& e) {
      CHECK(std::string(e.what()) == "item 7");
    }
    CHECK(ran == 20);
  }
}

TEST_CASE("parallel: output and report do not depend on --threads", "[parallel]") {
  retail::RigOptions o;
  o.tail = retail::TailStyle::Carried;
  std::string dir = test::temp_dir();
  retail::write_document(retail::generate_rig(o).doc, dir + "/in.glb");
  auto run = [&](int threads, const std::string& name) {
    retail::RunParams p;
    p.threads = threads;
    retail::RunResult r = retail::run(dir + "/in.glb", dir + "/" + name, p);
    Json report = r.report;
    report.erase("timings_ms");
    report.erase("work_ms");
    report["output"].erase("path");
    return std::make_pair(retail::read_file(dir + "/" + name), report);
  };
  auto [one, r1] = run(1, "one.glb");
  auto [three, r3] = run(3, "three.glb");
  CHECK(one == three);
  CHECK(r1 == r3);
  REQUIRE(r1["characters"][0]["bake"]["clips"].size() == 4); // every clip really was baked
  retail::RunParams bad;
  bad.threads = -1;
  CHECK_THROWS_AS(retail::run(dir + "/in.glb", dir + "/bad.glb", bad), retail::Error);
}

} // namespace test_parallel
