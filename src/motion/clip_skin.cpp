// clip_pass's skin kept out of the legs (clip_pass_internal.h): how deep a tail's skin goes into
// its limb colliders in one clip, and the skin tries baked where it goes too deep.
#include "motion/clip_pass_internal.h"

#include "retail/base/units.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <utility>

namespace retail {
namespace clip_detail {

namespace {

/// The deepest point p lies inside any of `capsules`: radius minus its distance from the axis,
/// 0 when it lies inside none (a point outside costs no square root).
double depth_in(const Eigen::Vector3d& p, const std::vector<RestObstacle>& capsules) {
  double deepest = 0;
  for (const RestObstacle& c : capsules) {
    const Eigen::Vector3d ab = c.b - c.a;
    const double len2 = ab.squaredNorm();
    const double t = len2 > 0 ? std::clamp((p - c.a).dot(ab) / len2, 0.0, 1.0) : 0.0;
    const double d2 = (p - (c.a + t * ab)).squaredNorm();
    if (d2 < c.radius * c.radius) deepest = std::max(deepest, c.radius - std::sqrt(d2));
  }
  return deepest;
}

/// Whether `tried` tears no more than `spring` where it is judged: per judged chain, on the
/// piece's own edges neither more newly torn nor more torn edge-samples, at its seam no more
/// newly torn beyond the harm check's noise floor of the seam's edge-samples (harm.h), and
/// harmless by the harm check's rule wherever the spring is; and no larger torn share of the
/// rig's tail or body.
bool tears_no_more(const OutputJudged& tried, const OutputJudged& spring, const HarmParams& harm) {
  for (std::size_t j = 0; j < spring.judge.size() && j < tried.judge.size(); ++j) {
    const EdgeFlips &a = tried.judge[j][0][0], &b = spring.judge[j][0][0];
    if (a.newly_torn > b.newly_torn || a.output_torn > b.output_torn) return false;
    const EdgeFlips &sa = tried.judge[j][1][0], &sb = spring.judge[j][1][0];
    if (sa.newly_torn > sb.newly_torn + noise_floor(sa.edge_samples, harm)) return false;
    if (harmless_clip(b, sb, spring.output_rig.body.torn_percent, harm) &&
        !harmless_clip(a, sa, tried.output_rig.body.torn_percent, harm))
      return false;
  }
  return tried.output_rig.tail.torn_percent <= spring.output_rig.tail.torn_percent &&
         tried.output_rig.body.torn_percent <= spring.output_rig.body.torn_percent;
}

/// The times the skin is measured at in a clip of `duration` seconds: one per substep of the
/// bake (both ends included), at least the stretch's samples.
int skin_samples(double duration, const ClipPassParams& params) {
  const double substeps = std::ceil(duration / params.bake_params.spring.substep_s - 1e-9);
  return std::max(params.stretch.samples, int(std::min(substeps, 1e7)) + 1);
}

/// Chain bi's ClipBake::skin_depth in `clip` (a sampler of the output with its keys): at the
/// stretch's sample times; where that finds skin in a capsule, or the tube round the links went
/// into one at some substep of the bake, also at one sample per substep, the deeper of the two.
/// Past `stop_above` it returns at once (a depth past it, not the deepest).
double measured_depth(const CharacterWork& w, std::size_t bi, const BakedClip& baked,
                      const Model& model, const ClipSampler& clip, const ClipPassParams& params,
                      StretchScratch& scratch, double stop_above = INFINITY) {
  const SkinDepthProbe& probe = w.skin_probes[bi];
  const double coarse =
      skin_depth(probe, model, clip, params.stretch.samples, scratch.positions, stop_above);
  if (!(coarse > 0) && !(baked.skin_tube_depth > 0)) return coarse;
  if (coarse > stop_above) return coarse;
  return std::max(coarse, skin_depth(probe, model, clip, skin_samples(clip.duration(), params),
                                     scratch.positions, stop_above));
}

} // namespace

BakeParams skin_try_params(const BakeParams& params, const SkinTry& t) {
  BakeParams out = params;
  out.collider_skin_share = t.skin_share;
  out.spring.collider_skin_share = std::min(4.0, params.spring.collider_skin_share * t.bend_scale);
  return out;
}

SkinDepthProbe skin_depth_probe(const SkinSampler& skin, const std::vector<std::size_t>& vertices,
                                const std::vector<RestObstacle>& capsules,
                                const std::vector<int>& capsule_joints) {
  SkinDepthProbe p;
  p.skin = &skin;
  if (capsules.empty() || vertices.empty() || capsule_joints.size() != 2 * capsules.size())
    return p;
  std::vector<int> only;
  for (std::size_t v : vertices)
    if (v < skin.size()) only.push_back(int(v));
  p.vertices = skin.distinct(only).skinned; // a copy poses to its representative's bits
  p.slots = skin.slots_used(&p.vertices);
  std::set<int> nodes(capsule_joints.begin(), capsule_joints.end());
  for (int s : p.slots) nodes.insert(skin.joint_nodes()[std::size_t(s)]);
  p.nodes.assign(nodes.begin(), nodes.end());
  p.capsules = capsules;
  p.capsule_joints = capsule_joints;
  for (int v : p.vertices) p.bind_depth.push_back(depth_in(skin.bind()[std::size_t(v)], capsules));
  return p;
}

double skin_depth(const SkinDepthProbe& probe, const Model& model, const ClipSampler& clip,
                  int samples, std::vector<Eigen::Vector3d>& positions, double stop_above) {
  if (probe.capsules.empty()) return NAN; // no legs to measure against
  if (probe.vertices.empty() || samples < 2) return 0;
  std::vector<Eigen::Matrix4d> world(model.nodes.size(), Eigen::Matrix4d::Identity());
  std::vector<RestObstacle> posed = probe.capsules;
  double deepest = 0;
  for (int s = 0; s < samples; ++s) {
    const double t = clip.duration() * s / (samples - 1);
    const std::vector<Eigen::Matrix4d> w = clip.worlds(model, probe.nodes, t);
    for (std::size_t i = 0; i < probe.nodes.size(); ++i) world[std::size_t(probe.nodes[i])] = w[i];
    for (std::size_t k = 0; k < posed.size(); ++k) {
      posed[k].a = world[std::size_t(probe.capsule_joints[2 * k])].topRightCorner<3, 1>();
      posed[k].b = world[std::size_t(probe.capsule_joints[2 * k + 1])].topRightCorner<3, 1>();
    }
    probe.skin->pose_into(world, &probe.vertices, positions, true, &probe.slots);
    for (std::size_t i = 0; i < probe.vertices.size(); ++i)
      deepest = std::max(deepest, depth_in(positions[std::size_t(probe.vertices[i])], posed) -
                                      probe.bind_depth[i]);
    if (deepest > stop_above) break;
  }
  return deepest;
}

void keep_skin_clear(const ClipPassInput& in, const Rigged& rigged,
                     const std::vector<CharacterWork>& works,
                     const std::vector<HairWork>& hair_works, std::size_t wi, int clip,
                     const ClipSampler& input_clip, const ClipSampler& output_clip,
                     const ClipPassParams& params, OutputJudged& m, ClipOutcome& out,
                     StretchScratch& scratch) {
  const CharacterWork& w = works[wi];
  const BakeParams& bp = params.bake_params;
  const double bound = bp.skin_depth_bound_h * rigged.characters[w.character].height;
  // Below the floor (world units), a try may go as deep as the spring did or as the floor
  // warning ignores (1e-3 x H).
  const double floor_allowance = 1e-3 * rigged.characters[w.character].height;
  for (std::size_t bi = 0; bi < w.skin_probes.size() && bi < out.baked[wi].size(); ++bi) {
    BakedClip& kept = out.baked[wi][bi];
    kept.bake.skin_depth = measured_depth(w, bi, kept, rigged.model, output_clip, params, scratch);
    if (!(kept.bake.skin_depth > bound)) continue;
    BakedClip spring = std::move(kept);
    bool kept_try = false;
    for (std::size_t t = 0; t < w.skin_tries.size() && !kept_try; ++t) {
      if (bi >= w.skin_tries[t].size() || w.skin_tries[t][bi].nodes.empty()) continue;
      kept = bake_clip(*in.doc, rigged.model, w.skin_tries[t][bi], clip,
                       skin_try_params(bp, bp.skin_tries[t]));
      if (!(kept.bake.tip_swing_deg <= spring.bake.tip_swing_deg + bp.skin_try_swing_deg) ||
          !(kept.bake.floor_penetration <=
            std::max(spring.bake.floor_penetration, floor_allowance)))
        continue;
      // The cheap tests first: the depth skins the chain alone, the judgement every judged edge.
      const ClipSampler tried = output_sampler(in, rigged, works, hair_works, out, clip);
      const double d = measured_depth(w, bi, kept, rigged.model, tried, params, scratch, bound);
      if (!(d <= bound)) continue;
      OutputJudged h = judge_output(w, out.input_rigs[wi], input_clip, tried, clip, scratch);
      if (!tears_no_more(h, m, params.harm)) continue;
      kept.bake.skin_depth = d;
      kept.bake.skin_try = int(t) + 1;
      m = std::move(h);
      kept_try = true;
    }
    if (!kept_try) kept = std::move(spring);
  }
}

void measure_held_skin(const ClipPassInput& in, const Rigged& rigged,
                       const std::vector<CharacterWork>& works,
                       const std::vector<HairWork>& hair_works, std::size_t wi, int clip,
                       const ClipPassParams& params, ClipOutcome& out, StretchScratch& scratch) {
  const CharacterWork& w = works[wi];
  bool any = false;
  for (std::size_t bi = 0; bi < w.skin_probes.size() && bi < out.baked[wi].size(); ++bi)
    any = any || out.baked[wi][bi].bake.held;
  if (!any) return;
  const ClipSampler held = output_sampler(in, rigged, works, hair_works, out, clip);
  for (std::size_t bi = 0; bi < w.skin_probes.size() && bi < out.baked[wi].size(); ++bi)
    if (out.baked[wi][bi].bake.held)
      out.baked[wi][bi].bake.skin_depth =
          skin_depth(w.skin_probes[bi], rigged.model, held, skin_samples(held.duration(), params),
                     scratch.positions);
}

void warn_skin_depth(const std::vector<ClipBake>& bakes, const ChainBake& chain, double bound,
                     double height, bool tried, std::vector<std::string>& warnings) {
  std::size_t count = 0;
  const ClipBake* deepest = deepest_past(bakes, &ClipBake::skin_depth, bound, count);
  if (!deepest) return;
  char share[32];
  std::snprintf(share, sizeof share, "%.3g%% of H", height > 0 ? 100 * bound / height : 0.0);
  warnings.push_back(
      "chain " + chain.bones.front() + ": the tail's skin enters the legs in " +
      std::to_string(count) + " clip(s), deepest " + length_text(deepest->skin_depth, height) +
      " in '" + deepest->name +
      (tried ? "': no skin try brought it within " + std::string(share) +
                   " without tearing more, swinging wider or going deeper below the floor"
             : std::string("': skin tries are off (--no-skin-tries)")) +
      "; see skin_depth and docs/spring.md \"Skin kept out of the legs\"");
}

} // namespace clip_detail
} // namespace retail
