// The arc-preserving hair solver (include/retail/motion/hair_solver.h, SPEC §10; docs/hair.md).
#include "retail/motion/hair_solver.h"

#include "retail/base/error.h"
#include "retail/motion/spring.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace retail {
namespace {

bool finite(const Eigen::Vector3d& v) {
  return v.allFinite();
}

/// A proxy in the world for one instant.
struct Placed {
  WorldCapsule c;
  bool inside = false, plane = false;
  Eigen::Vector3d normal = Eigen::Vector3d::UnitY();
};

Placed place_full(const HairProxy& p, const Eigen::Affine3d& pose) {
  Placed out;
  out.c = place(p, pose);
  out.inside = p.inside;
  out.plane = p.plane;
  if (p.plane) {
    Eigen::Vector3d n = pose.linear().inverse().transpose() * p.normal_local;
    out.normal = n.norm() > 0 ? Eigen::Vector3d(n.normalized()) : Eigen::Vector3d::UnitY();
  }
  return out;
}

Placed lerp(const Placed& a, const Placed& b, double t) {
  Placed out = b;
  out.c.a = a.c.a + t * (b.c.a - a.c.a);
  out.c.b = a.c.b + t * (b.c.b - a.c.b);
  out.c.radius_m = a.c.radius_m + t * (b.c.radius_m - a.c.radius_m);
  if (b.plane) out.normal = (a.normal + t * (b.normal - a.normal)).normalized();
  return out;
}

/// x put back at distance `len` from o (fallback direction when x sits on o).
Eigen::Vector3d reproject(const Eigen::Vector3d& o, const Eigen::Vector3d& x, double len,
                          const Eigen::Vector3d& fallback) {
  Eigen::Vector3d d = x - o;
  double n = d.norm();
  if (!(n > 1e-12 * len)) return o + len * fallback;
  return o + (len / n) * d;
}

/// Any unit vector perpendicular to w (unit).
Eigen::Vector3d perpendicular(const Eigen::Vector3d& w) {
  Eigen::Vector3d t = std::abs(w.x()) < 0.9 ? Eigen::Vector3d::UnitX() : Eigen::Vector3d::UnitY();
  return w.cross(t).normalized();
}

/// The tip direction closest to d (unit) with d·w_hat >= cos_min: d turned towards w_hat in
/// their plane (w_hat itself when no direction qualifies).
Eigen::Vector3d turn_into_cone(const Eigen::Vector3d& d, const Eigen::Vector3d& w_hat,
                               double cos_min) {
  if (cos_min > 1) return w_hat;
  Eigen::Vector3d t = d - d.dot(w_hat) * w_hat;
  t = t.norm() > 1e-12 ? Eigen::Vector3d(t.normalized()) : perpendicular(w_hat);
  return cos_min * w_hat + std::sqrt(std::max(0.0, 1 - cos_min * cos_min)) * t;
}

/// Pushes the tip x of link o -> x (length len, radius rh) out of / into one proxy. True when
/// it moved.
bool resolve(const Placed& p, const Eigen::Vector3d& o, Eigen::Vector3d& x, double len, double rh,
             const Eigen::Vector3d& fallback) {
  Eigen::Vector3d d = (x - o) / len;
  if (p.plane) { // (o + len d - a)·n >= rh  <=>  d·n >= (rh - (o - a)·n) / len
    double need = (rh - (o - p.c.a).dot(p.normal)) / len;
    if (d.dot(p.normal) >= need || need < -1) return false;
    x = o + len * turn_into_cone(d, p.normal, need);
    return true;
  }
  if (p.inside) { // the farthest link point from a convex shape is an end; o is the root side
    double v = 0;
    double far = segment_distance(x, x, p.c.a, p.c.b, nullptr, &v);
    double lim = std::max(0.0, p.c.radius_m - rh);
    if (far <= lim) return false;
    // |o + len d - q| <= lim  <=>  d·w_hat >= (len^2 + |w|^2 - lim^2) / (2 len |w|), w = q - o
    Eigen::Vector3d w = p.c.a + v * (p.c.b - p.c.a) - o;
    if (!(w.norm() > 1e-12 * len)) return false; // centred on the root: nothing to turn
    double need = (len * len + w.squaredNorm() - lim * lim) / (2 * len * w.norm());
    x = o + len * turn_into_cone(d, w.normalized(), need);
    return true;
  }
  double u = 0, v = 0;
  double reach = p.c.radius_m + rh;
  double dist = segment_distance(o, x, p.c.a, p.c.b, &u, &v);
  // Closest at the fixed root: no turn of the link about o can clear more (a root authored
  // inside a proxy stays there; the rest of the link is already farther away).
  if (dist >= reach || u <= 1e-9) return false;
  Eigen::Vector3d pt = o + u * (x - o), q = p.c.a + v * (p.c.b - p.c.a);
  Eigen::Vector3d n = pt - q;
  if (n.norm() > 1e-12 * reach) {
    n.normalize();
  } else { // the axis passes through the link: leave sideways from both
    Eigen::Vector3d w = (x - o).normalized(), ax = p.c.b - p.c.a;
    n = ax.norm() > 0 && w.cross(ax).norm() > 1e-9 ? Eigen::Vector3d(w.cross(ax).normalized())
                                                   : perpendicular(w);
  }
  // The tip moves by delta, the contact point by u * delta (o is fixed): lever floor 1/4.
  Eigen::Vector3d delta = n * ((reach - dist) / std::max(u, 0.25));
  if (delta.norm() > len) delta *= len / delta.norm();
  x = reproject(o, x + delta, len, fallback);
  return true;
}

struct LinkMove {
  Eigen::Vector3d o0, o1;   ///< link origin at the substep's start and end
  Eigen::Vector3d x0, xhat; ///< tip at the start, and projected candidate
  double len = 1, rh = 0;
  Eigen::Vector3d fallback; ///< rest direction (unit)
};

/// Collision samples for one link: enough that nothing moves more than half a clearance radius
/// between two of them.
int samples_for(const HairRig& rig, const std::vector<int>& colliders, const LinkMove& m,
                const std::vector<Placed>& begin, const std::vector<Placed>& end) {
  double motion = (m.xhat - m.x0).norm() + (m.o1 - m.o0).norm();
  double reach = INFINITY, proxy_motion = 0;
  for (int c : colliders) {
    const Placed &a = begin[std::size_t(c)], &b = end[std::size_t(c)];
    proxy_motion = std::max({proxy_motion, (b.c.a - a.c.a).norm(), (b.c.b - a.c.b).norm()});
    if (!b.plane) reach = std::min(reach, b.c.radius_m + m.rh);
  }
  if (reach == INFINITY) reach = m.len;
  double need = (motion + proxy_motion) / std::max(0.5 * reach, 1e-9 * m.len);
  if (!(need < rig.max_collision_samples)) return rig.max_collision_samples;
  return std::max(1, int(std::ceil(need)));
}

/// The tip after collisions, checked at M positions through the substep (see the header).
Eigen::Vector3d collide(const HairRig& rig, const std::vector<int>& colliders, const LinkMove& m,
                        const std::vector<Placed>& begin, const std::vector<Placed>& end) {
  if (colliders.empty()) return m.xhat;
  int samples = samples_for(rig, colliders, m, begin, end);
  Eigen::Vector3d acc = Eigen::Vector3d::Zero(), tip = m.xhat;
  for (int j = 1; j <= samples; ++j) {
    double t = double(j) / samples;
    Eigen::Vector3d o = j == samples ? m.o1 : Eigen::Vector3d(m.o0 + t * (m.o1 - m.o0));
    Eigen::Vector3d x = j == samples ? m.xhat : Eigen::Vector3d(m.x0 + t * (m.xhat - m.x0));
    tip = acc.isZero(0) ? reproject(o, x, m.len, m.fallback)
                        : reproject(o, x + acc, m.len, m.fallback);
    if (j == samples && acc.isZero(0)) tip = m.xhat; // exactly the projected candidate
    Eigen::Vector3d before = tip;
    for (int pass = 0; pass < rig.contact_passes; ++pass) {
      bool moved = false;
      for (int c : colliders) {
        const Placed& b = end[std::size_t(c)];
        Placed p = j == samples ? b : lerp(begin[std::size_t(c)], b, t);
        moved |= resolve(p, o, tip, m.len, m.rh, m.fallback);
      }
      if (!moved) break;
    }
    acc += tip - before;
  }
  return tip;
}

std::vector<Placed> place_all(const HairRig& rig, const HairPoses& poses) {
  std::vector<Placed> out;
  out.reserve(rig.proxies.size());
  for (const HairProxy& p : rig.proxies)
    out.push_back(place_full(p, poses.proxies[std::size_t(p.proxy)]));
  return out;
}

void check_poses(const HairRig& rig, const HairPoses& poses) {
  if (poses.anchors.size() != rig.anchor_count || poses.proxies.size() != rig.proxy_count)
    fail_usage("hair solver: poses hold " + std::to_string(poses.anchors.size()) + " anchors and " +
               std::to_string(poses.proxies.size()) + " proxies, the rig needs " +
               std::to_string(rig.anchor_count) + " and " + std::to_string(rig.proxy_count));
}

void step_chain(const HairRig& rig, const HairChain& ch, const HairPoses& begin,
                const HairPoses& end, const std::vector<Placed>& pb, const std::vector<Placed>& pe,
                HairChainState& s) {
  const double h = rig.substep_s;
  const Eigen::Affine3d &a0 = begin.anchors[std::size_t(ch.anchor)],
                        &a1 = end.anchors[std::size_t(ch.anchor)];
  Eigen::Vector3d o0 = a0 * ch.root_local, o1 = a1 * ch.root_local;
  Eigen::Quaterniond bent = Eigen::Quaterniond::Identity(); // BentParent only
  for (std::size_t i = 0; i < ch.links.size(); ++i) {
    const HairLink& l = ch.links[i];
    Eigen::Vector3d rest = a1.linear() * l.rest_local;
    Eigen::Vector3d dir = rest.normalized();
    if (rig.target_frame == HairTargetFrame::BentParent) dir = bent * dir;
    Eigen::Vector3d x = s.x[i], r = o1 + l.length_m * dir;
    Eigen::Vector3d f = l.stiffness_per_s2 * (r - x) + l.gravity_mps2;
    Eigen::Vector3d u = std::exp(-l.damping_per_s * h) * (s.v[i] + h * f);
    Eigen::Vector3d xhat = reproject(o1, x + h * u, l.length_m, dir);
    Eigen::Vector3d vstar = (xhat - x) / h;
    LinkMove m{o0, o1, x, xhat, l.length_m, l.radius_m, dir};
    Eigen::Vector3d xc = collide(rig, ch.colliders, m, pb, pe);
    Eigen::Vector3d corr = xc - xhat;
    s.contact[i] = corr.norm() > 0;
    if (s.contact[i]) {
      Eigen::Vector3d n = corr.normalized();
      vstar -= std::min(0.0, vstar.dot(n)) * n;
    }
    s.x[i] = xc;
    s.v[i] = vstar;
    if (rig.target_frame == HairTargetFrame::BentParent)
      bent = swing(rest, xc - o1); // the parent's bend carries the next rest direction
    o0 = x;
    o1 = xc;
  }
}

void check_link(const HairLink& l, const std::string& p) {
  if (!finite(l.rest_local) || l.rest_local.norm() == 0)
    fail_usage(p + ".rest_local must be non-zero");
  if (!(l.length_m > 0) || !std::isfinite(l.length_m)) fail_usage(p + ".length_m must be positive");
  if (!(l.radius_m >= 0) || !std::isfinite(l.radius_m)) fail_usage(p + ".radius_m must be >= 0");
  if (!(l.stiffness_per_s2 >= 0) || !std::isfinite(l.stiffness_per_s2))
    fail_usage(p + ".stiffness_per_s2 must be >= 0");
  if (!(l.damping_per_s >= 0) || !std::isfinite(l.damping_per_s))
    fail_usage(p + ".damping_per_s must be >= 0");
  if (!finite(l.gravity_mps2)) fail_usage(p + ".gravity_mps2 must be finite");
}

} // namespace

void HairRig::validate() const {
  if (!(substep_s > 0) || !std::isfinite(substep_s))
    fail_usage("hair rig: substep_s must be positive");
  if (max_collision_samples < 1 || contact_passes < 1)
    fail_usage("hair rig: max_collision_samples and contact_passes must be >= 1");
  for (std::size_t p = 0; p < proxies.size(); ++p) {
    const HairProxy& x = proxies[p];
    std::string path = "hair rig: proxies[" + std::to_string(p) + "]";
    if (x.proxy < 0 || std::size_t(x.proxy) >= proxy_count)
      fail_usage(path + ".proxy out of range");
    if (!(x.radius_m >= 0) || !std::isfinite(x.radius_m))
      fail_usage(path + ".radius_m must be >= 0");
    if (!finite(x.head_local) || !finite(x.tail_local) || !finite(x.normal_local))
      fail_usage(path + " must be finite");
    if (x.plane && x.normal_local.norm() == 0) fail_usage(path + ".normal_local must be non-zero");
  }
  for (std::size_t c = 0; c < chains.size(); ++c) {
    const HairChain& ch = chains[c];
    std::string path = "hair rig: chains[" + std::to_string(c) + "]";
    if (ch.anchor < 0 || std::size_t(ch.anchor) >= anchor_count)
      fail_usage(path + ".anchor out of range");
    if (ch.links.empty()) fail_usage(path + " has no links");
    if (!finite(ch.root_local)) fail_usage(path + ".root_local must be finite");
    for (int k : ch.colliders)
      if (k < 0 || std::size_t(k) >= proxies.size()) fail_usage(path + ".colliders out of range");
    for (std::size_t i = 0; i < ch.links.size(); ++i)
      check_link(ch.links[i], path + ".links[" + std::to_string(i) + "]");
  }
}

HairState rest_state(const HairRig& rig, const HairPoses& poses) {
  check_poses(rig, poses);
  HairState st;
  for (const HairChain& ch : rig.chains) {
    const Eigen::Affine3d& a = poses.anchors[std::size_t(ch.anchor)];
    HairChainState s;
    Eigen::Vector3d o = a * ch.root_local;
    for (const HairLink& l : ch.links) {
      o += l.length_m * (a.linear() * l.rest_local).normalized();
      s.x.push_back(o);
      s.v.push_back(Eigen::Vector3d::Zero());
      s.contact.push_back(false);
    }
    st.chains.push_back(std::move(s));
  }
  return st;
}

void step(const HairRig& rig, const HairPoses& begin, const HairPoses& end, HairState& state) {
  check_poses(rig, begin);
  check_poses(rig, end);
  if (state.chains.size() != rig.chains.size())
    fail_usage("hair solver: state does not fit the rig");
  std::vector<Placed> pb = place_all(rig, begin), pe = place_all(rig, end);
  for (std::size_t c = 0; c < rig.chains.size(); ++c)
    step_chain(rig, rig.chains[c], begin, end, pb, pe, state.chains[c]);
  state.time_s = double(++state.substeps) * rig.substep_s;
}

Eigen::Vector3d joint_position(const HairRig& rig, const HairPoses& poses, const HairState& state,
                               std::size_t chain, std::size_t joint) {
  const HairChain& ch = rig.chains[chain];
  if (joint == 0) return poses.anchors[std::size_t(ch.anchor)] * ch.root_local;
  return state.chains[chain].x[joint - 1];
}

double segment_distance(const Eigen::Vector3d& p0, const Eigen::Vector3d& p1,
                        const Eigen::Vector3d& q0, const Eigen::Vector3d& q1, double* u_out,
                        double* v_out) {
  Eigen::Vector3d d1 = p1 - p0, d2 = q1 - q0, r = p0 - q0;
  double a = d1.squaredNorm(), e = d2.squaredNorm(), f = d2.dot(r);
  double u = 0, v = 0;
  auto clamp01 = [](double t) { return std::min(1.0, std::max(0.0, t)); };
  if (a == 0 && e == 0) {
  } else if (a == 0) {
    v = clamp01(f / e);
  } else {
    double c = d1.dot(r);
    if (e == 0) {
      u = clamp01(-c / a);
    } else {
      double b = d1.dot(d2), denom = a * e - b * b;
      u = denom > 1e-14 * a * e ? clamp01((b * f - c * e) / denom) : 0.0;
      v = (b * u + f) / e;
      if (v < 0) {
        v = 0;
        u = clamp01(-c / a);
      } else if (v > 1) {
        v = 1;
        u = clamp01((b - c) / a);
      }
    }
  }
  if (u_out) *u_out = u;
  if (v_out) *v_out = v;
  return ((p0 + u * d1) - (q0 + v * d2)).norm();
}

WorldCapsule place(const HairProxy& proxy, const Eigen::Affine3d& pose) {
  const Eigen::Matrix3d& l = pose.linear();
  double scale = (l.col(0).norm() + l.col(1).norm() + l.col(2).norm()) / 3;
  return {pose * proxy.head_local, pose * proxy.tail_local, proxy.radius_m * scale};
}

double clearance(const Eigen::Vector3d& o, const Eigen::Vector3d& x, double radius_h,
                 const WorldCapsule& c) {
  return segment_distance(o, x, c.a, c.b) - (c.radius_m + radius_h);
}

} // namespace retail
