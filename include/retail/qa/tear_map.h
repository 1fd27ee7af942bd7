// retail — where the input tears under its own clips (SPEC §9's torn test), measured where
// asked: the evidence detection reads (docs/detection.md section 2), and what retail reports of
// skin it leaves torn. Cost follows the skin asked about, not the mesh: a focus of vertices is
// measured whole, the rest of the character on a bounded sample of its edges.
#pragma once

#include "retail/base/document.h"
#include "retail/base/model.h"
#include "retail/qa/skin_sampler.h"
#include "retail/qa/stretch.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace retail {

struct TearMap {
  /// Per vertex of the skin (original ids): torn edge-samples and edge-samples on its measured
  /// edges (every edge with an end in the focus), over every stretch sample of every clip.
  std::vector<std::uint32_t> torn, samples;
  /// The rest of the character (edges with no end in the focus, a deterministic sample of at
  /// most StretchParams::max_body_edges of them, as the stretch's body): its torn edge-samples
  /// and edge-samples.
  std::size_t rest_torn = 0, rest_samples = 0;
  /// Share of vertex v's edge-samples torn (0 where it has none measured).
  double share(std::size_t v) const {
    return v < samples.size() && samples[v] ? double(torn[v]) / double(samples[v]) : 0.0;
  }
  double rest_share() const {
    return rest_samples ? double(rest_torn) / double(rest_samples) : 0.0;
  }
};

/// Where `skin` (a rig posed by `model`, with its mesh edges) tears under `clips`: the edges
/// with an end in `focus` (original vertex ids; empty: none), and a sample of the others
/// (TearMap). Only the vertices those edges touch are skinned, at params.samples evenly spaced
/// times per clip. Clips run on up to `threads` workers (0: one per core); the result does not
/// depend on it.
/// Failure: Error(Usage) for bad params.
TearMap measure_tears(const Document& doc, const Model& model, const SkinEdges& skin,
                      const std::vector<int>& clips, const std::vector<bool>& focus,
                      const StretchParams& params, int threads = 0);

} // namespace retail
