// retail — the arc-preserving hair solver with capsule and sphere collisions (SPEC §10).
//
// A runtime component like spring.h: no file I/O, no glTF, no globals, no logging; plain data
// in, plain data out, double precision, deterministic (same input, same doubles).
//
// A chain hangs from an *anchor* (the head, or the node its root hangs from) whose world pose the
// caller supplies per substep. Joint 0 (the root) rides the anchor rigidly and is never
// simulated. Link i runs from joint i (origin o_i) to joint i+1, whose world position x_i and
// velocity v_i are the state. Per fixed substep h (1/120 s), root to tip:
//   r_i = o_i + R_H (R_i^0 s a_i)       restoring target from the saved rest arc in the *moving
//                                       anchor frame* (HairLink::rest_local = R_i^0 s a_i), never
//                                       from the already-bent parent (that curls hair)
//   f_i = k (r_i − x_i) + g
//   u_i = e^(−c h) [v_i + h f_i]
//   y_i = x_i + h u_i
//   x̂_i = o_i + L_i (y_i − o_i) / |y_i − o_i|   (rest direction when y_i − o_i degenerates)
//   v*_i = (x̂_i − x_i) / h                       (before any push-out)
// then collision along the whole link o_i → x̂_i against the chain's capsules and spheres (a
// sphere is a capsule of zero length): clearance C = min_{u,v} |p(u) − q(v)| − (r_b + r_h).
// Proxies move: within the substep the link and every proxy are interpolated (M ≥ 1 positions,
// more when anything moves further than half a clearance radius), and each position is resolved
// in turn, so a fast capsule pushes the link along instead of tunnelling through it. A contact
// correction of the tip with direction n changes the velocity to v⁺ = v* − min(0, v*·n) n: only
// the component into the correction is removed, sliding is kept, the correction itself never
// becomes velocity (no rebound). Lengths stay L_i (every correction is re-projected).
#pragma once

#include "retail/vrm/vrm_springs.h"

#include <Eigen/Geometry>
#include <cstddef>
#include <string>
#include <vector>

namespace retail {

/// A collision proxy in the local frame of pose `proxy` (HairPoses::proxies): a capsule from
/// `head_local` to `tail_local` (equal: a sphere), radius in local units (scaled with the pose).
/// `inside`: keep links inside it instead (VRM extended collider). `plane`: half-space through
/// head_local with outward normal `normal_local` (radius ignored).
struct HairProxy {
  int proxy = 0;
  Eigen::Vector3d head_local = Eigen::Vector3d::Zero();
  Eigen::Vector3d tail_local = Eigen::Vector3d::Zero();
  double radius_m = 0;
  bool inside = false;
  bool plane = false;
  Eigen::Vector3d normal_local = Eigen::Vector3d::UnitY();
};

/// One link: joint i -> joint i+1, parameters already in our units (vrm_link_params maps VRM's).
struct HairLink {
  Eigen::Vector3d rest_local = Eigen::Vector3d::UnitX(); ///< R_i^0 s a_i, in the anchor's frame
  double length_m = 1;           ///< L_i, world units (|anchor linear * rest_local| at rest)
  double radius_m = 0;           ///< r_h, world units
  double stiffness_per_s2 = 120; ///< k
  double damping_per_s = 10;     ///< c
  Eigen::Vector3d gravity_mps2 = Eigen::Vector3d(0, -1, 0); ///< g, world
};

struct HairChain {
  std::string name;
  int anchor = 0;                                       ///< index into HairPoses::anchors
  Eigen::Vector3d root_local = Eigen::Vector3d::Zero(); ///< joint 0 in the anchor's frame
  std::vector<HairLink> links;
  std::vector<int> colliders; ///< indices into HairRig::proxies
};

/// Restoring-direction frame. Anchor is SPEC §10. BentParent takes link i's rest direction
/// relative to link i-1's current (bent) direction (docs/hair.md): kept only so a test can show
/// the curl it causes.
enum class HairTargetFrame { Anchor, BentParent };

/// The rig, built once. Chains are stepped in order (a chain anchored on another chain's joint
/// must come after it; the caller supplies that joint's pose).
struct HairRig {
  std::vector<HairChain> chains;
  std::vector<HairProxy> proxies;
  std::size_t anchor_count = 0; ///< HairPoses::anchors.size() expected
  std::size_t proxy_count = 0;  ///< HairPoses::proxies.size() expected
  double substep_s = 1.0 / 120;
  int max_collision_samples = 16; ///< M's cap per substep (1: no checks between substeps)
  int contact_passes = 4;         ///< push-out passes per collision sample
  HairTargetFrame target_frame = HairTargetFrame::Anchor;
  /// Failure: Error(Usage) naming the field: indices out of range, non-positive lengths or
  /// substep, negative radii/stiffness/damping, non-finite values.
  void validate() const;
};

/// World poses for one instant: anchors (their linear part R_H, possibly scaled) and proxies.
struct HairPoses {
  std::vector<Eigen::Affine3d> anchors;
  std::vector<Eigen::Affine3d> proxies;
};

struct HairChainState {
  std::vector<Eigen::Vector3d> x; ///< per link: its end joint, world
  std::vector<Eigen::Vector3d> v; ///< per link: velocity, world units / s
  std::vector<bool> contact;      ///< per link: corrected by a collider in the last substep
};

struct HairState {
  std::vector<HairChainState> chains;
  double time_s = 0; ///< advanced by substep_s per step
  std::size_t substeps = 0;
};

/// Every chain on its rest arc at `poses`, zero velocity, time 0. Pre: rig.validate() passed and
/// poses sized as the rig says (else Error(Usage)).
HairState rest_state(const HairRig& rig, const HairPoses& poses);

/// Advances one substep (rig.substep_s) from poses `begin` (the previous substep's end) to `end`.
/// Post: every link has length L_i within 1e-9 L_i; roots are where their anchors put them.
void step(const HairRig& rig, const HairPoses& begin, const HairPoses& end, HairState& state);

/// World position of chain c's joint j (0: the root, from the anchor pose; j >= 1: state).
Eigen::Vector3d joint_position(const HairRig& rig, const HairPoses& poses, const HairState& state,
                               std::size_t chain, std::size_t joint);

// ---- geometry -------------------------------------------------------------------------------

/// A proxy placed in the world: capsule axis a -> b (a == b: sphere), radius.
struct WorldCapsule {
  Eigen::Vector3d a = Eigen::Vector3d::Zero(), b = Eigen::Vector3d::Zero();
  double radius_m = 0;
};

/// Smallest distance between segments p0-p1 and q0-q1 with the parameters u, v in [0, 1] of the
/// closest points (either segment may have zero length; parallel segments: one closest pair,
/// with u = 0 when that is one).
double segment_distance(const Eigen::Vector3d& p0, const Eigen::Vector3d& p1,
                        const Eigen::Vector3d& q0, const Eigen::Vector3d& q1, double* u = nullptr,
                        double* v = nullptr);

/// The proxy in the world at `pose` (radius scaled by the pose's mean axis scale).
WorldCapsule place(const HairProxy& proxy, const Eigen::Affine3d& pose);

/// C of SPEC §10 for link o -> x of radius r_h against capsule `c` (negative: overlap).
double clearance(const Eigen::Vector3d& o, const Eigen::Vector3d& x, double radius_h,
                 const WorldCapsule& c);

// ---- VRM parameters ---------------------------------------------------------------------------

/// Our link parameters for VRM settings `s` on a link of world length `length_m`; `scale` is the
/// world scale of the joint's node (the hit radius is in its units; the pulls are world units).
HairLink vrm_link_params(const VrmJointSettings& s, double length_m, double scale,
                         const VrmMapping& mapping = {});

/// A HairRig for every chain of `springs` at the file's saved pose (`world`: world_matrices of
/// the model). Anchors are each chain's parent node (anchor_nodes lists them: anchors[i] is
/// node anchor_nodes[i], -1 for the scene root), proxies the collider nodes (proxy_nodes).
/// VRM 1 colliders an extended plane or `inside` shape become plane / inside proxies.
/// Failure: Error(InvalidInput) naming the chain for a zero-length link, a singular node pose, or
/// parameters that overflow (a link so short that k is not finite).
HairRig hair_rig_from_vrm(const VrmSprings& springs, const Model& model,
                          const std::vector<Eigen::Matrix4d>& world, std::vector<int>* anchor_nodes,
                          std::vector<int>* proxy_nodes, const VrmMapping& mapping = {});

} // namespace retail
