// tail_eval TRUTH INPUT OUTPUT: issue 14's judge as a program (tests/tail_eval.h), for the
// figures in docs/detection.md. TRUTH is the artist's original (tail = largest weight on a
// "Tail" joint; its clips are measured too) or `prims:MESH/P,MESH/P` (a grafted tail: those
// primitives of the INPUT, no artist rig) or a generated rig's `NAME.truth.json`. Prints one JSON
// object on stdout.
#include "tail_eval.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>
#include <sstream>

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr,
                 "usage: tail_eval ORIGINAL|prims:MESH/P,...|NAME.truth.json INPUT OUTPUT\n");
    return 1;
  }
  try {
    const test::TailTruth truth = test::read_tail_truth(argv[1], argv[2]);
    test::TailEval e = test::evaluate_tail(truth.vertices, argv[2], argv[3], truth.artist);
    nlohmann::json j = {{"truth", e.truth},
                        {"rerigged", e.rerigged},
                        {"both", e.both},
                        {"recall", e.recall},
                        {"precision", e.precision},
                        {"kept_other", e.kept_other},
                        {"false_major", e.false_major},
                        {"false_band", e.false_band},
                        {"extremity_taken", e.extremity_taken},
                        {"recall_major", e.recall_major},
                        {"precision_major", e.precision_major},
                        {"clips", nlohmann::json::array()}};
    for (const auto& r : e.clips)
      j["clips"].push_back({{"clip", r.clip},
                            {"artist_torn", r.artist_torn},
                            {"input_torn", r.input_torn},
                            {"output_torn", r.output_torn},
                            {"artist_p99", r.artist_p99},
                            {"input_p99", r.input_p99},
                            {"output_p99", r.output_p99},
                            {"edge_samples", r.edge_samples},
                            {"newly_torn", r.newly_torn},
                            {"healed", r.healed},
                            {"output_leg_depth", r.output_leg_depth},
                            {"artist_leg_depth", r.artist_leg_depth},
                            {"output_skin_leg_depth", r.output_skin_leg_depth},
                            {"artist_skin_leg_depth", r.artist_skin_leg_depth},
                            {"noise_floor", test::noise_floor(r.edge_samples)}});
    std::cout << j.dump(1) << "\n";
    return 0;
  } catch (const std::exception& ex) {
    std::fprintf(stderr, "tail_eval: %s\n", ex.what());
    return 2;
  }
}
