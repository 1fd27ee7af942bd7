// bake_chains: warm-up, fixed substeps, keys, channels (bake.h).
#include "retail/bake.h"

#include "retail/animation.h"
#include "retail/builder.h"
#include "retail/error.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
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

HipsPose hips_pose(const std::vector<Eigen::Matrix4d>& world, int hips) {
  HipsPose h;
  h.world = world[std::size_t(hips)];
  Eigen::Matrix3d r = h.world.topLeftCorner<3, 3>();
  for (int c = 0; c < 3; ++c) r.col(c).normalize();
  h.rotation = Eigen::Quaterniond(r).normalized();
  return h;
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

namespace {

/// One warning per chain when its tail dipped below the floor (deeper than `tolerance`) in some
/// clips: where holding the floor would have bent a joint past its skin limit.
void warn_floor_penetration(const std::vector<ClipBake>& bakes, const std::string& first_bone,
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
  warnings.push_back("chain " + first_bone + ": the tail dips below the floor in " +
                     std::to_string(count) + " clip(s), deepest " + depth + " in '" +
                     deepest->name +
                     "': lifting it clear would bend a joint past what its skin takes untorn "
                     "(see floor_penetration; --min-skin-ratio 0 lets the floor win)");
}

} // namespace

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

std::vector<ClipBake> bake_chains(Document& doc, const Model& model, const Character& c,
                                  const std::vector<ChainResult>& chains,
                                  const std::vector<int>& clips, double floor_y,
                                  const BakeParams& params, std::vector<std::string>& warnings) {
  params.validate();
  std::vector<ClipBake> out;
  int hips = c.roles.hips;
  for (const ChainResult& chain : chains) {
    if (chain.nodes.empty()) continue;
    std::size_t first = out.size();
    std::vector<int> chain_bones(chain.nodes.begin(), chain.nodes.end() - 1);
    SpringRig rig = spring_rig(c, chain_bones, chain.nodes.back(), chain.chain.radius,
                               std::isfinite(params.floor_y) ? params.floor_y : floor_y);
    std::size_t bones = rig.links();
    for (int clip : clips) {
      const Animation& anim = model.animations[std::size_t(clip)];
      ClipBake cb;
      cb.clip = clip;
      cb.name = anim.name;
      bool forced_loop = std::count(params.loop.begin(), params.loop.end(), anim.name) > 0;
      cb.one_shot =
          !forced_loop && (is_one_shot(anim.name) ||
                           std::count(params.no_loop.begin(), params.no_loop.end(), anim.name) > 0);
      std::vector<bool> authored(bones, false);
      for (const auto& ch : anim.channels)
        for (std::size_t b = 0; b < bones; ++b)
          if (ch.node == chain.nodes[b] && ch.path == "rotation") authored[b] = true;
      for (std::size_t b = 0; b < bones; ++b)
        if (authored[b]) cb.kept_authored.push_back(chain.bones[b]);
      ClipSampler sampler(doc, model, clip);
      double duration = sampler.duration(), dt = params.spring.substep_s;
      auto pose_at = [&](double t) {
        return hips_pose(compose_world(model, sampler.locals(model, t)), hips);
      };
      SpringChain spring(rig, params.spring);
      spring.reset(pose_at(0));
      // One pass over the clip in fixed substeps (the last one shorter), recording states.
      std::vector<double> times;
      std::vector<State> states;
      auto record = [&](double t, const HipsPose& hp) {
        State s;
        for (std::size_t b = 0; b < bones; ++b) s.local.push_back(spring.local_rotation(b));
        Eigen::Vector3d tip = spring.tips().back() - spring.head(0);
        s.tip_dir_hips = (hp.rotation.conjugate() * tip).normalized();
        times.push_back(t);
        states.push_back(s);
      };
      auto run_cycle = [&](bool keep) {
        times.clear();
        states.clear();
        HipsPose hp = pose_at(0);
        if (keep) record(0, hp);
        for (double t = 0; t < duration - 1e-12;) {
          double next = std::min(duration, t + dt);
          hp = pose_at(next);
          spring.step(hp, next - t);
          t = next;
          if (keep) record(t, hp);
        }
        std::vector<Eigen::Quaterniond> end;
        for (std::size_t b = 0; b < bones; ++b) end.push_back(spring.local_rotation(b));
        return end;
      };
      if (!cb.one_shot && duration > 0) {
        std::vector<Eigen::Quaterniond> start;
        for (std::size_t b = 0; b < bones; ++b) start.push_back(spring.local_rotation(b));
        cb.converged = false;
        for (int cycle = 1; cycle <= params.max_warmup_cycles; ++cycle) {
          std::vector<Eigen::Quaterniond> end = run_cycle(false);
          cb.warmup_cycles = cycle;
          if (max_angle(start, end) < params.loop_tolerance_deg) {
            cb.converged = true;
            break;
          }
          start = end;
        }
        if (!cb.converged)
          warnings.push_back("clip '" + anim.name + "': the tail's loop did not settle within " +
                             std::to_string(params.max_warmup_cycles) +
                             " warm-up cycles; baked from the last one");
      }
      spring.clear_floor_penetration();
      run_cycle(true);
      cb.floor_penetration = spring.floor_penetration();
      // Keys at fps covering [0, duration] exactly, interpolated from the substep states.
      std::size_t n = std::max<std::size_t>(1, std::size_t(std::lround(duration * params.fps)));
      std::vector<float> key_times;
      std::vector<std::vector<float>> values(bones);
      for (std::size_t k = 0; k <= n; ++k) {
        double t = duration * double(k) / double(n);
        std::size_t j =
            std::size_t(std::upper_bound(times.begin(), times.end(), t) - times.begin());
        j = std::min(std::max<std::size_t>(j, 1), times.size() - 1);
        double span = times[j] - times[j - 1],
               u = span > 0 ? std::clamp((t - times[j - 1]) / span, 0.0, 1.0) : 0.0;
        key_times.push_back(float(t));
        for (std::size_t b = 0; b < bones; ++b) {
          Eigen::Quaterniond q = states[j - 1].local[b].slerp(u, states[j].local[b]).normalized();
          values[b].insert(values[b].end(),
                           {float(q.x()), float(q.y()), float(q.z()), float(q.w())});
        }
      }
      // The tip's swing: the widest angle between two of its directions relative to the hips,
      // over at most 1000 evenly spaced substep states (every state for clips up to ~8 s).
      double swing_range = 0;
      std::size_t stride = std::max<std::size_t>(1, states.size() / 1000);
      for (std::size_t a = 0; a < states.size(); a += stride)
        for (std::size_t b = a + stride; b < states.size(); b += stride)
          swing_range = std::max(
              swing_range,
              std::acos(std::clamp(states[a].tip_dir_hips.dot(states[b].tip_dir_hips), -1.0, 1.0)));
      cb.tip_swing_deg = swing_range * 180 / M_PI;
      for (std::size_t b = 0; b < bones; ++b) {
        std::size_t last = values[b].size() - 4;
        Eigen::Quaterniond a(values[b][3], values[b][0], values[b][1], values[b][2]);
        Eigen::Quaterniond z(values[b][last + 3], values[b][last], values[b][last + 1],
                             values[b][last + 2]);
        cb.loop_closure_deg = std::max(cb.loop_closure_deg, a.angularDistance(z) * 180 / M_PI);
      }
      cb.keys = key_times.size();
      // Channels: one shared input, one output per bone not already animated by the clip.
      Json& janim = doc.gltf["animations"][std::size_t(clip)];
      int input = add_float_accessor(doc, key_times, "SCALAR", 0, true);
      for (std::size_t b = 0; b < bones; ++b) {
        if (authored[b]) continue;
        int output = add_float_accessor(doc, values[b], "VEC4", 0, false);
        janim["samplers"].push_back(
            {{"input", input}, {"output", output}, {"interpolation", "LINEAR"}});
        janim["channels"].push_back({{"sampler", janim["samplers"].size() - 1},
                                     {"target", {{"node", chain.nodes[b]}, {"path", "rotation"}}}});
      }
      out.push_back(cb);
    }
    warn_floor_penetration(std::vector<ClipBake>(out.begin() + std::ptrdiff_t(first), out.end()),
                           chain.bones.front(), 1e-3 * c.height, warnings);
  }
  return out;
}

} // namespace retail
