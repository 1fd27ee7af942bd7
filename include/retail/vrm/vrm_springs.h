// retail — existing spring rigs read from VRM metadata (docs/hair.md).
//
// Reads VRM 0.x `extensions.VRM.secondaryAnimation` and VRM 1 `extensions.VRMC_springBone`
// (with `VRMC_springBone_extended_collider` on colliders where present) into one neutral
// description: chains of joint nodes with per-link parameters and radii, colliders in a node's
// local frame, and the collider groups each chain respects. Nothing here simulates or edits; the
// file's JSON is only read. Every value read is validated; a failure throws Error(InvalidInput)
// naming the JSON path (`extensions.VRMC_springBone.springs[2].joints[0].node: ...`).
//
// Links, radii and parameters (what the reference runtimes do, docs/hair.md):
// - A chain of joints j_0 … j_n has links j_k → j_{k+1}. Link k uses the settings of its *head*
//   joint j_k (hitRadius, stiffness, drag, gravity): the tail joint's own settings are unused
//   (VRM 1 lets the last joint carry only `node`).
// - VRM 0.x bone groups list root bones. Each root expands down its descendants: the first child
//   continues the chain; every further child starts a new chain rooted at itself whose parent
//   node (the branching joint) is simulated by the chain listed before it. A node without
//   children ends its chain with a virtual end 0.07 m (world) beyond it, along the direction from
//   its parent to it (UniVRM / three-vrm), expressed in that node's local frame. Every link of a
//   group uses the group's settings.
// - VRM 0.x collider offsets are stored with Z negated (Unity's axes); they are read back with
//   Z flipped, as three-vrm does. Gravity directions are read as written.
// - Chain ends that are not skinned joints are accepted (`skinned` says which are).
#pragma once

#include "retail/base/document.h"
#include "retail/base/model.h"

#include <Eigen/Core>
#include <cstddef>
#include <string>
#include <vector>

namespace retail {

/// The spring settings VRM writes per joint (VRM 0: per bone group). VRM's own units: stiffness
/// and gravityPower are per-frame pulls at the runtime's frame rate, dragForce a per-frame
/// velocity loss in [0, 1] (see hair_solver.h: vrm_link_params for the mapping to ours).
struct VrmJointSettings {
  double hit_radius_m = 0; ///< joint's collision radius, node-space units of the file
  double stiffness = 1;
  double gravity_power = 0;
  Eigen::Vector3d gravity_dir = Eigen::Vector3d(0, -1, 0);
  double drag_force = 0.4;
};

struct VrmSpringChain {
  std::string name;          ///< VRM 1 spring name, or "" (VRM 0)
  std::string path;          ///< JSON path of the spring / bone group it came from
  std::vector<int> joints;   ///< node indices, root first; each the child of the one before
  std::vector<bool> skinned; ///< per joint: the node is a joint of some skin
  /// Per link (joints.size() - 1, plus one when has_virtual_end): the head joint's settings.
  std::vector<VrmJointSettings> links;
  bool has_virtual_end = false;
  Eigen::Vector3d virtual_end_local = Eigen::Vector3d::Zero(); ///< in the last joint's frame
  int parent_node = -1;             ///< the node the chain's root hangs from (-1: scene root)
  int parent_chain = -1;            ///< the chain simulating parent_node (VRM 0 branch), or -1
  std::vector<int> collider_groups; ///< indices into VrmSprings::groups
  int center = -1;                  ///< VRM `center` node, or -1
  std::size_t links_count() const { return links.size(); }
};

enum class VrmColliderShape { Sphere, Capsule, Plane };

struct VrmCollider {
  std::string path; ///< JSON path, for messages and reports
  int node = 0;
  VrmColliderShape shape = VrmColliderShape::Sphere;
  Eigen::Vector3d offset = Eigen::Vector3d::Zero();  ///< sphere centre / capsule head / plane point
  Eigen::Vector3d tail = Eigen::Vector3d::Zero();    ///< capsule tail (sphere: == offset)
  Eigen::Vector3d normal = Eigen::Vector3d::UnitZ(); ///< plane only (unit)
  double radius_m = 0;
  bool inside = false;   ///< extended collider: keeps joints inside the shape
  bool extended = false; ///< read from VRMC_springBone_extended_collider
};

struct VrmColliderGroup {
  std::string name;
  std::vector<int> colliders; ///< indices into VrmSprings::colliders
};

struct VrmSprings {
  std::string source; ///< "VRMC_springBone", "VRM 0.x secondaryAnimation", or "" (none)
  std::vector<VrmSpringChain> chains;
  std::vector<VrmCollider> colliders;
  std::vector<VrmColliderGroup> groups;
  std::vector<std::string> warnings; ///< things read but not used (unknown specVersion, ...)
  /// usable_vrm_springs: why the file's springs are not used ("" when they are).
  std::string unusable;
  bool empty() const { return chains.empty(); }
};

/// How VRM's per-frame spring settings become ours (docs/hair.md derives it; hair_solver.h's
/// vrm_link_params applies it, vrm_spring_write.h's vrm_settings_for inverts it). VRM's runtimes
/// (UniVRM, three-vrm) move a joint tail per frame of length Δ by: (1 − drag) × last frame's
/// motion, stiffness × Δ along the unit rest direction, gravityPower × Δ along gravityDir. Read
/// as rates per second at Δ (velocity kept e^(−cΔ) = 1 − drag per frame; the pulls as
/// accelerations, for a small deflection θ of a link of length L: stiffness θ / Δ):
///   c = −ln(1 − drag) / Δ,  k = stiffness / (Δ L),  g = gravityPower / Δ × gravityDir (unit).
/// Their balance (the sag under gravity: tan = gravityPower / stiffness) is kept exactly; one
/// step of ours at h = Δ moves (1 − drag) as far as VRM's first frame (SPEC's e^(−ch) also
/// scales the step's force). Δ = 1 / reference_rate_hz (VRM rigs are tuned at 60 fps).
/// drag 1 maps to max_damping_per_s.
struct VrmMapping {
  double reference_rate_hz = 60;
  double max_damping_per_s = 1000;
  void validate() const; ///< Failure: Error(Usage)
};

/// Most joints one file may ask for across all chains: every substep of a bake or head turn
/// moves each of them, and a VRM 0 group per node listing the scene root would expand
/// quadratically. Beyond it: Error(Unsupported) naming the path.
constexpr std::size_t kMaxSpringJoints = 4096;

/// The most spring work per solver substep retail simulates for one file: over its chains, the
/// links times one plus the colliders each chain is tested against. A substep's cost follows it,
/// so a bake or head turn costs at most this times its substeps.
constexpr std::size_t kMaxSpringWork = std::size_t(1) << 15;

/// The spring work per substep of `springs` (see kMaxSpringWork).
std::size_t spring_work(const VrmSprings& springs);

/// Reads the file's spring rigs. VRM 1 (`VRMC_springBone`) wins when both are present (as in
/// three-vrm; a warning says the VRM 0 data was not read). No spring metadata: an empty result.
/// Pre: `model` from parse_model(doc) (node indices and the hierarchy validated).
/// Failure: Error(InvalidInput) naming the JSON path for a wrong type, an index out of range, a
/// negative radius or stiffness, a dragForce outside [0, 1], a non-finite number, a joint that is
/// not below the joint before it (this includes a node listed twice: a cycle), a VRM 0 root listed
/// twice in one group; Error(Unsupported) past kMaxSpringJoints or kMaxSpringWork (naming the
/// spring or bone group with the most work).
VrmSprings read_vrm_springs(const Document& doc, const Model& model);

/// The springs every command uses (the re-rig's spring bake, the VRM spring export, the --hair
/// colliders, `report --head-turn`): read_vrm_springs, or when that fails (malformed, past a
/// limit) none, with `unusable` saying why; the caller warns and goes on without them.
VrmSprings usable_vrm_springs(const Document& doc, const Model& model);

} // namespace retail
