// retail — capsules fitted to the body skin along the bones a character's hair may meet (the
// neck, head, chest, shoulders and upper arms), for the hair chains' colliders (docs/hair.md
// "Body capsules").
#pragma once

#include "retail/grow/hair_rig.h"
#include "retail/motion/hair_solver.h"
#include "retail/rig/skeleton.h"

#include <string>
#include <vector>

namespace retail {

struct HairCapsuleParams {
  /// A bone's capsule radius: this × the median distance from its axis of the skin vertices the
  /// bone moves most (as body_capsules.h's CapsuleParams: inside the skin).
  double radius_share = 0.8;
  /// A capsule is shrunk to stay this share of the clearance off every hair chain at bind (the
  /// root link excluded); shrunk below min_radius_share × its fitted radius, it is dropped.
  double clear_share = 0.95;
  double min_radius_share = 0.5;
  int coverage_samples = 9;     ///< points along the axis tested against the file's colliders
  std::size_t min_vertices = 8; ///< fewer vertices dominated by the bone: no capsule
  /// Add the shoulders' and upper arms' capsules too (else fitted and reported, not added:
  /// docs/hair.md "Body capsules" says why they are off by default).
  bool limbs = false;
  void validate() const; ///< Failure: Error(Usage)
};

/// One fitted capsule: the bone it rides, its shape at bind and what became of it.
struct BodyCapsule {
  std::string bone;           ///< "neck", "head", "chest", "left shoulder", "left upper arm", ...
  int node = -1;              ///< the joint node it rides
  WorldCapsule capsule;       ///< world, bind; radius after clearing the chains
  double fitted_radius_m = 0; ///< before clearing the chains
  std::size_t vertices = 0;   ///< skin vertices it was fitted to
  bool covered = false;       ///< the file's colliders cover its axis: not added
  bool dropped = false;       ///< a chain rests too close: not added
  bool limb = false;          ///< a shoulder or upper arm (added only with params.limbs)
  bool added = false;
  /// Added: its index in the colliders the chains respect (clip_pass.h's HairColliders::proxies,
  /// which hold it in its node's frame at bind); else -1. Set by hair_colliders.
  int proxy = -1;
};

/// Fits a capsule per bone (neck -> head; head joint -> twice its skin's centroid; chest, else
/// the top spine joint -> neck; shoulder -> upper arm; upper arm -> lower arm) to the body skin
/// (TrunkSkin::body_positions) the bone dominates, and decides which to add: not when every one
/// of params.coverage_samples points along its axis lies inside one of `file_colliders` (the
/// file's own colliders placed at bind), not when clearing `chains` (their joints and skin
/// radii at bind; points within the root link's length of the root excluded) shrinks it below
/// params.min_radius_share, not a limb's without params.limbs. Deterministic; bones without a
/// role or skin give none.
std::vector<BodyCapsule> fit_body_capsules(const Character& character, const TrunkSkin& skin,
                                           const std::vector<WorldCapsule>& file_colliders,
                                           const std::vector<HairChainResult>& chains,
                                           const HairCapsuleParams& params = {});

} // namespace retail
