// The harm check's ladder (harm_ladder.h).
#include "retail/qa/harm_ladder.h"

#include <cmath>
#include <string>

namespace retail {

namespace {

/// Past the wide band over the legs: bend less with the band twice as wide, off the legs; when
/// there is no bending less, or it was tried, the band as first planned over the lower legs.
LadderStep past_wide_legs(const LadderInput& in, PieceOverride& o) {
  o.band_legs = false;
  if (std::isnan(o.min_skin_ratio) && in.bend_less_ratio > 0) {
    o.min_skin_ratio = in.bend_less_ratio;
    return LadderStep::BendLess;
  }
  o.band_legs = true, o.band_scale = 1;
  return LadderStep::BandLegs;
}

/// Past the last chain rung: that rung's chain held where it harms (when clips can be held),
/// then rigid on the hips when that was harmless, else left as it was.
LadderStep past_chains(const LadderInput& in, PieceOverride& o) {
  if (in.hold && !o.hold_harmful) {
    o.hold_harmful = true;
    return LadderStep::Hold;
  }
  return in.rigid_ok ? LadderStep::Rigid : LadderStep::Leave;
}

} // namespace

LadderStep step_down(const LadderInput& in, PieceOverride& o) {
  const bool bent = !std::isnan(o.min_skin_ratio);
  LadderStep step;
  if (in.rigid) {
    step = LadderStep::Leave;
  } else if (o.hold_harmful) { // held where it harms, and still harmful
    step = past_chains(in, o);
  } else if (!o.peel_tried && in.harmed > 0 && 2 * in.harmed <= in.vertices) {
    o.peel = in.vertex_net, o.peel_tried = true;
    step = LadderStep::Peel;
  } else if (o.band_legs && o.band_scale >= 2 && !bent) { // the wide band over the legs failed
    step = past_wide_legs(in, o);
  } else if (o.band_legs && o.max_bones == 0 && in.bones > 1) {
    o.max_bones = in.bones - 1, o.band_legs = false, o.band_scale = 1;
    step = LadderStep::FewerLinks;
  } else if (o.band_legs || o.max_bones > 0) { // the last chain rung
    step = past_chains(in, o);
  } else if (o.band_scale < 2) {
    o.band_scale = 2, o.peel.clear(); // a peel that did not help is not kept
    step = LadderStep::WideBand;
  } else if (!o.legs_wide_tried) {
    o.band_legs = true, o.legs_wide_tried = true;
    step = LadderStep::WideBandLegs;
  } else {
    step = past_wide_legs(in, o);
  }
  if (step == LadderStep::Rigid) o.kind = PieceOverride::Kind::Rigid;
  if (step == LadderStep::Leave) o.kind = PieceOverride::Kind::Leave;
  return step;
}

std::string ladder_step_text(LadderStep step, const PieceOverride& o, std::size_t harmed) {
  std::string text;
  switch (step) {
  case LadderStep::Peel:
    text = "the chain without the skin at its border it tore more than it healed (up to " +
           std::to_string(harmed) + " vertices; they keep their input weights)";
    break;
  case LadderStep::WideBand:
    text = "a root band and its seam twice as wide";
    break;
  case LadderStep::WideBandLegs:
    text = "a root band twice as wide over the lower legs too";
    break;
  case LadderStep::BendLess:
    return "a root band twice as wide and no joint bending past what keeps " +
           std::to_string(std::lround(100 * o.min_skin_ratio)) + "% of a tail edge's length";
  case LadderStep::BandLegs:
    text = "a root band over the lower legs too";
    break;
  case LadderStep::FewerLinks:
    text = "one link fewer (" + std::to_string(o.max_bones) + ")";
    break;
  case LadderStep::Hold:
    return "the last chain tried, held at rest in each clip where its spring tears";
  case LadderStep::Rigid:
    return "rigid on the hips instead";
  case LadderStep::Leave:
    return "left as it was";
  }
  if (!std::isnan(o.min_skin_ratio)) text += ", bending less";
  return text;
}

} // namespace retail
