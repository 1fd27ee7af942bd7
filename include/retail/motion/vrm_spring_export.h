// retail — the chains retail grows, as springs in a VRM file's own metadata (docs/hair.md).
//
// Live runtimes (three-vrm, UniVRM, VSeeFace) swing a VRM's springs themselves. So that a tail or
// hair chain retail grew swings there too, each becomes a GrownSpring with the parameters the
// bake gives it and the existing collider groups it should respect, and is written by
// vrm_spring_write.h (plan, then apply).
#pragma once

#include "retail/base/document.h"
#include "retail/base/model.h"
#include "retail/grow/hair_rig.h"
#include "retail/grow/rerig.h"
#include "retail/motion/bake.h"
#include "retail/motion/clip_pass.h"
#include "retail/rig/skeleton.h"
#include "retail/vrm/vrm_spring_write.h"
#include "retail/vrm/vrm_springs.h"

#include <string>
#include <vector>

namespace retail {

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
/// root); collider groups by grown_collider_groups, the hair chains' followed by `hair_groups`
/// (groups appended for them, vrm_added_groups: indices after the file's). Names "retail <first
/// bone>". Tails first, then hair, each in result order. Pure.
std::vector<GrownSpring> grown_springs(const VrmSprings& existing, const Model& model,
                                       const Character& character, const CharacterResult& tails,
                                       const HairResult* hair, const BakeParams& params,
                                       const std::vector<int>& hair_groups = {});

/// The body capsules a character's hair chains respect (hair_capsules.h: BodyCapsule::added) as
/// one collider set named `name`: each a capsule on its bone's node, in that node's frame at
/// bind (the proxy the bake used). Pure.
GrownColliderSet body_collider_set(const HairColliders& colliders, const std::string& name);

/// What the export stage wrote for one character (the run record keeps it).
struct VrmSpringRecord {
  std::string status;                   ///< "written", "off" (--no-vrm-springs) or "not a VRM"
  std::string target;                   ///< vrm_spring_target ("" when not a VRM)
  std::vector<GrownSpring> springs;     ///< appended for this character (may be empty)
  std::vector<GrownCollider> colliders; ///< its body capsules appended as colliders
  std::vector<int> collider_groups;     ///< the groups appended for them (file indices)
};

struct VrmSpringStage {
  std::vector<VrmSpringRecord> characters; ///< per character
  std::string summary;                     ///< one line for the log ("" when not a VRM)
  /// The file's own springs could not be read (read_vrm_springs failed): the grown chains are
  /// written without collider groups, and this says why.
  std::vector<std::string> warnings;
  /// What apply_vrm_spring_plan appends (empty target: nothing).
  VrmSpringPlan plan;
};

/// The stage after the re-rig, planned: on a VRM `doc` (vrm_spring_target non-empty) with
/// `enabled`, every grown chain of every character (tails[k], hair[k] when present) as entries
/// of the file's springs, and the body capsules its hair chains respect (hair_colliders[k],
/// body_collider_set, when present) as new colliders in a new group "retail body" (VRM 0.x: one
/// group per bone) that its hair chains, and only they, list, for apply_vrm_spring_plan to
/// append; otherwise an empty plan. The file's springs unusable: no body colliders. Reads
/// `doc`, changes nothing. Pre: `model` the re-rigged rig (rig_edit.h's planned_rig of the
/// re-rig's plans, on `doc` as read or as written; read only when there is something to export);
/// characters the input's (roles, scale).
/// Failure: as vrm_spring_plan (unreadable existing springs: a warning).
VrmSpringStage plan_vrm_spring_export(const Document& doc, const Model& model,
                                      const std::vector<Character>& characters,
                                      const std::vector<CharacterResult>& tails,
                                      const std::vector<HairResult>& hair,
                                      const std::vector<HairColliders>& hair_colliders,
                                      const BakeParams& params, bool enabled);

} // namespace retail
