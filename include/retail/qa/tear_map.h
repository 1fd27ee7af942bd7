// retail — where the input tears under its own clips, vertex by vertex (SPEC §9's torn test):
// the evidence detection reads (docs/detection.md section 2) and what retail reports when it
// leaves torn skin as it was.
#pragma once

#include "retail/base/document.h"
#include "retail/base/model.h"
#include "retail/qa/skin_sampler.h"
#include "retail/qa/stretch.h"

#include <vector>

namespace retail {

/// Per vertex of `skin` (original ids), the share of the edge-samples of its mesh edges (every
/// edge with it as an end, at every stretch sample of every clip in `clips`) that are torn under
/// `model`'s clips; 0 for a vertex on no measured edge. Clips run on up to `threads` workers
/// (0: one per core); the result does not depend on it. Empty `clips`: all zeros.
/// Failure: as measure_stretch_rigs.
std::vector<double> vertex_tear_share(const Document& doc, const Model& model,
                                      const SkinSampler& skin, const std::vector<int>& clips,
                                      const StretchParams& params, int threads = 0);

} // namespace retail
