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

#include "retail/base/document.h"
#include "retail/base/model.h"
#include "retail/qa/skin_sampler.h"
#include "retail/rig/mesh.h"
#include "retail/rig/skeleton.h"

#include <Eigen/Core>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace retail {

/// The most --samples a clip may be measured at, and what one measurement may keep per clip:
/// edge ratios (samples x a region's edges) and sampled world matrices (samples x the posed
/// nodes). Beyond any: Error(Usage) naming --samples (docs/robustness.md).
constexpr int kMaxStretchSamples = 10000;
constexpr std::size_t kMaxEdgeSamples = std::size_t(1) << 24;
constexpr std::size_t kMaxNodeSamples = std::size_t(1) << 21;

/// Failure: Error(Usage) naming --samples when `samples` over `edges` edges or `nodes` posed
/// nodes is past kMaxEdgeSamples or kMaxNodeSamples.
void check_stretch_work(std::size_t edges, std::size_t nodes, int samples);

struct StretchParams {
  int samples = 24; ///< --samples, 2..kMaxStretchSamples
  double torn_above = 1.5;
  double torn_below = 0.67;
  /// The body baseline is measured on at most this many body edges (all of them when there are
  /// fewer; 0: all): every k-th run of max_body_edges / 1024 consecutive edges of the edge list
  /// (at least 1; deterministic). Runs keep neighbouring vertices together, so a sampled body
  /// skins fewer vertices per measured edge. The tail is always measured whole.
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
  /// With StretchRig::tail_mask: per edge-sample of the tail region, 1 when torn, sample-major
  /// (sample s of edge k at s × tail.edges + k; edges in edge-list order, degenerate ones left
  /// out); empty otherwise. Rigs over the same edges and tail lay it out alike.
  std::vector<std::uint8_t> tail_torn;
};

/// Unique triangle edges of the sampler's primitives, as original vertex id pairs (a < b).
std::vector<std::pair<int, int>> mesh_edges(const Document& doc, const Model& model,
                                            const SkinSampler& skin);

/// A character's skin as every stretch of its rig reads it: its sampler (without held skins)
/// and its mesh edges. Built once and shared by the measurements of one rig (the tear probe and
/// the clip pass read the input's). Failure: what SkinSampler and mesh_edges throw.
struct SkinEdges {
  SkinEdges(const Document& doc, const Model& model, const Character& character);
  SkinSampler skin;
  std::vector<std::pair<int, int>> edges; ///< mesh_edges(doc, model, skin)
};

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
  bool tail_mask = false;            ///< also keep the tail's torn mask (ClipStretch::tail_torn)
  bool figures = true; ///< false: the torn mask only (the regions' figures left at their defaults)
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

  /// The tail region's edges rig `rig` measures, in the order of its ClipStretch::tail_torn
  /// (degenerate edges left out). Pre: rig < the number of rigs given.
  const std::vector<std::pair<int, int>>& tail_edges(std::size_t rig) const;

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

} // namespace retail
