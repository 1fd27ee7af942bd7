// Test support: tail_eval.h.
#include "tail_eval.h"

#include "retail/app/pipeline.h"
#include "retail/base/files.h"
#include "retail/qa/harm.h"
#include "retail/qa/stretch.h"
#include "retail/rig/animation.h"
#include "support.h"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>

namespace test {
namespace {

struct Loaded {
  retail::Input in;
  std::vector<std::map<int, double>> weights; ///< per vertex: node -> weight (normalised)
};

Loaded load(const std::string& path) {
  Loaded l;
  std::vector<retail::StageStat> st;
  l.in = retail::load_input(path, retail::BindParams{}, st);
  const auto& c = l.in.characters.at(0);
  retail::WeldedMesh m = retail::weld_character(l.in.doc, l.in.model, c, retail::WeldParams{});
  retail::SkinWeights sw = retail::read_skin_weights(l.in.doc, l.in.model, c, m);
  l.weights.resize(sw.joint.size());
  for (std::size_t v = 0; v < sw.joint.size(); ++v)
    for (int k = 0; k < retail::SkinWeights::kMax; ++k)
      if (sw.joint[v][std::size_t(k)] >= 0 && sw.weight[v][std::size_t(k)] > 0)
        l.weights[v][c.joints[std::size_t(sw.joint[v][std::size_t(k)])]] +=
            sw.weight[v][std::size_t(k)];
  return l;
}

bool same(const std::map<int, double>& a, const std::map<int, double>& b) {
  if (a.size() != b.size()) return false;
  for (auto ia = a.begin(), ib = b.begin(); ia != a.end(); ++ia, ++ib)
    if (ia->first != ib->first || std::abs(ia->second - ib->second) > 2e-3) return false;
  return true;
}

/// Torn percent and p99 per clip name over the truth's edges.
std::map<std::string, std::pair<double, double>> torn(const retail::Input& in,
                                                      const std::vector<bool>& truth) {
  retail::SkinSampler skin(in.doc, in.model, in.characters.at(0));
  std::vector<int> clips;
  for (std::size_t a = 0; a < in.model.animations.size(); ++a) clips.push_back(int(a));
  auto rows = retail::measure_stretch_rigs(in.doc, {{&in.model, &skin, false}},
                                           retail::mesh_edges(in.doc, in.model, skin), truth, clips,
                                           retail::StretchParams{}, 0)[0];
  std::map<std::string, std::pair<double, double>> out;
  for (const auto& r : rows) out[r.name] = {r.tail.torn_percent, r.tail.p99};
  return out;
}

/// Per clip name: the torn mask of the truth's edges (edge-major, 24 samples each) under the
/// rig's own clips, computed here (skinning each sample and measuring every edge), not by
/// retail's stretch code.
std::map<std::string, std::vector<char>> torn_masks(const retail::Input& in,
                                                    const std::vector<bool>& truth) {
  const retail::Character& c = in.characters.at(0);
  retail::SkinSampler skin(in.doc, in.model, c);
  std::vector<std::pair<int, int>> edges;
  for (const auto& e : retail::mesh_edges(in.doc, in.model, skin))
    if (truth[std::size_t(e.first)] && truth[std::size_t(e.second)]) edges.push_back(e);
  const auto& bind = skin.bind();
  std::map<std::string, std::vector<char>> out;
  for (std::size_t a = 0; a < in.model.animations.size(); ++a) {
    retail::ClipSampler clip(in.doc, in.model, int(a));
    std::vector<char>& mask = out[in.model.animations[a].name];
    mask.assign(edges.size() * 24, 0);
    for (int s = 0; s < 24; ++s) {
      const auto pos = skin.pose(
          retail::compose_world(in.model, clip.locals(in.model, clip.duration() * s / 23)));
      for (std::size_t k = 0; k < edges.size(); ++k) {
        const auto [u, v] = edges[k];
        const double rest = (bind[std::size_t(u)] - bind[std::size_t(v)]).norm();
        const double r = (pos[std::size_t(u)] - pos[std::size_t(v)]).norm() / rest;
        mask[k * 24 + std::size_t(s)] = rest > 0 && (r > 1.5 || r < 0.67);
      }
    }
  }
  return out;
}

/// Per character joint: is it a foot, a hand, the neck or the head, or below one?
std::vector<bool> extremity_joints(const retail::Character& c) {
  const retail::Roles& r = c.roles;
  std::vector<int> tops = {r.neck, r.head, r.foot[0], r.foot[1], r.hand[0], r.hand[1]};
  std::vector<bool> out(c.joints.size(), false);
  for (std::size_t j = 0; j < c.joints.size(); ++j)
    for (int k = int(j); k >= 0 && !out[j]; k = c.parent[std::size_t(k)])
      out[j] = std::count(tops.begin(), tops.end(), c.joints[std::size_t(k)]) > 0;
  return out;
}

/// Is the largest share of `weights` on extremity joints (per region: extremities vs the rest)?
bool moved_by_extremity(const std::map<int, double>& weights, const retail::Character& c,
                        const std::vector<bool>& extremity) {
  double on = 0, off = 0;
  for (const auto& [node, w] : weights) {
    const int j = c.joint_index(node);
    (j >= 0 && extremity[std::size_t(j)] ? on : off) += w;
  }
  return on > off;
}

/// Distance between segments p0 -> p1 and q0 -> q1, by sampling p's segment finely and
/// taking each sample's distance to q's (independent of retail's closed form).
double segment_gap(const Eigen::Vector3d& p0, const Eigen::Vector3d& p1, const Eigen::Vector3d& q0,
                   const Eigen::Vector3d& q1) {
  double best = INFINITY;
  const Eigen::Vector3d d = q1 - q0;
  for (int k = 0; k <= 64; ++k) {
    const Eigen::Vector3d x = p0 + (p1 - p0) * (k / 64.0);
    const double t =
        d.squaredNorm() > 0 ? std::clamp((x - q0).dot(d) / d.squaredNorm(), 0.0, 1.0) : 0.0;
    best = std::min(best, (x - (q0 + t * d)).norm());
  }
  return best;
}

using Probe = std::pair<Eigen::Vector3d, Eigen::Vector3d>; ///< a segment (a point: both ends)

/// Capsules fitted to each leg bone with roles (thigh, shin): 0.8 x the median distance from
/// the bone of the vertices whose largest weight (`dominant`) is on it; as joint index pairs.
struct LegCapsules {
  std::vector<std::pair<int, int>> joints;
  std::vector<double> radius;
  std::vector<int> nodes; ///< the hips and every leg joint (not a tail's)
};

LegCapsules fit_legs(const retail::Character& c, const retail::SkinSampler& skin,
                     const std::vector<int>& dominant) {
  LegCapsules out;
  const retail::Roles& r = c.roles;
  out.nodes = {r.hips};
  for (int s = 0; s < 2; ++s) {
    out.nodes.insert(out.nodes.end(), {r.upper_leg[s], r.lower_leg[s], r.foot[s]});
    for (const auto& [a, b] : {std::pair<int, int>{r.upper_leg[s], r.lower_leg[s]},
                               std::pair<int, int>{r.lower_leg[s], r.foot[s]}}) {
      const int ja = c.joint_index(a), jb = c.joint_index(b);
      if (ja < 0 || jb < 0) continue;
      std::vector<double> d;
      for (std::size_t v = 0; v < dominant.size() && v < skin.size(); ++v)
        if (dominant[v] == a)
          d.push_back(segment_gap(skin.bind()[v], skin.bind()[v], c.bind_position(ja),
                                  c.bind_position(jb)));
      if (d.empty()) continue;
      std::sort(d.begin(), d.end());
      out.radius.push_back(0.8 * d[d.size() / 2]);
      out.joints.push_back({ja, jb});
    }
  }
  return out;
}

/// Per probe, its deepest depth into the capsules (joints at `at`), radius minus distance.
std::vector<double> probe_depths(const std::vector<Probe>& probes, const LegCapsules& legs,
                                 const std::vector<Eigen::Vector3d>& at) {
  std::vector<double> out(probes.size(), -INFINITY);
  for (std::size_t p = 0; p < probes.size(); ++p)
    for (std::size_t k = 0; k < legs.radius.size(); ++k)
      out[p] =
          std::max(out[p], legs.radius[k] - segment_gap(probes[p].first, probes[p].second,
                                                        at[std::size_t(legs.joints[k].first)],
                                                        at[std::size_t(legs.joints[k].second)]));
  return out;
}

/// Per clip name: how deep the bones that dominate `truth` (segments from each to its joint
/// children), or with `vertices` the truth's own skinned vertices, go into capsules fitted to
/// each leg bone (fit_legs) beyond their depth at bind, as a percent of H, over 121 samples.
std::map<std::string, double> leg_depths(const Loaded& l, const std::vector<bool>& truth,
                                         bool vertices) {
  const retail::Character& c = l.in.characters.at(0);
  retail::SkinSampler skin(l.in.doc, l.in.model, c);
  std::vector<int> dominant(l.weights.size(), -1);
  for (std::size_t v = 0; v < l.weights.size(); ++v) {
    double most = 0;
    for (const auto& [node, w] : l.weights[v])
      if (w > most) most = w, dominant[v] = node;
  }
  const LegCapsules legs = fit_legs(c, skin, dominant);
  std::set<int> tail_nodes;
  for (std::size_t v = 0; v < truth.size() && v < dominant.size(); ++v)
    if (truth[v] && dominant[v] >= 0 &&
        !std::count(legs.nodes.begin(), legs.nodes.end(), dominant[v]))
      tail_nodes.insert(dominant[v]);
  std::vector<std::pair<int, int>> segs; // joint indices
  for (int node : tail_nodes)
    for (int ch : l.in.model.nodes[std::size_t(node)].children)
      if (c.joint_index(ch) >= 0 && c.joint_index(node) >= 0)
        segs.push_back({c.joint_index(node), c.joint_index(ch)});
  auto probes = [&](const std::vector<Eigen::Vector3d>& joints,
                    const std::vector<Eigen::Vector3d>& skin_at) {
    std::vector<Probe> out;
    if (vertices) {
      for (std::size_t v = 0; v < truth.size() && v < skin_at.size(); ++v)
        if (truth[v]) out.push_back({skin_at[v], skin_at[v]});
    } else {
      for (const auto& [a, b] : segs)
        out.push_back({joints[std::size_t(a)], joints[std::size_t(b)]});
    }
    return out;
  };
  std::vector<Eigen::Vector3d> bind;
  for (std::size_t j = 0; j < c.joints.size(); ++j) bind.push_back(c.bind_position(int(j)));
  const std::vector<double> at_bind = probe_depths(probes(bind, skin.bind()), legs, bind);
  std::map<std::string, double> out;
  for (std::size_t a = 0; a < l.in.model.animations.size(); ++a) {
    retail::ClipSampler clip(l.in.doc, l.in.model, int(a));
    double& deepest = out[l.in.model.animations[a].name];
    deepest = 0;
    for (int t = 0; t < 121; ++t) {
      const auto world =
          retail::compose_world(l.in.model, clip.locals(l.in.model, clip.duration() * t / 120));
      std::vector<Eigen::Vector3d> at;
      for (int node : c.joints) at.push_back(world[std::size_t(node)].topRightCorner<3, 1>());
      const std::vector<double> d =
          probe_depths(probes(at, vertices ? skin.pose(world) : skin.bind()), legs, at);
      for (std::size_t p = 0; p < d.size(); ++p)
        deepest = std::max(deepest, d[p] - std::max(0.0, at_bind[p]));
    }
    deepest *= 100 / c.height;
  }
  return out;
}

} // namespace

std::size_t noise_floor(std::size_t edge_samples) {
  return retail::noise_floor(edge_samples, retail::HarmParams{});
}

std::vector<bool> artist_tail(const std::string& original) {
  return largest_weight_on(original, std::regex("Tail"));
}

std::vector<bool> primitive_tail(const std::string& path,
                                 const std::vector<std::pair<std::string, int>>& prims) {
  std::vector<retail::StageStat> st;
  retail::Input in = retail::load_input(path, retail::BindParams{}, st);
  retail::SkinSampler skin(in.doc, in.model, in.characters.at(0));
  std::vector<bool> out(skin.size(), false);
  for (const auto& s : skin.sources())
    for (const auto& [mesh, prim] : prims)
      if (in.model.meshes[std::size_t(s.where.mesh)].name == mesh && s.where.primitive == prim)
        for (std::size_t v = 0; v < s.count; ++v) out[s.first + v] = true;
  return out;
}

std::vector<bool> generated_tail(const std::string& truth_json) {
  const retail::Bytes bytes = retail::read_file(truth_json);
  const nlohmann::json t = nlohmann::json::parse(bytes.begin(), bytes.end());
  const auto& names = t.at("pieces");
  const auto it = std::find(names.begin(), names.end(), "tail");
  if (it == names.end()) throw std::runtime_error(truth_json + ": no tail piece");
  const int tail = int(it - names.begin());
  std::vector<bool> out;
  for (const auto& prim : t.at("membership"))
    for (const auto& piece : prim) out.push_back(piece.get<int>() == tail);
  return out;
}

TailTruth read_tail_truth(const std::string& arg, const std::string& input) {
  TailTruth t;
  const std::string json = ".truth.json";
  if (arg.rfind("prims:", 0) == 0) {
    std::vector<std::pair<std::string, int>> prims;
    std::stringstream list(arg.substr(6));
    for (std::string item; std::getline(list, item, ',');) {
      auto slash = item.rfind('/');
      prims.push_back({item.substr(0, slash), std::stoi(item.substr(slash + 1))});
    }
    t.vertices = primitive_tail(input, prims);
  } else if (arg.size() > json.size() &&
             arg.compare(arg.size() - json.size(), json.size(), json) == 0) {
    t.vertices = generated_tail(arg);
  } else {
    t.artist = arg;
    t.vertices = artist_tail(arg);
  }
  return t;
}

TailEval evaluate_tail(const std::vector<bool>& truth, const std::string& input,
                       const std::string& output, const std::string& artist, bool legs) {
  Loaded a = load(input), b = load(output);
  TailEval e;
  std::size_t nodes_in = a.in.model.nodes.size();
  int hips = a.in.characters.at(0).roles.hips;
  std::size_t major_rerigged = 0, major_both = 0;
  const std::vector<bool> extremity = extremity_joints(a.in.characters.at(0));
  for (std::size_t v = 0; v < truth.size() && v < b.weights.size(); ++v) {
    bool changed = !same(a.weights[v], b.weights[v]);
    double added = 0, on_hips = 0, largest = 0; // on the nodes retail added, on the hips
    bool largest_added = false;                 // the largest weight is on an added node
    for (const auto& [node, w] : b.weights[v]) {
      if (std::size_t(node) >= nodes_in) added += w;
      if (node == hips) on_hips += w;
      if (w > largest) largest = w, largest_added = std::size_t(node) >= nodes_in;
    }
    double was_on_hips = 0; // a band vertex already mostly on the hips that goes wholly to
    for (const auto& [node, w] : a.weights[v]) // them is blended, not re-rigged
      if (node == hips) was_on_hips += w;
    const bool to_hips = on_hips > 0.999 && was_on_hips < 0.5;
    const bool major = changed && (largest_added || to_hips);
    major_rerigged += major, major_both += major && truth[v];
    e.kept_other += truth[v] && 1 - added - on_hips >= 0.05;
    bool rerigged = changed && (added >= 0.25 || to_hips);
    e.truth += truth[v];
    e.rerigged += rerigged;
    e.both += truth[v] && rerigged;
    e.false_major += major && !truth[v];
    e.false_band += rerigged && !major && !truth[v];
    e.extremity_taken +=
        major && !truth[v] && moved_by_extremity(a.weights[v], a.in.characters.at(0), extremity);
  }
  e.recall = e.truth ? double(e.both) / double(e.truth) : 1.0;
  e.precision = e.rerigged ? double(e.both) / double(e.rerigged) : 1.0;
  e.recall_major = e.truth ? double(major_both) / double(e.truth) : 1.0;
  e.precision_major = major_rerigged ? double(major_both) / double(major_rerigged) : 1.0;
  auto ti = torn(a.in, truth), to = torn(b.in, truth);
  std::map<std::string, std::pair<double, double>> ta;
  if (!artist.empty()) {
    std::vector<retail::StageStat> st;
    ta = torn(retail::load_input(artist, retail::BindParams{}, st), truth);
  }
  auto mi = torn_masks(a.in, truth), mo = torn_masks(b.in, truth);
  std::map<std::string, double> lo, lso, la, lsa;
  if (legs) lo = leg_depths(b, truth, false), lso = leg_depths(b, truth, true);
  if (legs && !artist.empty()) {
    const Loaded art = load(artist);
    la = leg_depths(art, truth, false);
    lsa = leg_depths(art, truth, true);
  }
  for (const auto& anim : a.in.model.animations) {
    TailClipRow r;
    const std::vector<char>&in_mask = mi[anim.name], &out_mask = mo[anim.name];
    r.edge_samples = std::min(in_mask.size(), out_mask.size());
    for (std::size_t i = 0; i < r.edge_samples; ++i) {
      r.newly_torn += out_mask[i] && !in_mask[i];
      r.healed += in_mask[i] && !out_mask[i];
    }
    r.clip = anim.name;
    r.input_torn = ti[anim.name].first, r.input_p99 = ti[anim.name].second;
    r.output_torn = to[anim.name].first, r.output_p99 = to[anim.name].second;
    r.output_leg_depth = lo[anim.name];
    r.output_skin_leg_depth = lso[anim.name];
    if (la.count(anim.name)) r.artist_leg_depth = la[anim.name];
    if (lsa.count(anim.name)) r.artist_skin_leg_depth = lsa[anim.name];
    if (ta.count(anim.name))
      r.artist_torn = ta[anim.name].first, r.artist_p99 = ta[anim.name].second;
    e.clips.push_back(r);
  }
  return e;
}

} // namespace test
