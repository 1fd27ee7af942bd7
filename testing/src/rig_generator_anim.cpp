// The generated rig's clips: Walk, HipSwing, Crouch, Idle, LegSweep and HeadTurn when asked
// (rig_generator.h), LINEAR at 30 fps.
#include "retail/io/builder.h"
#include "rig_generator_internal.h"

#include <cmath>
#include <functional>

namespace retail::gen {
namespace {

using Eigen::Vector3d;

/// Per joint: a rotation (world axis and angle) and, for the root, a world offset, at time t.
struct Pose {
  std::map<int, std::pair<Vector3d, double>> rotation; ///< joint -> (world axis, radians)
  Vector3d hips_offset = Vector3d::Zero();             ///< world units
};

using PoseFn = std::function<Pose(double t)>;

void add_clip(Document& doc, const Skeleton& sk, const std::string& name, double duration,
              const PoseFn& pose) {
  int frames = int(std::lround(duration * 30.0));
  std::vector<float> times;
  for (int f = 0; f <= frames; ++f) times.push_back(float(duration * f / frames));
  std::vector<Pose> poses;
  for (float t : times) poses.push_back(pose(double(t)));
  int input = add_float_accessor(doc, times, "SCALAR", 0, true);
  Json samplers = Json::array(), channels = Json::array();
  // Rotation channels for every joint the clip moves, in joint order (deterministic).
  for (std::size_t j = 0; j < sk.joints.size(); ++j) {
    if (!poses[0].rotation.count(int(j))) continue;
    std::vector<float> q;
    for (const Pose& p : poses) {
      const auto& [axis, angle] = p.rotation.at(int(j));
      // Joint frames are the armature frame, so a world axis maps through R^T.
      Eigen::Quaterniond r(Eigen::AngleAxisd(angle, (sk.rotation.transpose() * axis).normalized()));
      q.insert(q.end(), {float(r.x()), float(r.y()), float(r.z()), float(r.w())});
    }
    int output = add_float_accessor(doc, q, "VEC4", 0, false);
    samplers.push_back({{"input", input}, {"output", output}, {"interpolation", "LINEAR"}});
    channels.push_back({{"sampler", samplers.size() - 1},
                        {"target", {{"node", sk.joints[j].node}, {"path", "rotation"}}}});
  }
  std::vector<float> tr;
  Vector3d bind = sk.to_armature(sk.joints[0].world);
  for (const Pose& p : poses) {
    Vector3d v = bind + sk.rotation.transpose() * p.hips_offset / sk.node_scale;
    tr.insert(tr.end(), {float(v.x()), float(v.y()), float(v.z())});
  }
  int output = add_float_accessor(doc, tr, "VEC3", 0, false);
  samplers.push_back({{"input", input}, {"output", output}, {"interpolation", "LINEAR"}});
  channels.push_back({{"sampler", samplers.size() - 1},
                      {"target", {{"node", sk.joints[0].node}, {"path", "translation"}}}});
  append_to_array(doc.gltf, "animations",
                  {{"name", name}, {"channels", channels}, {"samplers", samplers}});
}

} // namespace

void add_clips(Document& doc, const Skeleton& sk, double k, bool head_turn, bool leg_sweep) {
  const Vector3d X = Vector3d::UnitX(), Y = Vector3d::UnitY();
  auto j = [&](const char* n) { return sk.find(n); };
  const double deg = M_PI / 180;
  // Walk: 1 s cycle; thighs swing +-25 deg (forward = -angle about X), knees bend on the swing,
  // arms counter-swing, the root (the hips role: "Hips", or a horizontal body's "Body" that
  // carries the legs) bobs 2 cm and yaws 5 deg.
  add_clip(doc, sk, "Walk", 1.0, [&](double t) {
    Pose p;
    double ph = 2 * M_PI * t;
    p.rotation[0] = {Y, 5 * deg * std::sin(ph)};
    p.rotation[j("Spine")] = {Y, -4 * deg * std::sin(ph)};
    p.rotation[j("LeftUpLeg")] = {X, -25 * deg * std::sin(ph)};
    p.rotation[j("RightUpLeg")] = {X, 25 * deg * std::sin(ph)};
    p.rotation[j("LeftLeg")] = {X, 35 * deg * std::max(0.0, std::sin(ph + M_PI / 2))};
    p.rotation[j("RightLeg")] = {X, 35 * deg * std::max(0.0, std::sin(ph - M_PI / 2))};
    p.rotation[j("LeftArm")] = {X, 20 * deg * std::sin(ph)};
    p.rotation[j("RightArm")] = {X, -20 * deg * std::sin(ph)};
    p.hips_offset = Vector3d(0, 0.02 * k * std::cos(2 * ph), 0);
    return p;
  });
  // HipSwing: the hips move 0.5 m sideways in 2/3 s and back (SPEC §7's stress case).
  add_clip(doc, sk, "HipSwing", 4.0 / 3.0, [&](double t) {
    Pose p;
    double s = std::sin(M_PI * t / (4.0 / 3.0));
    p.rotation[j("Hips")] = {Y, 0.0};
    p.hips_offset = Vector3d(0.5 * k * s * s, 0, 0);
    return p;
  });
  // Crouch: thighs forward a, knees 2a, feet back a: the hips drop 2 * 0.42 (1 - cos a).
  add_clip(doc, sk, "Crouch", 2.0, [&](double t) {
    Pose p;
    double s = std::sin(M_PI * t / 2.0), a = 58 * deg * s * s;
    for (const char* side : {"Left", "Right"}) {
      std::string sd = side;
      p.rotation[j((sd + "UpLeg").c_str())] = {X, -a};
      p.rotation[j((sd + "Leg").c_str())] = {X, 2 * a};
      p.rotation[j((sd + "Foot").c_str())] = {X, -a};
    }
    p.hips_offset = Vector3d(0, -0.84 * k * (1 - std::cos(a)), 0);
    return p;
  });
  // Idle: slow breathing of the spine.
  add_clip(doc, sk, "Idle", 2.0, [&](double t) {
    Pose p;
    p.rotation[j("Spine1")] = {X, 3 * deg * std::sin(M_PI * t)};
    p.rotation[j("Spine2")] = {X, -2 * deg * std::sin(M_PI * t)};
    return p;
  });
  if (leg_sweep) {
    // LegSweep: 1 s loop: the hips lurch 0.3 m to each side while the thighs swing back 30 deg
    // (the tail's inertia carries it across the legs).
    add_clip(doc, sk, "LegSweep", 1.0, [&](double t) {
      Pose p;
      const double ph = 2 * M_PI * t, back = 30 * deg * (1 - std::cos(ph)) / 2;
      p.rotation[j("LeftUpLeg")] = {X, back};
      p.rotation[j("RightUpLeg")] = {X, back};
      p.hips_offset = Vector3d(0.3 * k * std::sin(ph), 0, 0);
      return p;
    });
  }
  if (!head_turn) return;
  // HeadTurn: 8 s loop: 2 s of looks left and right (the neck and head yaw together, up to
  // +-40 deg, starting and ending still), then 6 s still (the hair settles).
  add_clip(doc, sk, "HeadTurn", 8.0, [&](double t) {
    Pose p;
    double yaw = t < 2 ? 40 * deg * std::sin(M_PI * t) * std::sin(M_PI * t / 2) : 0.0;
    p.rotation[j("Neck")] = {Y, 0.4 * yaw};
    p.rotation[j("Head")] = {Y, 0.6 * yaw};
    return p;
  });
}

} // namespace retail::gen
