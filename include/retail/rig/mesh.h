// retail — the character's surface as one welded graph (SPEC §3).
//
// Exporters split vertices at UV and hard-normal seams, and non-indexed geometry gives every
// triangle its own three vertices (docs/detection.md), so one tail falls into dozens of islands
// on the raw face graph. All skinned primitives of a character are gathered in world space at
// bind, welded by position (within `weld_tolerance_h * H`), and connected by their triangles'
// edges.
// Results computed per welded vertex are written back per original vertex through `weld_of`.
// This header holds the types; welding them is detect/weld.h.
#pragma once

#include "retail/base/document.h"
#include "retail/base/model.h"
#include "retail/rig/skeleton.h"

#include <Eigen/Core>
#include <array>
#include <cstdint>
#include <utility>
#include <vector>

namespace retail {

/// One skinned primitive's original vertices.
struct SourcePrimitive {
  SkinnedPrimitive where;
  std::size_t first = 0; ///< index of its vertex 0 in the concatenated vertex list
  std::size_t count = 0;
};

/// Vertices in all of `sources` together (laid out as SourcePrimitive::first numbers them):
/// the last one's first + count, 0 when there is none. Pre: sources in ascending `first`.
inline std::size_t source_vertices(const std::vector<SourcePrimitive>& sources) {
  return sources.empty() ? 0 : sources.back().first + sources.back().count;
}

struct WeldedMesh {
  std::vector<SourcePrimitive> sources;
  Eigen::MatrixX3d positions;            ///< #N by 3: all original vertices, world space at bind
  std::vector<int> weld_of;              ///< #N: welded vertex of each original vertex
  Eigen::MatrixX3d welded;               ///< #W by 3: welded positions (the first original's)
  std::vector<int> adjacency_start;      ///< #W+1: CSR offsets into `adjacency`
  std::vector<int> adjacency;            ///< neighbours of welded vertex w: [start[w], start[w+1])
  std::vector<double> edge_length;       ///< parallel to `adjacency`
  std::vector<std::array<int, 3>> faces; ///< triangles on welded ids (degenerate ones dropped)
  std::size_t triangles = 0;             ///< triangles of the source primitives

  std::size_t size() const { return std::size_t(welded.rows()); }
};

} // namespace retail
