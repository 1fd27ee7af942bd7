// SpringChain's moving colliders (spring.h): links turned about their heads out of capsules
// (a tail: the thighs and shins) that the clip moves, each allowed its depth at bind.
#include "motion/spring_internal.h"
#include "retail/motion/spring.h"

#include <algorithm>
#include <cmath>

namespace retail {

using Eigen::Quaterniond;
using Eigen::Vector3d;
using spring_detail::rotate;
using spring_detail::slerp;

std::pair<double, double> closest_on_segments(const Vector3d& p0, const Vector3d& p1,
                                              const Vector3d& q0, const Vector3d& q1) {
  const Vector3d d1 = p1 - p0, d2 = q1 - q0, r = p0 - q0;
  const double a = d1.squaredNorm(), e = d2.squaredNorm(), f = d2.dot(r);
  constexpr double eps = 1e-300;
  if (a <= eps && e <= eps) return {0.0, 0.0};
  if (a <= eps) return {0.0, std::clamp(f / e, 0.0, 1.0)};
  const double c = d1.dot(r);
  if (e <= eps) return {std::clamp(-c / a, 0.0, 1.0), 0.0};
  const double b = d1.dot(d2), denom = a * e - b * b;
  double s = denom > 1e-12 * a * e ? std::clamp((b * f - c * e) / denom, 0.0, 1.0) : 0.0;
  double t = (b * s + f) / e;
  if (t < 0) {
    t = 0;
    s = std::clamp(-c / a, 0.0, 1.0);
  } else if (t > 1) {
    t = 1;
    s = std::clamp((b - c) / a, 0.0, 1.0);
  }
  return {s, t};
}

namespace {

/// Distance between segments p0 -> p1 and q0 -> q1, with the two closest points.
double segment_gap(const Vector3d& p0, const Vector3d& p1, const Vector3d& q0, const Vector3d& q1,
                   Vector3d& on_p, Vector3d& on_q) {
  const auto [s, t] = closest_on_segments(p0, p1, q0, q1);
  on_p = p0 + s * (p1 - p0);
  on_q = q0 + t * (q1 - q0);
  return (on_p - on_q).norm();
}

/// The least share of a link's length from its head its contact is taken to lie at (a link
/// whose head is inside a capsule is not turned: its head is the link above's to move).
constexpr double kLeastLever = 0.05;
/// The least share of the way out of a capsule that turning a link can open (the rest is along
/// the link): below it the contact is its head's.
constexpr double kLeastAcross = 0.3;
/// Rounds of pushing out of every capsule per link.
constexpr int kRounds = 8;

} // namespace

Vector3d SpringChain::collide_link(std::size_t i, const Vector3d& h, Vector3d p,
                                   const std::vector<RestObstacle>& colliders) {
  const std::size_t n = rig_.colliders;
  if (n == 0 || colliders.size() != n) return p;
  const double len = rig_.length[i];
  for (int round = 0; round < kRounds; ++round) {
    bool moved = false;
    for (std::size_t c = 0; c < n; ++c) {
      const double keep = rig_.collider_radius[i * n + c];
      const RestObstacle& o = colliders[c];
      Vector3d on_link, on_axis;
      const double gap = segment_gap(h, p, o.a, o.b, on_link, on_axis);
      if (!(gap < keep)) continue;
      Vector3d out = on_link - on_axis;
      if (out.norm() <= 1e-12 * len) { // on the axis: away across the axis and the link
        out = (o.b - o.a).cross(p - h);
        if (out.norm() <= 1e-12) continue;
      }
      out.normalize();
      const double s = std::max((on_link - h).norm() / len, kLeastLever);
      const double t = std::clamp(
          (h - o.a).dot(o.b - o.a) / std::max((o.b - o.a).squaredNorm(), 1e-300), 0.0, 1.0);
      if ((h - o.a - t * (o.b - o.a)).norm() < keep) continue; // the head is in: the link above's
      // Turning the link moves the contact across it: only the part of `out` normal to the
      // link opens the gap, so the tip moves along that part, scaled up by its shortness.
      const Vector3d along = (p - h) / len;
      Vector3d across = out - out.dot(along) * along;
      const double share = across.norm();
      if (share < kLeastAcross) continue; // pushed along the link: its head's contact
      across /= share;
      const Vector3d pushed = p + (keep - gap) / (s * share) * across - h;
      if (pushed.norm() <= 1e-12 * len) continue;
      p = h + len * pushed.normalized();
      const double into = v_[i].dot(out);
      if (into < 0) v_[i] -= into * out;
      moved = collider_contact_ = true;
    }
    if (!moved) break;
  }
  return p;
}

bool SpringChain::deepest_contact(std::size_t i, const std::vector<RestObstacle>& colliders,
                                  Vector3d& at, Vector3d& out, double& need) const {
  const std::size_t n = rig_.colliders;
  need = 0;
  for (std::size_t c = 0; c < n; ++c) {
    Vector3d on_link, on_axis;
    const double gap =
        segment_gap(head(i), p_[i], colliders[c].a, colliders[c].b, on_link, on_axis);
    const double depth = rig_.collider_radius[i * n + c] - gap;
    if (!(depth > need) || gap <= 1e-12) continue;
    need = depth;
    at = on_link;
    out = (on_link - on_axis) / gap;
  }
  return need > 0;
}

void SpringChain::lift_out(std::size_t k, const Vector3d& at, const Vector3d& out, double need,
                           const Quaterniond& frame) {
  const Vector3d pivot = head(k), r = at - pivot;
  Vector3d axis = r.cross(out);
  const double lever = axis.norm();
  if (lever <= 1e-9 * rig_.length[k]) return; // the contact is straight out from the pivot
  axis /= lever;
  const double angle = std::min(need / lever, M_PI / 4);
  // No further from its bind direction than the colliders' share of the skin's limit allows
  // (or than it already is).
  const Vector3d bind = frame * rig_.authored[k], dir = (p_[k] - pivot).normalized();
  const double allowed = std::max(params_.collider_skin_share * skin_limit_[k],
                                  std::acos(std::clamp(dir.dot(bind), -1.0, 1.0)));
  auto ok = [&](double a) {
    const Vector3d turned = rotate(Quaterniond(Eigen::AngleAxisd(a, axis)), dir);
    return !(std::acos(std::clamp(turned.dot(bind), -1.0, 1.0)) > allowed);
  };
  double lo = 0, hi = angle;
  if (ok(angle)) {
    lo = angle;
  } else {
    for (int it = 0; it < 30; ++it) {
      const double mid = (lo + hi) / 2;
      (ok(mid) ? lo : hi) = mid;
    }
  }
  if (lo > 0) turn_behind_plane(k, Quaterniond(Eigen::AngleAxisd(lo, axis)));
}

void SpringChain::spread_colliders(const AnchorPose& hips,
                                   const std::vector<RestObstacle>& colliders) {
  const std::size_t n = rig_.links();
  if (rig_.colliders == 0 || colliders.size() != rig_.colliders) return;
  frames_.resize(n);
  frame_cum_.resize(n);
  frames_valid_ = 0;
  bool moved = false;
  for (std::size_t i = 0; i < n; ++i) {
    Vector3d at, out;
    double need = 0;
    // Link i itself was turned as far as its skin allows (step): the joints above lift it.
    for (std::size_t k = i; k-- > 0 && deepest_contact(i, colliders, at, out, need);) {
      lift_out(k, at, out, need, parent_frame(hips, k));
      moved_from(k);
      moved = collider_contact_ = true;
    }
  }
  if (moved) read_back(hips);
}

std::pair<double, double>
SpringChain::collider_depths(const std::vector<RestObstacle>& colliders) const {
  const std::size_t n = rig_.colliders;
  double deepest = 0, skin_deepest = 0;
  if (n == 0 || colliders.size() != n) return {deepest, skin_deepest};
  const bool skin = rig_.skin_collider_radius.size() == rig_.links() * n;
  for (std::size_t i = 0; i < rig_.links(); ++i)
    for (std::size_t c = 0; c < n; ++c) {
      Vector3d on_link, on_axis;
      const double gap =
          segment_gap(head(i), p_[i], colliders[c].a, colliders[c].b, on_link, on_axis);
      deepest = std::max(deepest, rig_.collider_radius[i * n + c] - gap);
      if (skin) skin_deepest = std::max(skin_deepest, rig_.skin_collider_radius[i * n + c] - gap);
    }
  return {deepest, skin_deepest};
}

} // namespace retail
