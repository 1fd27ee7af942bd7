// The generated character's skeleton and body: the humanoid, the horizontal body plan and a
// leftover bone along the tail's base (rig_generator.h, rig_generator_internal.h).
#include "rig_generator_internal.h"

#include <algorithm>
#include <cmath>

namespace retail::gen {
namespace {

using Eigen::Vector3d;

/// A body tube along a joint chain: rings at each joint and three inside each bone.
struct ChainCtx {
  std::vector<int> chain;
  int per_bone = 4; ///< rings per bone (the first at the bone's head)
};

Weights chain_weight(const Skeleton&, double, int ring, int rings, const Vector3d&,
                     const void* ctx) {
  const auto& chain = static_cast<const ChainCtx*>(ctx)->chain;
  int per = static_cast<const ChainCtx*>(ctx)->per_bone;
  int nseg = int(chain.size()) - 1;
  int seg = std::min(ring / per, nseg - 1), sub = ring - per * seg;
  if (ring == rings - 1) return {{chain[std::size_t(nseg - 1)], 1.0}};
  if (sub == 0 && seg > 0)
    return {{chain[std::size_t(seg - 1)], 0.5}, {chain[std::size_t(seg)], 0.5}};
  return {{chain[std::size_t(seg)], 1.0}};
}

void add_chain_tube(MeshBuild& m, const Skeleton& sk, const std::vector<int>& chain,
                    const std::vector<double>& radii, Vector3d end_extra, int segments,
                    int per_bone) {
  TubeSpec spec;
  spec.segments = segments;
  ChainCtx ctx{chain, per_bone};
  std::vector<Vector3d> pts;
  for (int j : chain) pts.push_back(sk.joints[std::size_t(j)].world);
  if (end_extra.norm() > 0) { // a leaf's stub: one more point past the last joint, same bone
    pts.push_back(pts.back() + end_extra);
    ctx.chain.push_back(-1);
  }
  for (std::size_t i = 0; i + 1 < pts.size(); ++i)
    for (int sub = 0; sub < per_bone; ++sub) {
      double f = double(sub) / per_bone;
      spec.centre.push_back(pts[i] * (1 - f) + pts[i + 1] * f);
      spec.radius.push_back(radii[i] * (1 - f) + radii[i + 1] * f);
    }
  spec.centre.push_back(pts.back());
  spec.radius.push_back(radii[pts.size() - 1]);
  if (ctx.chain.back() == -1) ctx.chain.back() = ctx.chain[ctx.chain.size() - 2];
  add_tube(m, sk, spec, chain_weight, &ctx);
}

/// The horizontal body's skeleton: the root "Body" above the torso, forward of the legs (as the
/// Quaternius t-rex's), carrying the legs and "Hips"; the spine runs level from the hips
/// forward, the neck rises to a head in front; short arms.
Skeleton horizontal_skeleton(double k, const RigOptions& o) {
  Skeleton sk;
  auto add = [&](const char* name, const char* parent, double x, double y, double z) {
    sk.joints.push_back({name, parent ? sk.find(parent) : -1, Vector3d(x, y, z) * k, -1});
  };
  add("Body", nullptr, 0, 0.92 + o.hips_above, o.hips_ahead);
  add("Hips", "Body", 0, 0.95, -0.12);
  add("Spine", "Hips", 0, 0.99, 0.08);
  add("Spine1", "Spine", 0, 1.03, 0.26);
  add("Spine2", "Spine1", 0, 1.08, 0.42);
  add("Neck", "Spine2", 0, 1.30, 0.58);
  add("Head", "Neck", 0, 1.62, 0.66);
  add("HeadTop_End", "Head", 0, 1.66, 0.90);
  for (int side = 0; side < 2; ++side) {
    double sx = side == 0 ? 1 : -1;
    std::string p = side == 0 ? "Left" : "Right";
    add((p + "Shoulder").c_str(), "Spine2", 0.06 * sx, 1.00, 0.48);
    add((p + "Arm").c_str(), (p + "Shoulder").c_str(), 0.15 * sx, 0.98, 0.50);
    add((p + "ForeArm").c_str(), (p + "Arm").c_str(), 0.17 * sx, 0.86, 0.56);
    add((p + "Hand").c_str(), (p + "ForeArm").c_str(), 0.17 * sx, 0.78, 0.64);
  }
  for (int side = 0; side < 2; ++side) {
    double sx = side == 0 ? 1 : -1;
    std::string p = side == 0 ? "Left" : "Right";
    add((p + "UpLeg").c_str(), "Body", 0.10 * sx, 0.92, 0);
    add((p + "Leg").c_str(), (p + "UpLeg").c_str(), 0.10 * sx, 0.50, 0);
    add((p + "Foot").c_str(), (p + "Leg").c_str(), 0.10 * sx, 0.08, 0);
    add((p + "ToeBase").c_str(), (p + "Foot").c_str(), 0.10 * sx, 0.02, 0.12);
  }
  return sk;
}

double segment_distance(const Vector3d& p, const Vector3d& a, const Vector3d& b) {
  double t = std::clamp((p - a).dot(b - a) / (b - a).squaredNorm(), 0.0, 1.0);
  return (p - (a + t * (b - a))).norm();
}

} // namespace

Skeleton make_skeleton(double k, const RigOptions& o) {
  if (o.horizontal_body) return horizontal_skeleton(k, o);
  Skeleton sk;
  auto add = [&](const char* name, const char* parent, double x, double y, double z) {
    sk.joints.push_back({name, parent ? sk.find(parent) : -1, Vector3d(x, y, z) * k, -1});
  };
  add("Hips", nullptr, 0, 0.95, 0);
  add("Spine", "Hips", 0, 1.05, 0);
  add("Spine1", "Spine", 0, 1.17, 0);
  add("Spine2", "Spine1", 0, 1.30, 0);
  add("Neck", "Spine2", 0, 1.47, 0);
  add("Head", "Neck", 0, 1.56, 0);
  add("HeadTop_End", "Head", 0, 1.78, 0);
  for (int side = 0; side < 2; ++side) {
    double sx = side == 0 ? 1 : -1;
    std::string p = side == 0 ? "Left" : "Right";
    add((p + "Shoulder").c_str(), "Spine2", 0.06 * sx, 1.42, 0);
    add((p + "Arm").c_str(), (p + "Shoulder").c_str(), 0.18 * sx, 1.42, 0);
    add((p + "ForeArm").c_str(), (p + "Arm").c_str(), 0.45 * sx, 1.42, 0);
    add((p + "Hand").c_str(), (p + "ForeArm").c_str(), 0.70 * sx, 1.42, 0);
  }
  for (int side = 0; side < 2; ++side) {
    double sx = side == 0 ? 1 : -1;
    std::string p = side == 0 ? "Left" : "Right";
    add((p + "UpLeg").c_str(), "Hips", 0.10 * sx, 0.92, 0);
    add((p + "Leg").c_str(), (p + "UpLeg").c_str(), 0.10 * sx, 0.50, 0);
    add((p + "Foot").c_str(), (p + "Leg").c_str(), 0.10 * sx, 0.08, 0);
    add((p + "ToeBase").c_str(), (p + "Foot").c_str(), 0.10 * sx, 0.02, 0.12);
  }
  return sk;
}

void add_body(MeshBuild& m, const Skeleton& sk, double k, int segs, int per, bool horizontal) {
  auto j = [&](const char* n) { return sk.find(n); };
  // The horizontal body: a thick level torso, a neck and head raised in front, short arms.
  const double torso[] = {0.10, 0.11, 0.12, 0.12, 0.06}, flat[] = {0.21, 0.23, 0.23, 0.18, 0.08};
  const double* r = horizontal ? flat : torso;
  add_chain_tube(m, sk, {j("Hips"), j("Spine"), j("Spine1"), j("Spine2"), j("Neck")},
                 {r[0] * k, r[1] * k, r[2] * k, r[3] * k, r[4] * k}, Vector3d::Zero(), segs, per);
  add_chain_tube(m, sk, {j("Neck"), j("Head"), j("HeadTop_End")},
                 {(horizontal ? 0.06 : 0.05) * k, 0.09 * k, (horizontal ? 0.04 : 0.03) * k},
                 Vector3d::Zero(), segs, per);
  for (const char* p : {"Left", "Right"}) {
    std::string s = p;
    add_chain_tube(m, sk,
                   {j((s + "UpLeg").c_str()), j((s + "Leg").c_str()), j((s + "Foot").c_str())},
                   {(horizontal ? 0.15 : 0.07) * k, (horizontal ? 0.08 : 0.05) * k, 0.04 * k},
                   Vector3d::Zero(), segs, per);
    add_chain_tube(m, sk, {j((s + "Foot").c_str()), j((s + "ToeBase").c_str())},
                   {0.04 * k, 0.03 * k}, Vector3d::Zero(), segs, per);
    double sx = s == "Left" ? 1 : -1;
    const Vector3d hand_end =
        horizontal ? Vector3d(0, -0.03, 0.05) * k : Vector3d(0.1 * sx, 0, 0) * k;
    const double arm = horizontal ? 0.7 : 1.0; // the horizontal body's arms are short and thin
    add_chain_tube(
        m, sk,
        {j((s + "Shoulder").c_str()), j((s + "Arm").c_str()), j((s + "ForeArm").c_str()),
         j((s + "Hand").c_str())},
        {0.05 * k * arm, 0.045 * k * arm, 0.04 * k * arm, 0.035 * k * arm, 0.02 * k * arm},
        hand_end, segs, per);
  }
}

void add_leftover_bone(Skeleton& sk, MeshBuild& m, double k, double length) {
  const int hips = sk.find("Hips");
  const Vector3d root = sk.joints[std::size_t(hips)].world;
  const Vector3d back = root + Vector3d(0, -0.23, -1).normalized() * length * k,
                 mid = 0.5 * (root + back);
  sk.joints.push_back({"Back", hips, back, -1});
  const int joint = int(sk.joints.size()) - 1;
  // Body skin within 0.11 (x k) of the bone's outer half: up to 0.7 of its weight, less
  // further out.
  const double reach = 0.11 * k;
  for (std::size_t v = 0; v < m.pos.size(); ++v) {
    if (m.piece[v] != kBody) continue;
    const double d = segment_distance(m.pos[v], mid, back);
    if (d >= reach) continue;
    const double share = 0.7 * (1 - d / reach);
    for (auto& [jn, w] : m.weights[v]) w *= 1 - share;
    m.weights[v][joint] += share;
  }
}

} // namespace retail::gen
