// The generated tail in every class (carried, hanging, curled, short, thin; spikes; a thick
// base in a haunch) and its auto-rigger weights (rig_generator.h, rig_generator_internal.h).
#include "rig_generator_internal.h"

#include <algorithm>
#include <cmath>

namespace retail::gen {
namespace {

using Eigen::Vector3d;

/// The tail before meshing: centreline, radius and the "top" (outward) direction per point.
struct TailShape {
  std::vector<Vector3d> centre, dorsal;
  std::vector<double> radius;
  bool nearest_weights = false; ///< weight by the nearest bones (else thighs + left shin)
  double flatten = 1;           ///< thickness / width of its rings (TubeSpec::flatten)
};

struct TailCtx {
  int left_thigh, right_thigh, left_shin;
};

/// Auto-rigger weights: split at the midline onto the thighs (x >= 0: left), blended into the
/// left shin with the distance along the tail.
Weights tail_weight(const Skeleton&, double t, int, int, const Vector3d& p, const void* ctx) {
  const auto* c = static_cast<const TailCtx*>(ctx);
  double shin = 0.7 * t;
  Weights w{{p.x() >= 0 ? c->left_thigh : c->right_thigh, 1.0 - shin}};
  if (shin > 0) w[c->left_shin] += shin;
  return w;
}

/// Auto-rigger weights by proximity ("bone heat" at its crudest): the two nearest of the torso
/// and leg bones, 1/d^2, legs of the vertex's own side only (the midline split).
Weights nearest_weight(const Skeleton& sk, double, int, int, const Vector3d& p, const void*) {
  static const char* const kBones[][2] = {{"Hips", "Spine"},          {"Spine", "Spine1"},
                                          {"Spine1", "Spine2"},       {"Spine2", "Neck"},
                                          {"LeftUpLeg", "LeftLeg"},   {"LeftLeg", "LeftFoot"},
                                          {"RightUpLeg", "RightLeg"}, {"RightLeg", "RightFoot"}};
  std::vector<std::pair<double, int>> near; // (distance, joint)
  for (const auto& bone : kBones) {
    std::string head = bone[0];
    if ((p.x() >= 0 && head.rfind("Right", 0) == 0) || (p.x() < 0 && head.rfind("Left", 0) == 0))
      continue;
    int a = sk.find(head), b = sk.find(bone[1]);
    const Vector3d &pa = sk.joints[std::size_t(a)].world, &pb = sk.joints[std::size_t(b)].world;
    double t = std::clamp((p - pa).dot(pb - pa) / (pb - pa).squaredNorm(), 0.0, 1.0);
    near.push_back({(p - (pa + t * (pb - pa))).norm(), a});
  }
  std::sort(near.begin(), near.end());
  double w0 = 1 / (near[0].first * near[0].first + 1e-12),
         w1 = 1 / (near[1].first * near[1].first + 1e-12);
  return {{near[0].second, w0 / (w0 + w1)}, {near[1].second, w1 / (w0 + w1)}};
}

/// Where the tail would go under the floor (y < 0.03, skeleton units) it runs back along it.
Vector3d above_floor(double x, double y, double z) {
  return Vector3d(x, std::max(y, 0.03), z - std::max(0.0, 0.03 - y));
}

/// Outward direction: `up` without its component along the centreline's tangent at i.
void dorsal_from_up(TailShape& s, const Vector3d& up) {
  const auto& c = s.centre;
  std::size_t n = c.size();
  for (std::size_t i = 0; i < n; ++i) {
    Vector3d tan = (c[std::min(i + 1, n - 1)] - c[i == 0 ? 0 : i - 1]).normalized();
    s.dorsal.push_back((up - up.dot(tan) * tan).normalized());
  }
}

/// Carried and Hanging: the original generator's tails (t * 1.0 == t: exactly, by default). On a
/// horizontal body the rings crowd towards the thick base (t = u^2), as a modeller's loops do.
void straight_shape(const RigOptions& o, double k, TailShape& s) {
  const double ls = o.tail_length_scale, rs = o.tail_radius_scale;
  for (int i = 0, n = 16 * o.ring_subdivision; i <= n; ++i) {
    double t = double(i) / n;
    if (o.horizontal_body) t *= t;
    double tl = t * ls;
    if (o.tail == TailStyle::Carried)
      s.centre.push_back(Vector3d(0, 0.93 - 0.20 * tl + 0.20 * tl * tl, -0.08 - 0.80 * tl) * k);
    else
      s.centre.push_back(above_floor(0, 0.90 - 0.75 * tl, -0.09 - 0.06 * tl) * k);
    s.radius.push_back((0.055 - 0.035 * t) * k * rs);
  }
}

/// Curled: a tightening arc in the YZ plane (drifting a little to +X per turn): it leaves the
/// hips back and down, swings up behind the back and, past 180 degrees, forward over it.
void curled_shape(const RigOptions& o, double k, TailShape& s) {
  const double ls = o.tail_length_scale, rs = o.tail_radius_scale;
  const double sweep = o.tail_curl_deg * M_PI / 180, r0 = 0.24 * ls, phi0 = -M_PI / 4;
  const Vector3d start(0, 0.91, -0.09);
  const Vector3d centre = start - r0 * Vector3d(0, std::sin(phi0), std::cos(phi0));
  int n = std::max(16, int(std::lround(24 * o.tail_curl_deg / 270))) * o.ring_subdivision;
  for (int i = 0; i <= n; ++i) {
    double th = sweep * i / n, r = r0 * (1 - 0.0764 * th), phi = phi0 - th;
    Vector3d out(0, std::sin(phi), std::cos(phi));
    s.centre.push_back((centre + r * out + Vector3d(0.04 * ls * th / (2 * M_PI), 0, 0)) * k);
    s.dorsal.push_back(out);
    s.radius.push_back((0.05 - 0.028 * double(i) / n) * k * rs);
  }
  s.nearest_weights = true;
}

/// Short: a stub out of the back of the hips, ~0.08 H beyond the body's surface, rounded at the
/// tip. Pressed: short and flat, lying against the back of the hips from inside the body down
/// over the rump, rounded at the tip; within 0.07 H of a bone everywhere.
void stub_shape(const RigOptions& o, double k, TailShape& s) {
  const double ls = o.tail_length_scale, rs = o.tail_radius_scale;
  const bool pressed = o.tail == TailStyle::Pressed;
  const Vector3d a = pressed ? Vector3d(0, 1.05, -0.10) : Vector3d(0, 0.92, -0.04);
  const Vector3d b = pressed ? Vector3d(0, 1.05 - 0.15 * ls, -0.10 - 0.012 * ls)
                             : Vector3d(0, 0.95, -0.10 - 0.144 * ls);
  for (int i = 0, n = 12 * o.ring_subdivision; i <= n; ++i) {
    double t = double(i) / n, f = std::max(0.0, (t - 0.7) / 0.3);
    s.centre.push_back((a + t * (b - a)) * k);
    const double width = pressed ? 0.055 * (1 - 0.27 * t) : 0.065 * (1 - 0.45 * t);
    s.radius.push_back(width * std::sqrt(1 - 0.8 * f * f) * k * rs);
  }
  if (pressed) s.flatten = 0.2;
}

/// Rolled: a coil of ~330 degrees in the YZ plane, tightening from radius 0.16 to 0.065: out of
/// the hips back and down, up behind them and forward, its end lying on the lower back. On a
/// horizontal body: out of the top of the rump straight back, up and over, 270 degrees that end
/// lying forward along the top of the back, ahead of the tail's root.
void rolled_shape(const RigOptions& o, double k, TailShape& s) {
  const double ls = o.tail_length_scale, rs = o.tail_radius_scale;
  const bool level = o.horizontal_body;
  const double r_level = 0.16 * ls;
  const Vector3d start = level ? Vector3d(0, 1.05, -0.14) : Vector3d(0, 0.93, -0.06);
  const Vector3d centre =
      level ? Vector3d(0, 1.05 + r_level, -0.14) : Vector3d(0, 1.02, -0.06 - 0.13 * ls);
  const Vector3d from = start - centre;
  const double r0 = from.norm(), phi0 = std::atan2(from.y(), from.z());
  const double sweep = (level ? 270 : 330) * M_PI / 180, tighten = level ? 0.05 : 0.102;
  for (int i = 0, n = 24 * o.ring_subdivision; i <= n; ++i) {
    double th = sweep * i / n, r = r0 * (1 - tighten * th), phi = phi0 - th;
    Vector3d out(0, std::sin(phi), std::cos(phi));
    s.centre.push_back((centre + r * out) * k);
    s.dorsal.push_back(out);
    s.radius.push_back((0.05 - 0.022 * double(i) / n) * k * rs);
  }
}

TailShape tail_shape(const RigOptions& o, double k) {
  TailShape s;
  const double rs = o.tail_radius_scale;
  if (o.tail == TailStyle::Carried || o.tail == TailStyle::Hanging)
    straight_shape(o, k, s);
  else if (o.tail == TailStyle::Curled)
    curled_shape(o, k, s);
  else if (o.tail == TailStyle::Short || o.tail == TailStyle::Pressed)
    stub_shape(o, k, s);
  else if (o.tail == TailStyle::Rolled)
    rolled_shape(o, k, s);
  else { // Thin: between and just behind the thighs, drifting towards the left leg
    for (int i = 0, n = 16 * o.ring_subdivision; i <= n; ++i) {
      double t = double(i) / n;
      s.centre.push_back(
          above_floor(0.02 * t, 0.90 - 0.70 * t * o.tail_length_scale, -0.075 - 0.01 * t) * k);
      s.radius.push_back((0.025 - 0.012 * t) * k * rs);
    }
  }
  if (s.dorsal.empty()) dorsal_from_up(s, Vector3d(0, 1, -1).normalized());
  // The first third widened into a haunch or a horizontal body's torso (a body feature: not
  // scaled by rs).
  if (o.thick_base || (o.horizontal_body && o.tail != TailStyle::Rolled))
    for (std::size_t i = 0; i < s.radius.size(); ++i) {
      double t = double(i) / double(s.radius.size() - 1);
      if (t < 0.35) s.radius[i] += 0.10 * k * (1 - t / 0.35) * (1 - t / 0.35);
    }
  return s;
}

/// Spikes along the top: flattened closed cones (plates), alternately tilted +-12 degrees about
/// the tail (a double row), their bases sunk halfway into the tail skin (on a flat tube, whose
/// rings reach TailShape::flatten of their radius along the top, halfway into that).
void add_spikes(MeshBuild& m, const Skeleton& sk, const TailShape& s, int count, WeightFn weight,
                const void* ctx) {
  const int n = int(s.centre.size()), ring = 8;
  for (int i = 0; i < count; ++i) {
    double t = 0.12 + 0.76 * (i + 0.5) / count, at = t * (n - 1);
    int a = std::min(int(at), n - 2);
    double f = at - a;
    Vector3d p = s.centre[std::size_t(a)] * (1 - f) + s.centre[std::size_t(a + 1)] * f;
    Vector3d tan = (s.centre[std::size_t(a + 1)] - s.centre[std::size_t(a)]).normalized();
    Vector3d up = s.dorsal[std::size_t(a)] * (1 - f) + s.dorsal[std::size_t(a + 1)] * f;
    double r = s.radius[std::size_t(a)] * (1 - f) + s.radius[std::size_t(a + 1)] * f;
    up = Eigen::AngleAxisd((i % 2 ? -12 : 12) * M_PI / 180, tan) * (up - up.dot(tan) * tan);
    up.normalize();
    Vector3d side = tan.cross(up), base = p + 0.5 * s.flatten * r * up, apex = p + 2.4 * r * up;
    int first = int(m.pos.size()), ring_no = int(std::lround(at));
    for (int k = 0; k < ring; ++k) {
      double ang = 2 * M_PI * k / ring;
      Vector3d q = base + 0.7 * r * std::cos(ang) * tan + 0.22 * r * std::sin(ang) * side;
      m.add(q, {double(k) / ring, t}, weight(sk, t, ring_no, n, q, ctx), kTail);
    }
    int top = m.add(apex, {0.5, t}, weight(sk, t, ring_no, n, apex, ctx), kTail);
    int bottom = m.add(base, {0.5, t}, weight(sk, t, ring_no, n, base, ctx), kTail);
    for (int k = 0; k < ring; ++k) {
      int u = first + k, v = first + (k + 1) % ring;
      m.tri(u, v, top);
      m.tri(v, u, bottom);
    }
  }
}

} // namespace

void add_haunch(MeshBuild& m, const Skeleton& sk, double k, int segments, int subdivision) {
  TubeSpec spec;
  for (int i = 0, n = 8 * subdivision; i <= n; ++i) {
    double u = 2.0 * i / n - 1;
    spec.centre.push_back(Vector3d(0, 0.95, -0.05 - 0.17 * u) * k);
    spec.radius.push_back(0.20 * std::sqrt(1 - 0.85 * u * u) * k);
  }
  spec.segments = 2 * segments;
  spec.piece = kBody;
  add_tube(m, sk, spec, nearest_weight, nullptr);
}

std::vector<Vector3d> add_tail(MeshBuild& skin, MeshBuild& extra, const Skeleton& sk,
                               const RigOptions& o, double k) {
  TailShape shape = tail_shape(o, k);
  TailCtx ctx{sk.find("LeftUpLeg"), sk.find("RightUpLeg"), sk.find("LeftLeg")};
  WeightFn weight = shape.nearest_weights ? nearest_weight : tail_weight;
  TubeSpec spec;
  spec.centre = shape.centre;
  spec.radius = shape.radius;
  spec.segments = o.tube_segments;
  spec.seam = o.uv_seams;
  spec.piece = kTail;
  spec.flatten = shape.flatten;
  add_tube(skin, sk, spec, weight, &ctx);
  if (o.tail_spikes > 0) add_spikes(skin, sk, shape, o.tail_spikes, weight, &ctx);
  if (o.tail_two_shells) {
    for (double& r : spec.radius) r *= 1.25;
    spec.segments = o.tube_segments + 2;
    add_tube(extra, sk, spec, weight, &ctx);
  }
  return shape.centre;
}

} // namespace retail::gen
