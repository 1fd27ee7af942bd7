// retail — hair measurements that need no mesh: the controlled head-turn sequence and the torso
// capsule for chains whose colliders leave the trunk uncovered (docs/hair.md). Plain data in,
// plain data out; deterministic; no file I/O. The head turn measured on the skinned mesh is
// head_turn.h's.
#pragma once

#include "retail/base/document.h"
#include "retail/base/model.h"
#include "retail/motion/hair_solver.h"
#include "retail/qa/skin_sampler.h"
#include "retail/rig/skeleton.h"

#include <Eigen/Geometry>
#include <cstddef>
#include <vector>

namespace retail {

// ---- head turn --------------------------------------------------------------------------------

/// The sequence: turn_s of head turns (yaw about `up` through the head pivot, amplitude_deg ×
/// sin(2π t / turn_period_s) × sin(π t / turn_s): smooth start and stop), then
/// settle_s with the head still; the body never moves. The solver runs at solver_hz; tips are
/// sampled at sample_hz (solver_hz must be a whole multiple of it).
struct HeadTurnParams {
  double turn_s = 4;
  double settle_s = 8;
  double solver_hz = 120;
  double sample_hz = 30;
  double amplitude_deg = 40;
  double turn_period_s = 2;
  double quiet_window_s = 2; ///< the final window whose tip movement is reported
  int points_per_link = 9;   ///< sampled points per link for penetration (ends included)
  void validate() const;     ///< Failure: Error(Usage) naming the field
};

/// The character at rest and what rides the head.
struct HeadTurnScene {
  HairRig rig;
  HairPoses rest;                                       ///< every anchor and proxy at rest
  std::vector<bool> anchor_on_head;                     ///< per anchor: turns with the head
  std::vector<bool> proxy_on_head;                      ///< per proxy pose: turns with the head
  Eigen::Vector3d head_pivot = Eigen::Vector3d::Zero(); ///< the head joint, world
  Eigen::Vector3d up = Eigen::Vector3d::UnitY();        ///< yaw axis, world
};

struct HeadTurnChain {
  std::vector<Eigen::Vector3d> tip; ///< per sample: the chain's last joint, world
  /// Deepest sampled link point (centreline) inside one of the chain's proxies over all samples,
  /// world units (0: none). The root joint itself is not sampled (it rides the anchor).
  double penetration_m = 0;
  /// Largest tip movement between consecutive samples within the final quiet_window_s.
  double quiet_tip_movement_m = 0;
};

struct HeadTurnResult {
  std::vector<double> times_s; ///< per sample (0 = the rest pose before the first substep)
  std::vector<HeadTurnChain> chains;
};

/// The head's yaw (radians) at time t of the sequence.
double head_turn_yaw(double t_s, const HeadTurnParams& params);

/// The poses at time t: head-riding anchors and proxies turned about the pivot.
HairPoses head_turn_poses(const HeadTurnScene& scene, double t_s, const HeadTurnParams& params);

/// How deep world point x lies inside `proxy` placed at `pose` (negative: outside), world units,
/// centreline (no hair radius): a plane's depth behind it, an `inside` shape's distance beyond
/// its surface.
double proxy_depth(const Eigen::Vector3d& x, const HairProxy& proxy, const Eigen::Affine3d& pose);

/// Runs the sequence from the rest state. Pre: scene.rig validates; flags sized as the poses.
/// Failure: Error(Usage) for bad params or a scene that does not fit its rig.
HeadTurnResult measure_head_turn(const HeadTurnScene& scene, const HeadTurnParams& params = {});

// ---- torso capsule ----------------------------------------------------------------------------

/// The body skin around the spine at bind, world units.
struct TorsoSkin {
  std::vector<Eigen::Vector3d> positions;
  std::vector<double> trunk_weight; ///< per vertex: summed weight on hips, spine and chest joints
  Eigen::Vector3d hips = Eigen::Vector3d::Zero();       ///< hips joint
  Eigen::Vector3d chest_top = Eigen::Vector3d::UnitY(); ///< top of the trunk (the neck joint)
};

struct TorsoParams {
  double min_trunk_weight = 0.5; ///< vertices at least this much on the trunk are measured
  double radius_quantile = 0.5;  ///< capsule radius: this quantile of their axis distances
  double end_quantile = 0.02;    ///< axis ends: these quantiles of their heights along the axis
  int coverage_samples = 9;      ///< points along the fitted axis tested for coverage
  std::size_t min_vertices = 8;  ///< fewer trunk vertices: no fit
  void validate() const;         ///< Failure: Error(Usage)
};

struct TorsoFit {
  bool fitted = false;    ///< enough trunk skin to fit (else the rest is unset)
  bool uncovered = false; ///< some point of the fitted axis lies in none of the colliders
  double covered_fraction = 0;
  WorldCapsule capsule; ///< the fitted torso capsule, world
  std::size_t vertices = 0;
};

/// Chain c's sphere and capsule colliders placed at `proxy_poses` (indexed by HairProxy::proxy),
/// for fit_torso_capsule's coverage test; planes and `inside` shapes are left out.
std::vector<WorldCapsule> placed_colliders(const HairRig& rig, std::size_t c,
                                           const std::vector<Eigen::Affine3d>& proxy_poses);

/// `capsule` (world, at bind) as a proxy riding the joint whose bind world matrix is
/// `bind_world`, as that joint's skin does: posed by world(t) bind_world^-1 (radius in the
/// joint's units). Its `proxy` index is left 0 for the caller to set.
HairProxy riding_proxy(const WorldCapsule& capsule, const Eigen::Matrix4d& bind_world);

/// The trunk skin of `character` for fit_torso_capsule: every vertex of `skin` (its sampler) at
/// bind, with its summed weight share on hips, pelvis, spine and chest; hips and chest_top from
/// the hips and neck joints. Empty (no positions) when the character has no hips or neck role.
/// `held`: a planned re-rig's influences (skinning.h), as the sampler was built with.
TorsoSkin torso_skin(const Document& doc, const Model& model, const Character& character,
                     const SkinSampler& skin, const HeldSkins* held = nullptr);

/// Fits a capsule to the trunk skin (axis along hips -> chest_top; ends and radius from
/// quantiles, docs/hair.md) and says whether `colliders` (a chain's proxies, placed at bind)
/// already cover it (covered: every one of params.coverage_samples points along the axis lies
/// inside one of them).
TorsoFit fit_torso_capsule(const std::vector<WorldCapsule>& colliders, const TorsoSkin& skin,
                           const TorsoParams& params = {});

} // namespace retail
