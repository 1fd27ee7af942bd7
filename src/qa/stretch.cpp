// Edge stretch: mesh edges, per-clip statistics of the skinned edges (stretch.h).
#include "retail/qa/stretch.h"

#include "qa/simd.h"

#include "retail/base/error.h"
#include "retail/base/parallel.h"
#include "retail/detect/weld.h"
#include "retail/io/accessor.h"
#include "retail/qa/order_stats.h"
#include "retail/rig/animation.h"
#include "retail/rig/skinning.h"

#include <Eigen/LU>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <stdexcept>

namespace retail {

void StretchParams::validate() const {
  if (samples < 2 || samples > kMaxStretchSamples)
    throw Error(ExitCode::Usage, "--samples must be 2.." + std::to_string(kMaxStretchSamples) +
                                     " (got " + std::to_string(samples) + ")");
  if (!(torn_above > 1) || !(torn_below > 0 && torn_below < 1) || !std::isfinite(torn_above))
    throw Error(ExitCode::Usage, "stretch: the torn thresholds must be above 1 and within (0, 1)");
}

void check_stretch_work(std::size_t edges, std::size_t nodes, int samples) {
  const std::size_t s = std::size_t(std::max(samples, 0));
  const bool edges_ok = edges == 0 || s <= kMaxEdgeSamples / edges;
  const bool nodes_ok = nodes == 0 || s <= kMaxNodeSamples / nodes;
  if (edges_ok && nodes_ok) return;
  throw Error(
      ExitCode::Usage,
      "--samples " + std::to_string(samples) + ": measuring " +
          (edges_ok ? std::to_string(nodes) + " posed nodes" : std::to_string(edges) + " edges") +
          " at that many samples per clip keeps " + std::to_string(s * (edges_ok ? nodes : edges)) +
          " values, beyond the limit of " +
          std::to_string(edges_ok ? kMaxNodeSamples : kMaxEdgeSamples) +
          " (docs/robustness.md); lower --samples");
}

namespace {

using simd::Double4;
using simd::Long4;
#ifdef RETAIL_AVX2_KERNELS
using simd::cpu_has_avx2;
#endif

/// One sample of one region: the edges' squared ratios into `out`, each edge's extremes, and
/// the region's torn count and extremes (RegionTally) over them. See sample_region.
struct RegionSample {
  const Eigen::Vector3d* p;        ///< skinned positions
  const std::pair<int, int>* ends; ///< n edges
  const double* inv_rest_sq;       ///< n
  std::size_t n;
  double* out;                         ///< n squared ratios
  double *edge_max, *edge_min;         ///< n each, updated
  double torn_above_sq, torn_below_sq; ///< torn: r2 >= above or r2 < below (sqrt_above)
  std::uint8_t* torn = nullptr;        ///< n: 1 where torn, 0 where not (null: not kept)
};

struct RegionTally {
  std::size_t torn = 0;
  double min = INFINITY, max = -INFINITY;
};

/// The kernel, four edges at a time on Double4 (min, max and compares are exact, so every
/// build gives the same bits); inlined into each build below.
inline __attribute__((always_inline)) void sample_body(const RegionSample& in, RegionTally& t) {
  auto squared = [&](std::size_t i) {
    const Eigen::Vector3d &a = in.p[in.ends[i].first], &b = in.p[in.ends[i].second];
    const double dx = a[0] - b[0], dy = a[1] - b[1], dz = a[2] - b[2];
    return dx * dx + dy * dy + dz * dz;
  };
  auto load = [](Double4& v, const double* x) { __builtin_memcpy(&v, x, sizeof v); };
  auto store = [](double* x, const Double4& v) { __builtin_memcpy(x, &v, sizeof v); };
  const Double4 above = {in.torn_above_sq, in.torn_above_sq, in.torn_above_sq, in.torn_above_sq},
                below = {in.torn_below_sq, in.torn_below_sq, in.torn_below_sq, in.torn_below_sq};
  Double4 lo = {t.min, t.min, t.min, t.min}, hi = {t.max, t.max, t.max, t.max};
  Long4 torn = {0, 0, 0, 0};
  // A pose beyond double range (nodes scaled past 1e308 between them) makes inf - inf: such a
  // ratio counts as infinitely stretched, so no NaN reaches the extremes or the selection.
  const Double4 inf = {INFINITY, INFINITY, INFINITY, INFINITY};
  std::size_t i = 0;
  for (; i + 4 <= in.n; i += 4) {
    Double4 r = {squared(i), squared(i + 1), squared(i + 2), squared(i + 3)}, inv, m, l;
    load(inv, in.inv_rest_sq + i);
    load(m, in.edge_max + i);
    load(l, in.edge_min + i);
    r *= inv;
    r = r == r ? r : inf;
    m = r > m ? r : m;
    l = r < l ? r : l;
    store(in.out + i, r);
    store(in.edge_max + i, m);
    store(in.edge_min + i, l);
    const Long4 cut = (r >= above) | (r < below);
    torn -= cut; // a true compare is -1
    if (in.torn)
      for (int k = 0; k < 4; ++k) in.torn[i + std::size_t(k)] = std::uint8_t(cut[k] != 0);
    lo = r < lo ? r : lo;
    hi = r > hi ? r : hi;
  }
  for (int k = 0; k < 4; ++k) {
    t.torn += std::size_t(torn[k]);
    t.min = std::min(t.min, lo[k]);
    t.max = std::max(t.max, hi[k]);
  }
  for (; i < in.n; ++i) {
    double r = squared(i) * in.inv_rest_sq[i];
    if (!(r == r)) r = INFINITY;
    in.out[i] = r;
    in.edge_max[i] = std::max(in.edge_max[i], r);
    in.edge_min[i] = std::min(in.edge_min[i], r);
    const bool cut = r >= in.torn_above_sq || r < in.torn_below_sq;
    t.torn += cut;
    if (in.torn) in.torn[i] = std::uint8_t(cut);
    t.min = std::min(t.min, r);
    t.max = std::max(t.max, r);
  }
}

void sample_default(const RegionSample& in, RegionTally& t) {
  sample_body(in, t);
}

#ifdef RETAIL_AVX2_KERNELS
__attribute__((target("avx2"))) void sample_avx2(const RegionSample& in, RegionTally& t) {
  sample_body(in, t);
}
#endif

/// sample_body on AVX2 where the CPU has it (the same bits either way).
void sample_region(const RegionSample& in, RegionTally& t) {
#ifdef RETAIL_AVX2_KERNELS
  if (cpu_has_avx2()) return sample_avx2(in, t);
#endif
  sample_default(in, t);
}

} // namespace

std::vector<std::pair<int, int>> mesh_edges(const Document& doc, const Model& model,
                                            const SkinSampler& skin) {
  std::vector<std::pair<int, int>> edges;
  for (const auto& src : skin.sources()) {
    const Primitive& p =
        model.meshes[std::size_t(src.where.mesh)].primitives[std::size_t(src.where.primitive)];
    std::vector<std::uint32_t> idx;
    if (p.indices >= 0)
      idx = read_accessor_uint(doc, model, p.indices);
    else
      for (std::size_t i = 0; i < src.count; ++i) idx.push_back(std::uint32_t(i));
    edges.reserve(edges.size() + (p.mode == 4 ? idx.size() : 3 * idx.size()));
    auto add = [&](std::uint32_t a, std::uint32_t b) {
      if (a == b) return;
      int x = int(src.first + a), y = int(src.first + b);
      edges.push_back({std::min(x, y), std::max(x, y)});
    };
    auto tri = [&](std::uint32_t a, std::uint32_t b, std::uint32_t c) {
      add(a, b), add(b, c), add(c, a);
    };
    if (p.mode == 4)
      for (std::size_t i = 0; i + 2 < idx.size(); i += 3) tri(idx[i], idx[i + 1], idx[i + 2]);
    else if (p.mode == 5)
      for (std::size_t i = 0; i + 2 < idx.size(); ++i) tri(idx[i], idx[i + 1], idx[i + 2]);
    else if (p.mode == 6)
      for (std::size_t i = 1; i + 1 < idx.size(); ++i) tri(idx[0], idx[i], idx[i + 1]);
  }
  sort_unique_edges(edges, skin.size());
  return edges;
}

SkinEdges::SkinEdges(const Document& doc, const Model& model, const Character& character)
    : skin(doc, model, character), edges(mesh_edges(doc, model, skin)) {}

namespace {

/// One region's samples over a clip, all as *squared* ratios (skinned length^2 times 1 / bind
/// length^2: one multiplication, no square root or division per sample; the square root is
/// monotonic, so extremes, percentiles and the torn test are taken on squares and the roots drawn
/// at the end): every sample (sample-major) and each edge's extremes, in the worker's scratch.
struct Accumulator {
  StretchScratch::Region* buf = nullptr;
  std::size_t torn = 0;                   ///< ratios outside [torn_below, torn_above]
  double min = INFINITY, max = -INFINITY; ///< over every squared ratio
};

/// Names the primitive holding a worst edge and its vertex ids there.
void name_primitive(const SkinSampler& skin, WorstEdge& w) {
  for (const auto& src : skin.sources())
    if (std::size_t(w.a) >= src.first && std::size_t(w.a) < src.first + src.count) {
      w.primitive = "meshes[" + std::to_string(src.where.mesh) + "].primitives[" +
                    std::to_string(src.where.primitive) + "]";
      w.local_a = int(std::size_t(w.a) - src.first);
      w.local_b = int(std::size_t(w.b) - src.first);
    }
}

/// The region's figures from its samples; `ends`: its edges' vertex ids.
RegionStretch finish(const Accumulator& acc, const std::vector<std::pair<int, int>>& ends,
                     const SkinSampler& skin) {
  RegionStretch r;
  const StretchScratch::Region& b = *acc.buf;
  r.edges = ends.size();
  r.samples = b.ratios.size();
  if (b.ratios.empty()) return r;
  r.min = std::sqrt(acc.min);
  r.max = std::sqrt(acc.max);
  r.torn_percent = 100.0 * double(acc.torn) / double(b.ratios.size());
  std::vector<double> p = percentiles_of_sqrt(b.ratios, {0.95, 0.99}, acc.min, acc.max);
  r.p95 = p[0];
  r.p99 = p[1];
  r.edge_max_p99_percent = 100.0 * (percentiles_of_sqrt(b.edge_max, {0.99})[0] - 1.0);
  // The worst edge: the largest departure from 1 (stretch as ratio, squash as 1/ratio).
  double worst = -1;
  for (std::size_t k = 0; k < ends.size(); ++k) {
    double most = std::sqrt(b.edge_max[k]), least = std::sqrt(b.edge_min[k]);
    double up = most, down = least > 0 ? 1.0 / least : INFINITY;
    double score = std::max(up, down);
    if (score > worst) {
      worst = score;
      r.worst.a = ends[k].first;
      r.worst.b = ends[k].second;
      r.worst.ratio = up >= down ? up : least;
    }
  }
  name_primitive(skin, r.worst);
  return r;
}

} // namespace

/// What one rig measures, fixed over its clips: per region (0 tail, 1 body) its edges' two
/// vertices and the reciprocals of their squared bind lengths side by side, and the vertices
/// those edges touch (the only ones skinned). An edge is degenerate (measured in neither region)
/// when 1 / bind length^2 is not a finite double: zero length, or one too short to invert.
struct detail::StretchPlan {
  struct Region {
    std::vector<std::pair<int, int>> ends; ///< its edges' vertices, in edge-list order
    std::vector<double> inv_rest_sq;       ///< 1 / (their bind length)^2
  } region[2];
  std::vector<int> skinned;                ///< the vertices touched, without repeats
  std::vector<std::pair<int, int>> copies; ///< (vertex, its representative): posed by copying
  std::vector<int> slots; ///< the joint slots `skinned` reads (SkinSampler::slots_used)
  int uniform_slot = -1;  ///< the slot every measured vertex is pinned to, if one (uniform_clip)
  bool tail_mask = false; ///< keep the tail's torn mask (StretchRig::tail_mask)
  bool figures = true;    ///< compute the regions' figures (StretchRig::figures)
};

namespace {

detail::StretchPlan plan_rig(const SkinSampler& skin, const std::vector<std::pair<int, int>>& edges,
                             const std::vector<bool>& tail, bool body,
                             const StretchParams& params) {
  detail::StretchPlan plan;
  const auto& bind = skin.bind();
  std::vector<double> inv_rest_sq(edges.size());
  std::vector<int> region(edges.size(), -1); // 0 tail, 1 body, -1 mixed or degenerate
  for (std::size_t k = 0; k < edges.size(); ++k) {
    inv_rest_sq[k] =
        1.0 /
        (bind[std::size_t(edges[k].first)] - bind[std::size_t(edges[k].second)]).squaredNorm();
    bool ta = tail[std::size_t(edges[k].first)], tb = tail[std::size_t(edges[k].second)];
    if (std::isfinite(inv_rest_sq[k]) && ta == tb && (ta || body)) region[k] = ta ? 0 : 1;
  }
  std::size_t body_edges = std::size_t(std::count(region.begin(), region.end(), 1));
  if (params.max_body_edges > 0 && body_edges > params.max_body_edges) {
    // Every stride-th run of `run` consecutive body edges: neighbouring edges share vertices,
    // so runs skin far fewer vertices per edge than single edges spread over the mesh.
    const std::size_t run = std::max<std::size_t>(1, params.max_body_edges / 1024);
    const std::size_t runs = (body_edges + run - 1) / run, kept_runs = params.max_body_edges / run;
    const std::size_t stride = (runs + kept_runs - 1) / kept_runs;
    std::size_t seen = 0;
    for (int& r : region)
      if (r == 1 && (seen++ / run) % stride != 0) r = -1;
  }
  std::vector<char> mark(bind.size(), 0);
  for (std::size_t k = 0; k < edges.size(); ++k) {
    if (region[k] < 0) continue;
    detail::StretchPlan::Region& r = plan.region[region[k]];
    r.ends.push_back(edges[k]);
    r.inv_rest_sq.push_back(inv_rest_sq[k]);
    mark[std::size_t(edges[k].first)] = mark[std::size_t(edges[k].second)] = 1;
  }
  std::vector<int> needed;
  for (std::size_t v = 0; v < mark.size(); ++v)
    if (mark[v]) needed.push_back(int(v));
  // Vertices split at seams and flat-shaded corners repeat the same skinning inputs: each
  // distinct one is skinned once and copied to the others (the same bits either way).
  SkinSampler::Distinct distinct = skin.distinct(needed);
  plan.skinned = std::move(distinct.skinned);
  plan.copies = std::move(distinct.copies);
  plan.slots = skin.slots_used(&plan.skinned);
  plan.uniform_slot = skin.common_pin(needed);
  return plan;
}

/// When every vertex a rig measures is pinned to one joint (the rigid reference), each edge
/// moves by the joint's edge map K (SkinSampler::pinned_edge_map) and its squared ratio is the
/// Rayleigh quotient b^T K^T K b / b^T b, which lies within e = |K^T K - c I|_F of c =
/// trace(K^T K) / 3 for every bind vector b. Where that spread is below kUniformSpread c at
/// every sample (a rotation and a uniform scale: float inverse bind matrices give e ~ 2e-7 c),
/// and no sample's c is within e of a torn threshold, the clip's figures are those of every edge
/// at c_s - exact to e / 2 in the ratio, so to 5e-7 at most - and no vertex is skinned. The worst
/// edge is then the first (every edge ties).
constexpr double kUniformSpread = 1e-6;

/// One region's figures when every edge has squared ratio c[s] at sample s.
RegionStretch uniform_region(const std::vector<std::pair<int, int>>& ends,
                             const std::vector<double>& c, double torn_above_sq,
                             double torn_below_sq, const SkinSampler& skin) {
  RegionStretch r;
  const std::size_t n = ends.size(), total = n * c.size();
  r.edges = n;
  r.samples = total;
  if (total == 0) return r;
  std::vector<double> sorted = c;
  std::sort(sorted.begin(), sorted.end());
  r.min = std::sqrt(sorted.front());
  r.max = std::sqrt(sorted.back());
  std::size_t torn = 0;
  for (double x : c) torn += (x >= torn_above_sq || x < torn_below_sq) ? n : 0;
  r.torn_percent = 100.0 * double(torn) / double(total);
  // As percentiles_of_sqrt over the n copies of each c[s]: rank k holds sorted[k / n].
  auto at = [&](std::size_t k) { return std::sqrt(sorted[k / n]); };
  r.p95 = between_ranks(total, 0.95, at);
  r.p99 = between_ranks(total, 0.99, at);
  r.edge_max_p99_percent = 100.0 * (r.max - 1.0); // every edge's maximum is the same
  const double up = r.max, down = r.min > 0 ? 1.0 / r.min : INFINITY;
  r.worst.a = ends[0].first;
  r.worst.b = ends[0].second;
  r.worst.ratio = up >= down ? up : r.min;
  name_primitive(skin, r.worst);
  return r;
}

/// The world matrices of the posed nodes (StretchMeter::posed_nodes_) at every sample, kept
/// compact; worlds[s] lays sample s out by node index in one buffer reused from sample to
/// sample (entries of other nodes are never read), so one node-indexed list exists at a time.
class SampledWorlds {
public:
  SampledWorlds(const Model& model, const ClipSampler& sampler, const std::vector<int>& nodes,
                int samples)
      : nodes_(nodes), per_sample_(std::size_t(samples)) {
    std::vector<int> slot_of(model.nodes.size(), -1);
    for (std::size_t k = 0; k < nodes.size(); ++k) slot_of[std::size_t(nodes[k])] = int(k);
    for (int s = 0; s < samples; ++s) {
      const double t = sampler.duration() * s / (samples - 1);
      std::vector<Eigen::Matrix4d>& w = per_sample_[std::size_t(s)];
      w.resize(nodes.size());
      for (std::size_t k = 0; k < nodes.size(); ++k) { // parents first: compose_world's products
        const int p = model.nodes[std::size_t(nodes[k])].parent;
        const Eigen::Matrix4d local = sampler.local(model, nodes[k], t);
        w[k] = p >= 0 ? Eigen::Matrix4d(w[std::size_t(slot_of[std::size_t(p)])] * local) : local;
      }
    }
    layout_.resize(model.nodes.size());
  }
  std::size_t size() const { return per_sample_.size(); }
  const std::vector<Eigen::Matrix4d>& operator[](std::size_t s) const {
    for (std::size_t k = 0; k < nodes_.size(); ++k)
      layout_[std::size_t(nodes_[k])] = per_sample_[s][k];
    return layout_;
  }

private:
  const std::vector<int>& nodes_;
  std::vector<std::vector<Eigen::Matrix4d>> per_sample_;
  mutable std::vector<Eigen::Matrix4d> layout_;
};

/// The clip's figures without skinning when the rig is uniform over it (see kUniformSpread);
/// false (measure edge by edge) otherwise.
bool uniform_clip(const SkinSampler& skin, const detail::StretchPlan& plan,
                  const SampledWorlds& worlds, double torn_above_sq, double torn_below_sq,
                  ClipStretch& cs) {
  if (plan.uniform_slot < 0) return false;
  std::vector<double> c(worlds.size());
  for (std::size_t s = 0; s < worlds.size(); ++s) {
    Eigen::Matrix3d k;
    if (!skin.pinned_edge_map(worlds[s], plan.uniform_slot, k)) return false;
    const Eigen::Matrix3d g = k.transpose() * k;
    const double mean = g.trace() / 3;
    const double spread = (g - mean * Eigen::Matrix3d::Identity()).norm();
    if (!(mean > 0) || !(spread <= kUniformSpread * mean) ||
        !(std::abs(mean - torn_above_sq) > spread) || !(std::abs(mean - torn_below_sq) > spread))
      return false;
    c[s] = mean;
  }
  cs.tail = uniform_region(plan.region[0].ends, c, torn_above_sq, torn_below_sq, skin);
  cs.body = uniform_region(plan.region[1].ends, c, torn_above_sq, torn_below_sq, skin);
  if (plan.tail_mask) {
    const std::size_t n = plan.region[0].ends.size();
    cs.tail_torn.resize(n * c.size());
    for (std::size_t s = 0; s < c.size(); ++s)
      std::fill_n(cs.tail_torn.begin() + std::ptrdiff_t(s * n), n,
                  std::uint8_t(c[s] >= torn_above_sq || c[s] < torn_below_sq));
  }
  return true;
}

/// One rig over one clip, its poses given (one world-matrix list per sample).
ClipStretch measure_clip(const SkinSampler& skin, const detail::StretchPlan& plan,
                         const SampledWorlds& worlds, const StretchParams& params,
                         StretchScratch& scratch) {
  const double torn_above_sq = sqrt_above(params.torn_above),
               torn_below_sq = sqrt_above(std::nextafter(params.torn_below, 0.0));
  ClipStretch cs;
  if (uniform_clip(skin, plan, worlds, torn_above_sq, torn_below_sq, cs)) return cs;
  Accumulator acc[2];
  for (int r = 0; r < 2; ++r) {
    const std::size_t n = plan.region[r].ends.size();
    acc[r].buf = &scratch.region[r];
    acc[r].buf->edge_max.assign(n, 0.0);
    acc[r].buf->edge_min.assign(n, INFINITY);
    acc[r].buf->ratios.resize(n * worlds.size());
  }
  if (plan.tail_mask) cs.tail_torn.resize(plan.region[0].ends.size() * worlds.size());
  std::vector<Eigen::Vector3d>& p = scratch.positions;
  for (std::size_t s = 0; s < worlds.size(); ++s) {
    skin.pose_into(worlds[s], &plan.skinned, p, true, &plan.slots);
    for (const auto& [v, r] : plan.copies) p[std::size_t(v)] = p[std::size_t(r)];
    for (int r = 0; r < 2; ++r) {
      const detail::StretchPlan::Region& region = plan.region[r];
      const std::size_t n = region.ends.size();
      if (n == 0) continue;
      StretchScratch::Region& b = *acc[r].buf;
      RegionSample in{p.data(),
                      region.ends.data(),
                      region.inv_rest_sq.data(),
                      n,
                      b.ratios.data() + s * n,
                      b.edge_max.data(),
                      b.edge_min.data(),
                      torn_above_sq,
                      torn_below_sq,
                      r == 0 && plan.tail_mask ? cs.tail_torn.data() + s * n : nullptr};
      RegionTally tally{acc[r].torn, acc[r].min, acc[r].max};
      sample_region(in, tally);
      acc[r].torn = tally.torn;
      acc[r].min = tally.min;
      acc[r].max = tally.max;
    }
  }
  if (plan.figures) {
    cs.tail = finish(acc[0], plan.region[0].ends, skin);
    cs.body = finish(acc[1], plan.region[1].ends, skin);
  }
  return cs;
}

} // namespace

StretchMeter::StretchMeter(const std::vector<StretchRig>& rigs,
                           const std::vector<std::pair<int, int>>& edges,
                           const std::vector<bool>& tail, const StretchParams& params)
    : params_(params) {
  params.validate();
  for (const StretchRig& rig : rigs) {
    if (model_ && rig.model != model_)
      throw std::invalid_argument("StretchMeter: every rig must be posed by the same model");
    model_ = rig.model;
    skins_.push_back(rig.skin);
    plans_.push_back(plan_rig(*rig.skin, edges, tail, rig.body, params));
    plans_.back().tail_mask = rig.tail_mask;
    plans_.back().figures = rig.figures;
  }
  if (!model_) return;
  std::vector<char> posed(model_->nodes.size(), 0);
  for (const SkinSampler* skin : skins_)
    for (int node : skin->joint_nodes())
      for (int n = node; n >= 0 && !posed[std::size_t(n)]; n = model_->nodes[std::size_t(n)].parent)
        posed[std::size_t(n)] = 1, posed_nodes_.push_back(n);
  for (const detail::StretchPlan& plan : plans_)
    for (const auto& region : plan.region)
      check_stretch_work(region.ends.size(), posed_nodes_.size(), params.samples);
  std::vector<int> depth(model_->nodes.size(), -1), walk; // each node's depth, computed once
  for (int n : posed_nodes_) {
    walk.clear();
    int cur = n;
    for (; cur >= 0 && depth[std::size_t(cur)] < 0; cur = model_->nodes[std::size_t(cur)].parent)
      walk.push_back(cur);
    int d = cur >= 0 ? depth[std::size_t(cur)] : -1;
    for (auto it = walk.rbegin(); it != walk.rend(); ++it) depth[std::size_t(*it)] = ++d;
  }
  std::stable_sort(posed_nodes_.begin(), posed_nodes_.end(), [&](int a, int b) {
    return depth[std::size_t(a)] != depth[std::size_t(b)]
               ? depth[std::size_t(a)] < depth[std::size_t(b)]
               : a < b;
  });
}

StretchMeter::~StretchMeter() = default;
StretchMeter::StretchMeter(StretchMeter&&) noexcept = default;
StretchMeter& StretchMeter::operator=(StretchMeter&&) noexcept = default;

std::vector<ClipStretch> StretchMeter::measure(const ClipSampler& sampler, int clip,
                                               StretchScratch& scratch) const {
  std::vector<ClipStretch> out;
  if (plans_.empty()) return out;
  const SampledWorlds worlds(*model_, sampler, posed_nodes_, params_.samples);
  for (std::size_t r = 0; r < plans_.size(); ++r) {
    out.push_back(measure_clip(*skins_[r], plans_[r], worlds, params_, scratch));
    out.back().clip = clip;
    out.back().name = model_->animations[std::size_t(clip)].name;
    out.back().duration = sampler.duration();
  }
  return out;
}

const std::vector<std::pair<int, int>>& StretchMeter::tail_edges(std::size_t rig) const {
  return plans_.at(rig).region[0].ends;
}

std::vector<std::vector<ClipStretch>>
measure_stretch_rigs(const Document& doc, const std::vector<StretchRig>& rigs,
                     const std::vector<std::pair<int, int>>& edges, const std::vector<bool>& tail,
                     const std::vector<int>& clips, const StretchParams& params, int threads) {
  params.validate();
  // One meter per model (in first-use order), each with its rigs' positions in `rigs`.
  std::vector<StretchMeter> meters;
  std::vector<std::vector<std::size_t>> members;
  std::vector<const Model*> models;
  for (std::size_t r = 0; r < rigs.size(); ++r) {
    const std::size_t m =
        std::size_t(std::find(models.begin(), models.end(), rigs[r].model) - models.begin());
    if (m == models.size()) models.push_back(rigs[r].model), members.emplace_back();
    members[m].push_back(r);
  }
  for (const auto& m : members) {
    std::vector<StretchRig> mine;
    for (std::size_t r : m) mine.push_back(rigs[r]);
    meters.emplace_back(mine, edges, tail, params);
  }
  std::vector<std::vector<ClipStretch>> out(rigs.size(), std::vector<ClipStretch>(clips.size()));
  std::vector<StretchScratch> scratch(std::min(std::size_t(worker_count(threads)), clips.size()));
  parallel_for_workers(clips.size(), threads, [&](std::size_t c, std::size_t worker) {
    for (std::size_t m = 0; m < meters.size(); ++m) {
      ClipSampler sampler(doc, *models[m], clips[c]);
      std::vector<ClipStretch> got = meters[m].measure(sampler, clips[c], scratch[worker]);
      for (std::size_t i = 0; i < got.size(); ++i) out[members[m][i]][c] = std::move(got[i]);
    }
  });
  return out;
}

std::vector<ClipStretch>
measure_stretch(const Document& doc, const Model& model, const SkinSampler& skin,
                const std::vector<std::pair<int, int>>& edges, const std::vector<bool>& tail,
                const std::vector<int>& clips, const StretchParams& params, bool body) {
  return measure_stretch_rigs(doc, {{&model, &skin, body}}, edges, tail, clips, params, 1)[0];
}

} // namespace retail
