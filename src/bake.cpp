// Baking: warm-up, fixed substeps, keys, channels (bake.h).
#include "retail/bake.h"

#include "retail/animation.h"
#include "retail/builder.h"
#include "retail/error.h"
#include "retail/info.h"
#include "retail/parallel.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <set>

namespace retail {
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

struct State {
  std::vector<Eigen::Quaterniond> local;
  Eigen::Vector3d tip_dir_hips; // tip direction relative to the hips (for the swing range)
};

double max_angle(const std::vector<Eigen::Quaterniond>& a,
                 const std::vector<Eigen::Quaterniond>& b) {
  double m = 0;
  for (std::size_t i = 0; i < a.size(); ++i) m = std::max(m, a[i].angularDistance(b[i]));
  return m * 180 / M_PI;
}

} // namespace

void warn_floor_penetration(const std::vector<ClipBake>& bakes, const ChainBake& chain,
                            double tolerance, std::vector<std::string>& warnings) {
  std::size_t count = 0;
  const ClipBake* deepest = nullptr;
  for (const ClipBake& b : bakes) {
    if (!(b.floor_penetration > tolerance)) continue;
    ++count;
    if (!deepest || b.floor_penetration > deepest->floor_penetration) deepest = &b;
  }
  if (!deepest) return;
  char depth[32];
  std::snprintf(depth, sizeof depth, "%.3g", deepest->floor_penetration);
  warnings.push_back("chain " + chain.bones.front() + ": the tail dips below the floor in " +
                     std::to_string(count) + " clip(s), deepest " + depth + " in '" +
                     deepest->name +
                     "': lifting it clear would bend a joint past what its skin takes untorn "
                     "(see floor_penetration; --min-skin-ratio 0 lets the floor win)");
}

void BakeParams::validate() const {
  spring.validate();
  if (!(fps > 0 && fps <= 1000) || max_warmup_cycles < 1 || !(loop_tolerance_deg > 0))
    throw Error(ExitCode::Usage, "bake parameters out of range");
}

bool is_one_shot(const std::string& name) {
  static const std::set<std::string> once = {"death", "die",   "dead",  "jump", "attack", "hit",
                                             "punch", "kick",  "slash", "land", "fall",   "flip",
                                             "throw", "react", "spawn", "to"};
  static const std::set<std::string> loops = {"idle", "loop", "cycle", "walk", "run"};
  auto tokens =
      name_tokens(name.substr(name.rfind('|') == std::string::npos ? 0 : name.rfind('|') + 1));
  bool shot = false, looped = false;
  for (const auto& t : tokens) shot = shot || once.count(t), looped = looped || loops.count(t);
  bool transition = std::find(tokens.begin(), tokens.end(), "to") != tokens.end();
  return transition || (shot && !looped);
}

namespace {

Eigen::Matrix3d rotation_of(const Eigen::Matrix4d& m) {
  Eigen::Matrix3d r = m.topLeftCorner<3, 3>();
  for (int k = 0; k < 3; ++k) r.col(k).normalize();
  return r;
}

/// Bind positions of the chain's joints from the IBMs: heads of `bones`, then the end.
std::vector<Eigen::Vector3d> chain_joints(const Character& c, const std::vector<int>& bones,
                                          int end) {
  std::vector<Eigen::Vector3d> joints;
  std::vector<int> index;
  for (int node : bones) {
    int j = c.joint_index(node);
    if (j < 0)
      throw Error(ExitCode::Unsupported,
                  "chain bone nodes[" + std::to_string(node) + "] is not a joint of the skin");
    index.push_back(j);
    joints.push_back(c.bind_position(j));
  }
  int e = end >= 0 ? c.joint_index(end) : -1;
  if (e >= 0) {
    joints.push_back(c.bind_position(e));
  } else { // no end node: continue the incoming bone in the last bone's own frame
    int last = index.back();
    int parent = index.size() >= 2 ? index[index.size() - 2] : c.joint_index(c.roles.hips);
    Eigen::Vector3d in = c.bind_position(last) - c.bind_position(parent);
    Eigen::Vector3d local = rotation_of(c.bind_world[std::size_t(parent)]).transpose() * in;
    joints.push_back(c.bind_position(last) + rotation_of(c.bind_world[std::size_t(last)]) * local);
  }
  return joints;
}

} // namespace

SpringRig spring_rig(const Character& c, const std::vector<int>& bones, int end,
                     const std::vector<double>& skin_radius, double floor_y) {
  SpringRig rig;
  const Eigen::Matrix4d& hips = c.bind_world[std::size_t(c.joint_index(c.roles.hips))];
  Eigen::Matrix3d rt = rotation_of(hips).transpose();
  std::vector<Eigen::Vector3d> joints = chain_joints(c, bones, end);
  rig.root_offset = (hips.inverse() * joints[0].homogeneous()).head<3>();
  for (std::size_t i = 0; i + 1 < joints.size(); ++i) {
    Eigen::Vector3d seg = joints[i + 1] - joints[i];
    double len = seg.norm();
    rig.length.push_back(std::max(len, 1e-9 * c.height));
    rig.authored.push_back(len > 0 ? Eigen::Vector3d(rt * seg / len)
                                   : Eigen::Vector3d(rt * Eigen::Vector3d(0, -1, 0)));
  }
  Eigen::Vector3d left = Eigen::Vector3d::UnitX();
  int l = c.joint_index(c.roles.upper_leg[0]), rr = c.joint_index(c.roles.upper_leg[1]);
  if (l >= 0 && rr >= 0 && (c.bind_position(l) - c.bind_position(rr)).norm() > 0)
    left = (c.bind_position(l) - c.bind_position(rr)).normalized();
  rig.left_local = rt * left;
  rig.up_local = rt * Eigen::Vector3d::UnitY();
  rig.scale = c.scale;
  rig.floor_y = floor_y;
  rig.skin_radius = skin_radius;
  return rig;
}

namespace {

/// The solver's states over one pass of a clip, at every substep (times ascending, from 0).
struct Recording {
  std::vector<double> times;
  std::vector<State> states;
};

/// One clip played through a spring chain at the fixed substep (the last one shorter). The hips'
/// pose at every substep is sampled once: warm-up cycles and the recorded pass replay it.
class ClipRun {
public:
  ClipRun(const Document& doc, const Model& model, int clip, int hips, double dt,
          SpringChain& spring)
      : spring_(spring) {
    ClipSampler sampler(doc, model, clip);
    duration_ = sampler.duration();
    auto pose_at = [&](double t) {
      Eigen::Matrix4d w = sampler.world(model, hips, t);
      HipsPose h;
      h.world = w;
      Eigen::Matrix3d r = w.topLeftCorner<3, 3>();
      for (int c = 0; c < 3; ++c) r.col(c).normalize();
      h.rotation = Eigen::Quaterniond(r).normalized();
      return h;
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
  const HipsPose& start_pose() const { return poses_.front(); }
  std::vector<Eigen::Quaterniond> locals() const {
    std::vector<Eigen::Quaterniond> out;
    for (std::size_t b = 0; b < spring_.tips().size(); ++b)
      out.push_back(spring_.local_rotation(b));
    return out;
  }
  /// Plays the clip once from the chain's current state; records every substep when asked.
  void cycle(Recording* keep) {
    if (keep) *keep = Recording{}, record(0, *keep);
    for (std::size_t k = 1; k < times_.size(); ++k) {
      spring_.step(poses_[k], times_[k] - times_[k - 1]);
      if (keep) record(k, *keep);
    }
  }

private:
  void record(std::size_t k, Recording& r) const {
    State s;
    s.local = locals();
    Eigen::Vector3d tip = spring_.tips().back() - spring_.head(0);
    s.tip_dir_hips = (poses_[k].rotation.conjugate() * tip).normalized();
    r.times.push_back(times_[k]);
    r.states.push_back(s);
  }
  SpringChain& spring_;
  double duration_ = 0;
  std::vector<double> times_;   ///< substep ends: 0, dt, 2 dt, ..., duration
  std::vector<HipsPose> poses_; ///< the hips at each of times_
};

/// Cycles until every bone's state at the clip start repeats within tolerance (or the cap).
void warm_up(ClipRun& run, const BakeParams& params, ClipBake& cb,
             std::vector<std::string>& warnings) {
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
  warnings.push_back("clip '" + cb.name + "': the tail's loop did not settle within " +
                     std::to_string(params.max_warmup_cycles) +
                     " warm-up cycles; baked from the last one");
}

/// Keys at `fps` covering [0, duration] exactly, slerped from the substep states: the times and
/// one xyzw list per bone.
struct Keys {
  std::vector<float> times;
  std::vector<std::vector<float>> values;
};

Keys make_keys(const Recording& r, double duration, double fps, std::size_t bones) {
  Keys keys;
  keys.values.resize(bones);
  std::size_t n = std::max<std::size_t>(1, std::size_t(std::lround(duration * fps)));
  for (std::size_t k = 0; k <= n; ++k) {
    double t = duration * double(k) / double(n);
    std::size_t j =
        std::size_t(std::upper_bound(r.times.begin(), r.times.end(), t) - r.times.begin());
    j = std::min(std::max<std::size_t>(j, 1), r.times.size() - 1);
    double span = r.times[j] - r.times[j - 1],
           u = span > 0 ? std::clamp((t - r.times[j - 1]) / span, 0.0, 1.0) : 0.0;
    keys.times.push_back(float(t));
    for (std::size_t b = 0; b < bones; ++b) {
      Eigen::Quaterniond q = r.states[j - 1].local[b].slerp(u, r.states[j].local[b]).normalized();
      keys.values[b].insert(keys.values[b].end(),
                            {float(q.x()), float(q.y()), float(q.z()), float(q.w())});
    }
  }
  return keys;
}

/// The widest angle between two of the tip's directions relative to the hips, degrees, over at
/// most 1000 evenly spaced substep states (every state for clips up to ~8 s).
double tip_swing_deg(const Recording& r) {
  double closest = 1; // the smallest dot product: acos is decreasing, so one acos at the end
  std::size_t stride = std::max<std::size_t>(1, r.states.size() / 1000);
  for (std::size_t a = 0; a < r.states.size(); a += stride)
    for (std::size_t b = a + stride; b < r.states.size(); b += stride)
      closest = std::min(closest, r.states[a].tip_dir_hips.dot(r.states[b].tip_dir_hips));
  return std::acos(std::clamp(closest, -1.0, 1.0)) * 180 / M_PI;
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

std::vector<ChainBake> prepare_bakes(const Character& c, const std::vector<ChainResult>& chains,
                                     double floor_y, const BakeParams& params) {
  params.validate();
  std::vector<ChainBake> out;
  for (const ChainResult& chain : chains) {
    if (chain.nodes.empty()) continue;
    ChainBake cb;
    cb.nodes = chain.nodes;
    cb.bones = chain.bones;
    std::vector<int> bones(chain.nodes.begin(), chain.nodes.end() - 1);
    cb.rig = spring_rig(c, bones, chain.nodes.back(), chain.chain.radius, floor_y);
    out.push_back(std::move(cb));
  }
  return out;
}

BakedClip bake_clip(const Document& doc, const Model& model, const Character& c,
                    const ChainBake& chain, int clip, const BakeParams& params) {
  const Animation& anim = model.animations[std::size_t(clip)];
  const SpringRig& rig = chain.rig;
  const std::size_t bones = rig.links();
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
  SpringChain spring(rig, params.spring);
  ClipRun run(doc, model, clip, c.roles.hips, params.spring.substep_s, spring);
  spring.reset(run.start_pose());
  if (!cb.one_shot && run.duration() > 0) warm_up(run, params, cb, out.warnings);
  spring.clear_floor_penetration();
  Recording rec;
  run.cycle(&rec);
  cb.floor_penetration = spring.floor_penetration();
  Keys keys = make_keys(rec, run.duration(), params.fps, bones);
  cb.tip_swing_deg = tip_swing_deg(rec);
  cb.loop_closure_deg = loop_closure_deg(keys);
  cb.keys = keys.times.size();
  out.times = std::move(keys.times);
  out.values = std::move(keys.values);
  return out;
}

} // namespace retail
