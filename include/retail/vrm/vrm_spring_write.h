// retail — chains as VRM springs, written into a VRM file's own spring metadata (docs/hair.md).
//
// A chain is described as one more VRM 1 spring (`VRMC_springBone.springs[]`) or VRM 0.x bone
// group (`VRM.secondaryAnimation.boneGroups[]`), with parameters mapped from ours (the inverse
// of VrmMapping, vrm_springs.h; docs/hair.md):
//   stiffness s     = k Δ L        (k = ω² of our spring, ω = 2π f; L the link's length)
//   dragForce d     = 1 − e^(−c Δ) (c = 2 ζ ω)
//   gravityPower p  = g Δ,  gravityDir (0, −1, 0)
//   hitRadius       = our skin radius at the joint / the joint node's world scale
// at Δ = 1 / VrmMapping::reference_rate_hz. Plan, then apply: vrm_spring_plan computes the JSON
// entries and touches nothing; apply_vrm_spring_plan appends them. Existing springs, bone groups,
// colliders and collider groups are never changed (entries are only appended).
//
// Colliders retail adds (GrownColliderSet: capsules riding a node, in its frame at bind) are
// appended the same way: VRM 1 one `colliders[]` capsule each and one `colliderGroups[]` entry per
// set; VRM 0.x (spheres only) one `colliderGroups[]` entry per set and node, each capsule covered
// by spheres of its radius along its axis, n = ceil(length / radius) + 1 evenly spaced (spacing
// at most the radius), offsets with Z negated (Unity's axes, as the reader flips them back).
#pragma once

#include "retail/base/document.h"
#include "retail/base/model.h"
#include "retail/vrm/vrm_springs.h"

#include <Eigen/Core>
#include <string>
#include <vector>

namespace retail {

/// One chain retail grew, as its spring runs (SPEC §7 for tails).
struct GrownSpring {
  std::string name;                 ///< e.g. "retail Tail_1"
  std::vector<int> joints;          ///< nodes, root first, each the child of the one before;
                                    ///< the last is the chain's end (Tail_End)
  std::vector<double> radius_m;     ///< per joint but the last: skin radius, world units
  std::vector<double> frequency_hz; ///< per link (joints.size() - 1): f
  double damping_ratio = 0.65;      ///< ζ
  double gravity_mps2 = 0;          ///< g, along world −Y
  /// Collider groups it respects (indices: the file's own, or those vrm_added_groups gives)
  std::vector<int> collider_groups;
};

/// A capsule retail adds as a collider, riding `node`, in that node's local frame at bind.
struct GrownCollider {
  std::string name; ///< what it covers, e.g. "neck"
  int node = -1;
  Eigen::Vector3d head_local = Eigen::Vector3d::Zero();
  Eigen::Vector3d tail_local = Eigen::Vector3d::Zero();
  double radius_local = 0; ///< node-local units
};

/// Colliders appended as new collider groups (named `name`; VRM 0.x has no group names).
struct GrownColliderSet {
  std::string name; ///< e.g. "retail body"
  std::vector<GrownCollider> colliders;
};

/// Which metadata a file carries: "VRMC_springBone" (VRM 1, also when only VRMC_vrm is present),
/// "VRM 0.x secondaryAnimation" (VRM 0.x), or "" (not a VRM: nothing to write).
std::string vrm_spring_target(const Document& doc);

/// VRM joint settings for one of our links: the mapping in the header. `scale` is the joint
/// node's world scale (hit radius in its units). Failure: Error(Usage) for a non-positive
/// length or scale, or non-finite input.
VrmJointSettings vrm_settings_for(double frequency_hz, double damping_ratio, double gravity_mps2,
                                  double length_m, double radius_m, double scale,
                                  const VrmMapping& mapping = {});

struct VrmSpringPlan {
  std::string target;   ///< vrm_spring_target
  Json entries;         ///< array: VRM 1 spring objects, or VRM 0 bone group objects
  Json colliders;       ///< array: VRM 1 collider objects (VRM 0: empty)
  Json collider_groups; ///< array: VRM 1 or VRM 0 collider group objects
  std::string summary;  ///< one line for the log and the report
};

/// The collider group indices `sets` take once appended after the file's own groups, per set
/// ascending: VRM 1 one group per set; VRM 0.x one per set and node (in the order the nodes first
/// appear). Empty lists when the file is not a VRM. Pure.
std::vector<std::vector<int>> vrm_added_groups(const Document& doc,
                                               const std::vector<GrownColliderSet>& sets);

/// The entries for `springs` at the model's saved pose (`world`: world_matrices), and for
/// `colliders` (appended after the file's own colliders and groups, vrm_added_groups; a spring
/// may list those groups). VRM 1: one
/// spring per chain, every joint with its own settings, the end joint with `node` only. VRM 0
/// (one setting per group): the mean of the chain's links, its root listed in `bones` (runtimes
/// expand it down the chain). Pure. Failure: Error(Usage) for a chain with fewer than two
/// joints, a joint that is not the child of the one before, sizes that disagree, a collider
/// group index neither the file nor `colliders` has, or a collider with a node out of range, a
/// radius not positive or a non-finite point.
VrmSpringPlan vrm_spring_plan(const Document& doc, const Model& model,
                              const std::vector<Eigen::Matrix4d>& world,
                              const std::vector<GrownSpring>& springs,
                              const std::vector<GrownColliderSet>& colliders = {},
                              const VrmMapping& mapping = {});

/// Appends the plan's entries, colliders and collider groups to the file's metadata, creating the
/// arrays (and VRMC_springBone with specVersion "1.0" plus its extensionsUsed entry) when absent.
/// Existing entries keep their values and order. No-op for an empty plan or target.
void apply_vrm_spring_plan(Document& doc, const VrmSpringPlan& plan);

} // namespace retail
