// retail — the harm check's ladder: what a tail piece whose attempt was harmful tries next
// (SPEC §13; the rungs and the measurements behind their order: docs/detection.md section 5).
#pragma once

#include "retail/grow/rerig.h"

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace retail {

/// One rung: how the next attempt differs from the first.
enum class LadderStep {
  Peel,         ///< the chain without the skin at its border it tore more than it healed
  WideBand,     ///< the root band and its seam twice as wide
  WideBandLegs, ///< as wide, and over the lower legs' skin too
  BendLess,     ///< as wide, off the legs, no joint bending past bend_less_skin_ratio
  BandLegs,     ///< the band as first planned over the lower legs, still bending less
  FewerLinks,   ///< one link fewer, everything else as first planned
  Hold,         ///< the last chain rung's, held at rest in the clips where its spring harms
  Rigid,        ///< rigid on the hips (its reference was harmless in every clip)
  Leave,        ///< left as it was
};

/// What the pass learned about a harmful attempt.
struct LadderInput {
  bool rigid = false;         ///< the attempt was rigid on the hips already
  bool rigid_ok = false;      ///< the pass's rigid reference is harmless in every clip
  std::size_t harmed = 0;     ///< welded vertices a peel would leave as they were
  std::size_t vertices = 0;   ///< the attempt's re-weighted vertices
  int bones = 0;              ///< the attempt's links
  double bend_less_ratio = 0; ///< HarmParams::bend_less_skin_ratio (0: no BendLess rung)
  bool hold = false;          ///< the clips can be held (HarmParams::hold_step; false: no Hold)
  std::vector<std::pair<std::size_t, long long>> vertex_net; ///< PieceJudge::vertex_net
};

/// The most rungs one piece can take (the longest walk: Peel, WideBand, WideBandLegs, BendLess,
/// BandLegs, FewerLinks, Hold, Rigid, then Leave when rigid is harmful too).
constexpr int kLadderRungs = 9;

/// The rung after the attempt `o` describes (PieceOverride as the harm check left it: the
/// default for the first attempt), in this order, each tried once: Peel (when 0 < harmed <=
/// vertices / 2), WideBand, WideBandLegs, BendLess (when bend_less_ratio > 0), BandLegs,
/// FewerLinks (from 2 links), Hold (when `hold`: the last chain rung's attempt with
/// PieceOverride::hold_harmful), then Rigid when rigid_ok, else Leave; a rigid attempt is Leave.
/// Updates `o` to the rung's attempt (a peel that did not help is dropped at WideBand). Pure;
/// never fails.
LadderStep step_down(const LadderInput& in, PieceOverride& o);

/// The rung as the report's reason says it ("a root band twice as wide over the lower legs
/// too"), with `o` after step_down (its links, its skin ratio) and the peel's vertex count.
std::string ladder_step_text(LadderStep step, const PieceOverride& o, std::size_t harmed);

} // namespace retail
