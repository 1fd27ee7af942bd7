// SpringChain's contact constraints (spring.h): floor contact (SPEC §7.7) taken up by the
// joints above within their skin limits, and the forward plane a tail stays behind.
#include "motion/spring_internal.h"
#include "retail/motion/spring.h"

#include <algorithm>
#include <cmath>

namespace retail {

using Eigen::Quaterniond;
using Eigen::Vector3d;
using spring_detail::rotate;
using spring_detail::slerp;

namespace {

/// A vector v turned by phi about a unit axis a (Rodrigues): a (a.v) + (v - a (a.v)) cos(phi) +
/// (a x v) sin(phi). Its dot product with a fixed u is then c0 + c1 cos(phi) + c2 sin(phi).
struct Wave {
  double c0, c1, c2;
  double at(double cos_phi, double sin_phi) const { return c0 + c1 * cos_phi + c2 * sin_phi; }
};

/// The Wave of v turned about the unit `axis`, dotted with u.
Wave wave(const Vector3d& axis, const Vector3d& v, const Vector3d& u) {
  Vector3d along = axis * axis.dot(v);
  return Wave{along.dot(u), (v - along).dot(u), axis.cross(v).dot(u)};
}

/// The turn in [0, pi/2] about a horizontal axis normal to d that brings pivot + d down to the
/// floor height `floor` (pi/2 when the quarter turn does not reach it). The axis is horizontal
/// and normal to d, so the target's height is pivot.y + d.y cos(phi) + rho sin(phi), rho = |d's
/// horizontal part|, = pivot.y + |d| cos(phi - phi0) with phi0 = atan2(rho, d.y): it rises until
/// phi0, and the floor is reached at phi0 - acos((floor - pivot.y) / |d|).
double floor_reach_angle(const Vector3d& pivot, const Vector3d& d, double floor) {
  const double rho = std::hypot(d.x(), d.z()), reach = d.norm();
  double lo = M_PI / 2;
  if (pivot.y() + rho >= floor) { // reachable within the quarter turn
    double phi0 = std::atan2(rho, d.y());
    lo = std::clamp(phi0 - std::acos(std::clamp((floor - pivot.y()) / reach, -1.0, 1.0)), 0.0,
                    M_PI / 2);
  }
  return lo;
}

/// The largest angle a in [0, need] (bisection, 50 halvings) at which ok_at(cos a, sin a) holds,
/// from a = 0 up; ok_at is taken to hold at 0. Bisection on [a, a + 2h] from a = 0, h = need / 2,
/// carrying cos and sin of a and of the half-width by the angle-sum and half-angle identities (no
/// sine or cosine per step): mid = a + h; then h halves, cos(h/2) = sqrt((1 + cos h) / 2),
/// sin(h/2) = sin h / (2 cos(h/2)). Once cos h rounds to 1 those are exactly 1 and sin h / 2: the
/// square root and the division (the loop's critical path) are skipped with the same bits. The
/// step taken or not is a select, not a branch (it goes either way about half the time).
template <class Ok> double largest_ok_angle(double need, const Ok& ok_at) {
  double a = 0, ca = 1, sa = 0, h = need / 2, ch = std::cos(h), sh = std::sin(h);
  for (int it = 0; it < 50; ++it) {
    const double cm = ca * ch - sa * sh, sm = sa * ch + ca * sh;
    const bool ok = ok_at(cm, sm);
    a = ok ? a + h : a;
    ca = ok ? cm : ca;
    sa = ok ? sm : sa;
    h /= 2;
    if (ch == 1.0) {
      sh *= 0.5;
    } else {
      const double c_half = std::sqrt((1 + ch) / 2);
      sh = sh / (2 * c_half);
      ch = c_half;
    }
  }
  return a;
}

} // namespace

void SpringChain::lift(std::size_t k, std::size_t target, const Quaterniond& parent_frame) {
  Vector3d pivot = head(k), d = p_[target] - pivot;
  Vector3d axis = d.cross(Vector3d::UnitY());
  if (axis.norm() <= 1e-12 * d.norm())
    return; // straight above or below (or at) the pivot: no lever
  axis.normalize();
  Vector3d bind = parent_frame * rig_.authored[k], dir = (p_[k] - pivot).normalized();
  // The turn that brings the target to the floor: a quarter turn at most.
  double need = floor_reach_angle(pivot, d, floor_);
  // No further than the joint's own limit, and never through the forward plane: the bend is
  // the angle between the turned link and its bind direction, "ahead" the farthest a turned
  // particle gets in front of the plane through the root.
  const Wave bend_cos = wave(axis, dir, bind);
  std::vector<Vector3d>& ahead_of = lift_waves_; // (c0, c1, c2) per particle k..
  ahead_of.clear();
  if (plane_)
    for (std::size_t j = k; j < p_.size(); ++j) {
      const Wave w = wave(axis, p_[j] - pivot, forward_);
      ahead_of.emplace_back(w.c0, w.c1, w.c2);
    }
  const double base = (pivot - root_).dot(forward_);
  auto bend = [&](double c, double s) {
    return std::acos(std::clamp(bend_cos.at(c, s), -1.0, 1.0));
  };
  auto ahead = [&](double c, double s) {
    double most = -INFINITY;
    for (const Vector3d& w : ahead_of) most = std::max(most, base + (w[0] + w[1] * c + w[2] * s));
    return most;
  };
  double allowed = std::max(skin_limit_[k], bend(1, 0)), front = std::max(ahead(1, 0), 0.0) + 1e-12;
  // bend <= allowed, compared on cosines (acos decreases); no limit at or past a half turn.
  const double cos_allowed = allowed < M_PI ? std::cos(allowed) : -INFINITY;
  auto ok_at = [&](double c, double s) {
    return bend_cos.at(c, s) >= cos_allowed && ahead(c, s) <= front;
  };
  if (!ok_at(std::cos(need), std::sin(need))) need = largest_ok_angle(need, ok_at);
  if (need > 0) rotate_from(k, Quaterniond(Eigen::AngleAxisd(need, axis)));
}

Vector3d SpringChain::floor_direction(const Vector3d& h, Vector3d t, double len,
                                      const Vector3d& fallback) const {
  double u = std::clamp((floor_ - h.y()) / len, -1.0, 1.0), across = std::sqrt(1 - u * u);
  t.y() = 0;
  if (t.norm() < 1e-12 * len) {
    t = fallback;
    t.y() = 0;
  }
  t = t.norm() > 1e-12 ? Vector3d(t.normalized()) : Vector3d(-forward_);
  Vector3d d = across * t + u * Vector3d::UnitY();
  if (plane_ && (h + len * d - root_).dot(forward_) > 1e-12) { // not onto the floor ahead of it
    t -= t.dot(forward_) * forward_;
    t = t.norm() > 1e-9 ? Vector3d(t.normalized()) : Vector3d(-forward_);
    d = across * t + u * Vector3d::UnitY();
  }
  return d;
}

Quaterniond SpringChain::floor_turn(std::size_t i, const Quaterniond& parent_frame) const {
  Vector3d h = head(i);
  Vector3d target =
      rig_.length[i] * floor_direction(h, p_[i] - h, rig_.length[i], parent_frame * r_[i]);
  return swing(p_[i] - h, target);
}

double SpringChain::ahead_from(std::size_t first) const {
  double most = -INFINITY;
  if (!plane_) return most;
  for (std::size_t j = first; j < p_.size(); ++j)
    most = std::max(most, (p_[j] - root_).dot(forward_));
  return most;
}

void SpringChain::turn_behind_plane(std::size_t first, const Quaterniond& r) {
  const double allowed = std::max(ahead_from(first), 0.0) + 1e-12;
  std::vector<Vector3d>& saved = saved_;
  saved = p_;
  rotate_from(first, r);
  if (ahead_from(first) <= allowed) return;
  double a = 0, b = 1;
  for (int it = 0; it < 40; ++it) {
    double mid = (a + b) / 2;
    p_ = saved;
    rotate_from(first, slerp(Quaterniond::Identity(), r, mid));
    (ahead_from(first) <= allowed ? a : b) = mid;
  }
  p_ = saved;
  rotate_from(first, slerp(Quaterniond::Identity(), r, a));
}

void SpringChain::spread_contact(const AnchorPose& hips) {
  const std::size_t n = rig_.links();
  bool any = false;
  for (std::size_t i = 0; i < n; ++i) any = any || contact_[i];
  if (!any) return;
  // Whether link i with its tip at `tip` (its head fixed) bends past its skin limit (by 1e-9),
  // and then by how much (radians from its bind direction). The cosine is compared first: one
  // above cos(limit + 1e-9) by 1e-12 - far beyond the rounding of acos and cos - is within the
  // limit, and only the others pay for the acos, with the same answers.
  auto past_limit = [&](std::size_t i, const Vector3d& tip, const Quaterniond& frame, double& angle,
                        double& limit) {
    Vector3d dir = (tip - head(i)).normalized(), bind = frame * rig_.authored[i];
    const double c = std::clamp(dir.dot(bind), -1.0, 1.0);
    if (c > contact_cos_[i] + 1e-12) return false;
    angle = std::acos(c);
    limit = skin_limit_toward(i, frame, dir);
    return angle > limit + 1e-9;
  };
  frames_.resize(n);
  frame_cum_.resize(n);
  frames_valid_ = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (!contact_[i] || !std::isfinite(skin_limit_[i])) continue;
    const Quaterniond frame = parent_frame(hips, i);
    double angle = 0, limit = 0;
    if (!past_limit(i, p_[i], frame, angle, limit)) continue;
    // Back to the joint's own limit (its downstream links follow; never through the forward
    // plane), then lifted from the joints above.
    Vector3d dir = (p_[i] - head(i)).normalized(), bind = frame * rig_.authored[i];
    turn_behind_plane(i, slerp(Quaterniond::Identity(), swing(dir, bind), 1 - limit / angle));
    moved_from(i);
    for (std::size_t k = i; k-- > 0 && p_[i].y() < floor_;) {
      lift(k, i, parent_frame(hips, k)); // the frame as it was: the lifts above moved k+1..
      moved_from(k);
    }
  }
  // What is still below the floor goes onto it where its joint's skin and the forward plane
  // allow (SPEC §7.7); where they do not, the tail stays below and the depth is reported. The
  // skin test needs only link i's own tip, so the turn is tried on the whole chain only when
  // it passes.
  for (std::size_t i = 0; i < n; ++i) {
    if (!(p_[i].y() < floor_ - 1e-12)) continue;
    const Quaterniond frame = parent_frame(hips, i);
    const double allowed = std::max(ahead_from(i), 0.0) + 1e-12;
    const Quaterniond turn = floor_turn(i, frame);
    const Vector3d pivot = head(i);
    contact_[i] = true;
    double angle = 0, limit = 0;
    if (past_limit(i, pivot + rotate(turn, p_[i] - pivot), frame, angle, limit)) continue;
    saved_ = p_;
    rotate_from(i, turn);
    if (ahead_from(i) > allowed)
      p_ = saved_;
    else
      moved_from(i);
  }
  for (const Vector3d& p : p_) penetration_ = std::max(penetration_, floor_ - p.y());
  read_back(hips);
}

} // namespace retail
