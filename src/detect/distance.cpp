// Skin weights per vertex, bone segments with leaf stubs, and the skeleton distance field.
#include "retail/detect/distance.h"

#include "retail/base/error.h"
#include "retail/base/parallel.h"
#include "retail/io/accessor.h"
#include "retail/rig/skinning.h"

#include <algorithm>
#include <cmath>
#include <future>

namespace retail {

SkinWeights read_skin_weights(const Document& doc, const Model& model, const Character& c,
                              const WeldedMesh& mesh) {
  return read_skin_weights(doc, model, c, mesh.sources);
}

std::pair<WeldedMesh, SkinWeights> weld_and_weigh(const Document& doc, const Model& model,
                                                  const Character& c, const WeldParams& params) {
  const std::vector<SourcePrimitive> sources = character_sources(c);
  std::future<SkinWeights> weights;
  if (worker_count(params.threads) > 1)
    weights =
        std::async(std::launch::async, [&] { return read_skin_weights(doc, model, c, sources); });
  WeldedMesh mesh = weld_character(doc, model, c, params); // its error first (then joined)
  SkinWeights sw = weights.valid() ? weights.get() : read_skin_weights(doc, model, c, sources);
  return {std::move(mesh), std::move(sw)};
}

SkinWeights read_skin_weights(const Document& doc, const Model& model, const Character& c,
                              const std::vector<SourcePrimitive>& sources) {
  SkinWeights sw;
  const std::size_t n = source_vertices(sources);
  std::array<int, SkinWeights::kMax> none;
  none.fill(-1);
  sw.joint.assign(n, none);
  sw.weight.assign(n, std::array<double, SkinWeights::kMax>{});
  for (const auto& src : sources) {
    const Primitive& prim =
        model.meshes[std::size_t(src.where.mesh)].primitives[std::size_t(src.where.primitive)];
    const Skin& skin = model.skins[std::size_t(src.where.skin)];
    std::vector<int> to_char(skin.joints.size());
    for (std::size_t k = 0; k < skin.joints.size(); ++k) to_char[k] = c.joint_index(skin.joints[k]);
    for_each_influence(doc, model, prim, [&](std::size_t v, int slot, std::uint32_t ji, double wv) {
      if (ji >= to_char.size()) return;
      sw.joint[src.first + v][std::size_t(slot)] = to_char[ji];
      sw.weight[src.first + v][std::size_t(slot)] = wv;
    });
  }
  for (std::size_t v = 0; v < n; ++v) {
    double sum = 0;
    for (double w : sw.weight[v]) sum += w;
    if (sum > 0)
      for (double& w : sw.weight[v]) w /= sum;
  }
  sw.deforming = carries_weight(sw, c.joints.size());
  return sw;
}

std::vector<bool> carries_weight(const SkinWeights& sw, std::size_t joints) {
  std::vector<double> held(joints, 0.0); // per joint: its weights summed over the vertices
  for (std::size_t v = 0; v < sw.joint.size(); ++v)
    for (std::size_t k = 0; k < SkinWeights::kMax; ++k) {
      const int j = sw.joint[v][k];
      if (j >= 0 && std::size_t(j) < joints && sw.weight[v][k] > 0)
        held[std::size_t(j)] += sw.weight[v][k];
    }
  std::vector<bool> out(joints, false);
  for (std::size_t j = 0; j < joints; ++j) out[j] = held[j] >= SkinWeights::kLeastHeld;
  return out;
}

void DistanceParams::validate() const {
  if (!(far_fraction_h > 0)) throw Error(ExitCode::Usage, "far threshold must be positive");
  if (!(stub_fraction >= 0)) throw Error(ExitCode::Usage, "stub fraction must not be negative");
}

double segment_distance(const Eigen::Vector3d& p, const Eigen::Vector3d& a,
                        const Eigen::Vector3d& b, double* t) {
  Eigen::Vector3d ab = b - a;
  double len2 = ab.squaredNorm();
  double s = len2 > 0 ? std::clamp((p - a).dot(ab) / len2, 0.0, 1.0) : 0.0;
  if (t) *t = s;
  return (p - (a + s * ab)).norm();
}

double polyline_distance(const Eigen::Vector3d& p, const std::vector<Eigen::Vector3d>& line) {
  if (line.size() == 1) return (p - line[0]).norm();
  double best = INFINITY;
  for (std::size_t i = 0; i + 1 < line.size(); ++i)
    best = std::min(best, segment_distance(p, line[i], line[i + 1]));
  return best;
}

double bone_distance(const Eigen::Vector3d& p, int joint, const std::vector<Segment>& segments,
                     const Character& c) {
  double best = INFINITY;
  for (const auto& s : segments)
    if (s.joint == joint) best = std::min(best, segment_distance(p, s.a, s.b));
  return std::isfinite(best) ? best : (p - c.bind_position(joint)).norm();
}

std::vector<bool> structural_joints(const Character& c) {
  const Roles& r = c.roles;
  std::vector<int> roled = r.spine;
  roled.insert(roled.end(), {r.hips, r.chest, r.neck, r.head});
  for (int s = 0; s < 2; ++s)
    roled.insert(roled.end(), {r.upper_leg[s], r.lower_leg[s], r.foot[s], r.shoulder[s],
                               r.upper_arm[s], r.lower_arm[s], r.hand[s]});
  std::size_t n = c.joints.size();
  std::vector<int> count(n, 0); // how many roled joints each joint is an ancestor-or-self of
  int total = 0;
  for (int node : roled) {
    int j = node >= 0 ? c.joint_index(node) : -1;
    if (j < 0) continue;
    ++total;
    for (int k = j; k >= 0; k = c.parent[std::size_t(k)]) ++count[std::size_t(k)];
  }
  std::vector<bool> out(n, false);
  if (total == 0) return out;
  // The common ancestor: the deepest joint that is an ancestor-or-self of every roled joint.
  int lca = -1;
  for (int node : roled) {
    int j = node >= 0 ? c.joint_index(node) : -1;
    if (j < 0) continue;
    for (int k = j; k >= 0 && lca < 0; k = c.parent[std::size_t(k)])
      if (count[std::size_t(k)] == total) lca = k;
    break;
  }
  // Above the hips only roled joints count: a weightless root above them (a floor-level `Body`
  // under a quadruped) would make a bone from the floor up to the pelvis.
  const int hips = c.roles.hips >= 0 ? c.joint_index(c.roles.hips) : -1;
  std::vector<bool> roled_joint(n, false);
  for (int node : roled)
    if (node >= 0 && c.joint_index(node) >= 0) roled_joint[std::size_t(c.joint_index(node))] = true;
  for (std::size_t j = 0; j < n; ++j) {
    if (count[j] == 0) continue;
    bool below_lca = false, below_hips = false;
    for (int k = int(j); k >= 0; k = c.parent[std::size_t(k)]) {
      below_lca = below_lca || k == lca;
      below_hips = below_hips || k == hips;
    }
    out[j] = roled_joint[j] || (below_lca && below_hips);
  }
  return out;
}

std::vector<bool> deforming_joints(const Character& c, const SkinWeights& weights) {
  std::vector<bool> out = structural_joints(c);
  for (std::size_t j = 0; j < out.size() && j < weights.deforming.size(); ++j)
    out[j] = out[j] || weights.deforming[j];
  return out;
}

std::vector<Segment> bone_segments(const Character& c, const std::vector<bool>& deforming,
                                   const DistanceParams& params) {
  params.validate();
  std::size_t n = c.joints.size();
  std::vector<int> children(n, 0);
  for (std::size_t j = 0; j < n; ++j)
    if (c.parent[j] >= 0) ++children[std::size_t(c.parent[j])];
  std::vector<Segment> out;
  std::vector<bool> covered(n, false);
  for (std::size_t j = 0; j < n; ++j) {
    int p = c.parent[j];
    if (p < 0 || !deforming[std::size_t(p)]) continue;
    out.push_back({c.bind_position(p), c.bind_position(int(j)), p, false});
    covered[std::size_t(p)] = covered[j] = true;
  }
  for (std::size_t j = 0; j < n; ++j) {
    if (!deforming[j]) continue;
    int p = c.parent[j];
    if (children[j] == 0 && p >= 0 && deforming[std::size_t(p)]) {
      Eigen::Vector3d a = c.bind_position(int(j)), in = a - c.bind_position(p);
      out.push_back({a, a + params.stub_fraction * in, int(j), true});
    } else if (!covered[j]) {
      out.push_back({c.bind_position(int(j)), c.bind_position(int(j)), int(j), false});
    }
  }
  return out;
}

DistanceField skeleton_distance(const Eigen::MatrixX3d& points,
                                const std::vector<Segment>& segments, double threshold,
                                int threads) {
  DistanceField f;
  std::size_t n = std::size_t(points.rows());
  f.threshold = threshold;
  f.distance.assign(n, INFINITY);
  f.segment.assign(n, -1);
  f.t.assign(n, 0);
  constexpr std::size_t kBlock = 4096;
  parallel_for((n + kBlock - 1) / kBlock, threads, [&](std::size_t b) {
    for (std::size_t i = b * kBlock; i < std::min(n, (b + 1) * kBlock); ++i) {
      Eigen::Vector3d p = points.row(Eigen::Index(i)).transpose();
      for (std::size_t s = 0; s < segments.size(); ++s) {
        double t;
        double d = segment_distance(p, segments[s].a, segments[s].b, &t);
        if (d < f.distance[i]) {
          f.distance[i] = d;
          f.segment[i] = int(s);
          f.t[i] = t;
        }
      }
    }
  });
  f.far.assign(n, false); // bits share words: set after the workers
  for (std::size_t i = 0; i < n; ++i) f.far[i] = f.distance[i] > threshold;
  return f;
}

std::vector<char> nearest_in_region(const DistanceField& field,
                                    const std::vector<Segment>& segments,
                                    const std::vector<std::string>& region,
                                    const std::string& which) {
  std::vector<char> out(field.distance.size(), 0);
  for (std::size_t v = 0; v < out.size() && v < field.segment.size(); ++v) {
    const int sg = field.segment[v];
    if (sg < 0 || std::size_t(sg) >= segments.size()) continue;
    const int j = segments[std::size_t(sg)].joint;
    out[v] = j >= 0 && std::size_t(j) < region.size() && region[std::size_t(j)] == which;
  }
  return out;
}

} // namespace retail
