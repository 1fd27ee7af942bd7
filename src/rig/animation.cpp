// ClipSampler: keyframe reading and interpolation.
#include "retail/rig/animation.h"

#include "retail/io/accessor.h"
#include "retail/rig/transform.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace retail {
namespace {

Eigen::Matrix4d trs(const Eigen::Vector3d& t, const Eigen::Quaterniond& r,
                    const Eigen::Vector3d& s) {
  Eigen::Matrix4d m = Eigen::Matrix4d::Identity();
  m.topLeftCorner<3, 3>() = r.normalized().toRotationMatrix() * s.asDiagonal();
  m.topRightCorner<3, 1>() = t;
  return m;
}

} // namespace

ClipSampler::ClipSampler(const Document& doc, const Model& model, int animation) {
  const Animation& a = model.animations[std::size_t(animation)];
  for (const auto& ch : a.channels) {
    int path = ch.path == "translation" ? 0
               : ch.path == "rotation"  ? 1
               : ch.path == "scale"     ? 2
                                        : -1;
    if (path < 0 || ch.node < 0) continue;
    const AnimationSampler& s = a.samplers[std::size_t(ch.sampler)];
    Track tr;
    tr.node = ch.node;
    tr.path = path;
    tr.interpolation = s.interpolation == "STEP" ? 0 : s.interpolation == "CUBICSPLINE" ? 2 : 1;
    AccessorData in = read_accessor(doc, model, s.input), out = read_accessor(doc, model, s.output);
    for (Eigen::Index k = 0; k < in.rows(); ++k) tr.times.push_back(in(k, 0));
    std::size_t per_key = tr.interpolation == 2 ? 3 : 1;
    for (std::size_t k = 0; k < tr.times.size() * per_key; ++k) {
      Eigen::Vector4d v = Eigen::Vector4d::Zero();
      for (int c = 0; c < std::min<int>(4, int(out.cols())); ++c) v[c] = out(Eigen::Index(k), c);
      tr.values.push_back(v);
    }
    if (!tr.times.empty()) duration_ = std::max(duration_, tr.times.back());
    tracks_.push_back(std::move(tr));
  }
  node_tracks_.resize(model.nodes.size());
  for (std::size_t k = 0; k < tracks_.size(); ++k)
    node_tracks_[std::size_t(tracks_[k].node)].push_back(int(k));
}

void ClipSampler::add_rotation_track(int node, const std::vector<float>& times,
                                     const std::vector<float>& xyzw) {
  if (node < 0 || std::size_t(node) >= node_tracks_.size() || xyzw.size() != 4 * times.size())
    throw std::invalid_argument("ClipSampler::add_rotation_track: node or key count out of range");
  Track tr;
  tr.node = node;
  tr.path = 1;
  tr.interpolation = 1;
  tr.times.assign(times.begin(), times.end()); // float to double: as read_accessor gives them
  for (std::size_t k = 0; k < times.size(); ++k)
    tr.values.emplace_back(xyzw[4 * k], xyzw[4 * k + 1], xyzw[4 * k + 2], xyzw[4 * k + 3]);
  if (!tr.times.empty()) duration_ = std::max(duration_, tr.times.back());
  node_tracks_[std::size_t(node)].push_back(int(tracks_.size()));
  tracks_.push_back(std::move(tr));
}

Eigen::Vector4d ClipSampler::sample(const Track& tr, double t) const {
  const auto& T = tr.times;
  std::size_t per_key = tr.interpolation == 2 ? 3 : 1, mid = tr.interpolation == 2 ? 1 : 0;
  if (T.size() == 1 || t <= T.front()) return tr.values[mid];
  if (t >= T.back()) return tr.values[(T.size() - 1) * per_key + mid];
  std::size_t k = std::size_t(std::upper_bound(T.begin(), T.end(), t) - T.begin()) - 1;
  double dt = T[k + 1] - T[k], u = dt > 0 ? (t - T[k]) / dt : 0;
  const Eigen::Vector4d& a = tr.values[k * per_key + mid];
  const Eigen::Vector4d& b = tr.values[(k + 1) * per_key + mid];
  if (tr.interpolation == 0) return a;
  if (tr.interpolation == 2) {
    const Eigen::Vector4d& out_tangent = tr.values[k * 3 + 2];
    const Eigen::Vector4d& in_tangent = tr.values[(k + 1) * 3];
    double u2 = u * u, u3 = u2 * u;
    Eigen::Vector4d v = (2 * u3 - 3 * u2 + 1) * a + (u3 - 2 * u2 + u) * dt * out_tangent +
                        (-2 * u3 + 3 * u2) * b + (u3 - u2) * dt * in_tangent;
    return tr.path == 1 ? Eigen::Vector4d(v.normalized()) : v;
  }
  if (tr.path != 1) return (1 - u) * a + u * b;
  Eigen::Quaterniond qa(a[3], a[0], a[1], a[2]), qb(b[3], b[0], b[1], b[2]);
  Eigen::Quaterniond q =
      qa.normalized().slerp(u, qb.normalized()); // Eigen's slerp takes the short arc
  return {q.x(), q.y(), q.z(), q.w()};
}

std::vector<Eigen::Matrix4d> ClipSampler::locals(const Model& model, double t) const {
  std::vector<Eigen::Matrix4d> out(model.nodes.size());
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = local(model, int(i), t);
  return out;
}

Eigen::Matrix4d ClipSampler::local(const Model& model, int node, double t) const {
  const Node& n = model.nodes[std::size_t(node)];
  const std::vector<int>& mine = node_tracks_[std::size_t(node)];
  if (mine.empty() && n.has_matrix) return local_matrix(n);
  Eigen::Vector3d tr(n.translation[0], n.translation[1], n.translation[2]);
  Eigen::Quaterniond ro(n.rotation[3], n.rotation[0], n.rotation[1], n.rotation[2]);
  Eigen::Vector3d sc(n.scale[0], n.scale[1], n.scale[2]);
  for (int k : mine) { // in track order: a later track of the same path wins
    const Track& track = tracks_[std::size_t(k)];
    Eigen::Vector4d v = sample(track, t);
    if (track.path == 0)
      tr = v.head<3>();
    else if (track.path == 1)
      ro = Eigen::Quaterniond(v[3], v[0], v[1], v[2]);
    else
      sc = v.head<3>();
  }
  return trs(tr, ro, sc);
}

Eigen::Matrix4d ClipSampler::world(const Model& model, int node, double t) const {
  std::vector<int> path; // node, its parent, ..., the root
  for (int cur = node; cur >= 0; cur = model.nodes[std::size_t(cur)].parent) path.push_back(cur);
  Eigen::Matrix4d w = local(model, path.back(), t);
  for (std::size_t k = path.size() - 1; k-- > 0;) {
    Eigen::Matrix4d next = w * local(model, path[k], t);
    w = next;
  }
  return w;
}

std::vector<Eigen::Matrix4d> ClipSampler::worlds(const Model& model, const std::vector<int>& nodes,
                                                 double t) const {
  std::vector<std::pair<int, Eigen::Matrix4d>> done; // node -> world, the ancestors met so far
  auto find = [&](int node) -> const Eigen::Matrix4d* {
    for (const auto& d : done)
      if (d.first == node) return &d.second;
    return nullptr;
  };
  std::vector<Eigen::Matrix4d> out;
  std::vector<int> path;
  for (int node : nodes) {
    path.clear(); // node, its parent, ... up to the first one already composed (or the root)
    for (int cur = node; cur >= 0 && !find(cur); cur = model.nodes[std::size_t(cur)].parent)
      path.push_back(cur);
    for (std::size_t k = path.size(); k-- > 0;) {
      const int parent = model.nodes[std::size_t(path[k])].parent;
      const Eigen::Matrix4d* above = parent >= 0 ? find(parent) : nullptr;
      Eigen::Matrix4d w = local(model, path[k], t);
      if (above) {
        Eigen::Matrix4d next = *above * w;
        w = next;
      }
      done.push_back({path[k], w});
    }
    out.push_back(*find(node));
  }
  return out;
}

std::vector<Eigen::Matrix4d> saved_locals(const Model& model) {
  std::vector<Eigen::Matrix4d> out;
  for (const auto& n : model.nodes) out.push_back(local_matrix(n));
  return out;
}

std::vector<Eigen::Matrix4d> compose_world(const Model& model,
                                           const std::vector<Eigen::Matrix4d>& locals) {
  std::size_t n = model.nodes.size();
  std::vector<Eigen::Matrix4d> world(n);
  std::vector<char> done(n, 0);
  std::vector<int> walk;
  for (std::size_t i = 0; i < n; ++i) {
    walk.clear();
    for (int cur = int(i); cur >= 0 && !done[std::size_t(cur)];
         cur = model.nodes[std::size_t(cur)].parent)
      walk.push_back(cur);
    for (auto it = walk.rbegin(); it != walk.rend(); ++it) {
      int p = model.nodes[std::size_t(*it)].parent;
      world[std::size_t(*it)] =
          p >= 0 ? world[std::size_t(p)] * locals[std::size_t(*it)] : locals[std::size_t(*it)];
      done[std::size_t(*it)] = 1;
    }
  }
  return world;
}

double clip_duration(const Document& doc, const Model& model, int index) {
  double end = 0;
  for (const auto& s : model.animations[std::size_t(index)].samplers) {
    AccessorData t = read_accessor(doc, model, s.input);
    if (t.size() > 0) end = std::max(end, t.maxCoeff());
  }
  return end;
}

std::string clip_base_name(const std::string& name) {
  const std::size_t bar = name.rfind('|');
  return bar == std::string::npos ? name : name.substr(bar + 1);
}

} // namespace retail
