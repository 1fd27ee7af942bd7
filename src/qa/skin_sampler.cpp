// SkinSampler: prepared CPU linear blend skinning, SIMD over the blend (skin_sampler.h).
#include "retail/qa/skin_sampler.h"

#include "qa/simd.h"

#include "retail/rig/skinning.h"

#include <Eigen/LU>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <stdexcept>

namespace retail {

namespace {

using HeldIt = std::map<std::pair<int, int>, HeldInfluences>::const_iterator;

struct RawInfluence {
  std::uint32_t vertex;
  int slot;
  double weight;
};

/// Influences grouped by vertex with a stable counting pass (no allocation per vertex), then
/// normalised per vertex (the sum in slot order): vertex v's are [start[v], start[v+1]) of
/// joint and weight.
void group_influences(const std::vector<RawInfluence>& raw, std::size_t vertices,
                      std::vector<std::uint32_t>& start, std::vector<int>& joint,
                      std::vector<double>& weight) {
  start.assign(vertices + 1, 0);
  for (const RawInfluence& r : raw) ++start[r.vertex + 1];
  for (std::size_t v = 0; v < vertices; ++v) start[v + 1] += start[v];
  joint.resize(raw.size());
  weight.resize(raw.size());
  std::vector<std::uint32_t> fill(start.begin(), start.end() - 1);
  for (const RawInfluence& r : raw) {
    std::uint32_t at = fill[r.vertex]++;
    joint[at] = r.slot;
    weight[at] = r.weight;
  }
  for (std::size_t v = 0; v < vertices; ++v) {
    double sum = 0;
    for (std::uint32_t i = start[v]; i < start[v + 1]; ++i) sum += weight[i];
    if (sum > 0)
      for (std::uint32_t i = start[v]; i < start[v + 1]; ++i) weight[i] /= sum;
  }
}

} // namespace

SkinSampler::SkinSampler(const Document& doc, const Model& model, const Character& c,
                         const HeldSkins* held) {
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
    const std::vector<Eigen::Matrix4d>* held_ibm = nullptr; // a planned re-rig's, in memory
    if (held && held->ibms.count(sp.skin)) held_ibm = &held->ibms.at(sp.skin);
    AccessorData ibm;
    if (!held_ibm) ibm = read_accessor(doc, model, skin.inverse_bind_matrices);
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
      if (held_ibm)
        ibm_.push_back((*held_ibm)[k]);
      else
        ibm_.push_back(Eigen::Map<const Eigen::Matrix4d>(ibm.row(Eigen::Index(k)).data()));
      bind_inverse_.push_back(m_inv);
    }
  }
  auto data = std::make_shared<Vertices>();
  Vertices& d = *data;
  d.bind.resize(first);
  d.skin_pos.resize(first);
  // Influences as (vertex, slot, weight) in the order for_each_influence gives them (vertex by
  // vertex within a weight set), then grouped by vertex.
  std::vector<RawInfluence> raw;
  raw.reserve(4 * first); // one weight set's worth: most files have no second
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
      d.skin_pos[src.first + v] = x.head<3>();
      d.bind[src.first + v] = (to_world * x).head<3>();
    }
    auto add = [&](std::size_t v, int, std::uint32_t ji, double wv) {
      if (ji < joints) raw.push_back({std::uint32_t(src.first + v), base + int(ji), wv});
    };
    const auto held_prim =
        held ? held->influences.find({src.where.mesh, src.where.primitive}) : HeldIt();
    if (held && held_prim != held->influences.end())
      for_each_influence(held_prim->second, add);
    else
      for_each_influence(doc, model, prim, add);
  }
  group_influences(raw, first, d.influence_start, d.influence_joint, d.influence_weight);
  data_ = std::move(data);
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

using simd::Double4;
#ifdef RETAIL_AVX2_KERNELS
using simd::cpu_has_avx2;
#endif

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

} // namespace

std::vector<int> SkinSampler::slots_used(const std::vector<int>* only) const {
  std::vector<char> used(joint_node_.size(), 0);
  const std::size_t count = only ? only->size() : data_->bind.size();
  for (std::size_t k = 0; k < count; ++k) {
    const std::size_t v = only ? std::size_t((*only)[k]) : k;
    if (pinned_slot_[v] >= 0) {
      used[std::size_t(pinned_slot_[v])] = 1;
      continue;
    }
    for (std::uint32_t i = data_->influence_start[v]; i < data_->influence_start[v + 1]; ++i)
      used[std::size_t(data_->influence_joint[i])] = 1;
  }
  std::vector<int> slots;
  for (std::size_t s = 0; s < used.size(); ++s)
    if (used[s]) slots.push_back(int(s));
  return slots;
}

SkinSampler::Distinct SkinSampler::distinct(const std::vector<int>& only) const {
  Distinct out;
  const std::vector<int> rep = representatives(only);
  for (std::size_t k = 0; k < rep.size(); ++k)
    if (rep[k] == only[k])
      out.skinned.push_back(rep[k]);
    else
      out.copies.push_back({only[k], rep[k]});
  return out;
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
    for (int c = 0; c < 3; ++c) h = mix(h, bits(data_->skin_pos[v][c]));
    h = mix(h, std::uint64_t(std::int64_t(pinned_slot_[v])));
    if (pinned_slot_[v] < 0)
      for (std::uint32_t i = data_->influence_start[v]; i < data_->influence_start[v + 1]; ++i)
        h = mix(mix(h, std::uint64_t(data_->influence_joint[i])), bits(data_->influence_weight[i]));
    return h;
  };
  auto same = [&](std::size_t a, std::size_t b) {
    if (std::memcmp(data_->skin_pos[a].data(), data_->skin_pos[b].data(), 3 * sizeof(double)) !=
            0 ||
        pinned_slot_[a] != pinned_slot_[b])
      return false;
    if (pinned_slot_[a] >= 0) return true;
    const std::uint32_t a0 = data_->influence_start[a], a1 = data_->influence_start[a + 1],
                        b0 = data_->influence_start[b];
    if (a1 - a0 != data_->influence_start[b + 1] - b0) return false;
    for (std::uint32_t i = 0; i < a1 - a0; ++i)
      if (data_->influence_joint[a0 + i] != data_->influence_joint[b0 + i] ||
          bits(data_->influence_weight[a0 + i]) != bits(data_->influence_weight[b0 + i]))
        return false;
    return true;
  };
  std::size_t size = 16;
  while (size < 2 * only.size()) size *= 2;
  std::vector<int> table(size, -1), rep(only.size());
  for (std::size_t k = 0; k < only.size(); ++k) {
    const std::size_t v = std::size_t(only[k]);
    rep[k] = int(v);
    const bool skinned =
        pinned_slot_[v] >= 0 || data_->influence_start[v] < data_->influence_start[v + 1];
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
  out.resize(data_->bind.size());
  SkinInputs in{&joint,
                only,
                &data_->skin_pos,
                &data_->bind,
                &pinned_slot_,
                &data_->influence_start,
                data_->influence_joint.data(),
                data_->influence_weight.data()};
#ifdef RETAIL_AVX2_KERNELS
  if (allow_avx2 && cpu_has_avx2()) return skin_avx2(in, out);
#endif
  (void)allow_avx2;
  skin_default(in, out);
}

std::vector<double> SkinSampler::weights_on(std::size_t v, const std::vector<int>& nodes) const {
  std::vector<double> out(nodes.size(), 0.0);
  auto add = [&](int slot, double w) {
    const int node = joint_node_[std::size_t(slot)];
    for (std::size_t k = 0; k < nodes.size(); ++k)
      if (nodes[k] == node) out[k] += w;
  };
  if (pinned_slot_[v] >= 0) {
    add(pinned_slot_[v], 1.0);
    return out;
  }
  for (std::uint32_t i = data_->influence_start[v]; i < data_->influence_start[v + 1]; ++i)
    add(data_->influence_joint[i], data_->influence_weight[i]);
  return out;
}

std::vector<int> SkinSampler::dominant_node() const {
  std::vector<int> out(data_->bind.size(), -1);
  for (std::size_t v = 0; v < data_->bind.size(); ++v) {
    double best = 0;
    for (std::uint32_t i = data_->influence_start[v]; i < data_->influence_start[v + 1]; ++i)
      if (data_->influence_weight[i] > best)
        best = data_->influence_weight[i],
        out[v] = joint_node_[std::size_t(data_->influence_joint[i])];
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

} // namespace retail
