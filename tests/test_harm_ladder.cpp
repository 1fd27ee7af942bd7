// The harm check's ladder (harm_ladder.h): the rungs in order, each tried once, the attempt each
// describes, and the longest walk within kLadderRungs.
#include "retail/qa/harm_ladder.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

namespace test_harm_ladder {

using retail::LadderInput;
using retail::LadderStep;
using retail::PieceOverride;

namespace {

/// Steps down from the first attempt until Rigid or Leave (at most 2 kLadderRungs calls).
std::vector<LadderStep> walk(const LadderInput& first, PieceOverride& o) {
  std::vector<LadderStep> steps;
  LadderInput in = first;
  for (int i = 0; i < 2 * retail::kLadderRungs; ++i) {
    steps.push_back(retail::step_down(in, o));
    if (steps.back() == LadderStep::Rigid) in.rigid = true; // a rigid attempt that fails too
    if (steps.back() == LadderStep::Leave) break;
    if (o.max_bones > 0) in.bones = o.max_bones;
  }
  return steps;
}

LadderInput chain_of(int bones) {
  LadderInput in;
  in.vertices = 100;
  in.bones = bones;
  in.rigid_ok = true;
  in.bend_less_ratio = 0.9;
  in.hold = true;
  return in;
}

} // namespace

TEST_CASE("harm ladder: every rung in order, once each", "[harm_ladder]") {
  LadderInput in = chain_of(3);
  in.harmed = 20; // at most half the piece: a peel first
  in.vertex_net = {{7, 3}};
  PieceOverride o;
  const std::vector<LadderStep> steps = walk(in, o);
  const std::vector<LadderStep> expect = {
      LadderStep::Peel,     LadderStep::WideBand, LadderStep::WideBandLegs,
      LadderStep::BendLess, LadderStep::BandLegs, LadderStep::FewerLinks,
      LadderStep::Hold,     LadderStep::Rigid,    LadderStep::Leave};
  CHECK(steps == expect);
  CHECK(int(steps.size()) == retail::kLadderRungs); // the longest walk fits the reviews
}

TEST_CASE("harm ladder: the attempt each rung describes", "[harm_ladder]") {
  LadderInput in = chain_of(3);
  in.harmed = 20;
  in.vertex_net = {{7, 3}};
  PieceOverride o;
  REQUIRE(retail::step_down(in, o) == LadderStep::Peel);
  CHECK(o.peel == in.vertex_net);
  REQUIRE(retail::step_down(in, o) == LadderStep::WideBand);
  CHECK(o.peel.empty()); // a peel that did not help is dropped
  CHECK(o.band_scale == 2);
  CHECK_FALSE(o.band_legs);
  REQUIRE(retail::step_down(in, o) == LadderStep::WideBandLegs);
  CHECK(o.band_scale == 2);
  CHECK(o.band_legs);
  CHECK(std::isnan(o.min_skin_ratio));
  CHECK(retail::ladder_step_text(LadderStep::WideBandLegs, o, 0) ==
        "a root band twice as wide over the lower legs too");
  REQUIRE(retail::step_down(in, o) == LadderStep::BendLess);
  CHECK(o.band_scale == 2);
  CHECK_FALSE(o.band_legs);
  CHECK(o.min_skin_ratio == Approx(0.9));
  REQUIRE(retail::step_down(in, o) == LadderStep::BandLegs);
  CHECK(o.band_scale == 1);
  CHECK(o.band_legs);
  CHECK(o.min_skin_ratio == Approx(0.9));
  CHECK(retail::ladder_step_text(LadderStep::BandLegs, o, 0) ==
        "a root band over the lower legs too, bending less");
  REQUIRE(retail::step_down(in, o) == LadderStep::FewerLinks);
  CHECK(o.max_bones == 2);
  CHECK(o.band_scale == 1);
  CHECK_FALSE(o.band_legs);
  CHECK(o.kind == PieceOverride::Kind::Chain);
  CHECK_FALSE(o.hold_harmful);
  REQUIRE(retail::step_down(in, o) == LadderStep::Hold);
  CHECK(o.hold_harmful); // the last chain rung's attempt, held where it harms
  CHECK(o.max_bones == 2);
  CHECK(o.min_skin_ratio == Approx(0.9));
  CHECK(o.kind == PieceOverride::Kind::Chain);
  in.rigid_ok = false; // the rigid reference tore too: nothing is left to try
  CHECK(retail::step_down(in, o) == LadderStep::Leave);
  CHECK(o.kind == PieceOverride::Kind::Leave);
}

TEST_CASE("harm ladder: rungs that do not apply are passed over", "[harm_ladder]") {
  // No vertex to peel (or more than half the piece), no bending less, one link: the band
  // rungs, then rigid.
  LadderInput in = chain_of(1);
  in.harmed = 60;
  in.bend_less_ratio = 0;
  in.hold = false; // nothing baked, or --no-hold: no clip can be held
  PieceOverride o;
  CHECK(walk(in, o) == std::vector<LadderStep>{LadderStep::WideBand, LadderStep::WideBandLegs,
                                               LadderStep::BandLegs, LadderStep::Rigid,
                                               LadderStep::Leave});
  CHECK_FALSE(o.hold_harmful);
  // An attempt that was rigid already is left as it was.
  LadderInput rigid = chain_of(3);
  rigid.rigid = true;
  PieceOverride r;
  CHECK(retail::step_down(rigid, r) == LadderStep::Leave);
  // A held attempt that still harms goes rigid when that was harmless, else is left.
  LadderInput held = chain_of(3);
  PieceOverride h;
  h.hold_harmful = true;
  CHECK(retail::step_down(held, h) == LadderStep::Rigid);
  held.rigid_ok = false;
  PieceOverride h2;
  h2.hold_harmful = true;
  CHECK(retail::step_down(held, h2) == LadderStep::Leave);
}

} // namespace test_harm_ladder
