// retail — capsules fitted to a character's skin along its deforming limb bones: what a chain's
// rest clears (a tail's legs, spring.h's RestObstacle).
#pragma once

#include "retail/base/document.h"
#include "retail/base/model.h"
#include "retail/motion/spring.h"
#include "retail/qa/skin_sampler.h"
#include "retail/rig/skeleton.h"

#include <vector>

namespace retail {

struct CapsuleParams {
  /// A bone's capsule radius: this × the median distance from its segment of the vertices the
  /// bone moves most (inside the skin, so touching skin is not contact).
  double radius_share = 0.8;
  void validate() const; ///< Failure: Error(Usage)
};

/// The median distance from the segment a -> b of the points whose `owner` is `node` (the
/// element at size/2 of their distances after selection: a capsule's radius, before its share);
/// `count` receives how many such points there are. NaN when there are none.
double median_distance(const std::vector<Eigen::Vector3d>& points, const std::vector<int>& owner,
                       int node, const Eigen::Vector3d& a, const Eigen::Vector3d& b,
                       std::size_t& count);

/// The legs' capsules at bind, world space: per side with roles, the thigh (upper leg -> lower
/// leg) and the shin (lower leg -> foot), each with the radius its skin gives (CapsuleParams);
/// a bone no vertex is dominated by gets none. `skin`: the character's skin (SkinSampler::
/// dominant_node, bind()). Empty when the character has no leg roles.
/// `joints`, when given, receives the two nodes each capsule runs between (2 per capsule).
std::vector<RestObstacle> leg_capsules(const SkinSampler& skin, const Character& character,
                                       const CapsuleParams& params = {},
                                       std::vector<int>* joints = nullptr);

/// `capsules` (leg_capsules: world at bind, each along a joint -> joint bone) as the legs move
/// relative to `anchor` (a joint node: the hips) in each of `clips` of `model`, at `samples`
/// evenly spaced times: per clip and time, every capsule with its ends where the clip puts its
/// two joints relative to the anchor, placed as if the anchor were at its bind pose (what the
/// anchor's frame sees the legs sweep through). Pre: every capsule's ends are the bind
/// positions of `joints` (two per capsule, in order), joints of `character`. Deterministic.
std::vector<RestObstacle> swept_capsules(const Document& doc, const Model& model,
                                         const Character& character, int anchor,
                                         const std::vector<RestObstacle>& capsules,
                                         const std::vector<int>& joints,
                                         const std::vector<int>& clips, int samples);

} // namespace retail
