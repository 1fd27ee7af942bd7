// Head-turn measurement and the torso capsule (include/retail/motion/hair_measure.h; docs/hair.md).
#include "retail/motion/hair_measure.h"

#include "retail/base/error.h"
#include "retail/rig/skinning.h"
#include "retail/rig/transform.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace retail {
namespace {

void positive(double v, const char* name) {
  if (!(v > 0) || !std::isfinite(v))
    fail_usage(std::string("head turn: ") + name + " must be positive");
}

double chain_penetration(const HairRig& rig, const HairPoses& poses, const HairState& state,
                         std::size_t c, int points) {
  const HairChain& ch = rig.chains[c];
  double worst = 0;
  for (std::size_t i = 0; i < ch.links.size(); ++i) {
    Eigen::Vector3d o = joint_position(rig, poses, state, c, i);
    Eigen::Vector3d x = state.chains[c].x[i];
    for (int k = (i == 0 ? 1 : 0); k < points; ++k) {
      Eigen::Vector3d p = o + (double(k) / (points - 1)) * (x - o);
      for (int pi : ch.colliders) {
        const HairProxy& proxy = rig.proxies[std::size_t(pi)];
        worst = std::max(worst, proxy_depth(p, proxy, poses.proxies[std::size_t(proxy.proxy)]));
      }
    }
  }
  return worst;
}

double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  double pos = q * double(v.size() - 1);
  std::size_t lo = std::size_t(std::floor(pos));
  std::size_t hi = std::min(v.size() - 1, lo + 1);
  return v[lo] + (pos - double(lo)) * (v[hi] - v[lo]);
}

} // namespace

double proxy_depth(const Eigen::Vector3d& x, const HairProxy& proxy, const Eigen::Affine3d& pose) {
  WorldCapsule c = place(proxy, pose);
  if (proxy.plane) {
    Eigen::Vector3d n = (pose.linear().inverse().transpose() * proxy.normal_local).normalized();
    return -(x - c.a).dot(n);
  }
  double d = segment_distance(x, x, c.a, c.b);
  return proxy.inside ? d - c.radius_m : c.radius_m - d;
}

void HeadTurnParams::validate() const {
  positive(turn_s, "turn_s");
  positive(solver_hz, "solver_hz");
  positive(sample_hz, "sample_hz");
  positive(turn_period_s, "turn_period_s");
  if (!(settle_s >= 0) || !std::isfinite(settle_s)) fail_usage("head turn: settle_s must be >= 0");
  if (!std::isfinite(amplitude_deg)) fail_usage("head turn: amplitude_deg must be finite");
  if (!(quiet_window_s >= 0) || quiet_window_s > turn_s + settle_s)
    fail_usage("head turn: quiet_window_s must be within the run");
  double ratio = solver_hz / sample_hz;
  if (std::abs(ratio - std::round(ratio)) > 1e-9 || ratio < 1)
    fail_usage("head turn: solver_hz must be a whole multiple of sample_hz");
  if (points_per_link < 2) fail_usage("head turn: points_per_link must be >= 2");
  if ((turn_s + settle_s) * solver_hz > double(1 << 24))
    fail_usage("head turn: more than 2^24 substeps");
}

double head_turn_yaw(double t, const HeadTurnParams& p) {
  if (t <= 0 || t >= p.turn_s) return 0;
  const double pi = std::acos(-1.0);
  return p.amplitude_deg * pi / 180 * std::sin(2 * pi * t / p.turn_period_s) *
         std::sin(pi * t / p.turn_s);
}

HairPoses head_turn_poses(const HeadTurnScene& scene, double t, const HeadTurnParams& params) {
  Eigen::Affine3d turn = Eigen::Translation3d(scene.head_pivot) *
                         Eigen::AngleAxisd(head_turn_yaw(t, params), scene.up.normalized()) *
                         Eigen::Translation3d(-scene.head_pivot);
  HairPoses out = scene.rest;
  for (std::size_t i = 0; i < out.anchors.size(); ++i)
    if (scene.anchor_on_head[i]) out.anchors[i] = turn * out.anchors[i];
  for (std::size_t i = 0; i < out.proxies.size(); ++i)
    if (scene.proxy_on_head[i]) out.proxies[i] = turn * out.proxies[i];
  return out;
}

HeadTurnResult measure_head_turn(const HeadTurnScene& scene, const HeadTurnParams& params) {
  params.validate();
  HairRig rig = scene.rig;
  rig.substep_s = 1 / params.solver_hz;
  rig.validate();
  if (scene.anchor_on_head.size() != scene.rest.anchors.size() ||
      scene.proxy_on_head.size() != scene.rest.proxies.size())
    fail_usage("head turn: the head flags do not fit the poses");
  if (!(scene.up.norm() > 0) || !scene.up.allFinite() || !scene.head_pivot.allFinite())
    fail_usage("head turn: the up axis must be non-zero and the pivot finite");
  const long per_sample = std::lround(params.solver_hz / params.sample_hz);
  const long substeps = std::lround((params.turn_s + params.settle_s) * params.solver_hz);
  const double quiet_from = params.turn_s + params.settle_s - params.quiet_window_s;
  HairPoses prev = head_turn_poses(scene, 0, params);
  HairState state = rest_state(rig, prev);
  HeadTurnResult out;
  out.chains.resize(rig.chains.size());
  auto sample = [&](double t, const HairPoses& poses) {
    out.times_s.push_back(t);
    for (std::size_t c = 0; c < rig.chains.size(); ++c) {
      HeadTurnChain& r = out.chains[c];
      Eigen::Vector3d tip = state.chains[c].x.back();
      if (!r.tip.empty() && t > quiet_from - 1e-9)
        r.quiet_tip_movement_m = std::max(r.quiet_tip_movement_m, (tip - r.tip.back()).norm());
      r.tip.push_back(tip);
      r.penetration_m = std::max(r.penetration_m,
                                 chain_penetration(rig, poses, state, c, params.points_per_link));
    }
  };
  sample(0, prev);
  for (long s = 1; s <= substeps; ++s) {
    double t = double(s) / params.solver_hz; // from the substep count: no drift
    HairPoses next = head_turn_poses(scene, t, params);
    step(rig, prev, next, state);
    if (s % per_sample == 0) sample(t, next);
    prev = std::move(next);
  }
  return out;
}

void TorsoParams::validate() const {
  if (!(min_trunk_weight >= 0 && min_trunk_weight <= 1))
    fail_usage("torso: min_trunk_weight must be within [0, 1]");
  if (!(radius_quantile >= 0 && radius_quantile <= 1))
    fail_usage("torso: radius_quantile must be within [0, 1]");
  if (!(end_quantile >= 0 && end_quantile < 0.5))
    fail_usage("torso: end_quantile must be in [0, 0.5)");
  if (coverage_samples < 2) fail_usage("torso: coverage_samples must be >= 2");
}

TorsoFit fit_torso_capsule(const std::vector<WorldCapsule>& colliders, const TorsoSkin& skin,
                           const TorsoParams& params) {
  params.validate();
  TorsoFit fit;
  Eigen::Vector3d e = skin.chest_top - skin.hips;
  if (!(e.norm() > 0) || !e.allFinite() || skin.trunk_weight.size() != skin.positions.size())
    return fit;
  e.normalize();
  std::vector<double> along, radial;
  for (std::size_t i = 0; i < skin.positions.size(); ++i) {
    if (!(skin.trunk_weight[i] >= params.min_trunk_weight)) continue;
    Eigen::Vector3d d = skin.positions[i] - skin.hips;
    if (!d.allFinite()) continue;
    double t = d.dot(e);
    along.push_back(t);
    radial.push_back((d - t * e).norm());
  }
  fit.vertices = along.size();
  if (fit.vertices < std::max<std::size_t>(params.min_vertices, 1)) return fit;
  double r = quantile(radial, params.radius_quantile);
  double lo = quantile(along, params.end_quantile), hi = quantile(along, 1 - params.end_quantile);
  // The caps reach r beyond the axis ends: the axis stops r short of the skin's ends.
  double a = lo + r, b = hi - r;
  if (a > b) a = b = (lo + hi) / 2;
  fit.capsule = {skin.hips + a * e, skin.hips + b * e, r};
  fit.fitted = true;
  int covered = 0;
  for (int k = 0; k < params.coverage_samples; ++k) {
    double t = double(k) / (params.coverage_samples - 1);
    Eigen::Vector3d p = fit.capsule.a + t * (fit.capsule.b - fit.capsule.a);
    bool in = std::any_of(colliders.begin(), colliders.end(), [&](const WorldCapsule& c) {
      return segment_distance(p, p, c.a, c.b) <= c.radius_m;
    });
    covered += in ? 1 : 0;
  }
  fit.covered_fraction = double(covered) / params.coverage_samples;
  fit.uncovered = covered < params.coverage_samples;
  return fit;
}

std::vector<WorldCapsule> placed_colliders(const HairRig& rig, std::size_t c,
                                           const std::vector<Eigen::Affine3d>& proxy_poses) {
  std::vector<WorldCapsule> placed;
  for (int k : rig.chains[c].colliders) {
    const HairProxy& p = rig.proxies[std::size_t(k)];
    if (!p.plane && !p.inside) placed.push_back(place(p, proxy_poses[std::size_t(p.proxy)]));
  }
  return placed;
}

HairProxy riding_proxy(const WorldCapsule& capsule, const Eigen::Matrix4d& bind_world) {
  const Eigen::Matrix4d inv = bind_world.inverse();
  HairProxy p;
  p.head_local = (inv * capsule.a.homogeneous()).head<3>();
  p.tail_local = (inv * capsule.b.homogeneous()).head<3>();
  p.radius_m = capsule.radius_m / mean_scale(bind_world);
  return p;
}

TorsoSkin torso_skin(const Document& doc, const Model& model, const Character& ch,
                     const SkinSampler& skin, const HeldSkins* held) {
  TorsoSkin out;
  const Roles& r = ch.roles;
  if (r.hips < 0 || r.neck < 0) return out;
  const std::set<int> trunk = trunk_joints(r);
  out.hips = ch.bind_position(ch.joint_index(r.hips));
  out.chest_top = ch.bind_position(ch.joint_index(r.neck));
  out.positions = skin.bind();
  std::vector<double> on(skin.size(), 0.0), total(skin.size(), 0.0);
  for (const SourcePrimitive& src : skin.sources()) {
    const std::vector<int>& joints = model.skins[std::size_t(src.where.skin)].joints;
    for_each_influence(doc, model, held, src.where.mesh, src.where.primitive,
                       [&](std::size_t v, int, std::uint32_t j, double w) {
                         total[src.first + v] += w;
                         if (j < joints.size() && trunk.count(joints[j])) on[src.first + v] += w;
                       });
  }
  out.trunk_weight.resize(skin.size());
  for (std::size_t v = 0; v < skin.size(); ++v)
    out.trunk_weight[v] = total[v] > 0 ? on[v] / total[v] : 0;
  return out;
}

} // namespace retail
