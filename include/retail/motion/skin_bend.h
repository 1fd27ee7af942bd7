// How far each joint of a chain may bend before an edge of its skin tears, read from the
// weights as written (docs/spring.md "The bend the weights allow").
#pragma once

#include "retail/grow/rerig.h"
#include "retail/motion/bake.h"
#include "retail/qa/skin_sampler.h"
#include "retail/rig/skeleton.h"

#include <Eigen/Core>

#include <utility>
#include <vector>

namespace retail {

/// A chain's skin: the vertices with weight on its links and that weight.
struct ChainSkin {
  std::vector<int> vertices; ///< #S vertex indices (into the bind positions), ascending
  Eigen::MatrixXd weight;    ///< #S by K: weight of vertex s on link k (k = 0 at the root)
};

/// The weights of `vertices` (indices into `skin`; others are taken to have none) on the links
/// `links` (nodes, root first), ascending by vertex; vertices with no weight on them left out.
ChainSkin chain_skin(const SkinSampler& skin, const std::vector<int>& links,
                     std::vector<std::size_t> vertices);

struct SkinBendParams {
  /// An edge is kept untorn: its length stays within [min_ratio, 1 / min_ratio] of its bind
  /// length (SpringParams::min_skin_ratio's role). Must lie in (0, 1).
  double min_ratio = 0.67;
  /// Bend axes read per joint: twice this many, evenly spread over a turn about the link. At
  /// least 1.
  int axes = 12;
  /// Joints before this one keep `upper` (0: every joint is read, a tail's joint 0 over its
  /// root band's skin). At least 0.
  int first_joint = 0;
  /// Worker threads for the joints (0: one per hardware thread); the result does not depend on
  /// it. At least 0.
  int threads = 0;
  void validate() const;
};

/// Per joint i < K (JointBend, spring.h; the head of link i; joint 0 turns the chain against its
/// anchor), the largest angles, radians in [0, upper[i]], by which link i may turn from its bind
/// direction about each of 2 * params.axes axes normal to it, with every mesh edge of the skin
/// keeping its length within params' ratios, under linear-blend skinning with that joint alone
/// turning: a vertex moves by c_i (R - I)(p - J_i), c_i its weight on links i..K-1. It reads the
/// weights as written, so an edge whose two ends differ in weight far from the joint (a ring of a
/// thin tail cut at a slant, a blend wider than the chain's quarter link) is counted where a radius
/// model misses it. `bind`: #V world positions at bind; `edges`: vertex pairs into it; `joints`:
/// K+1 bind world positions of the chain (its end last); `upper`: K limits already known (no value
/// exceeds them; INFINITY for none; edges that cannot tear within them are skipped). Joints
/// before params.first_joint, or of no length, get no by_axis and least = upper.
/// Pre: K >= 1, skin.weight has K columns and one row per listed vertex, indices in range.
/// Edges with no end on the skin, or of zero length, are ignored. Deterministic; O(#edges * K)
/// plus the axes' work for the edges a bend within `upper` could tear.
std::vector<JointBend> weighted_bend_limits(const std::vector<Eigen::Vector3d>& bind,
                                            const std::vector<std::pair<int, int>>& edges,
                                            const ChainSkin& skin,
                                            const std::vector<Eigen::Vector3d>& joints,
                                            const std::vector<double>& upper,
                                            const SkinBendParams& params);

/// spec.weighted_limit for `chain` (its piece and root band's skin in `skin`, the result rig;
/// `edges` its mesh edges): the bend each link's weights allow (skin_bend.h) at the ratio its
/// spring uses (spec.min_skin_ratio when stricter than `run_ratio`, SpringParams::
/// min_skin_ratio), never past the radius model's limit. Left empty when the limit is off
/// (ratio 0) or the chain's joints are not the character's. `threads`: as SkinBendParams'.
void weigh_tail_bend(const SkinSampler& skin, const std::vector<std::pair<int, int>>& edges,
                     const Character& c, const ChainResult& chain, double run_ratio,
                     ChainSpec& spec, int threads = 0);

} // namespace retail
