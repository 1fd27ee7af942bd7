// The head pieces of issue 31 (rig_generator.h: RigOptions::braid .. hair_close): hair that hangs
// (a braid, long loose hair in three clumps, either lying close along the back) and pieces that
// do not (short hair, a hat, cat ears, a hood down, a scarf), each weighted the way a humanoid
// auto-rigger weights geometry it has no bone for.
#include "rig_generator_internal.h"

#include <algorithm>
#include <cmath>

namespace retail::gen {

using Eigen::Vector3d;

namespace {

/// How a head piece is weighted: 1.0 on the head, or split by height (HeadWeights::split).
struct HeadWeights {
  bool split = false;
};

/// RigOptions::hair_split_weights off: 1.0 on the head. On: a proximity rigger's split by the
/// vertex's height: the head above the head joint; head and neck blended linearly between the
/// head and neck joints; below the neck the neck fading into Spine2 and the shoulder on the
/// vertex's side (half each) down to Spine2's height; below that Spine2 and that shoulder.
Weights head_weight(const Skeleton& sk, double, int, int, const Vector3d& p, const void* ctx) {
  const auto* hw = static_cast<const HeadWeights*>(ctx);
  const int head = sk.find("Head"), neck = sk.find("Neck"), spine = sk.find("Spine2");
  if (!hw->split) return {{head, 1.0}};
  const double yh = sk.joints[std::size_t(head)].world.y(),
               yn = sk.joints[std::size_t(neck)].world.y(),
               ys = sk.joints[std::size_t(spine)].world.y();
  if (p.y() >= yh) return {{head, 1.0}};
  if (p.y() >= yn) {
    const double t = (p.y() - yn) / (yh - yn);
    return {{head, t}, {neck, 1 - t}};
  }
  const int shoulder = sk.find(p.x() >= 0 ? "LeftShoulder" : "RightShoulder");
  const double t = std::clamp((yn - p.y()) / (yn - ys), 0.0, 1.0);
  return {{neck, 1 - t}, {spine, 0.5 * t}, {shoulder, 0.5 * t}};
}

/// A point on the quadratic Bezier p0 p1 p2 at t, scaled about p0 by `s` (1: exactly the curve).
Vector3d bezier(const Vector3d& p0, const Vector3d& p1, const Vector3d& p2, double t, double s) {
  const Vector3d b = (1 - t) * (1 - t) * p0 + 2 * t * (1 - t) * p1 + t * t * p2;
  return s == 1 ? b : Vector3d(p0 + s * (b - p0));
}

/// RigOptions::ponytail: a tapering tube from inside the back of the head, out and down behind
/// the back (a quadratic Bezier), ~0.26 H long. With the default options exactly the original
/// generator's.
void add_ponytail(MeshBuild& m, const Skeleton& sk, const RigOptions& o, double k,
                  const HeadWeights& w) {
  const Vector3d p0(0, 1.66, -0.05), p1(0, 1.66, -0.21), p2(0, 1.28, -0.22);
  TubeSpec spec;
  const int rings = 16;
  for (int i = 0; i <= rings; ++i) {
    const double t = double(i) / rings;
    spec.centre.push_back(bezier(p0, p1, p2, t, o.hair_length_scale) * k);
    spec.radius.push_back((0.035 - 0.02 * t) * o.hair_radius_scale * k);
  }
  spec.segments = o.tube_segments;
  spec.piece = kHair;
  add_tube(m, sk, spec, head_weight, &w);
}

/// The braid: a rope from inside the back of the head down the back, 2 cm off the skin, its
/// radius rippling +-20% every ring pair (the plaits), tapering to a tuft. ~0.33 H long.
void add_braid(MeshBuild& m, const Skeleton& sk, const RigOptions& o, double k,
               const HeadWeights& w) {
  // RigOptions::hair_close: over the skull's back and down the back, 0.5 cm off it.
  const double z1 = o.hair_close ? -0.115 : -0.17, z2 = o.hair_close ? -0.145 : -0.17;
  const Vector3d p0(0, 1.64, -0.04), p1(0, 1.58, z1), p2(0, 1.06, z2);
  TubeSpec spec;
  const int rings = 28 * o.ring_subdivision;
  for (int i = 0; i <= rings; ++i) {
    const double t = double(i) / rings;
    spec.centre.push_back(bezier(p0, p1, p2, t, o.hair_length_scale) * k);
    const double plait = 1 + 0.2 * std::cos(M_PI * i);
    spec.radius.push_back((0.022 - 0.008 * t) * plait * o.hair_radius_scale * k);
  }
  spec.segments = o.tube_segments;
  spec.piece = kBraid;
  add_tube(m, sk, spec, head_weight, &w);
}

/// Long loose hair: a cap over the back and sides of the skull (close to it: not far from the
/// head bone) and three flat clumps whose roots are sunk into it, one down the back and one
/// behind each shoulder, to about the shoulder blades (~0.2 H below the head joint).
void add_long_hair(MeshBuild& m, const Skeleton& sk, const RigOptions& o, double k,
                   const HeadWeights& w) {
  TubeSpec cap; // the skull's profile (0.09 at the head joint, 0.03 at the top) + 1.5 cm
  for (int i = 0; i <= 6; ++i) {
    const double t = i / 6.0;
    cap.centre.push_back(Vector3d(0, 1.54 + 0.23 * t, -0.005) * k);
    cap.radius.push_back((0.105 - 0.065 * t) * k);
  }
  cap.segments = 2 * o.tube_segments;
  cap.piece = kLongHair;
  add_tube(m, sk, cap, head_weight, &w);
  // Three clumps (back, behind each shoulder), or hair_strands thin strands fanned between the
  // side clumps' places (sx from -1 to 1), a third as wide as a clump.
  const int clumps = o.hair_strands ? o.hair_strands : 3;
  const double width = o.hair_strands ? 1.0 / 3 : 1.0;
  // RigOptions::hair_close: over the skull's back and down the back, about 1 cm off it.
  const double dz = o.hair_close ? 0.035 : 0;
  for (int c = 0; c < clumps; ++c) {
    const double sx = o.hair_strands ? -1 + 2.0 * c / (clumps - 1)
                      : c == 0       ? 0.0
                      : c == 1       ? 1.0
                                     : -1.0;
    const Vector3d p0(0.06 * sx, 1.64, -0.05 + 0.02 * std::abs(sx)),
        p1(0.11 * sx, 1.58, -0.14 + 0.03 * std::abs(sx) + dz),
        p2(0.13 * sx, 1.22 + 0.03 * std::abs(sx), -0.17 + 0.04 * std::abs(sx) + dz);
    TubeSpec spec;
    const int rings = 18 * o.ring_subdivision;
    for (int i = 0; i <= rings; ++i) {
      const double t = double(i) / rings;
      spec.centre.push_back(bezier(p0, p1, p2, t, o.hair_length_scale) * k);
      spec.radius.push_back((0.04 - 0.02 * t) * width * o.hair_radius_scale * k);
    }
    spec.segments = o.tube_segments;
    spec.flatten = 0.45; // flat: wider than thick
    spec.piece = kLongHair;
    add_tube(m, sk, spec, head_weight, &w);
  }
}

/// Short hair: a closed cap 1.2 cm off the skull from the head joint's height to its top.
void add_short_hair(MeshBuild& m, const Skeleton& sk, const RigOptions& o, double k,
                    const HeadWeights& w) {
  TubeSpec cap;
  for (int i = 0; i <= 8; ++i) {
    const double t = i / 8.0;
    cap.centre.push_back(Vector3d(0, 1.55 + 0.245 * t, -0.005) * k);
    cap.radius.push_back((0.102 - 0.07 * t) * k);
  }
  cap.segments = 2 * o.tube_segments;
  cap.piece = kShortHair;
  add_tube(m, sk, cap, head_weight, &w);
}

/// A hat: a flat brim (0.19 across the radius) on the head and a crown rising above it.
void add_hat(MeshBuild& m, const Skeleton& sk, const RigOptions& o, double k,
             const HeadWeights& w) {
  TubeSpec brim;
  brim.centre = {Vector3d(0, 1.70, 0) * k, Vector3d(0, 1.715, 0) * k};
  brim.radius = {0.19 * k, 0.19 * k};
  brim.segments = 2 * o.tube_segments;
  brim.piece = kHat;
  add_tube(m, sk, brim, head_weight, &w);
  TubeSpec crown;
  for (int i = 0; i <= 4; ++i)
    crown.centre.push_back(Vector3d(0, 1.70 + 0.045 * i, 0) * k),
        crown.radius.push_back((0.095 - 0.006 * i) * k);
  crown.segments = 2 * o.tube_segments;
  crown.piece = kHat;
  add_tube(m, sk, crown, head_weight, &w);
}

/// Cat ears: two pointed cones on top of the head, 0.13 long.
void add_cat_ears(MeshBuild& m, const Skeleton& sk, const RigOptions& o, double k,
                  const HeadWeights& w) {
  for (double sx : {1.0, -1.0}) {
    TubeSpec spec;
    for (int i = 0; i <= 5; ++i) {
      const double t = i / 5.0;
      spec.centre.push_back(Vector3d(sx * (0.045 + 0.045 * t), 1.72 + 0.12 * t, 0) * k);
      spec.radius.push_back((0.035 - 0.032 * t) * k);
    }
    spec.segments = std::max(3, o.tube_segments / 2);
    spec.piece = kCatEars;
    add_tube(m, sk, spec, head_weight, &w);
  }
}

/// A hood down: a flat pouch (a flattened closed tube, 0.16-0.22 across) from the nape down
/// the upper back to the shoulder blades, lying on them.
void add_hood(MeshBuild& m, const Skeleton& sk, const RigOptions& o, double k,
              const HeadWeights& w) {
  const Vector3d p0(0, 1.50, -0.09), p1(0, 1.42, -0.17), p2(0, 1.27, -0.165);
  TubeSpec spec;
  for (int i = 0; i <= 10; ++i) {
    const double t = i / 10.0;
    spec.centre.push_back(bezier(p0, p1, p2, t, 1) * k);
    spec.radius.push_back((0.08 + 0.03 * std::sin(M_PI * t)) * k);
  }
  spec.segments = 2 * o.tube_segments;
  spec.flatten = 0.35;
  spec.piece = kHood;
  add_tube(m, sk, spec, head_weight, &w);
}

/// A scarf: a ring round the neck (0.085 from its axis, 2.5 cm thick, open at the front) and
/// one end hanging from the front down the chest to about the sternum's foot.
void add_scarf(MeshBuild& m, const Skeleton& sk, const RigOptions& o, double k,
               const HeadWeights& w) {
  TubeSpec ring;
  for (int i = 0; i <= 24; ++i) {
    const double a = (15 + 330 * i / 24.0) * M_PI / 180; // from the front round the back
    ring.centre.push_back(Vector3d(0.085 * std::sin(a), 1.46, 0.085 * std::cos(a)) * k);
    ring.radius.push_back(0.025 * k);
  }
  ring.segments = o.tube_segments;
  ring.piece = kScarf;
  add_tube(m, sk, ring, head_weight, &w);
  const Vector3d p0(0.03, 1.46, 0.09), p1(0.05, 1.40, 0.15), p2(0.05, 1.12, 0.145);
  TubeSpec end;
  for (int i = 0; i <= 12; ++i) {
    end.centre.push_back(bezier(p0, p1, p2, i / 12.0, 1) * k);
    end.radius.push_back(0.03 * k);
  }
  end.segments = o.tube_segments;
  end.flatten = 0.35;
  end.piece = kScarf;
  add_tube(m, sk, end, head_weight, &w);
}

} // namespace

std::vector<std::pair<std::string, MeshBuild>> add_head_pieces(const Skeleton& sk,
                                                               const RigOptions& o, double k) {
  const HeadWeights w{o.hair_split_weights};
  std::vector<std::pair<std::string, MeshBuild>> out;
  auto piece = [&](bool on, const char* name, auto add) {
    if (!on) return;
    MeshBuild m;
    add(m, sk, o, k, w);
    out.emplace_back(name, std::move(m));
  };
  piece(o.ponytail, "Ponytail", add_ponytail);
  piece(o.braid, "Braid", add_braid);
  piece(o.long_hair, "LongHair", add_long_hair);
  piece(o.short_hair, "ShortHair", add_short_hair);
  piece(o.hat, "Hat", add_hat);
  piece(o.cat_ears, "CatEars", add_cat_ears);
  piece(o.hood, "Hood", add_hood);
  piece(o.scarf, "Scarf", add_scarf);
  return out;
}

} // namespace retail::gen
