// retail — edge stretch under clips (SPEC §9): the numbers QA and CI decide on.
//
// For every mesh edge (a triangle side, per primitive, between two original vertices) whose two
// ends are both in a region, ratio = skinned length / bind length at `samples` evenly spaced
// times t_i = duration * i / (samples - 1) through the clip (both ends included). Bind lengths
// are measured in world space at bind (skin space mapped by M_s). Skinning on the CPU in
// double: JOINTS_0/1, every node's TRS or matrix, STEP/LINEAR/CUBICSPLINE; morph targets are
// ignored. Percentiles interpolate linearly between closest ranks (numpy's default).
// Computed on squared ratios (skinned length^2 times 1 / bind length^2; extremes, percentiles
// and the torn test commute with the monotonic square root, which is drawn only on the values
// reported), so a ratio may differ from length / length in its last bit. A rig whose measured
// vertices are all pinned to one joint (the rigid reference) is measured from that joint's
// matrix when it moves the skin by a rotation and a uniform scale to 1e-6 at every sample: every
// edge then has the same ratio, exact to 5e-7 (stretch.cpp's uniform_clip), and the worst edge
// is the region's first.
#pragma once

#include "retail/document.h"
#include "retail/mesh.h"
#include "retail/model.h"
#include "retail/skeleton.h"

#include <Eigen/Core>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace retail {

struct StretchParams {
  int samples = 24;
  double torn_above = 1.5;
  double torn_below = 0.67;
  /// The body baseline is measured on at most this many body edges (all of them when there are
  /// fewer; 0: all): every k-th run of max_body_edges / 1024 consecutive edges of the edge list
  /// (at least 1; deterministic). Runs keep neighbouring vertices together, so a sampled body
  /// skins about a third of the vertices single edges would. The tail is always measured whole.
  std::size_t max_body_edges = std::size_t(1) << 18;
  void validate() const; ///< Failure: Error(Usage)
};

struct WorstEdge {
  int a = -1, b = -1;    ///< original vertex ids (concatenated over the character's primitives)
  std::string primitive; ///< "meshes[m].primitives[p]"
  int local_a = -1, local_b = -1; ///< vertex ids within that primitive
  double ratio = 1; ///< its largest ratio (or smallest, when that is the farther from 1)
};

struct RegionStretch {
  std::size_t edges = 0, samples = 0;
  double p95 = 1, p99 = 1, max = 1, min = 1, torn_percent = 0;
  double edge_max_p99_percent = 0; ///< (Q0.99 over edges of max_t ratio) - 1, as a percentage
  WorstEdge worst;
};

struct ClipStretch {
  int clip = -1;
  std::string name;
  double duration = 0;
  RegionStretch tail, body;
};

/// A character's skin prepared for many poses: influences, IBMs and bind positions read once.
class SkinSampler {
public:
  /// Pre: model from parse_model(doc); character from build_characters.
  SkinSampler(const Document& doc, const Model& model, const Character& character);

  /// Replaces vertex v's influences by weight 1 on `node` (the rigid reference), using that
  /// node's inverse bind matrix in the vertex's own skin. Returns false when the skin lacks it.
  bool pin(std::size_t vertex, int node);

  std::size_t size() const { return bind_.size(); }
  const std::vector<Eigen::Vector3d>& bind() const { return bind_; }
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
  /// Per (skin, joint) slot: its node, the only world matrices pose_into reads.
  const std::vector<int>& joint_nodes() const { return joint_node_; }

  void pose_into(const std::vector<Eigen::Matrix4d>& world, const std::vector<int>* only,
                 std::vector<Eigen::Vector3d>& out, bool allow_avx2 = true,
                 const std::vector<int>* slots = nullptr) const;

  /// The joint slots (per skin, per joint) that the vertices in `only` (all when null) read
  /// through their influences or pins, ascending.
  std::vector<int> slots_used(const std::vector<int>* only) const;

  /// For each vertex of `only`, the first vertex listed there whose skinning inputs (skin-space
  /// position, pin, influences: every bit) equal its own, so it poses to the same bits; itself
  /// when none does, or when it has no influences. Linear time (a hash table).
  std::vector<int> representatives(const std::vector<int>& only) const;

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
  std::vector<Eigen::Vector3d> bind_;          ///< world at bind
  std::vector<Eigen::Vector3d> skin_pos_;      ///< skin space
  std::vector<std::uint32_t> influence_start_; ///< #V+1: vertex v's influences are
                                               ///< [start[v], start[v+1]) of the two below
  std::vector<int> influence_joint_;           ///< slot (index into joint_node_/ibm_)
  std::vector<double> influence_weight_;       ///< normalised weight
  std::vector<int> joint_node_;                ///< per (skin, joint) slot: node index
  std::vector<Eigen::Matrix4d> ibm_;           ///< per slot
  std::vector<Eigen::Matrix3d> bind_inverse_;  ///< per slot: M^-1 of its skin (NaN: none)
  std::vector<int> pinned_slot_;               ///< per vertex: slot it is pinned to, or -1
  std::vector<std::pair<int, int>>
      vertex_slots_; ///< per source: [first slot, end slot) of its skin
};

/// Unique triangle edges of the sampler's primitives, as original vertex id pairs (a < b).
std::vector<std::pair<int, int>> mesh_edges(const Document& doc, const Model& model,
                                            const SkinSampler& skin);

/// Stretch of `edges` in `tail` vs the rest ("body") for each clip in `clips`; `body` false
/// measures the tail only (the body's numbers are then empty).
std::vector<ClipStretch>
measure_stretch(const Document& doc, const Model& model, const SkinSampler& skin,
                const std::vector<std::pair<int, int>>& edges, const std::vector<bool>& tail,
                const std::vector<int>& clips, const StretchParams& params, bool body = true);

/// One rig to measure: a skin posed by one model's clips.
struct StretchRig {
  const Model* model = nullptr;      ///< whose nodes and clips pose it
  const SkinSampler* skin = nullptr; ///< its influences
  bool body = true;                  ///< also measure the body (false: the tail only)
};

/// A worker's memory for StretchMeter::measure, reused from clip to clip (every field is
/// overwritten before it is read: it never carries a result from one clip to the next).
struct StretchScratch {
  struct Region {
    std::vector<double> ratios, edge_max, edge_min;
  } region[2]; ///< 0 tail, 1 body
  std::vector<Eigen::Vector3d> positions;
};

class ClipSampler;
namespace detail {
struct StretchPlan; ///< what one rig measures (stretch.cpp)
}

/// Rigs posed by one model, over the same edges and tail, prepared once (which edges each rig
/// measures, which vertices it skins) and then measured clip by clip, on any thread: measure()
/// reads only the meter, the sampler and the scratch it is given.
class StretchMeter {
public:
  /// Pre: every rig has the same model (which outlives the meter), each skin the character's
  /// (outliving the meter too), `tail` and the edges' vertex ids index the skins' vertices.
  /// Failure: Error(Usage) for bad params; std::invalid_argument for rigs of different models.
  StretchMeter(const std::vector<StretchRig>& rigs, const std::vector<std::pair<int, int>>& edges,
               const std::vector<bool>& tail, const StretchParams& params);
  ~StretchMeter();
  StretchMeter(StretchMeter&&) noexcept;
  StretchMeter& operator=(StretchMeter&&) noexcept;

  /// Every rig's stretch (in the order given) under the clip `sampler` samples, which is clip
  /// `clip` of the rigs' model (named from it): the poses at params.samples times are sampled
  /// once and shared by the rigs. The same numbers on every thread and in any order.
  std::vector<ClipStretch> measure(const ClipSampler& sampler, int clip,
                                   StretchScratch& scratch) const;

private:
  const Model* model_ = nullptr;
  std::vector<const SkinSampler*> skins_;
  std::vector<detail::StretchPlan> plans_;
  StretchParams params_;
  /// The nodes whose world matrices the skins read, with their ancestors, parents first:
  /// the only ones sampled (memory follows the skeleton, not the file's node count).
  std::vector<int> posed_nodes_;
};

/// StretchMeter over every clip: result[r][c] for rig r and clips[c]. Rigs posed by the same
/// model share its sampled poses. Clips run on up to `threads` worker threads (parallel.h; 0:
/// one per core); the results do not depend on it.
std::vector<std::vector<ClipStretch>>
measure_stretch_rigs(const Document& doc, const std::vector<StretchRig>& rigs,
                     const std::vector<std::pair<int, int>>& edges, const std::vector<bool>& tail,
                     const std::vector<int>& clips, const StretchParams& params, int threads);

/// Percentiles qs (each in [0,1]) of `values`, linear between closest ranks, exactly as
/// percentile() gives them, in linear time without reordering: selection on a copy for small
/// inputs, a histogram pass and a selection inside the bins that hold the wanted ranks for large
/// ones. 1 for each q when `values` is empty. `lo`, `hi`: the values' minimum and maximum when
/// the caller knows them (saves a pass; NaN: found here).
std::vector<double> percentiles(const std::vector<double>& values, const std::vector<double>& qs,
                                double lo = NAN, double hi = NAN);

/// percentiles() of the square roots of `squares` (each >= 0), exactly: the square root is
/// monotonic, so the ranks are found on the squares and only the values around each q are
/// rooted. `lo`, `hi`: the squares' minimum and maximum when known.
std::vector<double> percentiles_of_sqrt(const std::vector<double>& squares,
                                        const std::vector<double>& qs, double lo = NAN,
                                        double hi = NAN);

/// The least double s with sqrt(s) > x (0 for x <= 0; NaN, which no r2 reaches, for x = inf):
/// the square root is monotonic, so for every double r2 >= 0, sqrt(r2) > x exactly when
/// r2 >= s. How the torn test (ratio above torn_above, below torn_below) is taken on squared
/// ratios without rooting each one.
double sqrt_above(double x);

/// Percentile q in [0,1] of `values` (sorted in place), linear between closest ranks.
double percentile(std::vector<double>& values, double q);

/// The same on values already sorted ascending.
double percentile_sorted(const std::vector<double>& sorted, double q);

/// The same by selection (linear time; reorders `values`).
double percentile_select(std::vector<double>& values, double q);

} // namespace retail
