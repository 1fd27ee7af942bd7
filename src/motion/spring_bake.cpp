// The input's own VRM spring chains baked into its clips (include/retail/motion/spring_bake.h).
#include "retail/motion/spring_bake.h"

#include "retail/base/error.h"
#include "retail/base/parallel.h"
#include "retail/motion/hair_measure.h"
#include "retail/qa/skin_sampler.h"
#include "retail/rig/animation.h"
#include "retail/rig/skinning.h"
#include "retail/rig/transform.h"
#include "retail/vrm/vrm_springs.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <set>

namespace retail {
namespace {

using Clock = std::chrono::steady_clock;
using Eigen::Matrix4d;
using Eigen::Quaterniond;
using Eigen::Vector3d;

double ms_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

/// The node's saved local rotation (a matrix node: its rotation part).
Quaterniond saved_rotation(const Node& node) {
  if (node.has_matrix) return Quaterniond(rotation_of(local_matrix(node))).normalized();
  const auto& q = node.rotation;
  return Quaterniond(q[3], q[0], q[1], q[2]).normalized();
}

/// Chain c of `springs` alone, ready to bake: its solver rig (anchor 0 its parent node, its
/// colliders' nodes as proxies) and how its joints are read back. Failure: as hair_rig_from_vrm.
ChainBake chain_bake(const VrmSprings& springs, std::size_t c, const Model& model,
                     const std::vector<Matrix4d>& world, const SpringBakeParams& params) {
  const VrmSpringChain& ch = springs.chains[c];
  VrmSprings one;
  one.source = springs.source;
  one.colliders = springs.colliders;
  one.groups = springs.groups;
  one.chains = {ch};
  ChainBake cb;
  std::vector<int> anchors;
  cb.hair_rig = hair_rig_from_vrm(one, model, world, &anchors, &cb.proxy_nodes, params.mapping);
  cb.hair_rig.substep_s = params.bake.spring.substep_s;
  cb.hair_rig.validate();
  cb.solver = ChainSolver::Arc;
  cb.anchor = ch.parent_node;
  cb.nodes = ch.joints;
  for (int n : ch.joints) cb.bones.push_back(model.nodes[std::size_t(n)].name);
  std::vector<Vector3d> points;
  for (int n : ch.joints) points.push_back(world[std::size_t(n)].topRightCorner<3, 1>());
  if (ch.has_virtual_end) {
    const Matrix4d& w = world[std::size_t(ch.joints.back())];
    points.push_back(w.topLeftCorner<3, 3>() * ch.virtual_end_local + w.topRightCorner<3, 1>());
  }
  // A mirrored armature: bind directions with local X reversed, as the stepper reads its frames
  // (ChainBake::mirrored). rotation_of on a reflection still takes world vectors to the
  // joints' own axes, so `dir` is the unmirrored model's.
  cb.mirrored = world[std::size_t(ch.parent_node)].topLeftCorner<3, 3>().determinant() < 0;
  for (std::size_t b = 0; b + 1 < points.size(); ++b) {
    const int parent = b == 0 ? ch.parent_node : ch.joints[b - 1];
    const Vector3d dir =
        rotation_of(world[std::size_t(parent)]).transpose() * (points[b + 1] - points[b]);
    const Quaterniond rest = saved_rotation(model.nodes[std::size_t(ch.joints[b])]);
    cb.rest_rotation.push_back(rest);
    const Vector3d bind = (rest.conjugate() * dir).normalized();
    cb.bind_direction.push_back(cb.mirrored ? Vector3d(-bind.x(), bind.y(), bind.z()) : bind);
  }
  return cb;
}

/// Adds the torso capsule to chain bake `cb` (SPEC §10: the article's Back Flip case) when its
/// sphere and capsule colliders, at the saved pose, leave the trunk's axis uncovered and no
/// joint of the chain rests inside the capsule. The capsule rides the chest (else the last
/// spine joint, else the hips) as that joint's skin does. Records the figures in `out`.
void add_torso_capsule(ChainBake& cb, const Character& ch, const TorsoSkin& skin,
                       const std::vector<Matrix4d>& world, SpringBakeChain& out) {
  HairRig& rig = cb.hair_rig;
  std::vector<Eigen::Affine3d> poses;
  for (int n : cb.proxy_nodes) poses.emplace_back(world[std::size_t(n)]);
  const TorsoFit fit = fit_torso_capsule(placed_colliders(rig, 0, poses), skin);
  out.torso_covered_fraction = fit.covered_fraction;
  const int carrier = trunk_carrier(ch.roles);
  const int j = carrier >= 0 ? ch.joint_index(carrier) : -1;
  if (!fit.fitted || !fit.uncovered || j < 0) return;
  for (int n : out.nodes) {
    const Vector3d x = world[std::size_t(n)].topRightCorner<3, 1>();
    if (segment_distance(x, x, fit.capsule.a, fit.capsule.b) < fit.capsule.radius_m) {
      out.torso_rests_inside = true;
      return;
    }
  }
  HairProxy torso = riding_proxy(fit.capsule, ch.bind_world[std::size_t(j)]);
  torso.proxy = int(cb.proxy_nodes.size());
  cb.proxy_nodes.push_back(carrier);
  rig.proxies.push_back(torso);
  rig.chains[0].colliders.push_back(int(rig.proxies.size()) - 1);
  rig.proxy_count = cb.proxy_nodes.size();
  rig.validate();
  out.torso_capsule = true;
}

/// The character whose skin has one of `nodes` as a joint, or -1.
int owner(const std::vector<Character>& characters, const std::vector<int>& nodes) {
  for (std::size_t k = 0; k < characters.size(); ++k)
    for (int n : nodes)
      if (characters[k].joint_index(n) >= 0) return int(k);
  return -1;
}

/// A chain's harm-check region on its character's skin: the vertices with weight on one of its
/// joints and their one-ring; edges with both ends in it.
struct Region {
  std::vector<bool> vertices;
  std::vector<std::pair<int, int>> edges;
  std::size_t count = 0;
};

Region chain_region(const Document& doc, const Model& model, const SkinSampler& skin,
                    const std::vector<std::pair<int, int>>& edges, const std::vector<int>& nodes) {
  const std::set<int> joints(nodes.begin(), nodes.end());
  std::vector<bool> hair(skin.size(), false);
  for (const SourcePrimitive& src : skin.sources()) {
    const Primitive& prim =
        model.meshes[std::size_t(src.where.mesh)].primitives[std::size_t(src.where.primitive)];
    const std::vector<int>& sj = model.skins[std::size_t(src.where.skin)].joints;
    for_each_influence(doc, model, prim, [&](std::size_t v, int, std::uint32_t j, double w) {
      if (w > 0 && j < sj.size() && joints.count(sj[j])) hair[src.first + v] = true;
    });
  }
  Region r;
  r.vertices = hair;
  for (const auto& [a, b] : edges)
    if (hair[std::size_t(a)] || hair[std::size_t(b)])
      r.vertices[std::size_t(a)] = r.vertices[std::size_t(b)] = true;
  for (const auto& [a, b] : edges)
    if (r.vertices[std::size_t(a)] && r.vertices[std::size_t(b)]) r.edges.push_back({a, b});
  for (bool v : r.vertices) r.count += v ? 1 : 0;
  return r;
}

SpringStretch figures(const RegionStretch& r) {
  return {r.p99, r.max, r.torn_percent, r.edge_max_p99_percent};
}

/// What the pass holds per chain: its bake, and its region's meter on its character's skin.
struct Work {
  bool runs = false; ///< bake it (a rig was built and no earlier chain holds its joints)
  ChainBake bake;
  std::unique_ptr<StretchMeter> meter; ///< null: no skinned region
};

/// Per character with a chain's region: its skin and mesh edges (the meters point at them).
struct Skins {
  std::vector<std::unique_ptr<SkinSampler>> skin;
  std::vector<std::vector<std::pair<int, int>>> edges;
  std::vector<std::unique_ptr<TorsoSkin>> torso; ///< the trunk skin, for the torso capsule
};

/// The chains' works: rigs, then regions and meters; sets each chain's reason when it cannot run.
std::vector<Work> prepare(const Document& doc, const Model& model,
                          const std::vector<Character>& characters, const VrmSprings& springs,
                          const SpringBakeParams& params, Skins& skins, SpringBakeResult& r) {
  const std::vector<Matrix4d> world = world_matrices(model);
  std::vector<Work> works(springs.chains.size());
  std::map<int, std::size_t> held; // joint -> the chain baking it
  skins.skin.resize(characters.size());
  skins.edges.resize(characters.size());
  skins.torso.resize(characters.size());
  for (std::size_t c = 0; c < springs.chains.size(); ++c) {
    const VrmSpringChain& ch = springs.chains[c];
    SpringBakeChain& out = r.chains[c];
    if (ch.parent_node < 0) {
      out.reason = "its root hangs from the scene root: nothing carries it";
      continue;
    }
    try {
      works[c].bake = chain_bake(springs, c, model, world, params);
    } catch (const Error& e) {
      out.reason = std::string("its solver rig cannot be built: ") + e.what();
      continue;
    }
    out.bones = works[c].bake.bind_direction.size();
    for (std::size_t b = 0; b < out.bones && out.reason.empty(); ++b)
      if (held.count(ch.joints[b]))
        out.reason = "its joint " + works[c].bake.bones[b] + " is baked by chain '" +
                     r.chains[held[ch.joints[b]]].name + "'";
    if (!out.reason.empty()) continue;
    for (std::size_t b = 0; b < out.bones; ++b) held[ch.joints[b]] = c;
    works[c].runs = true;
    if (ch.parent_chain >= 0)
      r.warnings.push_back("VRM spring chain '" + out.name +
                           "' hangs from another chain's joint: it is baked as that joint moves "
                           "in the clip, without that chain's swing");
    const int k = out.character;
    if (k < 0) continue;
    if (!skins.skin[std::size_t(k)]) {
      skins.skin[std::size_t(k)] =
          std::make_unique<SkinSampler>(doc, model, characters[std::size_t(k)]);
      skins.edges[std::size_t(k)] = mesh_edges(doc, model, *skins.skin[std::size_t(k)]);
    }
    if (!skins.torso[std::size_t(k)])
      skins.torso[std::size_t(k)] = std::make_unique<TorsoSkin>(
          torso_skin(doc, model, characters[std::size_t(k)], *skins.skin[std::size_t(k)]));
    add_torso_capsule(works[c].bake, characters[std::size_t(k)], *skins.torso[std::size_t(k)],
                      world, out);
    const Region region = chain_region(doc, model, *skins.skin[std::size_t(k)],
                                       skins.edges[std::size_t(k)], ch.joints);
    out.region_vertices = region.count;
    out.region_edges = region.edges.size();
    if (region.edges.empty()) continue;
    works[c].meter = std::make_unique<StretchMeter>(
        std::vector<StretchRig>{{&model, skins.skin[std::size_t(k)].get(), false}}, region.edges,
        region.vertices, params.stretch);
  }
  return works;
}

/// Every clip baked into every running chain, and each region measured under the input's clip.
void bake_clips(const Document& doc, const Model& model, const std::vector<int>& clips,
                const std::vector<Work>& works, const SpringBakeParams& params,
                SpringBakeResult& r) {
  const std::size_t n = clips.size();
  std::vector<double> bake_ms(n, 0), stretch_ms(n, 0);
  std::vector<StretchScratch> scratch(std::min(std::size_t(worker_count(params.threads)), n));
  for (std::size_t c = 0; c < works.size(); ++c)
    if (works[c].runs) {
      r.keys[c].resize(n);
      r.chains[c].clips.resize(n);
      if (works[c].meter) r.chains[c].before.resize(n), r.chains[c].after.resize(n);
    }
  parallel_for_workers(n, params.threads, [&](std::size_t i, std::size_t worker) {
    auto t0 = Clock::now();
    for (std::size_t c = 0; c < works.size(); ++c)
      if (works[c].runs) r.keys[c][i] = bake_clip(doc, model, works[c].bake, clips[i], params.bake);
    auto t1 = Clock::now();
    ClipSampler input(doc, model, clips[i]);
    for (std::size_t c = 0; c < works.size(); ++c)
      if (works[c].meter)
        r.chains[c].before[i] =
            figures(works[c].meter->measure(input, clips[i], scratch[worker])[0].tail);
    bake_ms[i] = ms_between(t0, t1);
    stretch_ms[i] = ms_between(t1, Clock::now());
  });
  for (std::size_t i = 0; i < n; ++i) r.bake_ms += bake_ms[i], r.stretch_ms += stretch_ms[i];
}

/// One round of the harm check: every kept chain's region under each clip with the kept chains'
/// keys; returns the chains that tear more than the input (their reason set).
std::vector<std::size_t> measure_round(const Document& doc, const Model& model,
                                       const std::vector<int>& clips,
                                       const std::vector<Work>& works,
                                       const SpringBakeParams& params, SpringBakeResult& r) {
  const std::size_t n = clips.size();
  std::vector<double> ms(n, 0);
  std::vector<StretchScratch> scratch(std::min(std::size_t(worker_count(params.threads)), n));
  parallel_for_workers(n, params.threads, [&](std::size_t i, std::size_t worker) {
    auto t0 = Clock::now();
    ClipSampler output(doc, model, clips[i]);
    for (std::size_t c = 0; c < works.size(); ++c)
      if (r.chains[c].baked) add_baked_tracks(r.keys[c][i], works[c].bake, output);
    for (std::size_t c = 0; c < works.size(); ++c)
      if (r.chains[c].baked && works[c].meter)
        r.chains[c].after[i] =
            figures(works[c].meter->measure(output, clips[i], scratch[worker])[0].tail);
    ms[i] = ms_between(t0, Clock::now());
  });
  for (double x : ms) r.stretch_ms += x;
  ++r.harm_rounds;
  std::vector<std::size_t> dropped;
  for (std::size_t c = 0; c < works.size() && params.harm_check; ++c) {
    SpringBakeChain& ch = r.chains[c];
    if (!ch.baked || !works[c].meter) continue;
    for (std::size_t i = 0; i < n; ++i) {
      if (!(ch.after[i].torn_percent > ch.before[i].torn_percent + 1e-9)) continue;
      char why[256];
      std::snprintf(why, sizeof why,
                    "harm check: baked, its skin would tear more than the input in '%s' (%.3g%% "
                    "vs %.3g%% of its region's edge samples)",
                    ch.clips[i].name.c_str(), ch.after[i].torn_percent, ch.before[i].torn_percent);
      ch.reason = why;
      dropped.push_back(c);
      break;
    }
  }
  return dropped;
}

} // namespace

void SpringBakeParams::validate() const {
  bake.validate();
  mapping.validate();
  stretch.validate();
  if (max_harm_rounds < 1)
    throw Error(ExitCode::Usage, "spring bake: max_harm_rounds must be >= 1");
  if (threads < 0) throw Error(ExitCode::Usage, "spring bake: threads must not be negative");
}

SpringBakeResult spring_bake(const Document& doc, const Model& model,
                             const std::vector<Character>& characters,
                             const std::vector<int>& clips, const SpringBakeParams& params) {
  params.validate();
  SpringBakeResult r;
  const VrmSprings springs = usable_vrm_springs(doc, model);
  if (!springs.unusable.empty()) {
    r.warnings.push_back("VRM springs not baked: the file's spring metadata cannot be used (" +
                         springs.unusable + ")");
    return r;
  }
  if (springs.empty()) return r;
  r.springs = springs.source;
  r.status = !params.enabled ? "off" : clips.empty() ? "no clips" : "done";
  r.clips = clips.size();
  r.keys.resize(springs.chains.size());
  for (const VrmSpringChain& ch : springs.chains) {
    SpringBakeChain out;
    out.name = ch.name.empty() ? model.nodes[std::size_t(ch.joints[0])].name : ch.name;
    out.path = ch.path;
    out.nodes = ch.joints;
    for (int n : ch.joints) out.joints.push_back(model.nodes[std::size_t(n)].name);
    out.anchor = ch.parent_node;
    out.character = owner(characters, ch.joints);
    r.chains.push_back(std::move(out));
  }
  if (clips.empty() || !params.enabled) return r;
  Skins skins;
  const std::vector<Work> works = prepare(doc, model, characters, springs, params, skins, r);
  bake_clips(doc, model, clips, works, params, r);
  for (std::size_t c = 0; c < works.size(); ++c) r.chains[c].baked = works[c].runs;
  for (std::size_t c = 0; c < works.size(); ++c)
    for (std::size_t i = 0; works[c].runs && i < clips.size(); ++i)
      r.chains[c].clips[i] = r.keys[c][i].bake;
  for (int round = 0; round < params.max_harm_rounds; ++round) {
    const std::vector<std::size_t> dropped = measure_round(doc, model, clips, works, params, r);
    for (std::size_t c : dropped) r.chains[c].baked = false;
    if (dropped.empty()) break;
  }
  for (std::size_t c = 0; c < works.size(); ++c) {
    SpringBakeChain& ch = r.chains[c];
    if (!ch.reason.empty()) {
      r.warnings.push_back("VRM spring chain '" + ch.name + "' kept unbaked: " + ch.reason);
      continue;
    }
    std::vector<ClipBake> mine = ch.clips;
    for (const BakedClip& b : r.keys[c])
      r.warnings.insert(r.warnings.end(), b.warnings.begin(), b.warnings.end());
    warn_unsettled(mine, works[c].bake, r.warnings);
    r.baked += mine.size();
  }
  return r;
}

std::string spring_bake_summary(const SpringBakeResult& r) {
  if (r.status != "done")
    return std::to_string(r.chains.size()) + " chain(s) of " + r.springs + ": " +
           (r.status == "off" ? "not baked (--no-spring-bake, --no-bake or not mode chain)"
                              : "no clip to bake");
  std::size_t baked = 0, kept = 0;
  for (const SpringBakeChain& c : r.chains) (c.baked ? baked : kept) += 1;
  char text[256];
  std::snprintf(text, sizeof text,
                "%zu chain(s) of %s: %zu baked into %zu clip(s), %zu kept unbaked; %d harm "
                "round(s) (worker time: bake %.1f ms, stretch %.1f ms)",
                r.chains.size(), r.springs.c_str(), baked, r.clips, kept, r.harm_rounds, r.bake_ms,
                r.stretch_ms);
  return text;
}

void write_spring_bake(Document& doc, SpringBakeResult& r) {
  for (std::size_t c = 0; c < r.chains.size() && c < r.keys.size(); ++c) {
    if (r.chains[c].baked)
      for (const BakedClip& b : r.keys[c]) write_baked_clip(doc, b, r.chains[c].nodes);
    r.keys[c].clear();
  }
}

} // namespace retail
