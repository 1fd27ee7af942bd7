// retail — a character's skin prepared for many poses: CPU linear blend skinning in double
// (glTF 2.0 §3.7.3.3: JOINTS_0/1, weights normalised per vertex, morph targets ignored), the
// blend on 4-wide registers where the CPU has AVX2 (the same bits either way).
#pragma once

#include "retail/base/document.h"
#include "retail/base/model.h"
#include "retail/rig/mesh.h"
#include "retail/rig/skeleton.h"
#include "retail/rig/skinning.h"

#include <Eigen/Core>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

namespace retail {

/// A character's skin prepared for many poses: influences, IBMs and bind positions read once.
class SkinSampler {
public:
  /// Pre: model from parse_model(doc); character from build_characters. With `held`, the IBMs
  /// and influences it lists stand for the document's (a planned re-rig, skinning.h), the
  /// model and character those of that rig (build_characters with the same `held`).
  SkinSampler(const Document& doc, const Model& model, const Character& character,
              const HeldSkins* held = nullptr);

  /// Replaces vertex v's influences by weight 1 on `node` (the rigid reference), using that
  /// node's inverse bind matrix in the vertex's own skin. Returns false when the skin lacks it.
  bool pin(std::size_t vertex, int node);

  std::size_t size() const { return data_->bind.size(); }
  const std::vector<Eigen::Vector3d>& bind() const { return data_->bind; }
  const std::vector<SourcePrimitive>& sources() const { return sources_; }

  /// World positions of every vertex for node world matrices `world` (one per node).
  std::vector<Eigen::Vector3d> pose(const std::vector<Eigen::Matrix4d>& world) const;

  /// The same into `out` (resized to size()), computing only the vertices in `only` (all when
  /// null). Each vertex blends its joints' matrices by weight, then transforms once. On CPUs
  /// with AVX2 the blend runs on 4-wide registers; `allow_avx2` false forces the portable code.
  /// Both give the same bits (elementwise IEEE operations in the same order, no fused
  /// multiply-add), so results do not depend on the machine.
  /// `slots` (from slots_used(only)), when given, limits the joint matrices composed to those
  /// the vertices read.
  void pose_into(const std::vector<Eigen::Matrix4d>& world, const std::vector<int>* only,
                 std::vector<Eigen::Vector3d>& out, bool allow_avx2 = true,
                 const std::vector<int>* slots = nullptr) const;

  /// Per (skin, joint) slot: its node, the only world matrices pose_into reads.
  const std::vector<int>& joint_nodes() const { return joint_node_; }

  /// The joint slots (per skin, per joint) that the vertices in `only` (all when null) read
  /// through their influences or pins, ascending.
  std::vector<int> slots_used(const std::vector<int>* only) const;

  /// For each vertex of `only`, the first vertex listed there whose skinning inputs (skin-space
  /// position, pin, influences: every bit) equal its own, so it poses to the same bits; itself
  /// when none does, or when it has no influences. Linear time (a hash table).
  std::vector<int> representatives(const std::vector<int>& only) const;

  /// `only` split by representatives(): the vertices to skin (each its own representative, in
  /// the order of `only`) and the rest as (vertex, its representative), each posed by copying
  /// its representative's position (the same bits as skinning it).
  struct Distinct {
    std::vector<int> skinned;
    std::vector<std::pair<int, int>> copies;
  };
  Distinct distinct(const std::vector<int>& only) const;

  /// Vertex v's total weight on each node of `nodes` (its influences, normalised; a pinned
  /// vertex: 1 on its pin), in the order of `nodes`; zeros when it has none of them.
  std::vector<double> weights_on(std::size_t v, const std::vector<int>& nodes) const;

  /// Node index carrying each vertex's largest weight (ties: the first listed), -1 if none.
  std::vector<int> dominant_node() const;

  /// The slot every vertex of `only` is pinned to, or -1 when they are not all pinned to one
  /// (or `only` is empty).
  int common_pin(const std::vector<int>& only) const;

  /// For vertices pinned to `slot`: the 3x3 linear map K taking an edge's bind vector (world at
  /// bind) to its posed vector under `world`, A M^-1 (A: the joint's skinning matrix world *
  /// IBM, M: its skin's skin-to-world map, linear parts). False when M is not invertible.
  bool pinned_edge_map(const std::vector<Eigen::Matrix4d>& world, int slot,
                       Eigen::Matrix3d& map) const;

private:
  std::vector<SourcePrimitive> sources_;
  /// The per-vertex data, fixed once built: copies of a sampler share it (pin() changes only
  /// pinned_slot_).
  struct Vertices {
    std::vector<Eigen::Vector3d> bind;          ///< world at bind
    std::vector<Eigen::Vector3d> skin_pos;      ///< skin space
    std::vector<std::uint32_t> influence_start; ///< #V+1: vertex v's influences are
                                                ///< [start[v], start[v+1]) of the two below
    std::vector<int> influence_joint;           ///< slot (index into joint_node_/ibm_)
    std::vector<double> influence_weight;       ///< normalised weight
  };
  std::shared_ptr<const Vertices> data_;
  std::vector<int> joint_node_;               ///< per (skin, joint) slot: node index
  std::vector<Eigen::Matrix4d> ibm_;          ///< per slot
  std::vector<Eigen::Matrix3d> bind_inverse_; ///< per slot: M^-1 of its skin (NaN: none)
  std::vector<int> pinned_slot_;              ///< per vertex: slot it is pinned to, or -1
  std::vector<std::pair<int, int>>
      vertex_slots_; ///< per source: [first slot, end slot) of its skin
};

} // namespace retail
