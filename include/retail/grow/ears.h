// retail — the ears kind (docs/pipeline.md "Kinds of chain"): two similar pieces on the head, one
// each side, above its joint, left rigid on the bone they hang from. Planned from detection's
// pieces; nothing of the document changes (their skin stays as it came), the run reports them.
#pragma once

#include "retail/base/model.h"
#include "retail/detect/detect.h"
#include "retail/rig/mesh.h"
#include "retail/rig/skeleton.h"

#include <string>
#include <vector>

namespace retail {

struct EarsParams {
  bool enabled = true;
  std::size_t min_vertices = 8; ///< welded vertices of each piece, at least (a strand's tip: 4)
  /// The pair's larger piece over its smaller, in area and in length L, at most this.
  double size_ratio_max = 1.6;
  /// The two centroids mirrored about the head joint: |Δheight| and |x_l + x_r| (sideways
  /// offsets from the head joint) at most this × H.
  double mirror_tolerance_h = 0.02;
  double above_head_h = 0.0; ///< both centroids at least this × H above the head joint
  double side_min_h = 0.02;  ///< each centroid at least this × H to its side of the head joint
  void validate() const;     ///< Failure: Error(Usage)
};

/// One pair of ears: its pieces, the bone they ride, and the figures that made it a pair.
struct EarsPair {
  int left = -1, right = -1;          ///< piece ids (+X side, −X side)
  int bone = -1;                      ///< node of the joint the left piece hangs from
  std::string bone_name;              ///< its name
  double size_ratio = 0;              ///< the larger of the area and length ratios
  double mirror_h = 0;                ///< the larger mirror error, × H
  double above_h = 0;                 ///< the lower centroid's height above the head joint, × H
  std::vector<std::size_t> originals; ///< their original vertices, ascending
};

/// The ears among `pieces` (detection's, on `mesh` of character `c` of `model`): the pieces decided
/// Head (hanging from the head or neck) paired by side, size and mirror position; of the pairs
/// within `params`, the one with the smallest mirror error. None without a head role or when
/// disabled. Pure, deterministic.
std::vector<EarsPair> plan_ears(const Model& model, const WeldedMesh& mesh, const Character& c,
                                const std::vector<Piece>& pieces, const EarsParams& params);

/// The record's note for a pair: "left rigid: pieces 3 and 4 ride mixamorig:Head as weighted".
std::string ears_note(const EarsPair& pair);

} // namespace retail
