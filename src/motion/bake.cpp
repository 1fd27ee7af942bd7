// Baking: warm-up, fixed substeps, keys, channels (bake.h).
#include "retail/motion/bake.h"

#include "motion/bake_internal.h"

#include "retail/base/error.h"
#include "retail/base/parallel.h"
#include "retail/base/units.h"
#include "retail/io/builder.h"
#include "retail/motion/loop_seam.h"
#include "retail/rig/animation.h"
#include "retail/rig/transform.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <memory>
#include <numeric>
#include <set>

namespace retail {

using bake_detail::ChainStepper;
using bake_detail::HairStepper;
using bake_detail::SpringStepper;
using bake_detail::SubstepPose;

namespace {

std::vector<std::string> name_tokens(const std::string& name) {
  std::vector<std::string> out;
  std::string cur;
  for (std::size_t i = 0; i < name.size(); ++i) {
    unsigned char ch = (unsigned char)name[i];
    bool edge = !cur.empty() &&
                ((std::islower((unsigned char)name[i - 1]) && std::isupper(ch)) ||
                 (bool(std::isdigit((unsigned char)name[i - 1])) != bool(std::isdigit(ch))));
    if (!std::isalnum(ch) || edge) {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    }
    if (std::isalnum(ch)) cur.push_back(char(std::tolower(ch)));
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

double max_angle(const std::vector<Eigen::Quaterniond>& a,
                 const std::vector<Eigen::Quaterniond>& b) {
  double m = 0;
  for (std::size_t i = 0; i < a.size(); ++i) m = std::max(m, a[i].angularDistance(b[i]));
  return m * 180 / M_PI;
}

} // namespace

const ClipBake* deepest_past(const std::vector<ClipBake>& bakes, double ClipBake::*figure,
                             double above, std::size_t& count) {
  count = 0;
  const ClipBake* deepest = nullptr;
  for (const ClipBake& b : bakes) {
    if (!(b.*figure > above)) continue;
    ++count;
    if (!deepest || b.*figure > deepest->*figure) deepest = &b;
  }
  return deepest;
}

void warn_floor_penetration(const std::vector<ClipBake>& bakes, const ChainBake& chain,
                            double tolerance, double height, std::vector<std::string>& warnings) {
  std::size_t count = 0;
  const ClipBake* deepest = deepest_past(bakes, &ClipBake::floor_penetration, tolerance, count);
  if (!deepest) return;
  warnings.push_back("chain " + chain.bones.front() + ": the tail dips below the floor in " +
                     std::to_string(count) + " clip(s), deepest " +
                     length_text(deepest->floor_penetration, height) + " in '" + deepest->name +
                     "': lifting it clear would bend a joint past what its skin takes untorn "
                     "(see floor_penetration; --min-skin-ratio 0 lets the floor win)");
}

void warn_unsettled(const std::vector<ClipBake>& bakes, const ChainBake& chain,
                    std::vector<std::string>& warnings) {
  std::string names;
  std::size_t count = 0;
  int cycles = 0;
  for (const ClipBake& b : bakes)
    if (!b.one_shot && !b.converged && b.warmup_cycles > 0) {
      names += (count++ ? ", '" : "'") + b.name + "'";
      cycles = std::max(cycles, b.warmup_cycles);
    }
  if (count == 0) return;
  const std::string who = chain.arc() ? "hair chain " + chain.bones.front() + " .. " +
                                            chain.bones.back() + ": the hair's loop"
                                      : "chain " + chain.bones.front() + ": the tail's loop";
  warnings.push_back(who + " did not settle within " + std::to_string(cycles) +
                     " warm-up cycles in " + std::to_string(count) + " clip(s) (" + names +
                     "); baked from the last cycle");
}

void HairBakeParams::validate() const {
  auto require = [](double v, const char* what) {
    if (!(v >= 0 && std::isfinite(v)))
      throw Error(ExitCode::Usage, std::string("hair solver: ") + what +
                                       " must be a finite number >= 0 (got " + std::to_string(v) +
                                       ")");
  };
  require(stiffness_per_s2, "stiffness");
  require(damping_per_s, "damping");
  require(gravity_mps2, "gravity");
  require(radius_scale, "radius scale");
}

void BakeParams::validate() const {
  spring.validate();
  hair.validate();
  if (!(fps > 0 && fps <= 1000))
    throw Error(ExitCode::Usage,
                "--fps must be within (0, 1000] (got " + std::to_string(fps) + ")");
  if (!(collider_skin_share >= 0 && collider_skin_share <= 2))
    throw Error(ExitCode::Usage, "--collider-skin must be within [0, 2] (got " +
                                     std::to_string(collider_skin_share) + ")");
  for (const SkinTry& t : skin_tries)
    if (!(t.skin_share >= 0 && t.skin_share <= 2 && t.bend_scale >= 0.5 && t.bend_scale <= 2 &&
          t.min_skin_ratio >= 0 && t.min_skin_ratio < 1))
      throw Error(ExitCode::Usage, "--skin-try SHARE:BEND:RATIO takes SHARE within [0, 2], "
                                   "BEND within [0.5, 2] and RATIO within [0, 1)");
  if (!(skin_try_swing_deg >= 0 && std::isfinite(skin_try_swing_deg)))
    throw Error(ExitCode::Usage, "the skin try's swing allowance must be a finite number >= 0");
  if (!(skin_depth_bound_h >= 0 && std::isfinite(skin_depth_bound_h)))
    throw Error(ExitCode::Usage, "the skin depth bound must be a finite number >= 0 (got " +
                                     std::to_string(skin_depth_bound_h) + ")");
  if (max_warmup_cycles < 1)
    throw Error(ExitCode::Usage,
                "--max-warmup must be >= 1 (got " + std::to_string(max_warmup_cycles) + ")");
  if (!(loop_tolerance_deg > 0 && std::isfinite(loop_tolerance_deg)))
    throw Error(ExitCode::Usage, "--loop-tolerance must be a finite number > 0 (got " +
                                     std::to_string(loop_tolerance_deg) + ")");
  if (std::isinf(floor_y))
    throw Error(ExitCode::Usage,
                "--floor must be a finite height (got " + std::to_string(floor_y) + ")");
}

bool is_one_shot(const std::string& name) {
  static const std::set<std::string> once = {"death", "die",   "dead",  "jump", "attack", "hit",
                                             "punch", "kick",  "slash", "land", "fall",   "flip",
                                             "throw", "react", "spawn", "to"};
  static const std::set<std::string> loops = {"idle", "loop", "cycle", "walk", "run"};
  auto tokens = name_tokens(clip_base_name(name));
  bool shot = false, looped = false;
  for (const auto& t : tokens) shot = shot || once.count(t), looped = looped || loops.count(t);
  bool transition = std::find(tokens.begin(), tokens.end(), "to") != tokens.end();
  return transition || (shot && !looped);
}

namespace {

/// The character joint index of `node`, or Error(Unsupported) naming what it was to be.
int joint_of(const Character& c, int node, const char* what) {
  int j = c.joint_index(node);
  if (j < 0)
    throw Error(ExitCode::Unsupported, std::string(what) + " nodes[" + std::to_string(node) +
                                           "] is not a joint of the skin");
  return j;
}

/// Bind positions of the chain's joints from the IBMs: heads of `bones`, then the end.
std::vector<Eigen::Vector3d> chain_joints(const Character& c, int anchor,
                                          const std::vector<int>& bones, int end) {
  std::vector<Eigen::Vector3d> joints;
  std::vector<int> index;
  for (int node : bones) {
    int j = joint_of(c, node, "chain bone");
    index.push_back(j);
    joints.push_back(c.bind_position(j));
  }
  int e = end >= 0 ? c.joint_index(end) : -1;
  if (e >= 0) {
    joints.push_back(c.bind_position(e));
  } else { // no end node: continue the incoming bone in the last bone's own frame
    int last = index.back();
    int parent = index.size() >= 2 ? index[index.size() - 2] : anchor;
    Eigen::Vector3d in = c.bind_position(last) - c.bind_position(parent);
    Eigen::Vector3d local = rotation_of(c.bind_world[std::size_t(parent)]).transpose() * in;
    joints.push_back(c.bind_position(last) + rotation_of(c.bind_world[std::size_t(last)]) * local);
  }
  return joints;
}

/// SpringRig::collider_radius of a chain whose joints at bind are `joints` (world) and whose
/// skin has radius `skin[i]` around link i (missing: 0): each capsule's radius plus
/// `skin_share` of the link's skin, or the link's distance at bind when less.
std::vector<double> collider_allowance(const std::vector<Eigen::Vector3d>& joints,
                                       const std::vector<double>& skin, double skin_share,
                                       const std::vector<RestObstacle>& capsules) {
  std::vector<double> out;
  for (std::size_t i = 0; i + 1 < joints.size(); ++i)
    for (const RestObstacle& o : capsules) {
      const auto [s, t] = closest_on_segments(joints[i], joints[i + 1], o.a, o.b);
      const Eigen::Vector3d on_link = joints[i] + s * (joints[i + 1] - joints[i]);
      const double own = i < skin.size() ? skin_share * skin[i] : 0.0;
      out.push_back(std::min(o.radius + own, (on_link - (o.a + t * (o.b - o.a))).norm()));
    }
  return out;
}

} // namespace

SpringRig spring_rig(const Character& c, const ChainSpec& spec, double floor_y) {
  SpringRig rig;
  const int anchor = joint_of(c, spec.anchor, "chain anchor");
  const Eigen::Matrix4d& hips = c.bind_world[std::size_t(anchor)];
  rig.mirrored = bake_detail::is_reflection(hips);
  const Eigen::Matrix3d rt = bake_detail::anchor_axes(hips, rig.mirrored).transpose();
  std::vector<Eigen::Vector3d> joints = chain_joints(c, anchor, spec.bones, spec.end);
  rig.root_offset = (hips.inverse() * joints[0].homogeneous()).head<3>();
  for (std::size_t i = 0; i + 1 < joints.size(); ++i) {
    Eigen::Vector3d seg = joints[i + 1] - joints[i];
    double len = seg.norm();
    rig.length.push_back(std::max(len, 1e-9 * c.height));
    rig.authored.push_back(len > 0 ? Eigen::Vector3d(rt * seg / len)
                                   : Eigen::Vector3d(rt * Eigen::Vector3d(0, -1, 0)));
  }
  rig.left_local = rt * bake_detail::character_left(c, joints);
  rig.up_local = rt * Eigen::Vector3d::UnitY();
  rig.scale = c.scale;
  rig.floor_y = floor_y;
  rig.skin_radius = spec.skin_radius;
  rig.weighted_limit = spec.weighted_limit;
  for (JointBend& b : rig.weighted_limit) b.axis0 = rt * b.axis0;
  rig.min_skin_ratio = spec.min_skin_ratio;
  rig.forward_plane = spec.forward_plane;
  rig.floor = spec.floor;
  rig.root_y = joints[0].y();
  for (const RestObstacle& o : spec.clear_of)
    rig.clear_of.push_back({rt * (o.a - joints[0]), rt * (o.b - joints[0]), o.radius});
  rig.colliders = spec.limb_colliders.size();
  rig.collider_radius =
      collider_allowance(joints, spec.skin_radius, spec.collider_skin_share, spec.limb_colliders);
  std::vector<double> tube = spec.skin_radius; // each link's larger end
  for (std::size_t i = 0; i + 1 < tube.size(); ++i) tube[i] = std::max(tube[i], tube[i + 1]);
  rig.skin_collider_radius = collider_allowance(joints, tube, 1.0, spec.limb_colliders);
  return rig;
}

void hair_bake_rig(const Character& c, const ChainSpec& spec, double substep_s,
                   const HairBakeParams& params, ChainBake& out) {
  const int anchor = joint_of(c, spec.anchor, "chain anchor");
  const Eigen::Matrix4d& bind = c.bind_world[std::size_t(anchor)];
  const Eigen::Matrix3d linear_inv = bind.topLeftCorner<3, 3>().inverse();
  out.mirrored = bake_detail::is_reflection(bind);
  const Eigen::Matrix3d rt = bake_detail::anchor_axes(bind, out.mirrored).transpose();
  const std::vector<Eigen::Vector3d> joints = chain_joints(c, anchor, spec.bones, spec.end);
  HairChain chain;
  chain.name = spec.names.empty() ? "" : spec.names.front();
  chain.root_local = (bind.inverse() * joints[0].homogeneous()).head<3>();
  out.bind_direction.clear();
  for (std::size_t i = 0; i + 1 < joints.size(); ++i) {
    const Eigen::Vector3d seg = joints[i + 1] - joints[i];
    if (!(seg.norm() > 0))
      throw Error(ExitCode::InvalidInput,
                  "hair chain " + chain.name + ": link " + std::to_string(i) + " has no length");
    HairLink link;
    link.rest_local = linear_inv * seg;
    link.length_m = seg.norm();
    link.radius_m = params.radius_scale * (i < spec.skin_radius.size() ? spec.skin_radius[i] : 0.0);
    link.stiffness_per_s2 = std::isnan(spec.hair_stiffness_per_s2) ? params.stiffness_per_s2
                                                                   : spec.hair_stiffness_per_s2;
    link.damping_per_s =
        std::isnan(spec.hair_damping_per_s) ? params.damping_per_s : spec.hair_damping_per_s;
    link.gravity_mps2 = Eigen::Vector3d(0, -params.gravity_mps2 * c.scale, 0);
    chain.links.push_back(link);
    out.bind_direction.push_back(rt * seg / seg.norm()); // every bone shares the anchor's frame
  }
  HairRig& rig = out.hair_rig;
  rig = HairRig{};
  rig.substep_s = substep_s;
  rig.anchor_count = 1;
  out.proxy_nodes.clear();
  for (const auto& [node, shape] : spec.colliders) {
    HairProxy p = shape;
    p.proxy = int(out.proxy_nodes.size());
    chain.colliders.push_back(int(rig.proxies.size()));
    rig.proxies.push_back(p);
    out.proxy_nodes.push_back(node);
  }
  rig.proxy_count = out.proxy_nodes.size();
  rig.chains.push_back(std::move(chain));
  rig.validate();
  out.solver = ChainSolver::Arc;
}

namespace {

/// The work one clip may ask of the bake (docs/robustness.md): substeps per pass (each warm-up
/// cycle replays them) and keys written. Beyond either the clip is refused (Unsupported).
constexpr double kMaxSubsteps = 1 << 19;
constexpr double kMaxKeys = 1 << 19;
/// A clip shorter than this (keys at one time: a T-pose "clip", a single-frame Idle) bakes as
/// one pose: a single key at 0.
constexpr double kMinDuration = 1e-6;

void check_clip_work(const std::string& where, double duration, double dt, double fps) {
  const double substeps = duration / dt, keys = duration * fps;
  if (substeps <= kMaxSubsteps && keys <= kMaxKeys) return;
  char text[256];
  std::snprintf(text, sizeof text,
                "lasts %.4g s: baking it at a %.4g s substep and %.4g keys per second asks for "
                "%.4g substeps and %.4g keys, beyond the limit of %.0f each (docs/robustness.md)",
                duration, dt, fps, substeps, keys, kMaxSubsteps);
  fail_unsupported(where + ": " + text);
}

/// Keys at `fps` covering [0, duration] exactly, slerped from the substep states, and the
/// states KeyRecorder keeps as keys of their own: the times (increasing) and one xyzw list per
/// bone. One key at 0 for a one-pose clip.
struct Keys {
  std::vector<float> times;
  std::vector<std::vector<float>> values;
};

/// The recorded pass, fed one substep state at a time: keeps only the two latest states (the
/// keys between them are made at once) and the tip's direction at no more than ~1000 evenly
/// spaced states (the swing range), so memory does not grow with the clip's length. A state
/// marked `own_key` (and the states either side of it) is also a key of its own, between the
/// keys at the key rate (unless one lies within a thousandth of their spacing).
class KeyRecorder {
public:
  /// `states`: how many states the pass will add (substeps + 1).
  KeyRecorder(double duration, double fps, std::size_t bones, std::size_t states)
      : duration_(duration), states_(states), stride_(std::max<std::size_t>(1, states / 1000)),
        n_(duration > 0 ? std::max<std::size_t>(1, std::size_t(std::lround(duration * fps))) : 0),
        eps_(n_ > 0 ? 1e-3 * duration / double(n_) : 0.0) {
    keys_.values.resize(bones);
  }
  /// State k (0, 1, ... in order) at `time`: the bones' local rotations and the tip's direction
  /// relative to the hips.
  void add(std::size_t k, double time, std::vector<Eigen::Quaterniond> local,
           const Eigen::Vector3d& tip_dir_hips, bool own_key = false) {
    if (k % stride_ == 0) tips_.push_back(tip_dir_hips);
    prev_.swap(cur_);
    cur_ = std::move(local);
    const double prev_time = cur_time_;
    cur_time_ = time;
    const bool prev_own = prev_own_;
    prev_own_ = own_key;
    if (n_ == 0 || states_ == 1) { // one pose
      if (k == 0) emit(0.0, cur_, cur_, 0.0);
      return;
    }
    if (k == 0) return;
    if (own_key && !prev_own) own(prev_time, prev_, prev_);
    // A key at t lies between the states before and after it: the first state later than t
    // (the last state for t at the end).
    const bool last = k + 1 == states_;
    for (; next_ <= n_; ++next_) {
      const double t = grid(next_);
      if (!(t < time) && !last) break;
      const double span = time - prev_time,
                   u = span > 0 ? std::clamp((t - prev_time) / span, 0.0, 1.0) : 0.0;
      emit(t, prev_, cur_, u);
    }
    if (own_key || prev_own) own(time, cur_, cur_);
  }
  Keys take_keys() { return std::move(keys_); }
  /// The widest angle between two of the kept tip directions, degrees.
  double tip_swing_deg() const {
    double closest = 1; // the smallest dot product: acos is decreasing, so one acos at the end
    for (std::size_t a = 0; a < tips_.size(); ++a)
      for (std::size_t b = a + 1; b < tips_.size(); ++b)
        closest = std::min(closest, tips_[a].dot(tips_[b]));
    return std::acos(std::clamp(closest, -1.0, 1.0)) * 180 / M_PI;
  }

private:
  double grid(std::size_t i) const { return duration_ * double(i) / double(n_); }
  /// A key of its own at `t` (state `a`), unless a key lies within eps_ of it.
  void own(double t, const std::vector<Eigen::Quaterniond>& a,
           const std::vector<Eigen::Quaterniond>& b) {
    if (keys_.times.empty() || !(t > last_ + eps_) || a.empty()) return;
    if (next_ <= n_ && !(grid(next_) > t + eps_)) return;
    emit(t, a, b, 0.0);
  }
  void emit(double t, const std::vector<Eigen::Quaterniond>& a,
            const std::vector<Eigen::Quaterniond>& b, double u) {
    last_ = t;
    keys_.times.push_back(float(t));
    for (std::size_t i = 0; i < keys_.values.size(); ++i) {
      Eigen::Quaterniond q = a[i].slerp(u, b[i]).normalized();
      keys_.values[i].insert(keys_.values[i].end(),
                             {float(q.x()), float(q.y()), float(q.z()), float(q.w())});
    }
  }
  double duration_;
  std::size_t states_, stride_, n_, next_ = 0;
  double eps_;
  std::vector<Eigen::Quaterniond> prev_, cur_;
  double cur_time_ = 0, last_ = 0;
  bool prev_own_ = false;
  std::vector<Eigen::Vector3d> tips_;
  Keys keys_;
};

/// One clip played through a chain at the fixed substep (the last one shorter). The anchor's
/// pose (and its proxies') at every substep is sampled once: warm-up cycles and the recorded
/// pass replay it. Failure: Error(Unsupported) naming the clip (`where`) beyond the work limits
/// above.
class ClipRun {
public:
  ClipRun(const Document& doc, const Model& model, int clip, int anchor,
          const std::vector<int>& proxy_nodes, double dt, double fps, ChainStepper& chain)
      : chain_(chain) {
    ClipSampler sampler(doc, model, clip);
    duration_ = sampler.duration();
    check_clip_work("animations[" + std::to_string(clip) + "] ('" +
                        model.animations[std::size_t(clip)].name + "')",
                    duration_, dt, fps);
    if (duration_ < kMinDuration) duration_ = 0; // one pose
    std::vector<int> posed = {anchor};           // the anchor, then the proxies' nodes
    posed.insert(posed.end(), proxy_nodes.begin(), proxy_nodes.end());
    auto pose_at = [&](double t) {
      std::vector<Eigen::Matrix4d> w = sampler.worlds(model, posed, t);
      SubstepPose p;
      p.anchor.world = w[0];
      p.anchor.rotation = Eigen::Quaterniond(rotation_of(w[0])).normalized();
      p.proxies.assign(w.begin() + 1, w.end());
      return p;
    };
    times_.push_back(0);
    poses_.push_back(pose_at(0));
    for (double t = 0; t < duration_ - 1e-12;) {
      t = std::min(duration_, t + dt);
      times_.push_back(t);
      poses_.push_back(pose_at(t));
    }
  }
  double duration() const { return duration_; }
  std::size_t states() const { return times_.size(); }
  const SubstepPose& start_pose() const { return poses_.front(); }
  std::vector<Eigen::Quaterniond> locals() const { return chain_.locals(); }
  /// Plays the clip once from the chain's current state; records every substep when asked.
  void cycle(KeyRecorder* keep) {
    if (keep) record(0, *keep);
    for (std::size_t k = 1; k < times_.size(); ++k) {
      chain_.step(poses_[k - 1], poses_[k], times_[k] - times_[k - 1]);
      if (keep) record(k, *keep);
    }
  }

private:
  void record(std::size_t k, KeyRecorder& r) const {
    r.add(k, times_[k], locals(),
          (chain_.frame(poses_[k].anchor).conjugate() * chain_.tip_offset()).normalized(),
          k > 0 && chain_.key_needed());
  }
  ChainStepper& chain_;
  double duration_ = 0;
  std::vector<double> times_;      ///< substep ends: 0, dt, 2 dt, ..., duration
  std::vector<SubstepPose> poses_; ///< the anchor (and proxies) at each of times_
};

/// Cycles until every bone's state at the clip start repeats within tolerance (or the cap).
void warm_up(ClipRun& run, const BakeParams& params, ClipBake& cb) {
  std::vector<Eigen::Quaterniond> start = run.locals();
  cb.converged = false;
  for (int cycle = 1; cycle <= params.max_warmup_cycles; ++cycle) {
    run.cycle(nullptr);
    std::vector<Eigen::Quaterniond> end = run.locals();
    cb.warmup_cycles = cycle;
    if (max_angle(start, end) < params.loop_tolerance_deg) {
      cb.converged = true;
      return;
    }
    start = end;
  }
}

/// The largest angle between a bone's first and last key, degrees.
double loop_closure_deg(const Keys& keys) {
  double worst = 0;
  for (const auto& v : keys.values) {
    std::size_t last = v.size() - 4;
    Eigen::Quaterniond a(v[3], v[0], v[1], v[2]), z(v[last + 3], v[last], v[last + 1], v[last + 2]);
    worst = std::max(worst, a.angularDistance(z) * 180 / M_PI);
  }
  return worst;
}

} // namespace

void write_baked_clip(Document& doc, const BakedClip& baked, const std::vector<int>& nodes) {
  Json& janim = doc.gltf["animations"][std::size_t(baked.bake.clip)];
  int input = add_float_accessor(doc, baked.times, "SCALAR", 0, true);
  for (std::size_t b = 0; b < baked.values.size(); ++b) {
    if (baked.authored[b]) continue;
    int output = add_float_accessor(doc, baked.values[b], "VEC4", 0, false);
    janim["samplers"].push_back(
        {{"input", input}, {"output", output}, {"interpolation", "LINEAR"}});
    janim["channels"].push_back({{"sampler", janim["samplers"].size() - 1},
                                 {"target", {{"node", nodes[b]}, {"path", "rotation"}}}});
  }
}

void add_baked_tracks(const BakedClip& baked, const ChainBake& chain, ClipSampler& sampler) {
  for (std::size_t b = 0; b < baked.values.size(); ++b)
    if (!baked.authored[b])
      sampler.add_rotation_track(chain.nodes[b], baked.times, baked.values[b]);
}

void append_baked_tracks(const BakedClip& baked, const std::vector<int>& nodes,
                         std::vector<RotationTrack>& out) {
  for (std::size_t b = 0; b < baked.values.size(); ++b)
    if (!baked.authored[b])
      out.push_back({baked.bake.clip, nodes[b], baked.times, baked.values[b]});
}

std::vector<ChainBake> prepare_bakes(const Character& c, const std::vector<ChainSpec>& chains,
                                     double floor_y, const BakeParams& params) {
  params.validate();
  std::vector<ChainBake> out;
  for (const ChainSpec& spec : chains) {
    ChainBake cb;
    cb.anchor = spec.anchor;
    cb.nodes = spec.bones;
    if (spec.end >= 0) cb.nodes.push_back(spec.end);
    cb.bones = spec.names;
    if (spec.solver == ChainSolver::Arc)
      hair_bake_rig(c, spec, params.spring.substep_s, params.hair, cb);
    else {
      cb.rig = spring_rig(c, spec, floor_y);
      if (spec.limb_collider_joints.size() == 2 * spec.limb_colliders.size())
        cb.proxy_nodes = spec.limb_collider_joints;
      const SpringChain rest(cb.rig, params.spring);
      cb.carry_deg = rest.carry_deg();
      cb.clears = rest.clears();
    }
    out.push_back(std::move(cb));
  }
  return out;
}

BakedClip bake_clip(const Document& doc, const Model& model, const ChainBake& chain, int clip,
                    const BakeParams& params) {
  const Animation& anim = model.animations[std::size_t(clip)];
  const SpringRig& rig = chain.rig;
  const std::size_t bones = chain.arc() ? chain.bind_direction.size() : rig.links();
  BakedClip out;
  ClipBake& cb = out.bake;
  cb.clip = clip;
  cb.name = anim.name;
  bool forced_loop = std::count(params.loop.begin(), params.loop.end(), anim.name) > 0;
  cb.one_shot =
      !forced_loop && (is_one_shot(anim.name) ||
                       std::count(params.no_loop.begin(), params.no_loop.end(), anim.name) > 0);
  out.authored.assign(bones, false);
  for (const auto& ch : anim.channels)
    for (std::size_t b = 0; b < bones; ++b)
      if (ch.node == chain.nodes[b] && ch.path == "rotation") out.authored[b] = true;
  for (std::size_t b = 0; b < bones; ++b)
    if (out.authored[b]) cb.kept_authored.push_back(chain.bones[b]);
  std::unique_ptr<ChainStepper> stepper;
  SpringStepper* spring = nullptr;
  if (chain.arc()) {
    stepper = std::make_unique<HairStepper>(chain);
  } else {
    auto s = std::make_unique<SpringStepper>(rig, params.spring, params.colliders);
    spring = s.get();
    stepper = std::move(s);
  }
  ClipRun run(doc, model, clip, chain.anchor, chain.proxy_nodes, params.spring.substep_s,
              params.fps, *stepper);
  stepper->reset(run.start_pose());
  if (!cb.one_shot && run.duration() > 0) warm_up(run, params, cb);
  if (spring) {
    spring->spring.clear_floor_penetration();
    spring->measure = true;
  }
  KeyRecorder rec(run.duration(), params.fps, bones, run.states());
  run.cycle(&rec);
  if (spring) {
    cb.floor_penetration = spring->spring.floor_penetration();
    cb.collider_depth = spring->deepest;
    out.skin_tube_depth = spring->skin_deepest;
    cb.collider_contact_share =
        spring->steps ? double(spring->touching) / double(spring->steps) : 0.0;
  }
  Keys keys = rec.take_keys();
  cb.tip_swing_deg = rec.tip_swing_deg();
  cb.loop_closure_deg = loop_closure_deg(keys);
  if (!cb.one_shot && params.spread_seam && cb.loop_closure_deg > params.loop_tolerance_deg) {
    cb.seam_spread_deg = spread_loop_seam(keys.times, keys.values);
    cb.loop_closure_deg = loop_closure_deg(keys);
  }
  cb.keys = keys.times.size();
  out.times = std::move(keys.times);
  out.values = std::move(keys.values);
  return out;
}

} // namespace retail
