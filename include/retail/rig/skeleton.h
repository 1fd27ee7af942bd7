// retail — the bind skeleton of a character (SPEC §1).
//
// A character is the set of skins that share joints (the test humanoid: four meshes, four skins,
// one skeleton). Its bind pose comes from the inverse bind matrices only: the bind transform of
// joint i in skin space is B_i^-1, never the nodes' saved TRS (a saved file can hold an animated
// frame). Skin space maps to world (Y up, the space of H, gravity and the floor) through
//   M_s = world(root joint, saved) * IBM_s(root joint)
// i.e. the root's non-joint ancestors (an FBX2glTF armature node with scale 100 and -90 deg X)
// times the root joint's local times its IBM. M_s is cross-checked against the world transform
// of the mesh nodes that use the skin; Character::mapping says which agreed.
#pragma once

#include "retail/base/document.h"
#include "retail/base/model.h"
#include "retail/rig/skinning.h"

#include <Eigen/Core>
#include <set>
#include <string>
#include <vector>

namespace retail {

/// One primitive drawn with a skin of the character.
struct SkinnedPrimitive {
  int node = -1; ///< the mesh node
  int mesh = -1;
  int primitive = -1;
  int skin = -1;
  std::size_t vertex_count = 0;
};

/// Resolved bone roles, as node indices (-1: not found). Legs/arms: [0] left, [1] right.
struct Roles {
  int hips = -1;
  std::vector<int> pelvis; ///< hips, and hips-named joints next to it (docs/pipeline.md, "Roles")
  std::vector<int> spine;  ///< from hips upwards, excluding hips, neck and head
  int chest = -1, neck = -1, head = -1;
  int upper_leg[2] = {-1, -1}, lower_leg[2] = {-1, -1}, foot[2] = {-1, -1};
  int shoulder[2] = {-1, -1}, upper_arm[2] = {-1, -1}, lower_arm[2] = {-1, -1}, hand[2] = {-1, -1};
  std::string source; ///< "VRM 0.x humanoid", "VRMC_vrm humanoid", "names", "topology", or a mix
  std::vector<std::string> notes;   ///< how ambiguities were settled
  std::vector<std::string> missing; ///< required roles not found
};

struct Character {
  std::vector<int> skins;  ///< skin indices, ascending
  std::vector<int> joints; ///< node indices: first skin's order, then new joints of later skins
  std::vector<int> parent; ///< per joint: index into `joints` of the nearest joint ancestor, or -1
  std::vector<Eigen::Matrix4d>
      bind_world; ///< per joint: bind transform in world space (M_s * B^-1)
  std::vector<Eigen::Matrix4d> skin_to_world; ///< per entry of `skins`: M_s
  std::vector<std::string> mapping; ///< per entry of `skins`: how M_s was chosen / checked
  std::vector<SkinnedPrimitive> primitives;
  double min_y = 0, max_y = 0;
  double height = 0; ///< H: Y extent of all skinned vertices at bind, world units
  /// Largest extent over X, Y and Z of the skinned vertices at bind (H when there are none).
  double extent = 0;
  double scale =
      1; ///< H / reference height when units are auto, else 1 (SPEC: metres scale by H/1.8)
  double skin_units = 1; ///< world units per skin-space unit (0.01 for a centimetre armature)
  std::string skin_up;   ///< skin-space axis that maps to world +Y ("+Y", "+Z", ...)
  Roles roles;
  std::vector<std::string> warnings;

  /// Index of node `node` in `joints`, or -1.
  int joint_index(int node) const;
  /// World-space bind position of joint index `j`.
  Eigen::Vector3d bind_position(int j) const {
    return bind_world[std::size_t(j)].topRightCorner<3, 1>();
  }
};

struct BindParams {
  double reference_height_m = 1.8; ///< H of a "normal" model; metre thresholds scale by H / this
  bool units_auto = true;          ///< SPEC: scale metre-given thresholds by H / 1.8
  /// Failure: Error(Usage) for a non-positive reference height.
  void validate() const;
};

/// Builds every character of the document (skins grouped by shared joints) with its bind pose,
/// skin-to-world mapping, H and roles. A group none of whose skins a mesh node is drawn with is
/// not a character (nothing to re-rig; `retail info` still lists the skin); an unused skin that
/// shares joints with a used one joins its group.
/// Pre: `model` from parse_model(doc), or such a model with a planned re-rig's nodes and joints
/// added (rig_edit.h's planned_rig) and `held` holding the IBMs of the skins it extends (those
/// of other skins are read from the document).
/// Failure: Error(Unsupported) when a used skin has no inverseBindMatrices, or H is zero.
std::vector<Character> build_characters(const Document& doc, const Model& model,
                                        const BindParams& params, const HeldSkins* held = nullptr);

/// Resolves bone roles of a character (roles.cpp): VRM metadata first, then names, then topology.
/// Topology reads the skin (`held` where it holds a primitive's influences, else the document)
/// to see how low each leg chain reaches.
/// Never throws for missing roles: they are listed in Roles::missing (see require_roles).
Roles resolve_roles(const Document& doc, const Model& model, const Character& character,
                    const HeldSkins* held = nullptr);

/// The trunk's joints: the hips, pelvis, spine and chest nodes (those found).
std::set<int> trunk_joints(const Roles& roles);

/// The spine joint next to the hips (the first spine role) as a character joint index, or -1
/// when there is none. It counts as the hips wherever a tail's root meets the body: a thick
/// root can lie nearer it than the hips joint (detection's attachment, the root band's hip skin).
int low_spine_joint(const Character& character);

/// The trunk joint a torso capsule rides: the chest, else the top spine joint, else the hips
/// (-1 when none was found).
int trunk_carrier(const Roles& roles);

/// Throws Error(Unsupported) naming the missing roles and listing what was found.
void require_roles(const Model& model, const Character& character);

/// The re-rig's grids and distances are in fractions of H: a character whose skinned vertices
/// span more than kMaxExtentH x H (a stray vertex 1e40 away) cannot be measured.
constexpr double kMaxExtentH = 1e4;
/// Throws Error(Unsupported) naming the character's first skin when extent > kMaxExtentH x H.
void require_measurable(const Character& character);

} // namespace retail
