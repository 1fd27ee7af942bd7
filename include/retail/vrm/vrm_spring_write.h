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
  std::vector<int> collider_groups; ///< existing collider groups it respects (indices)
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
  std::string target;  ///< vrm_spring_target
  Json entries;        ///< array: VRM 1 spring objects, or VRM 0 bone group objects
  std::string summary; ///< one line for the log and the report
};

/// The entries for `springs` at the model's saved pose (`world`: world_matrices). VRM 1: one
/// spring per chain, every joint with its own settings, the end joint with `node` only. VRM 0
/// (one setting per group): the mean of the chain's links, its root listed in `bones` (runtimes
/// expand it down the chain). Pure. Failure: Error(Usage) for a chain with fewer than two
/// joints, a joint that is not the child of the one before, sizes that disagree, or a collider
/// group index the file does not have.
VrmSpringPlan vrm_spring_plan(const Document& doc, const Model& model,
                              const std::vector<Eigen::Matrix4d>& world,
                              const std::vector<GrownSpring>& springs,
                              const VrmMapping& mapping = {});

/// Appends the plan's entries to the file's metadata, creating the extension's spring array (and
/// VRMC_springBone with specVersion "1.0" plus its extensionsUsed entry) when absent. Existing
/// entries keep their values and order. No-op for an empty plan or target.
void apply_vrm_spring_plan(Document& doc, const VrmSpringPlan& plan);

} // namespace retail
