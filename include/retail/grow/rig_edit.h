// retail — a re-rig as a value, and the one step that writes it (plan, then apply:
// docs/pipeline.md).
//
// A RigEdit lists everything a re-rig adds to or changes in a document: new nodes (the chain's
// bones), joints appended to skins with their bind transforms, and new influences per vertex
// of the primitives it touches. Building one reads the document and touches nothing
// (plan_character, rerig.h); apply_rig_edit writes it. So a plan can be judged, logged or
// dropped before anything changes, and what is written is exactly what was planned.
//
// Applying writes, in this order: the nodes (each appended to `nodes` and to its parent's
// `children`), then per skin its new joints and a new inverse-bind-matrix accessor (old
// matrices, then the new ones in that skin's space), then per primitive new JOINTS_n/WEIGHTS_n
// accessors in the primitive's own component types (normalized weights quantised to sum
// exactly to their maximum; a vertex the edit does not name keeps its stored values). Old
// accessors stay in the file untouched, so other primitives sharing them are unaffected.
#pragma once

#include "retail/base/document.h"
#include "retail/base/model.h"
#include "retail/grow/chain.h"
#include "retail/rig/mesh.h"
#include "retail/rig/skeleton.h"
#include "retail/rig/skinning.h"

#include <Eigen/Core>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace retail {

/// Influences as (node index, weight) pairs.
using NodeInfluences = std::vector<std::pair<int, double>>;

/// A node the edit adds: named, under `parent` (a node index: one the document has, or one
/// this edit adds earlier), with a pure translation in the parent's frame.
struct NewNode {
  std::string name;
  int parent = -1;
  Eigen::Vector3d translation = Eigen::Vector3d::Zero();
  Json extras; ///< written as the node's `extras` unless null
};

/// Joints appended to one skin: (node, world bind transform), after its existing joints.
struct SkinJoints {
  int skin = -1;
  Eigen::Matrix4d skin_to_world = Eigen::Matrix4d::Identity(); ///< the skin's space (M_s)
  std::vector<std::pair<int, Eigen::Matrix4d>> add;
};

/// New influences for the vertices of one primitive the edit changes.
struct PrimitiveWeights {
  SourcePrimitive source;        ///< which primitive, and its original vertex range
  std::map<int, int> skin_index; ///< node -> joint index in the primitive's skin, after edit
  int hips_node = -1;            ///< where a vertex whose influences all fall away goes
  std::map<std::size_t, NodeInfluences> vertices; ///< original vertex id -> influences
};

struct RigEdit {
  int first_node = 0; ///< the index the first new node takes (the document's node count)
  std::vector<NewNode> nodes;
  std::vector<SkinJoints> skins;
  std::vector<PrimitiveWeights> primitives;
  bool empty() const { return nodes.empty() && skins.empty() && primitives.empty(); }
};

/// Plans a chain's nodes under `anchor` (a node that is a joint of `character`): `prefix`1 ..
/// `prefix`K then `prefix`End, each a pure translation in its parent's frame (the anchor's bind
/// rotation), numbered from `first_node` + edit.nodes.size(). Appends their names to `names`
/// and (node, world bind: the anchor's rotation at the joint) to `binds`; returns the nodes.
/// Pre: chain.joints holds chain.bones + 1 points.
std::vector<int> plan_chain_nodes(const Character& character, int anchor, const Chain& chain,
                                  const std::string& prefix, int first_node, RigEdit& edit,
                                  std::vector<std::string>& names,
                                  std::vector<std::pair<int, Eigen::Matrix4d>>& binds);

/// Writes `edit` into `doc`. Pre: `model` = parse_model(doc) before any edit; doc's node count
/// is edit.first_node; every node, skin and primitive the edit names exists. Deterministic:
/// the same edit on the same document writes the same bytes. Failure: Error(InvalidInput) when
/// the document no longer matches the plan (node count), from the accessor reads otherwise.
/// `threads` workers plan a primitive's weights in blocks of vertices (0: one per core); the
/// bytes do not depend on it.
void apply_rig_edit(Document& doc, const Model& model, const RigEdit& edit, int threads = 1);

/// The rig an edit makes, held in memory: what parse_model would read from the document with
/// the edit applied, as far as the rig goes. `model` is the input model with the edit's nodes
/// (each appended to its parent's children) and every extended skin's new joints; its
/// accessors, primitives' attributes and skins' inverseBindMatrices are the input's, so the
/// IBMs of the extended skins and the influences of the re-weighted primitives are read from
/// `held` (the values the written accessors would decode to: floats, normalized integers over
/// their maximum). build_characters and SkinSampler with `held` then give what they give for
/// the written document.
struct PlannedRig {
  Model model;
  HeldSkins held;
};

/// The rig `edit` makes (see PlannedRig), without touching `doc`. Pre: as apply_rig_edit, with
/// `doc` holding the input's accessors (before the edit, or after it: apply only appends).
/// Failure: Error(InvalidInput) when model's node count is not edit.first_node; from the
/// accessor reads otherwise. `threads` as apply_rig_edit's.
PlannedRig planned_rig(const Document& doc, const Model& model, const RigEdit& edit,
                       int threads = 1);

/// One edit from two planned for the same document, `later` planned after `first` (its nodes
/// numbered from first.first_node + first.nodes.size(), its skin indices counting first's
/// joints): nodes concatenated; per skin, first's joints then later's; per primitive, later's
/// skin index (it includes first's joints) and both vertex maps, later's influences winning.
/// Both are taken by value: pass a plan with std::move when it is not needed after (its parts
/// are moved, not copied). Failure: Error(InvalidInput) when later is not numbered after first.
RigEdit merge_rig_edits(RigEdit first, RigEdit later);

/// Splits weights into integers in [0, max] that sum exactly to `max` (largest remainder;
/// ties to the lower index). Pre: weights >= 0 with a positive sum.
std::vector<std::uint32_t> quantize_weights(const std::vector<double>& weights, std::uint32_t max);

} // namespace retail
