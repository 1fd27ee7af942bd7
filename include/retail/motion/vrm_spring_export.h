// retail — chains retail grows, written into a VRM file's own spring metadata (docs/hair.md).
//
// Live runtimes (three-vrm, UniVRM, VSeeFace) swing a VRM's springs themselves. So that a tail or
// hair chain retail grew swings there too, it is described as one more VRM 1 spring
// (`VRMC_springBone.springs[]`) or VRM 0.x bone group (`VRM.secondaryAnimation.boneGroups[]`),
// with parameters mapped from ours (the inverse of hair_solver.h's vrm_link_params; docs/hair.md):
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
#include "retail/grow/hair_rig.h"
#include "retail/grow/rerig.h"
#include "retail/motion/bake.h"
#include "retail/motion/hair_solver.h"
#include "retail/motion/vrm_springs.h"
#include "retail/rig/skeleton.h"

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

/// Which existing collider groups (file indices, ascending) a grown chain respects. Hair (a
/// chain under the head): the groups the file's springs rooted at or below the character's head
/// use; when no such spring uses any, the groups with a collider riding the head, the neck, the
/// chest, the spine or the hips (or a node below the head). Tail (under the hips): the groups
/// with a collider riding the hips, a pelvis joint, or a node at or below an upper leg. None
/// when the file has no collider group.
std::vector<int> grown_collider_groups(const VrmSprings& existing, const Model& model,
                                       const Character& character, bool hair);

/// The character's grown chains as springs, with the parameters the bake gives them: tails
/// (ChainResult with nodes, not rigid) from params.spring (f per link from the root frequency
/// to the tip frequency as spring.h interpolates it, ζ, g × character.scale, r = the chain's
/// skin radius at the link's head); hair chains from params.hair (f = √k / 2π, ζ = c / 2√k,
/// 0 and 0 for k = 0; g × character.scale; r = radius_scale × the skin radius at the link's
/// root); collider groups by grown_collider_groups. Names "retail <first bone>". Tails first,
/// then hair, each in result order. Pure.
std::vector<GrownSpring> grown_springs(const VrmSprings& existing, const Model& model,
                                       const Character& character, const CharacterResult& tails,
                                       const HairResult* hair, const BakeParams& params);

/// What the export stage wrote for one character (the run record keeps it).
struct VrmSpringRecord {
  std::string status;               ///< "written", "off" (--no-vrm-springs) or "not a VRM"
  std::string target;               ///< vrm_spring_target ("" when not a VRM)
  std::vector<GrownSpring> springs; ///< appended for this character (may be empty)
};

struct VrmSpringStage {
  std::vector<VrmSpringRecord> characters; ///< per character
  std::string summary;                     ///< one line for the log ("" when not a VRM)
  /// The file's own springs could not be read (read_vrm_springs failed): the grown chains are
  /// written without collider groups, and this says why.
  std::vector<std::string> warnings;
};

/// The stage after the re-rig: on a VRM `doc` (vrm_spring_target non-empty)
/// with `enabled`, every grown chain of every character (tails[k], hair[k] when present) is
/// planned and appended by apply_vrm_spring_plan; otherwise nothing changes. Pre: doc is the
/// re-rigged document (the chains' nodes exist), characters the input's (roles, scale).
/// Failure: as parse_model and vrm_spring_plan (unreadable existing springs: a warning).
VrmSpringStage export_vrm_springs(Document& doc, const std::vector<Character>& characters,
                                  const std::vector<CharacterResult>& tails,
                                  const std::vector<HairResult>& hair, const BakeParams& params,
                                  bool enabled);

/// Appends the plan's entries to the file's metadata, creating the extension's spring array (and
/// VRMC_springBone with specVersion "1.0" plus its extensionsUsed entry) when absent. Existing
/// entries keep their values and order. No-op for an empty plan or target.
void apply_vrm_spring_plan(Document& doc, const VrmSpringPlan& plan);

} // namespace retail
