// SpringChain: SPEC §7 step by step (spring.h).
#include "retail/motion/spring.h"

#include "retail/base/error.h"

#include <algorithm>
#include <cmath>

namespace retail {

using Eigen::Quaterniond;
using Eigen::Vector3d;

namespace {

/// The unit quaternion along (w, v): the half-angle form (|a||b| + a.b, a x b) of a swing from
/// a to b, normalised. Pre: not the zero quaternion.
Quaterniond from_half_angle(double w, const Vector3d& v) {
  const double inv = 1 / std::sqrt(w * w + v.squaredNorm());
  return Quaterniond(w * inv, v.x() * inv, v.y() * inv, v.z() * inv);
}

} // namespace

Quaterniond swing(const Vector3d& a, const Vector3d& b) {
  // The unnormalised half-angle form: (|a||b| + a.b, a x b) has the direction of the answer
  // (cos(t/2), sin(t/2) n), so one normalisation at the end replaces normalising a and b.
  const double ab = a.norm() * b.norm();
  if (!(ab > 0)) return Quaterniond::Identity(); // a zero vector: no direction to turn
  const double w = ab + a.dot(b);
  if (w < 1e-12 * ab) { // opposite: any axis normal to a
    Vector3d axis = a.cross(Vector3d::UnitX());
    if (axis.norm() < 1e-6 * a.norm()) axis = a.cross(Vector3d::UnitY());
    return Quaterniond(Eigen::AngleAxisd(M_PI, axis.normalized()));
  }
  return from_half_angle(w, a.cross(b));
}

namespace {

/// swing(a, b) for unit a and b (|a||b| taken as 1: two square roots fewer). The step's
/// directions are unit by construction: rest and bind directions, rotated unit vectors.
Quaterniond swing_unit(const Vector3d& a, const Vector3d& b) {
  const double w = 1 + a.dot(b);
  if (w < 1e-12) return swing(a, b); // opposite: swing's half turn
  return from_half_angle(w, a.cross(b));
}

/// Spherical interpolation from a to b (unit quaternions) along the shorter arc, as Eigen's
/// slerp, with one acos and one sine/cosine pair: sin((1-t)T)/sin T = cos tT - cos T sin tT/sin T.
Quaterniond slerp(const Quaterniond& a, const Quaterniond& b, double t) {
  double d = a.dot(b), sign = d < 0 ? -1.0 : 1.0;
  d = std::abs(d);
  double s0 = 1 - t, s1 = t;
  if (d < 1 - 1e-15) {
    double theta = std::acos(d), sin_theta = std::sqrt(1 - d * d);
    s1 = std::sin(t * theta) / sin_theta;
    s0 = std::cos(t * theta) - d * s1;
  }
  Quaterniond q;
  q.coeffs() = s0 * a.coeffs() + (sign * s1) * b.coeffs();
  return q;
}

/// q / |q| with one division (Eigen's normalized() divides each coefficient); a zero q is
/// returned as it is, as normalized() does.
inline __attribute__((always_inline)) Quaterniond unit(const Quaterniond& q) {
  const double n2 = q.coeffs().squaredNorm();
  if (!(n2 > 0)) return q;
  Quaterniond r;
  r.coeffs() = q.coeffs() * (1 / std::sqrt(n2));
  return r;
}

/// The same for a vector.
inline __attribute__((always_inline)) Vector3d unit(const Vector3d& v) {
  const double n2 = v.squaredNorm();
  return n2 > 0 ? Vector3d(v * (1 / std::sqrt(n2))) : v;
}

/// q v q^-1 for a unit quaternion q: Eigen's formula (v + w t + q.v x t, t = 2 q.v x v, the
/// same operations in the same order) written out in scalars; Eigen's operator* and its cross
/// product of a quaternion's vector part are out-of-line calls here, a sixth of the step.
inline Vector3d rotate(const Quaterniond& q, const Vector3d& v) {
  const double x = q.x(), y = q.y(), z = q.z(), w = q.w();
  const double tx = 2 * (y * v.z() - z * v.y()), ty = 2 * (z * v.x() - x * v.z()),
               tz = 2 * (x * v.y() - y * v.x());
  return Vector3d(v.x() + w * tx + (y * tz - z * ty), v.y() + w * ty + (z * tx - x * tz),
                  v.z() + w * tz + (x * ty - y * tx));
}

/// A s A^-1 for a unit quaternion A given as its rotation matrix: the same angle about the axis
/// turned by A, (s.w, A s.v); one matrix-vector product instead of two quaternion products.
inline Quaterniond conjugated(const Eigen::Matrix3d& A, const Quaterniond& s) {
  Quaterniond q;
  q.w() = s.w();
  q.vec() = A * s.vec();
  return q;
}

/// A^-1 q A, likewise: (q.w, A^T q.v).
inline Quaterniond unconjugated(const Eigen::Matrix3d& A, const Quaterniond& q) {
  Quaterniond s;
  s.w() = q.w();
  s.vec() = A.transpose() * q.vec();
  return s;
}

/// slerp(a, b, 1/2), normalised: the sum of a and b (b on a's side), normalised.
Quaterniond midpoint(const Quaterniond& a, const Quaterniond& b) {
  Quaterniond q;
  q.coeffs() = a.coeffs() + (a.dot(b) < 0 ? -1.0 : 1.0) * b.coeffs();
  double n = q.coeffs().norm();
  if (!(n > 0)) return a;
  q.coeffs() *= 1 / n;
  return q;
}

} // namespace

double rotation_angle(const Quaterniond& q) {
  return 2 * std::acos(std::clamp(std::abs(q.w()), 0.0, 1.0));
}

double skin_bend_limit(double radius, double length_prev, double length_next, double min_ratio) {
  if (!(radius > 0) || !(min_ratio > 0) || min_ratio >= 1) return INFINITY;
  return (1 - min_ratio) * (length_prev + length_next) / (4 * radius);
}

void SpringParams::validate() const {
  bool ok = root_frequency_hz > 0 && tip_frequency_hz > 0 && damping_ratio >= 0 &&
            gravity_mps2 >= 0 && rest_curve >= 0 && rest_curve <= 1 && coupling_rate >= 0 &&
            bend_limit_deg > 0 && bend_limit_deg <= 180 && floor_clearance_m >= 0 &&
            contact_damping >= 0 && min_skin_ratio >= 0 && min_skin_ratio < 1 && substep_s > 0 &&
            substep_s <= 0.1 && std::isfinite(carry_deg);
  if (!ok) throw Error(ExitCode::Usage, "spring parameters out of range");
}

SpringChain::SpringChain(const SpringRig& rig, const SpringParams& params)
    : rig_(rig), params_(params) {
  params_.validate();
  floor_on_ = rig_.floor && params_.floor;
  for (Vector3d& a : rig_.authored) a.normalize(); // unit to the last bit the step assumes
  std::size_t n = rig_.links();
  p_.assign(n, Vector3d::Zero());
  v_.assign(n, Vector3d::Zero());
  q_.assign(n, Quaterniond::Identity());
  local_.assign(n, Quaterniond::Identity());
  contact_.assign(n, false);
  skin_limit_.assign(n, INFINITY);
  for (std::size_t i = 0; i < n && i < rig_.skin_radius.size(); ++i)
    skin_limit_[i] = skin_bend_limit(rig_.skin_radius[i], rig_.length[i == 0 ? 0 : i - 1],
                                     rig_.length[i], params_.min_skin_ratio);
  cos_half_limit_ = std::cos(params_.bend_limit_deg * M_PI / 180 / 2);
  skin_cos_.assign(n, -2.0);
  contact_cos_.assign(n, -2.0);
  for (std::size_t i = 0; i < n; ++i) {
    if (skin_limit_[i] < M_PI) skin_cos_[i] = std::cos(skin_limit_[i]);
    if (skin_limit_[i] + 1e-9 < M_PI) contact_cos_[i] = std::cos(skin_limit_[i] + 1e-9);
  }
  build_rest_arc();
}

/// The centred carried rest arc (SPEC §7): in the hips' canonical frame (x left, y up, z
/// forward), c = normalize(0, a0y, a0z); u_i = R_x(C (i+1)/N) rot(Q_i(beta), c) with
/// Q_i(beta) = slerp(I, swing(c, a_i), beta); then the cumulative rest rotations G_i that carry
/// each authored direction onto its arc direction, and r_i = G_{i-1}^-1 u_i.
void SpringChain::build_rest_arc() {
  std::size_t n = rig_.links();
  Vector3d up = rig_.up_local.normalized();
  Vector3d left = (rig_.left_local - rig_.left_local.dot(up) * up).normalized();
  Vector3d forward = left.cross(up).normalized();
  forward_local_ = forward;
  Eigen::Matrix3d B;
  B.col(0) = left;
  B.col(1) = up;
  B.col(2) = forward;
  Vector3d a0 = B.transpose() * rig_.authored[0];
  Vector3d c(0, a0.y(), a0.z());
  c = c.norm() > 1e-9 ? c.normalized() : Vector3d(0, -1, 0);
  double carry = params_.carry_deg * M_PI / 180;
  u_.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    Vector3d ai = (B.transpose() * rig_.authored[i]).normalized();
    Quaterniond Q = Quaterniond::Identity().slerp(params_.rest_curve, swing(c, ai));
    Eigen::AngleAxisd lift(carry * double(i + 1) / double(n), Vector3d::UnitX());
    u_[i] = B * (lift * (Q * c)).normalized();
  }
  rest_.resize(n);
  r_.resize(n);
  parent_rest_.assign(n, Eigen::Matrix3d::Identity());
  Quaterniond G = Quaterniond::Identity();
  for (std::size_t i = 0; i < n; ++i) {
    r_[i] = G.conjugate() * u_[i];
    G = (swing(G * rig_.authored[i], u_[i]) * G).normalized();
    rest_[i] = G;
    if (i + 1 < n) parent_rest_[i + 1] = G.toRotationMatrix();
  }
}

void SpringChain::reset(const AnchorPose& hips) {
  penetration_ = 0;
  root_ = (hips.world * rig_.root_offset.homogeneous()).head<3>();
  floor_ = rig_.floor_y + params_.floor_clearance_m * rig_.scale;
  Vector3d h = root_;
  Quaterniond parent_rest = Quaterniond::Identity();
  for (std::size_t i = 0; i < rig_.links(); ++i) {
    p_[i] = h + rig_.length[i] * (hips.rotation * u_[i]);
    v_[i].setZero();
    q_[i] = Quaterniond::Identity();
    local_[i] = (parent_rest.conjugate() * rest_[i]).normalized();
    contact_[i] = false;
    parent_rest = rest_[i];
    h = p_[i];
  }
  hold_rest_in_skin(hips);
}

namespace {

/// A limit moved a particle's direction from `from` back to `to`: the part of `v` that keeps
/// pushing towards `from` (tangent at `to`) is removed, so it cannot build up and snap free.
void remove_push(const Vector3d& from, const Vector3d& to, Vector3d& v) {
  Vector3d push = from - from.dot(to) * to;
  if (push.norm() <= 1e-12) return;
  push.normalize();
  double into = v.dot(push);
  if (into > 0) v -= into * push;
}

/// Direction `dir` pulled back to within `limit` radians of `bind` (the skin's limit); the
/// velocity pushing further out is removed. `cos_limit`: cos(limit), or below -1 for none.
Vector3d skin_limited(const Vector3d& dir, const Vector3d& bind, double limit, double cos_limit,
                      Vector3d& v) {
  double c = dir.dot(bind);
  if (c >= cos_limit) return dir; // within the limit: no acos needed
  double angle = std::acos(std::clamp(c, -1.0, 1.0));
  if (!(angle > limit)) return dir;
  Vector3d out =
      (slerp(Quaterniond::Identity(), swing(bind, dir), limit / angle) * bind).normalized();
  remove_push(dir, out, v);
  return out;
}

} // namespace

void SpringChain::hold_rest_in_skin(const AnchorPose& hips) {
  Quaterniond cum = Quaterniond::Identity();
  Vector3d h = root_;
  bool within = true;
  for (std::size_t i = 0; i < rig_.links() && within; ++i) { // the arc as placed, checked
    const Quaterniond parent = unit(hips.rotation * cum);
    const Vector3d dir = unit(p_[i] - h);
    within = !(std::acos(std::clamp(dir.dot(rotate(parent, rig_.authored[i])), -1.0, 1.0)) >
               skin_limit_[i] + 1e-9);
    cum = unit(cum * swing_unit(rig_.authored[i], rotate(parent.conjugate(), dir)));
    h = p_[i];
  }
  if (within) return;
  cum = Quaterniond::Identity();
  h = root_;
  for (std::size_t i = 0; i < rig_.links(); ++i) { // each link within its skin's limit
    const Quaterniond parent = unit(hips.rotation * cum);
    const Vector3d dir = skin_limited(unit(hips.rotation * u_[i]), rotate(parent, rig_.authored[i]),
                                      skin_limit_[i], skin_cos_[i], v_[i]);
    p_[i] = h + rig_.length[i] * dir;
    read_back_link(i, parent, h, cum);
    h = p_[i];
  }
}

void SpringChain::begin_step(const AnchorPose& hips, double dt) {
  if (!(dt == step_dt_)) { // the substep's constants, once per substep length
    step_dt_ = dt;
    step_alpha_ = 1 - std::exp(-params_.coupling_rate * dt);
    step_contact_decay_ = std::exp(-params_.contact_damping * dt);
  }
  root_ = (hips.world * rig_.root_offset.homogeneous()).head<3>();
  forward_ = forward_axis(hips);
  // The plane keeps a standing tail from swinging between the legs; it applies while the hips
  // are within 60 degrees of upright (a body lying down has no "between the legs" to keep).
  plane_ = rig_.forward_plane && (hips.rotation * rig_.up_local.normalized()).y() >= 0.5;
  old_ = q_; // the snapshot coupling reads (a member: no allocation per step)
}

Vector3d SpringChain::spring_link(std::size_t i, const Vector3d& h, const Quaterniond& parent,
                                  double dt, Vector3d& rest_dir) {
  const std::size_t n = rig_.links();
  const double len = rig_.length[i];
  const Vector3d gravity(0, -params_.gravity_mps2 * rig_.scale, 0);
  // 1-2. Rest target and the damped spring, semi-implicit Euler.
  double f =
      n > 1 ? params_.root_frequency_hz +
                  (params_.tip_frequency_hz - params_.root_frequency_hz) * double(i) / double(n - 1)
            : params_.root_frequency_hz;
  double w = 2 * M_PI * f;
  rest_dir = rotate(parent, r_[i]); // the rest direction, world
  Vector3d target = h + len * rest_dir;
  Vector3d acc = w * w * (target - p_[i]) - 2 * params_.damping_ratio * w * v_[i] + gravity;
  v_[i] += acc * dt;
  Vector3d predicted = p_[i] + v_[i] * dt;
  // 3. Rope: back onto the sphere; remove the radial velocity (never correction / dt).
  Vector3d d = predicted - h;
  Vector3d nrm = d.norm() > 1e-12 * len ? unit(d) : rest_dir;
  Vector3d projected = h + len * nrm;
  if (feed_correction_as_velocity)
    v_[i] += (projected - predicted) / dt;
  else
    v_[i] -= v_[i].dot(nrm) * nrm;
  return nrm;
}

Vector3d SpringChain::bend_link(std::size_t i, const Quaterniond& parent, const Vector3d& nrm) {
  const std::size_t n = rig_.links();
  const Quaterniond I = Quaterniond::Identity();
  const double limit = params_.bend_limit_deg * M_PI / 180;
  const Eigen::Matrix3d& A = parent_rest_[i]; // the parent's rest frame -> hips frame
  const std::vector<Quaterniond>& old = old_;
  // 4. Bend in the common hips frame, coupled to last step's neighbours.
  Vector3d cand = rotate(parent.conjugate(), nrm);
  Quaterniond q = conjugated(A, swing_unit(r_[i], cand)); // unit: a unit swing, turned
  if (n > 1) {
    Quaterniond target_bend = i == 0       ? midpoint(I, old[1])
                              : i + 1 == n ? old[i - 1]
                                           : midpoint(old[i - 1], old[i + 1]);
    q = unit(slerp(q, target_bend, step_alpha_));
  }
  // 5. Elastic limit; the velocity pushing further into it is removed. |w| below
  // cos_half_limit_: the bend is past the limit.
  double theta = std::abs(q.w()) < cos_half_limit_ ? rotation_angle(q) : 0.0;
  Vector3d dir;
  if (theta > limit) {
    Vector3d free_dir = rotate(parent, rotate(unconjugated(A, q), r_[i]));
    q = unit(slerp(I, q, limit / theta));
    dir = unit(rotate(parent, rotate(unconjugated(A, q), r_[i])));
    remove_push(free_dir, dir, v_[i]);
  } else {
    dir = unit(rotate(parent, rotate(unconjugated(A, q), r_[i])));
  }
  return skin_limited(dir, rotate(parent, rig_.authored[i]), skin_limit_[i], skin_cos_[i], v_[i]);
}

Vector3d SpringChain::constrain_link(std::size_t i, const Vector3d& h, Vector3d p,
                                     const Vector3d& rest_dir) {
  const double len = rig_.length[i];
  const Vector3d& forward = forward_;
  // 6. The forward plane through the tail root: no particle in front of it.
  double ahead = (p - root_).dot(forward);
  if (plane_ && ahead > 0) {
    double head_ahead = (h - root_).dot(forward);
    Vector3d centre = h - head_ahead * forward;
    double radius2 = len * len - head_ahead * head_ahead;
    Vector3d in_plane = p - ahead * forward - centre;
    if (radius2 > 0 && in_plane.norm() > 1e-12)
      p = centre + std::sqrt(radius2) * in_plane.normalized();
    else if (radius2 > 0)
      p = centre + std::sqrt(radius2) * (-forward.cross(Vector3d::UnitY())).normalized();
    double vf = v_[i].dot(forward);
    if (vf > 0) v_[i] -= vf * forward;
  }
  // 7. Floor contact on the sphere-plane circle (overrides the bend limit).
  contact_[i] = false;
  if (floor_on_ && p.y() < floor_) {
    p = h + len * floor_direction(h, p - h, len, rest_dir);
    v_[i] = step_contact_decay_ * Vector3d(v_[i].x(), std::max(0.0, v_[i].y()), v_[i].z());
    contact_[i] = true;
  }
  return p;
}

void SpringChain::read_back_link(std::size_t i, const Quaterniond& parent, const Vector3d& h,
                                 Quaterniond& cum) {
  // 8. Read back: the bend from the rest direction (for the coupling) and the local rotation
  //    that takes the bind direction onto the particle (what the bone is written with).
  Vector3d final_dir = rotate(parent.conjugate(), unit(p_[i] - h));
  Quaterniond bend_parent = swing_unit(r_[i], final_dir);
  q_[i] = conjugated(parent_rest_[i], bend_parent);    // unit, as above
  local_[i] = swing_unit(rig_.authored[i], final_dir); // the bind direction onto the particle
  cum = unit(cum * local_[i]);
}

void SpringChain::step(const AnchorPose& hips, double dt) {
  begin_step(hips, dt);
  Quaterniond cum =
      Quaterniond::Identity(); // product of solved local rotations so far (hips space)
  Vector3d h = root_;
  for (std::size_t i = 0; i < rig_.links(); ++i) {
    const Quaterniond parent = unit(hips.rotation * cum); // parent's current world frame
    Vector3d rest_dir;
    const Vector3d nrm = spring_link(i, h, parent, dt, rest_dir);
    const Vector3d dir = bend_link(i, parent, nrm);
    p_[i] = constrain_link(i, h, h + rig_.length[i] * dir, rest_dir);
    read_back_link(i, parent, h, cum);
    h = p_[i];
  }
  if (floor_on_) spread_contact(hips);
}

Vector3d SpringChain::forward_axis(const AnchorPose& hips) const {
  // left x up (its length is the sine between them) fades into the carried bind forward as
  // the left axis turns vertical, where left x up alone would spin.
  Vector3d left = hips.rotation * rig_.left_local;
  Vector3d f = left.normalized().cross(Vector3d::UnitY());
  Vector3d carried = hips.rotation * forward_local_;
  Vector3d forward = f + (1 - f.norm()) * carried;
  forward.y() = 0;
  return forward.norm() > 1e-9 ? Vector3d(forward.normalized()) : Vector3d::UnitZ();
}

const Quaterniond& SpringChain::parent_frame(const AnchorPose& hips, std::size_t i) {
  if (frames_valid_ == 0) {
    frame_cum_[0] = Quaterniond::Identity();
    frames_[0] = unit(hips.rotation * frame_cum_[0]);
    frames_valid_ = 1;
  }
  for (std::size_t j = frames_valid_; j <= i; ++j) {
    Vector3d dir = rotate(frames_[j - 1].conjugate(), unit(p_[j - 1] - head(j - 1)));
    frame_cum_[j] = unit(frame_cum_[j - 1] * swing(rig_.authored[j - 1], dir));
    frames_[j] = unit(hips.rotation * frame_cum_[j]);
  }
  frames_valid_ = std::max(frames_valid_, i + 1);
  return frames_[i];
}

void SpringChain::rotate_from(std::size_t first, const Quaterniond& r) {
  Vector3d pivot = head(first);
  for (std::size_t j = first; j < p_.size(); ++j) p_[j] = pivot + rotate(r, p_[j] - pivot);
}

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
  auto past_limit = [&](std::size_t i, const Vector3d& tip, const Quaterniond& frame,
                        double& angle) {
    Vector3d dir = (tip - head(i)).normalized(), bind = frame * rig_.authored[i];
    const double c = std::clamp(dir.dot(bind), -1.0, 1.0);
    if (c > contact_cos_[i] + 1e-12) return false;
    angle = std::acos(c);
    return angle > skin_limit_[i] + 1e-9;
  };
  frames_.resize(n);
  frame_cum_.resize(n);
  frames_valid_ = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (!contact_[i] || !std::isfinite(skin_limit_[i])) continue;
    const Quaterniond frame = parent_frame(hips, i);
    double angle = 0;
    if (!past_limit(i, p_[i], frame, angle)) continue;
    // Back to the joint's own limit (its downstream links follow; never through the forward
    // plane), then lifted from the joints above.
    Vector3d dir = (p_[i] - head(i)).normalized(), bind = frame * rig_.authored[i];
    turn_behind_plane(i,
                      slerp(Quaterniond::Identity(), swing(dir, bind), 1 - skin_limit_[i] / angle));
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
    double angle = 0;
    if (past_limit(i, pivot + rotate(turn, p_[i] - pivot), frame, angle)) continue;
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

void SpringChain::read_back(const AnchorPose& hips) {
  Quaterniond cum = Quaterniond::Identity();
  for (std::size_t i = 0; i < rig_.links(); ++i) {
    Quaterniond parent = unit(hips.rotation * cum);
    Vector3d final_dir = rotate(parent.conjugate(), unit(p_[i] - head(i)));
    q_[i] = unit(conjugated(parent_rest_[i], swing(r_[i], final_dir)));
    local_[i] = swing(rig_.authored[i], final_dir);
    cum = unit(cum * local_[i]);
  }
}

} // namespace retail
