// retail — the skeleton distance field (SPEC §2) and the per-vertex skin weights it is judged by.
#pragma once

#include "retail/base/document.h"
#include "retail/base/model.h"
#include "retail/detect/weld.h"
#include "retail/rig/mesh.h"
#include "retail/rig/skeleton.h"

#include <Eigen/Core>
#include <string>
#include <utility>
#include <vector>

namespace retail {

/// Influences of every original vertex of a WeldedMesh, as character joint indices.
struct SkinWeights {
  static constexpr int kMax = 8; ///< JOINTS_0 + JOINTS_1
  /// A joint deforms when its weights, summed over the vertices, come to at least one whole
  /// vertex: stray weight (a fraction of a vertex spread thinly, docs/detection.md) makes no
  /// bone.
  static constexpr double kLeastHeld = 1.0;
  std::vector<std::array<int, kMax>> joint;     ///< #N: character joint index, -1 unused
  std::vector<std::array<double, kMax>> weight; ///< #N: weights as stored (normalised here)
  std::vector<bool> deforming; ///< per character joint: carries weight (kLeastHeld)
};

/// Reads JOINTS_n/WEIGHTS_n of every source primitive and maps skin joint indices to character
/// joints. Weights are normalised to sum 1 (a zero-sum vertex keeps zeros). `deforming`: the
/// joints whose weights summed over the vertices reach kLeastHeld.
SkinWeights read_skin_weights(const Document& doc, const Model& model, const Character& character,
                              const std::vector<SourcePrimitive>& sources);
/// The same for a welded mesh's sources (mesh.sources).
SkinWeights read_skin_weights(const Document& doc, const Model& model, const Character& character,
                              const WeldedMesh& mesh);

/// weld_character and read_skin_weights of one character. The weights need only the sources,
/// so with more than one worker (params.threads) they are read on a thread of their own beside
/// the weld; the results do not depend on it. Failure: the weld's error first, then the
/// weights', as when run one after the other.
std::pair<WeldedMesh, SkinWeights> weld_and_weigh(const Document& doc, const Model& model,
                                                  const Character& character,
                                                  const WeldParams& params);

/// Per joint 0..joints-1: do its weights, summed over every vertex of `sw`, reach
/// SkinWeights::kLeastHeld? Joint ids outside [0, joints) are ignored.
std::vector<bool> carries_weight(const SkinWeights& sw, std::size_t joints);

/// A bone segment a -> b in world space at bind (a == b: a point).
struct Segment {
  Eigen::Vector3d a, b;
  int joint = -1; ///< the character joint whose bone this is (the segment's head joint)
  bool stub = false;
};

struct DistanceParams {
  double far_fraction_h = 0.07; ///< far: skeleton distance > this × H
  double stub_fraction = 0.5;   ///< leaf stubs: this × the incoming bone length
  void validate() const;        ///< Failure: Error(Usage)
};

/// Distance from p to segment ab; `t` receives the clamped parameter (0 at a, 1 at b).
double segment_distance(const Eigen::Vector3d& p, const Eigen::Vector3d& a,
                        const Eigen::Vector3d& b, double* t = nullptr);

/// Distance from p to the polyline through `line` (its point when it has one; +inf when empty).
double polyline_distance(const Eigen::Vector3d& p, const std::vector<Eigen::Vector3d>& line);

/// Joints that deform by the skeleton's structure, whatever the weights say: the roled joints
/// (hips, spine, neck, head, legs, arms), and every joint at or below the hips on the path from
/// the roled joints' lowest common ancestor to one of them. A rigger's solver can leave a
/// pelvis bone with no vertex at all; it still carries the legs. IK and pole helpers, and a
/// weightless root above the hips (a floor-level `Body` under a quadruped), are not counted.
/// Returns one flag per character joint.
std::vector<bool> structural_joints(const Character& character);

/// Deforming joints for the distance field: carrying weight somewhere, or structural.
std::vector<bool> deforming_joints(const Character& character, const SkinWeights& weights);

/// Bone segments of the deforming skeleton: parent -> child for every deforming parent, a stub
/// past every deforming leaf along its incoming bone (length stub_fraction × that bone), and a
/// point at a deforming joint that has neither. Helpers that carry no weight (IK, pole targets)
/// add nothing.
std::vector<Segment> bone_segments(const Character& character, const std::vector<bool>& deforming,
                                   const DistanceParams& params);

/// Distance from p to the bone of `joint` in `segments` (min over the segments it heads; the
/// joint's position when it heads none).
double bone_distance(const Eigen::Vector3d& p, int joint, const std::vector<Segment>& segments,
                     const Character& character);

struct DistanceField {
  std::vector<double> distance; ///< #P: min over segments
  std::vector<int> segment;     ///< #P: the nearest segment
  std::vector<double> t;        ///< #P: its parameter at the nearest point
  std::vector<bool> far;        ///< #P: distance > threshold
  double threshold = 0;
};

/// Skeleton distance of each row of `points` (#P by 3). Ties: the lower segment index. Rows are
/// measured on `threads` workers (0: one per core); the field does not depend on their number.
DistanceField skeleton_distance(const Eigen::MatrixX3d& points,
                                const std::vector<Segment>& segments, double threshold,
                                int threads = 1);

/// Per welded vertex: does it lie nearest (field.segment) to a bone of region `which`
/// (joint_regions of each segment's joint)? False where the field has no segment.
std::vector<char> nearest_in_region(const DistanceField& field,
                                    const std::vector<Segment>& segments,
                                    const std::vector<std::string>& region,
                                    const std::string& which);

} // namespace retail
