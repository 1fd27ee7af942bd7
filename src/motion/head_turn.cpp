// `retail report IN --head-turn` (include/retail/motion/head_turn.h; docs/hair.md).
#include "retail/motion/head_turn.h"

#include "retail/base/error.h"
#include "retail/qa/order_stats.h"
#include "retail/qa/skin_sampler.h"
#include "retail/rig/skinning.h"
#include "retail/rig/transform.h"
#include "retail/vrm/vrm_springs.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

namespace retail {
namespace {

using Eigen::Affine3d;
using Eigen::Matrix4d;
using Eigen::Vector3d;

/// A chain's place in the mesh: its character's sampler and its hair edges.
struct ChainMesh {
  int character = -1;                     ///< index into Run::skins (-1: no skin moves with it)
  std::vector<std::pair<int, int>> edges; ///< hair edges, original vertex ids
  std::vector<double> bind_length2;       ///< per edge: squared bind length
  std::vector<double> max_ratio2;         ///< per edge: largest squared ratio so far
  std::size_t vertices = 0;
};

/// Everything the run reads at every sample.
struct Run {
  HeadTurnScene scene;
  std::vector<Matrix4d> rest, local;        ///< per node: saved world and local matrices
  std::vector<int> order;                   ///< nodes the turn moves, parents first
  std::vector<std::pair<int, int>> link_of; ///< per node: (chain, link) it heads, or (-1, -1)
  std::vector<Vector3d> child_local;        ///< per node heading a link: the link end, its frame
  int head = -1;
  std::vector<SkinSampler> skins;     ///< per character that hair vertices belong to
  std::vector<std::vector<int>> only; ///< per sampler: the vertices the hair edges touch
  std::vector<ChainMesh> mesh;        ///< per chain
};

double round6(double v) {
  return std::round(v * 1e6) / 1e6;
}

/// flags[n]: node n is `root` or below it.
void mark_subtree(const Model& model, int root, std::vector<char>& flags) {
  std::vector<int> stack = {root};
  while (!stack.empty()) {
    int n = stack.back();
    stack.pop_back();
    if (flags[std::size_t(n)]) continue;
    flags[std::size_t(n)] = 1;
    for (int c : model.nodes[std::size_t(n)].children) stack.push_back(c);
  }
}

/// The nodes flagged, parents first (depth-first from the scene's roots, children in order).
std::vector<int> parent_first(const Model& model, const std::vector<char>& flags) {
  std::vector<int> out, stack;
  for (std::size_t n = model.nodes.size(); n-- > 0;)
    if (model.nodes[n].parent < 0) stack.push_back(int(n));
  while (!stack.empty()) {
    int n = stack.back();
    stack.pop_back();
    if (flags[std::size_t(n)]) out.push_back(n);
    const auto& ch = model.nodes[std::size_t(n)].children;
    for (auto it = ch.rbegin(); it != ch.rend(); ++it) stack.push_back(*it);
  }
  return out;
}

Affine3d as_affine(const Matrix4d& m) {
  Affine3d a;
  a.matrix() = m;
  return a;
}

/// The head node and the character it belongs to: the first character with a head role.
int find_head(const std::vector<Character>& characters, int* character) {
  for (std::size_t k = 0; k < characters.size(); ++k)
    if (characters[k].roles.head >= 0) {
      *character = int(k);
      return characters[k].roles.head;
    }
  return -1;
}

/// Whether chain c at rest (its root and its links, points_per_link points each) has a point
/// inside capsule `cap`: a chain authored on the trunk (a ribbon on the chest) cannot take the
/// trunk as its collider, its root would sit inside it.
bool rests_inside(const HairRig& rig, const HairPoses& rest, std::size_t c, const WorldCapsule& cap,
                  int points) {
  const HairChain& ch = rig.chains[c];
  const Affine3d& anchor = rest.anchors[std::size_t(ch.anchor)];
  Vector3d o = anchor * ch.root_local;
  for (const HairLink& l : ch.links) {
    const Vector3d x = o + anchor.linear() * l.rest_local;
    for (int k = 0; k < points; ++k) {
      const Vector3d p = o + (double(k) / (points - 1)) * (x - o);
      if (segment_distance(p, p, cap.a, cap.b) < cap.radius_m) return true;
    }
    o = x;
  }
  return false;
}

/// Adds the torso capsule to every chain whose sphere and capsule colliders, at rest, leave the
/// trunk's axis uncovered; fills the chains' coverage figures.
/// A chain resting inside the capsule does not get it (rests_inside).
TorsoFit add_torso_capsule(Run& run, const TorsoSkin& skin, const HeadTurnReportParams& params,
                           std::vector<HeadTurnChainReport>& chains) {
  HairRig& rig = run.scene.rig;
  TorsoFit fit;
  int proxy = -1;
  for (std::size_t c = 0; c < rig.chains.size(); ++c) {
    fit = fit_torso_capsule(placed_colliders(rig, c, run.scene.rest.proxies), skin, params.torso);
    if (!fit.fitted) return fit;
    chains[c].torso_covered_fraction = fit.covered_fraction;
    if (!fit.uncovered || !params.torso_capsule) continue;
    chains[c].torso_rests_inside =
        rests_inside(rig, run.scene.rest, c, fit.capsule, params.turn.points_per_link);
    if (chains[c].torso_rests_inside) continue;
    if (proxy < 0) {
      HairProxy torso;
      torso.proxy = int(run.scene.rest.proxies.size());
      torso.head_local = fit.capsule.a;
      torso.tail_local = fit.capsule.b;
      torso.radius_m = fit.capsule.radius_m;
      run.scene.rest.proxies.push_back(Affine3d::Identity());
      run.scene.proxy_on_head.push_back(false);
      proxy = int(rig.proxies.size());
      rig.proxies.push_back(torso);
      rig.proxy_count = run.scene.rest.proxies.size();
    }
    rig.chains[c].colliders.push_back(proxy);
    chains[c].torso_capsule_added = true;
  }
  return fit;
}

/// Per chain: its character, its hair vertices and edges; per sampler the vertices to skin.
void find_hair(const Document& doc, const Model& model, const HeldSkins* held,
               const std::vector<Character>& characters,
               const std::vector<std::vector<int>>& joints_of, Run& run,
               std::vector<HeadTurnChainReport>& out) {
  std::vector<int> sampler_of(characters.size(), -1);
  std::vector<std::vector<char>> touched;
  std::vector<std::vector<std::pair<int, int>>> all_edges;
  run.mesh.resize(joints_of.size());
  for (std::size_t c = 0; c < joints_of.size(); ++c) {
    const std::set<int> nodes(joints_of[c].begin(), joints_of[c].end());
    int k = -1;
    for (std::size_t i = 0; i < characters.size() && k < 0; ++i)
      for (int n : nodes)
        if (characters[i].joint_index(n) >= 0) k = int(i);
    if (k < 0) continue;
    if (sampler_of[std::size_t(k)] < 0) {
      sampler_of[std::size_t(k)] = int(run.skins.size());
      run.skins.emplace_back(doc, model, characters[std::size_t(k)], held);
      touched.emplace_back(run.skins.back().size(), 0);
      all_edges.push_back(mesh_edges(doc, model, run.skins.back()));
    }
    const int s = sampler_of[std::size_t(k)];
    const SkinSampler& skin = run.skins[std::size_t(s)];
    std::vector<char> hair(skin.size(), 0);
    for (const SourcePrimitive& src : skin.sources()) {
      const std::vector<int>& joints = model.skins[std::size_t(src.where.skin)].joints;
      for_each_influence(doc, model, held, src.where.mesh, src.where.primitive,
                         [&](std::size_t v, int, std::uint32_t j, double) {
                           if (j < joints.size() && nodes.count(joints[j])) hair[src.first + v] = 1;
                         });
    }
    ChainMesh& m = run.mesh[c];
    m.character = s;
    for (char h : hair) m.vertices += h ? 1 : 0;
    for (const auto& [a, b] : all_edges[std::size_t(s)]) {
      if (!hair[std::size_t(a)] && !hair[std::size_t(b)]) continue;
      double l2 = (skin.bind()[std::size_t(a)] - skin.bind()[std::size_t(b)]).squaredNorm();
      if (!(l2 > 0)) continue;
      m.edges.push_back({a, b});
      m.bind_length2.push_back(l2);
      touched[std::size_t(s)][std::size_t(a)] = touched[std::size_t(s)][std::size_t(b)] = 1;
    }
    m.max_ratio2.assign(m.edges.size(), 0.0);
    out[c].hair_vertices = m.vertices;
    out[c].hair_edges = m.edges.size();
  }
  for (const auto& t : touched) {
    run.only.emplace_back();
    for (std::size_t v = 0; v < t.size(); ++v)
      if (t[v]) run.only.back().push_back(int(v));
  }
}

/// The solver scene at the saved pose: anchors and proxies, what rides the head, which node
/// heads which link and where the link ends in that node's frame; the nodes the turn moves.
void build_scene(const Model& model, HeadTurnChains& in, Run& run) {
  run.scene.rig = std::move(in.rig);
  std::vector<char> on_head(model.nodes.size(), 0), moving;
  mark_subtree(model, run.head, on_head);
  moving = on_head;
  for (int n : in.anchor_nodes) {
    run.scene.rest.anchors.push_back(n >= 0 ? as_affine(run.rest[std::size_t(n)])
                                            : Affine3d::Identity());
    run.scene.anchor_on_head.push_back(n >= 0 && on_head[std::size_t(n)]);
  }
  for (int n : in.proxy_nodes) {
    run.scene.rest.proxies.push_back(as_affine(run.rest[std::size_t(n)]));
    run.scene.proxy_on_head.push_back(on_head[std::size_t(n)] != 0);
  }
  run.scene.head_pivot = run.rest[std::size_t(run.head)].topRightCorner<3, 1>();
  run.link_of.assign(model.nodes.size(), {-1, -1});
  run.child_local.assign(model.nodes.size(), Vector3d::Zero());
  for (std::size_t c = 0; c < in.joints.size(); ++c) {
    const std::vector<int>& joints = in.joints[c];
    const std::size_t links = run.scene.rig.chains[c].links.size();
    for (std::size_t k = 0; k < links; ++k) {
      const int n = joints[k];
      if (run.link_of[std::size_t(n)].first >= 0) continue; // listed by an earlier chain
      run.link_of[std::size_t(n)] = {int(c), int(k)};
      run.child_local[std::size_t(n)] = k + 1 < joints.size()
                                            ? Vector3d((run.rest[std::size_t(n)].inverse() *
                                                        run.rest[std::size_t(joints[k + 1])].col(3))
                                                           .head<3>())
                                            : in.end_local[c];
      mark_subtree(model, n, moving);
    }
  }
  run.order = parent_first(model, moving);
}

/// Node world matrices at one sample: the head and what hangs from it turned, each node heading
/// a link turned (the shortest arc) from where its parent carries it onto its simulated link.
void pose_nodes(const Model& model, const Run& run, const Affine3d& turn, const HairState& state,
                std::vector<Matrix4d>& world) {
  world = run.rest;
  for (int n : run.order) {
    const std::size_t i = std::size_t(n);
    if (n == run.head) {
      world[i] = turn.matrix() * run.rest[i];
      continue;
    }
    const int parent = model.nodes[i].parent;
    Matrix4d a = parent >= 0 ? Matrix4d(world[std::size_t(parent)] * run.local[i]) : run.local[i];
    const auto [c, k] = run.link_of[i];
    if (c >= 0) {
      const Vector3d o = a.topRightCorner<3, 1>();
      const Vector3d target = state.chains[std::size_t(c)].x[std::size_t(k)] - o;
      const Vector3d now = a.topLeftCorner<3, 3>() * run.child_local[i];
      if (target.norm() > 0 && now.norm() > 0)
        a.topLeftCorner<3, 3>() =
            Eigen::Quaterniond::FromTwoVectors(now, target).toRotationMatrix() *
            a.topLeftCorner<3, 3>();
    }
    world[i] = a;
  }
}

/// The head's turn at time t: yaw about `up` through the pivot (as head_turn_poses turns).
Affine3d turn_at(const HeadTurnScene& scene, double t, const HeadTurnParams& params) {
  return Eigen::Translation3d(scene.head_pivot) *
         Eigen::AngleAxisd(head_turn_yaw(t, params), scene.up.normalized()) *
         Eigen::Translation3d(-scene.head_pivot);
}

/// Penetration and tips of every chain at one sample. The first call (the rest state) records
/// each sampled point's depth in each proxy; later ones measure how much deeper it lies.
void sample_chains(const HairRig& rig, const HairPoses& poses, const HairState& state,
                   const HeadTurnParams& params, std::vector<std::vector<double>>& rest_depth,
                   std::vector<HeadTurnChainReport>& out) {
  const bool first = out[0].tips.empty();
  const int points = params.points_per_link;
  for (std::size_t c = 0; c < rig.chains.size(); ++c) {
    const HairChain& ch = rig.chains[c];
    HeadTurnChainReport& r = out[c];
    std::size_t slot = 0;
    for (std::size_t i = 0; i < ch.links.size(); ++i) {
      const Vector3d o = joint_position(rig, poses, state, c, i), x = state.chains[c].x[i];
      for (int k = (i == 0 ? 1 : 0); k < points; ++k) {
        const Vector3d p = o + (double(k) / (points - 1)) * (x - o);
        for (int pi : ch.colliders) {
          const HairProxy& proxy = rig.proxies[std::size_t(pi)];
          double d = proxy_depth(p, proxy, poses.proxies[std::size_t(proxy.proxy)]);
          if (first) rest_depth[c].push_back(d);
          const double at_rest = rest_depth[c][slot++];
          r.rest_overlap_m = std::max(r.rest_overlap_m, at_rest);
          r.penetration_m = std::max(r.penetration_m, d - std::max(0.0, at_rest));
        }
      }
    }
    r.tips.push_back(state.chains[c].x.back());
  }
}

/// Every chain's hair edges at one sample: the skin posed, each edge's largest ratio kept.
void sample_mesh(const Model& model, Run& run, const Affine3d& turn, const HairState& state,
                 std::vector<Matrix4d>& world, std::vector<Vector3d>& positions) {
  pose_nodes(model, run, turn, state, world);
  for (std::size_t s = 0; s < run.skins.size(); ++s) {
    run.skins[s].pose_into(world, &run.only[s], positions);
    for (ChainMesh& m : run.mesh) {
      if (m.character != int(s)) continue;
      for (std::size_t e = 0; e < m.edges.size(); ++e) {
        const auto [a, b] = m.edges[e];
        double r2 = (positions[std::size_t(a)] - positions[std::size_t(b)]).squaredNorm() /
                    m.bind_length2[e];
        m.max_ratio2[e] = std::max(m.max_ratio2[e], r2);
      }
    }
  }
}

/// The sequence: solver substeps from the rest state, a sample every solver_hz / sample_hz
/// substeps (sample 0: the rest pose); then each chain's tip curl at the end.
void run_sequence(const Model& model, Run& run, const HeadTurnParams& params, HeadTurnReport& out) {
  HairRig rig = run.scene.rig;
  rig.substep_s = 1 / params.solver_hz;
  rig.validate();
  const long per_sample = std::lround(params.solver_hz / params.sample_hz);
  const long substeps = std::lround((params.turn_s + params.settle_s) * params.solver_hz);
  std::vector<std::vector<double>> rest_depth(rig.chains.size());
  std::vector<double> times;
  std::vector<Matrix4d> world;
  std::vector<Vector3d> positions;
  HairPoses prev = head_turn_poses(run.scene, 0, params);
  HairState state = rest_state(rig, prev);
  auto sample = [&](double t, const HairPoses& poses) {
    sample_chains(rig, poses, state, params, rest_depth, out.chains);
    times.push_back(t);
    sample_mesh(model, run, turn_at(run.scene, t, params), state, world, positions);
    ++out.samples;
  };
  sample(0, prev);
  for (long s = 1; s <= substeps; ++s) {
    const double t = double(s) / params.solver_hz; // from the substep count: no drift
    HairPoses next = head_turn_poses(run.scene, t, params);
    step(rig, prev, next, state);
    if (s % per_sample == 0) sample(t, next);
    prev = std::move(next);
  }
  const double deg = 180 / std::acos(-1.0);
  const double quiet_from = params.turn_s + params.settle_s - params.quiet_window_s;
  for (std::size_t c = 0; c < rig.chains.size(); ++c) {
    out.chains[c].quiet_tip_movement_m = quiet_tip_movement(out.chains[c].tips, times, quiet_from);
    const HairChain& ch = rig.chains[c];
    const std::size_t last = ch.links.size() - 1;
    const Vector3d now = state.chains[c].x[last] - joint_position(rig, prev, state, c, last);
    const Vector3d rest = prev.anchors[std::size_t(ch.anchor)].linear() * ch.links[last].rest_local;
    out.chains[c].tip_curl_deg = deg * std::atan2(now.cross(rest).norm(), now.dot(rest));
  }
}

/// A chain's stretch figures from its edges' largest ratios.
void finish_stretch(const ChainMesh& m, const SkinSampler* skin, HeadTurnChainReport& r) {
  if (m.edges.empty()) return;
  std::vector<double> ratios(m.max_ratio2.size());
  std::size_t worst = 0;
  for (std::size_t e = 0; e < ratios.size(); ++e) {
    ratios[e] = std::sqrt(m.max_ratio2[e]);
    if (m.max_ratio2[e] > m.max_ratio2[worst]) worst = e;
  }
  r.worst.a = m.edges[worst].first;
  r.worst.b = m.edges[worst].second;
  r.worst.ratio = ratios[worst];
  for (const auto& src : skin->sources())
    if (std::size_t(r.worst.a) >= src.first && std::size_t(r.worst.a) < src.first + src.count) {
      r.worst.primitive = "meshes[" + std::to_string(src.where.mesh) + "].primitives[" +
                          std::to_string(src.where.primitive) + "]";
      r.worst.local_a = int(std::size_t(r.worst.a) - src.first);
      r.worst.local_b = int(std::size_t(r.worst.b) - src.first);
    }
  r.edge_max_p99_percent = edge_max_p99_percent(std::move(ratios));
}

Json vec_json(const Vector3d& v) {
  return Json::array({round6(v.x()), round6(v.y()), round6(v.z())});
}

} // namespace

double edge_max_p99_percent(std::vector<double> max_ratios) {
  if (max_ratios.empty()) return 0;
  return 100 * (percentile(max_ratios, 0.99) - 1);
}

double quiet_tip_movement(const std::vector<Vector3d>& tips, const std::vector<double>& times_s,
                          double from_s) {
  double worst = 0;
  for (std::size_t k = 1; k < tips.size() && k < times_s.size(); ++k)
    if (times_s[k] > from_s - 1e-9) worst = std::max(worst, (tips[k] - tips[k - 1]).norm());
  return worst;
}

void HeadTurnReportParams::validate() const {
  turn.validate();
  torso.validate();
  mapping.validate();
}

HeadTurnReport head_turn_chains(const Document& doc, const Model& model,
                                const std::vector<Character>& characters, std::size_t character,
                                HeadTurnChains chains, const HeadTurnReportParams& params,
                                const HeldSkins* held) {
  params.validate();
  chains.rig.validate();
  const std::size_t n = chains.rig.chains.size();
  if (chains.anchor_nodes.size() != chains.rig.anchor_count ||
      chains.proxy_nodes.size() != chains.rig.proxy_count || chains.joints.size() != n ||
      chains.end_local.size() != n || character >= characters.size())
    throw Error(ExitCode::Usage, "head turn: the chains' node lists do not fit their rig");
  HeadTurnReport out;
  Run run;
  run.head = characters[character].roles.head;
  if (run.head < 0)
    throw Error(ExitCode::Unsupported, "head turn: the character has no head bone to turn");
  run.rest = world_matrices(model);
  for (const Node& node : model.nodes) run.local.push_back(local_matrix(node));
  out.head = run.head;
  out.chains.resize(n);
  for (std::size_t c = 0; c < n; ++c) {
    out.chains[c].name = chains.rig.chains[c].name;
    out.chains[c].nodes = chains.joints[c];
    out.chains[c].links = chains.rig.chains[c].links.size();
  }
  find_hair(doc, model, held, characters, chains.joints, run, out.chains);
  build_scene(model, chains, run);
  const Character& hc = characters[character];
  SkinSampler body(doc, model, hc, held);
  out.torso = add_torso_capsule(run, torso_skin(doc, model, hc, body, held), params, out.chains);
  for (std::size_t c = 0; c < n; ++c)
    out.chains[c].colliders = run.scene.rig.chains[c].colliders.size();
  run_sequence(model, run, params.turn, out);
  for (std::size_t c = 0; c < n; ++c)
    if (run.mesh[c].character >= 0)
      finish_stretch(run.mesh[c], &run.skins[std::size_t(run.mesh[c].character)], out.chains[c]);
  return out;
}

HeadTurnReport head_turn_report(const Document& doc, const Model& model,
                                const std::vector<Character>& characters,
                                const HeadTurnReportParams& params) {
  params.validate();
  VrmSprings springs = usable_vrm_springs(doc, model);
  HeadTurnReport empty;
  empty.springs = springs.source;
  empty.warnings = springs.warnings;
  if (!springs.unusable.empty())
    empty.warnings.push_back(
        "VRM springs not measured: the file's spring metadata cannot be used (" + springs.unusable +
        ")");
  if (springs.empty()) return empty;
  int head_character = -1;
  if (find_head(characters, &head_character) < 0)
    throw Error(ExitCode::Unsupported,
                "the file has " + std::to_string(springs.chains.size()) +
                    " spring chain(s) but no character with a head bone to turn (roles: no head)");
  HeadTurnChains chains;
  try {
    chains.rig = hair_rig_from_vrm(springs, model, world_matrices(model), &chains.anchor_nodes,
                                   &chains.proxy_nodes, params.mapping);
  } catch (const Error& e) {
    if (e.code() == ExitCode::Usage) throw;
    empty.warnings.push_back(
        std::string("VRM springs not measured: the file's springs cannot be simulated (") +
        e.what() + ")");
    return empty;
  }
  for (const VrmSpringChain& ch : springs.chains) {
    chains.joints.push_back(ch.joints);
    chains.end_local.push_back(ch.virtual_end_local);
  }
  HeadTurnReport out = head_turn_chains(doc, model, characters, std::size_t(head_character),
                                        std::move(chains), params);
  out.springs = springs.source;
  out.warnings = springs.warnings;
  for (std::size_t c = 0; c < springs.chains.size(); ++c)
    if (springs.chains[c].parent_chain >= 0)
      out.warnings.push_back("chain '" + out.chains[c].name +
                             "' hangs from another chain's joint: its anchor is carried by the "
                             "head turn at rest, not by that joint's swing");
  return out;
}

Json head_turn_sequence_json(const HeadTurnParams& p) {
  return {{"turn_s", p.turn_s},
          {"settle_s", p.settle_s},
          {"solver_hz", p.solver_hz},
          {"sample_hz", p.sample_hz},
          {"amplitude_deg", p.amplitude_deg},
          {"turn_period_s", p.turn_period_s},
          {"quiet_window_s", p.quiet_window_s},
          {"points_per_link", p.points_per_link}};
}

Json head_turn_chain_json(const HeadTurnChainReport& c) {
  Json worst = nullptr;
  if (c.hair_edges > 0)
    worst = {{"primitive", c.worst.primitive},
             {"a", c.worst.local_a},
             {"b", c.worst.local_b},
             {"stretch_percent", round6(100 * (c.worst.ratio - 1))}};
  return {{"links", c.links},
          {"hair_vertices", c.hair_vertices},
          {"hair_edges", c.hair_edges},
          {"edge_max_p99_percent", round6(c.edge_max_p99_percent)},
          {"worst_edge", worst},
          {"penetration_mm", round6(1e3 * c.penetration_m)},
          {"rest_overlap_mm", round6(1e3 * c.rest_overlap_m)},
          {"quiet_tip_movement_mm", round6(1e3 * c.quiet_tip_movement_m)},
          {"tip_curl_deg", round6(c.tip_curl_deg)},
          {"colliders", c.colliders}};
}

Json head_turn_json(const HeadTurnReport& report, const Model& model,
                    const HeadTurnReportParams& params, const std::string& file,
                    const std::string& sha256) {
  const HeadTurnParams& p = params.turn;
  Json chains = Json::array();
  for (const HeadTurnChainReport& c : report.chains) {
    Json names = Json::array();
    for (int n : c.nodes) names.push_back(model.nodes[std::size_t(n)].name);
    Json entry = {{"name", c.name}, {"nodes", c.nodes}, {"joints", names}};
    entry.update(head_turn_chain_json(c));
    entry["torso_capsule"] = {{"added", c.torso_capsule_added},
                              {"covered_fraction", round6(c.torso_covered_fraction)},
                              {"rests_inside", c.torso_rests_inside}};
    chains.push_back(std::move(entry));
  }
  Json torso = nullptr;
  if (report.torso.fitted)
    torso = {{"a", vec_json(report.torso.capsule.a)},
             {"b", vec_json(report.torso.capsule.b)},
             {"radius", round6(report.torso.capsule.radius_m)},
             {"vertices", report.torso.vertices}};
  Json head = nullptr;
  if (report.head >= 0)
    head = {{"node", report.head}, {"name", model.nodes[std::size_t(report.head)].name}};
  return {{"schema", "retail.headturn/1"},
          {"tool", {{"name", "retail"}, {"version", RETAIL_VERSION}}},
          {"file", file},
          {"sha256", sha256},
          {"springs", report.springs},
          {"sequence", head_turn_sequence_json(p)},
          {"samples", report.samples},
          {"head", head},
          {"torso_capsule", torso},
          {"chains", chains},
          {"warnings", report.warnings}};
}

std::string format_head_turn_table(const HeadTurnReport& report) {
  std::string out;
  char line[256];
  std::snprintf(line, sizeof line, "%-28s %5s %7s %10s %9s %10s %12s %8s  %s\n", "head turn: chain",
                "links", "edges", "p99 max %", "worst %", "penetr mm", "quiet tip mm", "curl deg",
                "torso capsule");
  out += line;
  for (const HeadTurnChainReport& c : report.chains) {
    std::string name = c.name.size() > 28 ? c.name.substr(0, 25) + "..." : c.name;
    std::snprintf(line, sizeof line, "%-28s %5zu %7zu %10.3f %9.3f %10.4f %12.6f %8.3f  %s\n",
                  name.c_str(), c.links, c.hair_edges, c.edge_max_p99_percent,
                  c.hair_edges ? 100 * (c.worst.ratio - 1) : 0.0, 1e3 * c.penetration_m,
                  1e3 * c.quiet_tip_movement_m, c.tip_curl_deg,
                  c.torso_capsule_added  ? "added (colliders miss the trunk)"
                  : c.torso_rests_inside ? "not added: the chain rests inside it"
                                         : "-");
    out += line;
  }
  return out;
}

} // namespace retail
