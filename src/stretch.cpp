// Edge stretch: prepared CPU skinning, mesh edges, per-clip statistics (stretch.h).
#include "retail/stretch.h"

#include "retail/accessor.h"
#include "retail/animation.h"
#include "retail/error.h"
#include "retail/skinning.h"

#include <algorithm>
#include <cmath>
#include <map>

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
    for (std::size_t k = 0; k < skin.joints.size(); ++k) {
      joint_node_.push_back(skin.joints[k]);
      ibm_.push_back(Eigen::Map<const Eigen::Matrix4d>(ibm.row(Eigen::Index(k)).data()));
    }
  }
  bind_.resize(first);
  skin_pos_.resize(first);
  influences_.resize(first);
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
      skin_pos_[src.first + v] = x;
      bind_[src.first + v] = (to_world * x).head<3>();
    }
    for_each_influence(doc, model, prim, [&](std::size_t v, int, std::uint32_t ji, double wv) {
      if (ji < joints) influences_[src.first + v].push_back({base + int(ji), wv});
    });
  }
  for (auto& inf : influences_) {
    double sum = 0;
    for (const auto& i : inf) sum += i.weight;
    if (sum > 0)
      for (auto& i : inf) i.weight /= sum;
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

void SkinSampler::pose_into(const std::vector<Eigen::Matrix4d>& world, const std::vector<int>* only,
                            std::vector<Eigen::Vector3d>& out) const {
  std::vector<Eigen::Matrix4d> joint(joint_node_.size());
  for (std::size_t s = 0; s < joint_node_.size(); ++s)
    joint[s] = world[std::size_t(joint_node_[s])] * ibm_[s];
  out.resize(bind_.size());
  std::size_t count = only ? only->size() : bind_.size();
  for (std::size_t k = 0; k < count; ++k) {
    std::size_t v = only ? std::size_t((*only)[k]) : k;
    if (pinned_slot_[v] >= 0) {
      out[v] = (joint[std::size_t(pinned_slot_[v])] * skin_pos_[v]).head<3>();
      continue;
    }
    Eigen::Vector4d p = Eigen::Vector4d::Zero();
    for (const auto& i : influences_[v])
      p += i.weight * (joint[std::size_t(i.joint)] * skin_pos_[v]);
    out[v] = influences_[v].empty() ? bind_[v] : Eigen::Vector3d(p.head<3>());
  }
}

std::vector<int> SkinSampler::dominant_node() const {
  std::vector<int> out(bind_.size(), -1);
  for (std::size_t v = 0; v < bind_.size(); ++v) {
    double best = 0;
    for (const auto& i : influences_[v])
      if (i.weight > best) best = i.weight, out[v] = joint_node_[std::size_t(i.joint)];
  }
  return out;
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
  std::sort(edges.begin(), edges.end());
  edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
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

struct Accumulator {
  std::vector<double> ratios;
  std::vector<double> edge_max, edge_min;
  std::vector<std::size_t> edge_ids;
};

RegionStretch finish(Accumulator& acc, const std::vector<std::pair<int, int>>& edges,
                     const SkinSampler& skin, const StretchParams& params) {
  RegionStretch r;
  r.edges = acc.edge_ids.size();
  r.samples = acc.ratios.size();
  if (acc.ratios.empty()) return r;
  std::size_t torn = 0;
  for (double x : acc.ratios) torn += x > params.torn_above || x < params.torn_below;
  r.torn_percent = 100.0 * double(torn) / double(acc.ratios.size());
  r.min = *std::min_element(acc.ratios.begin(), acc.ratios.end());
  r.max = *std::max_element(acc.ratios.begin(), acc.ratios.end());
  r.p95 = percentile_select(acc.ratios, 0.95);
  r.p99 = percentile_select(acc.ratios, 0.99);
  std::vector<double> maxima = acc.edge_max;
  r.edge_max_p99_percent = 100.0 * (percentile_select(maxima, 0.99) - 1.0);
  // The worst edge: the largest departure from 1 (stretch as ratio, squash as 1/ratio).
  double worst = -1;
  for (std::size_t k = 0; k < acc.edge_ids.size(); ++k) {
    double up = acc.edge_max[k], down = acc.edge_min[k] > 0 ? 1.0 / acc.edge_min[k] : INFINITY;
    double score = std::max(up, down);
    if (score > worst) {
      worst = score;
      const auto& e = edges[acc.edge_ids[k]];
      r.worst.a = e.first;
      r.worst.b = e.second;
      r.worst.ratio = up >= down ? up : acc.edge_min[k];
    }
  }
  for (const auto& src : skin.sources())
    if (std::size_t(r.worst.a) >= src.first && std::size_t(r.worst.a) < src.first + src.count) {
      r.worst.primitive = "meshes[" + std::to_string(src.where.mesh) + "].primitives[" +
                          std::to_string(src.where.primitive) + "]";
      r.worst.local_a = int(std::size_t(r.worst.a) - src.first);
      r.worst.local_b = int(std::size_t(r.worst.b) - src.first);
    }
  return r;
}

} // namespace

std::vector<ClipStretch>
measure_stretch(const Document& doc, const Model& model, const SkinSampler& skin,
                const std::vector<std::pair<int, int>>& edges, const std::vector<bool>& tail,
                const std::vector<int>& clips, const StretchParams& params, bool body) {
  params.validate();
  const auto& bind = skin.bind();
  std::vector<double> rest(edges.size());
  std::vector<int> region(edges.size(), -1); // 0 tail, 1 body, -1 mixed or degenerate
  for (std::size_t k = 0; k < edges.size(); ++k) {
    rest[k] = (bind[std::size_t(edges[k].first)] - bind[std::size_t(edges[k].second)]).norm();
    bool ta = tail[std::size_t(edges[k].first)], tb = tail[std::size_t(edges[k].second)];
    if (rest[k] > 0 && ta == tb && (ta || body)) region[k] = ta ? 0 : 1;
  }
  std::size_t body_edges = std::size_t(std::count(region.begin(), region.end(), 1));
  if (params.max_body_edges > 0 && body_edges > params.max_body_edges) {
    std::size_t stride = (body_edges + params.max_body_edges - 1) / params.max_body_edges, seen = 0;
    for (int& r : region)
      if (r == 1 && seen++ % stride != 0) r = -1; // every stride-th body edge is kept
  }
  std::vector<int> needed; // vertices some measured edge touches: the only ones skinned
  {
    std::vector<char> mark(bind.size(), 0);
    for (std::size_t k = 0; k < edges.size(); ++k)
      if (region[k] >= 0)
        mark[std::size_t(edges[k].first)] = mark[std::size_t(edges[k].second)] = 1;
    for (std::size_t v = 0; v < mark.size(); ++v)
      if (mark[v]) needed.push_back(int(v));
  }
  std::vector<Eigen::Vector3d> p;
  std::vector<ClipStretch> out;
  for (int clip : clips) {
    ClipSampler sampler(doc, model, clip);
    ClipStretch cs;
    cs.clip = clip;
    cs.name = model.animations[std::size_t(clip)].name;
    cs.duration = sampler.duration();
    Accumulator acc[2];
    for (int r = 0; r < 2; ++r)
      for (std::size_t k = 0; k < edges.size(); ++k)
        if (region[k] == r) acc[r].edge_ids.push_back(k);
    for (auto& a : acc) {
      a.edge_max.assign(a.edge_ids.size(), 0.0);
      a.edge_min.assign(a.edge_ids.size(), INFINITY);
      a.ratios.reserve(a.edge_ids.size() * std::size_t(params.samples));
    }
    for (int s = 0; s < params.samples; ++s) {
      double t = cs.duration * s / (params.samples - 1);
      skin.pose_into(compose_world(model, sampler.locals(model, t)), &needed, p);
      for (auto& a : acc)
        for (std::size_t i = 0; i < a.edge_ids.size(); ++i) {
          const auto& e = edges[a.edge_ids[i]];
          double ratio =
              (p[std::size_t(e.first)] - p[std::size_t(e.second)]).norm() / rest[a.edge_ids[i]];
          a.ratios.push_back(ratio);
          a.edge_max[i] = std::max(a.edge_max[i], ratio);
          a.edge_min[i] = std::min(a.edge_min[i], ratio);
        }
    }
    cs.tail = finish(acc[0], edges, skin, params);
    cs.body = finish(acc[1], edges, skin, params);
    out.push_back(std::move(cs));
  }
  return out;
}

} // namespace retail
