// Edge stretch: prepared CPU skinning, mesh edges, per-clip statistics (stretch.h).
#include "retail/stretch.h"

#include "retail/accessor.h"
#include "retail/animation.h"
#include "retail/error.h"
#include "retail/parallel.h"
#include "retail/skinning.h"

#include <Eigen/LU>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <stdexcept>

namespace retail {

void StretchParams::validate() const {
  if (samples < 2 || !(torn_above > 1) || !(torn_below > 0 && torn_below < 1))
    throw Error(ExitCode::Usage, "stretch parameters out of range");
}

SkinSampler::SkinSampler(const Document& doc, const Model& model, const Character& c) {
  std::size_t first = 0;
  std::map<int, int> slot_base; // skin -> first slot
  for (const auto& sp : c.primitives) {
    sources_.push_back({sp, first, sp.vertex_count});
    first += sp.vertex_count;
    const Skin& skin = model.skins[std::size_t(sp.skin)];
    if (slot_base.count(sp.skin)) {
      vertex_slots_.push_back({slot_base[sp.skin], slot_base[sp.skin] + int(skin.joints.size())});
      continue;
    }
    slot_base[sp.skin] = int(joint_node_.size());
    vertex_slots_.push_back({slot_base[sp.skin], slot_base[sp.skin] + int(skin.joints.size())});
    AccessorData ibm = read_accessor(doc, model, skin.inverse_bind_matrices);
    auto it = std::find(c.skins.begin(), c.skins.end(), sp.skin);
    const Eigen::Matrix3d m =
        c.skin_to_world[std::size_t(it - c.skins.begin())].topLeftCorner<3, 3>();
    Eigen::Matrix3d m_inv;
    bool invertible = false;
    double det = 0;
    m.computeInverseAndDetWithCheck(m_inv, det, invertible);
    if (!invertible || !m_inv.allFinite()) m_inv.setConstant(NAN);
    for (std::size_t k = 0; k < skin.joints.size(); ++k) {
      joint_node_.push_back(skin.joints[k]);
      ibm_.push_back(Eigen::Map<const Eigen::Matrix4d>(ibm.row(Eigen::Index(k)).data()));
      bind_inverse_.push_back(m_inv);
    }
  }
  bind_.resize(first);
  skin_pos_.resize(first);
  // Influences as (vertex, slot, weight) in the order for_each_influence gives them (vertex by
  // vertex within a weight set), then grouped by vertex with a stable counting pass: no
  // allocation per vertex.
  struct Raw {
    std::uint32_t vertex;
    int slot;
    double weight;
  };
  std::vector<Raw> raw;
  pinned_slot_.assign(first, -1);
  for (const auto& src : sources_) {
    const Primitive& prim =
        model.meshes[std::size_t(src.where.mesh)].primitives[std::size_t(src.where.primitive)];
    auto it = std::find(c.skins.begin(), c.skins.end(), src.where.skin);
    const Eigen::Matrix4d& to_world = c.skin_to_world[std::size_t(it - c.skins.begin())];
    AccessorData pos = read_accessor(doc, model, prim.attributes.at("POSITION"));
    int base = slot_base[src.where.skin];
    std::size_t joints = model.skins[std::size_t(src.where.skin)].joints.size();
    for (std::size_t v = 0; v < src.count; ++v) {
      Eigen::Vector4d x(pos(Eigen::Index(v), 0), pos(Eigen::Index(v), 1), pos(Eigen::Index(v), 2),
                        1.0);
      skin_pos_[src.first + v] = x.head<3>();
      bind_[src.first + v] = (to_world * x).head<3>();
    }
    for_each_influence(doc, model, prim, [&](std::size_t v, int, std::uint32_t ji, double wv) {
      if (ji < joints) raw.push_back({std::uint32_t(src.first + v), base + int(ji), wv});
    });
  }
  influence_start_.assign(first + 1, 0);
  for (const Raw& r : raw) ++influence_start_[r.vertex + 1];
  for (std::size_t v = 0; v < first; ++v) influence_start_[v + 1] += influence_start_[v];
  influence_joint_.resize(raw.size());
  influence_weight_.resize(raw.size());
  std::vector<std::uint32_t> fill(influence_start_.begin(), influence_start_.end() - 1);
  for (const Raw& r : raw) {
    std::uint32_t at = fill[r.vertex]++;
    influence_joint_[at] = r.slot;
    influence_weight_[at] = r.weight;
  }
  // Normalised per vertex (the sum in slot order).
  for (std::size_t v = 0; v < first; ++v) {
    double sum = 0;
    for (std::uint32_t i = influence_start_[v]; i < influence_start_[v + 1]; ++i)
      sum += influence_weight_[i];
    if (sum > 0)
      for (std::uint32_t i = influence_start_[v]; i < influence_start_[v + 1]; ++i)
        influence_weight_[i] /= sum;
  }
}

bool SkinSampler::pin(std::size_t vertex, int node) {
  for (std::size_t k = 0; k < sources_.size(); ++k) {
    const auto& src = sources_[k];
    if (vertex < src.first || vertex >= src.first + src.count) continue;
    for (int s = vertex_slots_[k].first; s < vertex_slots_[k].second; ++s)
      if (joint_node_[std::size_t(s)] == node) {
        pinned_slot_[vertex] = s;
        return true;
      }
  }
  return false;
}

std::vector<Eigen::Vector3d> SkinSampler::pose(const std::vector<Eigen::Matrix4d>& world) const {
  std::vector<Eigen::Vector3d> out;
  pose_into(world, nullptr, out);
  return out;
}

namespace {

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define RETAIL_AVX2_KERNELS 1
/// The CPU runs the AVX2 builds of the kernels below (asked once).
bool cpu_has_avx2() {
  static const bool avx2 = __builtin_cpu_supports("avx2");
  return avx2;
}
#endif

/// Four doubles as one vector value (GCC/Clang vector extension): elementwise IEEE arithmetic,
/// two SSE2 registers by default, one AVX register in skin_avx2.
typedef double Double4 __attribute__((vector_size(32)));

/// A skinning matrix by columns, each holding its top three rows and a zero (the bottom row of
/// an affine 4x4 is 0 0 0 1). Aligned to 32 bytes explicitly: outside AVX code GCC aligns the
/// vector type to 16 only, while the AVX2 build assumes 32 for aligned loads.
struct alignas(32) Affine34 {
  Double4 col[4];
};

struct SkinInputs {
  const std::vector<Affine34>* joint;
  const std::vector<int>* only;
  const std::vector<Eigen::Vector3d>* skin_pos;
  const std::vector<Eigen::Vector3d>* bind;
  const std::vector<int>* pinned_slot;
  const std::vector<std::uint32_t>* influence_start;
  const int* influence_joint;
  const double* influence_weight;
};

/// Skins the vertices of `in` into `out`; inlined into each build below, so each is compiled for
/// its own instruction set.
inline __attribute__((always_inline)) void skin_body(const SkinInputs& in,
                                                     std::vector<Eigen::Vector3d>& out) {
  const std::vector<Affine34>& joint = *in.joint;
  auto transform = [](const Affine34& a, const Eigen::Vector3d& x) {
    Double4 r = a.col[0] * x[0] + a.col[1] * x[1] + a.col[2] * x[2] + a.col[3];
    return Eigen::Vector3d(r[0], r[1], r[2]);
  };
  std::size_t count = in.only ? in.only->size() : in.bind->size();
  for (std::size_t k = 0; k < count; ++k) {
    std::size_t v = in.only ? std::size_t((*in.only)[k]) : k;
    const Eigen::Vector3d& x = (*in.skin_pos)[v];
    int pinned = (*in.pinned_slot)[v];
    if (pinned >= 0) {
      out[v] = transform(joint[std::size_t(pinned)], x);
      continue;
    }
    const std::uint32_t a = (*in.influence_start)[v], b = (*in.influence_start)[v + 1];
    if (a == b) {
      out[v] = (*in.bind)[v];
      continue;
    }
    const Affine34& first = joint[std::size_t(in.influence_joint[a])];
    if (b == a + 1) { // one influence: its normalised weight is exactly 1, so no blend
      out[v] = transform(first, x);
      continue;
    }
    // Blend the matrices (four named columns, so they stay in registers), then transform once.
    const double w0 = in.influence_weight[a];
    Double4 c0 = w0 * first.col[0], c1 = w0 * first.col[1], c2 = w0 * first.col[2],
            c3 = w0 * first.col[3];
    for (std::uint32_t i = a + 1; i < b; ++i) {
      const Affine34& j = joint[std::size_t(in.influence_joint[i])];
      const double w = in.influence_weight[i];
      c0 += w * j.col[0];
      c1 += w * j.col[1];
      c2 += w * j.col[2];
      c3 += w * j.col[3];
    }
    Double4 r = c0 * x[0] + c1 * x[1] + c2 * x[2] + c3;
    out[v] = Eigen::Vector3d(r[0], r[1], r[2]);
  }
}

void skin_default(const SkinInputs& in, std::vector<Eigen::Vector3d>& out) {
  skin_body(in, out);
}

#ifdef RETAIL_AVX2_KERNELS
__attribute__((target("avx2"))) void skin_avx2(const SkinInputs& in,
                                               std::vector<Eigen::Vector3d>& out) {
  skin_body(in, out);
}
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
};

struct RegionTally {
  std::size_t torn = 0;
  double min = INFINITY, max = -INFINITY;
};

typedef long long Long4 __attribute__((vector_size(32)));

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
    torn -= (r >= above) | (r < below); // a true compare is -1
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
    t.torn += r >= in.torn_above_sq || r < in.torn_below_sq;
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

std::vector<int> SkinSampler::slots_used(const std::vector<int>* only) const {
  std::vector<char> used(joint_node_.size(), 0);
  const std::size_t count = only ? only->size() : bind_.size();
  for (std::size_t k = 0; k < count; ++k) {
    const std::size_t v = only ? std::size_t((*only)[k]) : k;
    if (pinned_slot_[v] >= 0) {
      used[std::size_t(pinned_slot_[v])] = 1;
      continue;
    }
    for (std::uint32_t i = influence_start_[v]; i < influence_start_[v + 1]; ++i)
      used[std::size_t(influence_joint_[i])] = 1;
  }
  std::vector<int> slots;
  for (std::size_t s = 0; s < used.size(); ++s)
    if (used[s]) slots.push_back(int(s));
  return slots;
}

std::vector<int> SkinSampler::representatives(const std::vector<int>& only) const {
  // Open addressing over a hash of the inputs, each hit confirmed by comparing the inputs.
  auto bits = [](double x) {
    std::uint64_t b;
    std::memcpy(&b, &x, sizeof b);
    return b;
  };
  auto mix = [](std::uint64_t h, std::uint64_t x) { // splitmix64's finaliser over h ^ x
    std::uint64_t z = (h ^ x) + 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  };
  auto hash = [&](std::size_t v) {
    std::uint64_t h = 0;
    for (int c = 0; c < 3; ++c) h = mix(h, bits(skin_pos_[v][c]));
    h = mix(h, std::uint64_t(std::int64_t(pinned_slot_[v])));
    if (pinned_slot_[v] < 0)
      for (std::uint32_t i = influence_start_[v]; i < influence_start_[v + 1]; ++i)
        h = mix(mix(h, std::uint64_t(influence_joint_[i])), bits(influence_weight_[i]));
    return h;
  };
  auto same = [&](std::size_t a, std::size_t b) {
    if (std::memcmp(skin_pos_[a].data(), skin_pos_[b].data(), 3 * sizeof(double)) != 0 ||
        pinned_slot_[a] != pinned_slot_[b])
      return false;
    if (pinned_slot_[a] >= 0) return true;
    const std::uint32_t a0 = influence_start_[a], a1 = influence_start_[a + 1],
                        b0 = influence_start_[b];
    if (a1 - a0 != influence_start_[b + 1] - b0) return false;
    for (std::uint32_t i = 0; i < a1 - a0; ++i)
      if (influence_joint_[a0 + i] != influence_joint_[b0 + i] ||
          bits(influence_weight_[a0 + i]) != bits(influence_weight_[b0 + i]))
        return false;
    return true;
  };
  std::size_t size = 16;
  while (size < 2 * only.size()) size *= 2;
  std::vector<int> table(size, -1), rep(only.size());
  for (std::size_t k = 0; k < only.size(); ++k) {
    const std::size_t v = std::size_t(only[k]);
    rep[k] = int(v);
    const bool skinned = pinned_slot_[v] >= 0 || influence_start_[v] < influence_start_[v + 1];
    if (!skinned) continue; // no influences: its bind position, kept as it is
    for (std::size_t slot = std::size_t(hash(v)) & (size - 1);; slot = (slot + 1) & (size - 1)) {
      if (table[slot] < 0) {
        table[slot] = int(v);
        break;
      }
      if (same(std::size_t(table[slot]), v)) {
        rep[k] = table[slot];
        break;
      }
    }
  }
  return rep;
}

void SkinSampler::pose_into(const std::vector<Eigen::Matrix4d>& world, const std::vector<int>* only,
                            std::vector<Eigen::Vector3d>& out, bool allow_avx2,
                            const std::vector<int>* slots) const {
  // Joint matrices world * IBM, top three rows by columns: column c is the sum over k of world's
  // column k times IBM(k, c). Only the slots asked for (the others are never read).
  std::vector<Affine34> joint(joint_node_.size());
  auto compose = [&](std::size_t s) {
    const Eigen::Matrix4d& w = world[std::size_t(joint_node_[s])];
    const Eigen::Matrix4d& ibm = ibm_[s];
    Double4 wc[4];
    for (int k = 0; k < 4; ++k) wc[k] = Double4{w(0, k), w(1, k), w(2, k), 0.0};
    for (int c = 0; c < 4; ++c)
      joint[s].col[c] =
          wc[0] * ibm(0, c) + wc[1] * ibm(1, c) + wc[2] * ibm(2, c) + wc[3] * ibm(3, c);
  };
  if (slots)
    for (int s : *slots) compose(std::size_t(s));
  else
    for (std::size_t s = 0; s < joint_node_.size(); ++s) compose(s);
  out.resize(bind_.size());
  SkinInputs in{&joint,
                only,
                &skin_pos_,
                &bind_,
                &pinned_slot_,
                &influence_start_,
                influence_joint_.data(),
                influence_weight_.data()};
#ifdef RETAIL_AVX2_KERNELS
  if (allow_avx2 && cpu_has_avx2()) return skin_avx2(in, out);
#endif
  (void)allow_avx2;
  skin_default(in, out);
}

std::vector<int> SkinSampler::dominant_node() const {
  std::vector<int> out(bind_.size(), -1);
  for (std::size_t v = 0; v < bind_.size(); ++v) {
    double best = 0;
    for (std::uint32_t i = influence_start_[v]; i < influence_start_[v + 1]; ++i)
      if (influence_weight_[i] > best)
        best = influence_weight_[i], out[v] = joint_node_[std::size_t(influence_joint_[i])];
  }
  return out;
}

int SkinSampler::common_pin(const std::vector<int>& only) const {
  if (only.empty()) return -1;
  const int slot = pinned_slot_[std::size_t(only.front())];
  for (int v : only)
    if (pinned_slot_[std::size_t(v)] != slot) return -1;
  return slot;
}

bool SkinSampler::pinned_edge_map(const std::vector<Eigen::Matrix4d>& world, int slot,
                                  Eigen::Matrix3d& map) const {
  const Eigen::Matrix3d& m_inv = bind_inverse_[std::size_t(slot)];
  if (!m_inv.allFinite()) return false;
  const Eigen::Matrix4d a =
      world[std::size_t(joint_node_[std::size_t(slot)])] * ibm_[std::size_t(slot)];
  map = a.topLeftCorner<3, 3>() * m_inv;
  return map.allFinite();
}

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

double percentile(std::vector<double>& v, double q) {
  std::sort(v.begin(), v.end());
  return percentile_sorted(v, q);
}

double percentile_select(std::vector<double>& v, double q) {
  if (v.empty()) return 1.0;
  double h = (double(v.size()) - 1) * q;
  std::size_t lo = std::size_t(std::floor(h));
  std::nth_element(v.begin(), v.begin() + long(lo), v.end());
  double a = v[lo];
  if (lo + 1 >= v.size()) return a;
  double b = *std::min_element(v.begin() + long(lo) + 1, v.end()); // the next order statistic
  return a + (h - double(lo)) * (b - a);
}

double percentile_sorted(const std::vector<double>& v, double q) {
  if (v.empty()) return 1.0;
  double h = (double(v.size()) - 1) * q;
  std::size_t lo = std::size_t(std::floor(h)), hi = std::min(v.size() - 1, lo + 1);
  return v[lo] + (h - double(lo)) * (v[hi] - v[lo]);
}

namespace {

/// The order statistics `ranks` (each < w.size()) of w by selection (reorders w).
std::vector<double> select_ranks(std::vector<double>& w, const std::vector<std::size_t>& ranks) {
  std::vector<double> out;
  for (std::size_t r : ranks) {
    std::nth_element(w.begin(), w.begin() + long(r), w.end());
    out.push_back(w[r]);
  }
  return out;
}

/// Order statistics `ranks` (ascending, each < v.size()) of v, whose values lie in [lo, hi], by
/// a histogram: one pass counts values into equal bins over [lo, hi] (about 16 values a bin,
/// 2^8 to 2^16 bins; the bin index is monotonic in the value, so rank k lies in the bin where
/// the running count passes k), one pass gathers the few bins holding the wanted ranks, and a
/// selection inside each finds the exact value.
std::vector<double> order_statistics(const std::vector<double>& v,
                                     const std::vector<std::size_t>& ranks, double lo, double hi) {
  std::vector<double> out(ranks.size(), lo);
  if (!(hi > lo)) return out;
  std::size_t bins = 1 << 8;
  while (bins < (1 << 16) && bins * 16 < v.size()) bins *= 2;
  const double scale = double(bins) / (hi - lo);
  if (!(scale < 1e300)) { // a range too narrow to scale (denormal): select on a copy
    std::vector<double> w = v;
    return select_ranks(w, ranks);
  }
  // The scaled offset clamped to [0, bins - 1] before the conversion (a NaN, from a pose that
  // overflowed, goes to the last bin rather than into an undefined conversion), then converted
  // signed: one instruction, where the unsigned conversion branches.
  const double top = double(bins - 1);
  auto bin = [&](double x) {
    double t = (x - lo) * scale;
    t = t < top ? t : top;
    t = t > 0 ? t : 0;
    return std::size_t(std::int64_t(t));
  };
  std::vector<std::uint32_t> count(bins, 0);
  for (double x : v) ++count[bin(x)];
  // The bin of each wanted rank, its rank inside that bin, and a slot per distinct such bin.
  std::vector<int> slot_of_bin(bins, -1), slot(ranks.size());
  std::vector<std::size_t> within(ranks.size());
  std::vector<std::vector<double>> gathered;
  std::size_t below = 0, r = 0;
  for (std::size_t b = 0; b < bins && r < ranks.size(); ++b) {
    for (; r < ranks.size() && ranks[r] < below + count[b]; ++r) {
      if (slot_of_bin[b] < 0) {
        slot_of_bin[b] = int(gathered.size());
        gathered.emplace_back().reserve(count[b]);
      }
      slot[r] = slot_of_bin[b];
      within[r] = ranks[r] - below;
    }
    below += count[b];
  }
  // Only values in or next to the wanted bins can be wanted: the value range of the first to
  // last wanted bin, widened by a bin on each side against rounding, rejects the rest before
  // their bin is looked up.
  std::size_t first = 0, last = bins - 1; // every rank found a bin: both exist
  while (slot_of_bin[first] < 0) ++first;
  while (slot_of_bin[last] < 0) --last;
  const double near_lo = lo + (double(first) - 1) / scale,
               near_hi = lo + (double(last) + 2) / scale;
  for (double x : v) {
    if (!(x >= near_lo && x <= near_hi)) continue;
    int k = slot_of_bin[bin(x)];
    if (k >= 0) gathered[std::size_t(k)].push_back(x);
  }
  // Each bin's wanted values: by selection when the bin is small, else by the same histogram
  // over the bin's own, narrower range (at most 1/256 of this one, so a few levels at most).
  // Heavy tails need it: a torn edge at ratio^2 1e5 puts nearly every other value in bin 0.
  for (std::size_t k = 0; k < gathered.size(); ++k) {
    std::vector<double>& g = gathered[k];
    std::vector<std::size_t> mine; // this bin's wanted ranks (ascending, as `ranks`)
    for (std::size_t i = 0; i < ranks.size(); ++i)
      if (std::size_t(slot[i]) == k) mine.push_back(within[i]);
    mine.erase(std::unique(mine.begin(), mine.end()), mine.end());
    std::vector<double> got;
    if (g.size() > (std::size_t(1) << 14)) {
      const auto [glo, ghi] = std::minmax_element(g.begin(), g.end());
      if (*ghi - *glo < hi - lo) got = order_statistics(g, mine, *glo, *ghi);
    }
    if (got.empty()) got = select_ranks(g, mine);
    for (std::size_t i = 0; i < ranks.size(); ++i)
      if (std::size_t(slot[i]) == k)
        out[i] =
            got[std::size_t(std::lower_bound(mine.begin(), mine.end(), within[i]) - mine.begin())];
  }
  return out;
}

} // namespace

namespace {

/// Percentile q of `count` ascending values, linear between the closest ranks (numpy's rule),
/// the value at rank k given by at(k). At a rank itself, or between equal values, the value as
/// it is (the same for finite values, and no inf - inf or 0 * inf from an infinite ratio).
template <class At> double between_ranks(std::size_t count, double q, At at) {
  const double h = (double(count) - 1) * q;
  const std::size_t r = std::size_t(std::floor(h));
  const double a = at(r), frac = h - double(r), b = r + 1 < count ? at(r + 1) : a;
  return frac == 0 || b == a ? a : a + frac * (b - a);
}

/// percentiles() of f(x) for x in v, f monotonic non-decreasing (identity or sqrt): f commutes
/// with order statistics, so the ranks are found on v and f is applied to the two around each q.
template <class F>
std::vector<double> percentiles_of(const std::vector<double>& v, const std::vector<double>& qs,
                                   double lo, double hi, F f) {
  std::vector<double> out(qs.size(), 1.0);
  if (v.empty()) return out;
  std::vector<std::size_t> ranks;
  for (double q : qs) {
    std::size_t r = std::size_t(std::floor((double(v.size()) - 1) * q));
    ranks.push_back(r);
    if (r + 1 < v.size()) ranks.push_back(r + 1);
  }
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  std::vector<double> stats;
  if (v.size() < (std::size_t(1) << 13)) { // small: plain selection on a copy
    std::vector<double> w = v;
    stats = select_ranks(w, ranks);
  } else {
    if (!(lo <= hi)) { // not given: one pass to find them
      const auto [lo_it, hi_it] = std::minmax_element(v.begin(), v.end());
      lo = *lo_it, hi = *hi_it;
    }
    stats = order_statistics(v, ranks, lo, hi);
  }
  for (double& x : stats) x = f(x);
  auto at = [&](std::size_t r) {
    return stats[std::size_t(std::lower_bound(ranks.begin(), ranks.end(), r) - ranks.begin())];
  };
  for (std::size_t i = 0; i < qs.size(); ++i) out[i] = between_ranks(v.size(), qs[i], at);
  return out;
}

} // namespace

std::vector<double> percentiles(const std::vector<double>& v, const std::vector<double>& qs,
                                double lo, double hi) {
  return percentiles_of(v, qs, lo, hi, [](double x) { return x; });
}

std::vector<double> percentiles_of_sqrt(const std::vector<double>& squares,
                                        const std::vector<double>& qs, double lo, double hi) {
  return percentiles_of(squares, qs, lo, hi, [](double x) { return std::sqrt(x); });
}

double sqrt_above(double x) {
  if (!(x > 0)) return 0.0;        // every root >= 0 is above it
  if (!(x < INFINITY)) return NAN; // no root is above it: r2 >= NaN is always false
  double s = x * x;
  while (!(std::sqrt(s) > x)) s = std::nextafter(s, INFINITY);
  while (std::sqrt(std::nextafter(s, 0.0)) > x) s = std::nextafter(s, 0.0);
  return s;
}

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
  const std::vector<int> rep = skin.representatives(needed);
  for (std::size_t k = 0; k < rep.size(); ++k)
    if (rep[k] == needed[k])
      plan.skinned.push_back(rep[k]);
    else
      plan.copies.push_back({needed[k], rep[k]});
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
                      torn_below_sq};
      RegionTally tally{acc[r].torn, acc[r].min, acc[r].max};
      sample_region(in, tally);
      acc[r].torn = tally.torn;
      acc[r].min = tally.min;
      acc[r].max = tally.max;
    }
  }
  cs.tail = finish(acc[0], plan.region[0].ends, skin);
  cs.body = finish(acc[1], plan.region[1].ends, skin);
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
  }
  if (!model_) return;
  std::vector<char> posed(model_->nodes.size(), 0);
  for (const SkinSampler* skin : skins_)
    for (int node : skin->joint_nodes())
      for (int n = node; n >= 0 && !posed[std::size_t(n)]; n = model_->nodes[std::size_t(n)].parent)
        posed[std::size_t(n)] = 1, posed_nodes_.push_back(n);
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
