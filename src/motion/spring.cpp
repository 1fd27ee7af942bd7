// SpringChain: SPEC §7 step by step (spring.h); the floor contact and the forward plane in
// spring_contact.cpp.
#include "retail/motion/spring.h"
#include "motion/spring_internal.h"

#include "retail/base/error.h"

#include <algorithm>
#include <cmath>

namespace retail {

using Eigen::Quaterniond;
using Eigen::Vector3d;
using spring_detail::rotate;
using spring_detail::slerp;

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

namespace {

/// Error(Usage) naming the option unless `ok` (and the value finite).
void require_option(bool ok, double value, const char* option, const char* rule) {
  if (ok && std::isfinite(value)) return;
  throw Error(ExitCode::Usage,
              std::string(option) + " must be " + rule + " (got " + std::to_string(value) + ")");
}

} // namespace

double JointBend::toward(const Eigen::Vector3d& d, const Eigen::Vector3d& n) const {
  const std::size_t N = by_axis.size();
  const Eigen::Vector3d a2 = d.cross(axis0);
  const double x = n.dot(axis0), y = n.dot(a2);
  if (N == 0 || !(x * x + y * y > 0.25)) return least; // no table, or n far from normal to d
  double psi = std::atan2(y, x);
  if (psi < 0) psi += 2 * M_PI;
  const double at = psi / (2 * M_PI) * double(N);
  const std::size_t k0 = std::size_t(at) % N, k1 = (k0 + 1) % N;
  return std::min(by_axis[k0], by_axis[k1]);
}

void SpringParams::validate() const {
  require_option(root_frequency_hz > 0, root_frequency_hz, "--frequency", "a finite number > 0");
  require_option(tip_frequency_hz > 0, tip_frequency_hz, "--tip-frequency", "a finite number > 0");
  require_option(damping_ratio >= 0, damping_ratio, "--damping", "a finite number >= 0");
  require_option(gravity_mps2 >= 0, gravity_mps2, "--gravity", "a finite number >= 0");
  require_option(true, carry_deg, "--carry", "a finite number");
  require_option(rest_curve >= 0 && rest_curve <= 1, rest_curve, "--rest-curve", "within [0, 1]");
  require_option(coupling_rate >= 0, coupling_rate, "--coupling", "a finite number >= 0");
  require_option(bend_limit_deg > 0 && bend_limit_deg <= 180, bend_limit_deg, "--bend-limit",
                 "within (0, 180]");
  require_option(floor_clearance_m >= 0, floor_clearance_m, "--floor-clearance",
                 "a finite number >= 0");
  require_option(contact_damping >= 0, contact_damping, "--contact-damping",
                 "a finite number >= 0");
  require_option(min_skin_ratio >= 0 && min_skin_ratio < 1, min_skin_ratio, "--min-skin-ratio",
                 "within [0, 1)");
  require_option(rest_skin_share >= 0 && rest_skin_share <= 1, rest_skin_share, "--rest-skin-share",
                 "within [0, 1]");
  require_option(substep_s > 0 && substep_s <= 0.1, substep_s, "--substep", "within (0, 0.1]");
  require_option(collider_skin_share >= 1 && collider_skin_share <= 4, collider_skin_share,
                 "--collider-share", "within [1, 4]");
}

SpringChain::SpringChain(const SpringRig& rig, const SpringParams& params)
    : rig_(rig), params_(params) {
  params_.validate();
  if (rig_.collider_radius.size() != rig_.links() * rig_.colliders) rig_.colliders = 0;
  floor_on_ = rig_.floor && params_.floor;
  for (Vector3d& a : rig_.authored) a.normalize(); // unit to the last bit the step assumes
  std::size_t n = rig_.links();
  p_.assign(n, Vector3d::Zero());
  v_.assign(n, Vector3d::Zero());
  q_.assign(n, Quaterniond::Identity());
  local_.assign(n, Quaterniond::Identity());
  contact_.assign(n, false);
  skin_limit_.assign(n, INFINITY);
  // A chain's own ratio only ever bends less than the run's (a stricter --min-skin-ratio wins).
  const double ratio = std::isnan(rig_.min_skin_ratio)
                           ? params_.min_skin_ratio
                           : std::max(rig_.min_skin_ratio, params_.min_skin_ratio);
  for (std::size_t i = 0; i < n && i < rig_.skin_radius.size(); ++i)
    skin_limit_[i] = skin_bend_limit(rig_.skin_radius[i], rig_.length[i == 0 ? 0 : i - 1],
                                     rig_.length[i], ratio);
  // The weights' limits only tighten the radius model's, in every direction; off with it.
  if (!(ratio > 0 && ratio < 1)) rig_.weighted_limit.clear();
  for (std::size_t i = 0; i < n && i < rig_.weighted_limit.size(); ++i) {
    JointBend& b = rig_.weighted_limit[i];
    for (double& l : b.by_axis) l = std::min(l, skin_limit_[i]);
    b.least = std::min(b.least, skin_limit_[i]);
    skin_limit_[i] = b.least;
  }
  cos_half_limit_ = std::cos(params_.bend_limit_deg * M_PI / 180 / 2);
  skin_cos_.assign(n, -2.0);
  contact_cos_.assign(n, -2.0);
  collider_limit_.assign(n, INFINITY);
  collider_cos_.assign(n, -2.0);
  for (std::size_t i = 0; i < n; ++i) {
    collider_limit_[i] = params_.collider_skin_share * skin_limit_[i];
    if (collider_limit_[i] < M_PI) collider_cos_[i] = std::cos(collider_limit_[i]);
    if (skin_limit_[i] < M_PI) skin_cos_[i] = std::cos(skin_limit_[i]);
    if (skin_limit_[i] + 1e-9 < M_PI) contact_cos_[i] = std::cos(skin_limit_[i] + 1e-9);
  }
  build_rest_arc();
}

namespace {

/// Unit direction `dir` turned towards unit `bind` until within `limit` radians of it (the
/// shortest swing); unchanged when already within.
Vector3d turned_within(const Vector3d& dir, const Vector3d& bind, double limit) {
  double angle = std::acos(std::clamp(dir.dot(bind), -1.0, 1.0));
  if (!(angle > limit)) return dir;
  return (slerp(Quaterniond::Identity(), swing(bind, dir), limit / angle) * bind).normalized();
}

} // namespace

std::vector<Vector3d> SpringChain::arc(double carry, double beta) const {
  const std::size_t n = rig_.links();
  const Vector3d up = rig_.up_local.normalized();
  const Vector3d left = (rig_.left_local - rig_.left_local.dot(up) * up).normalized();
  Eigen::Matrix3d B;
  B.col(0) = left;
  B.col(1) = up;
  B.col(2) = left.cross(up).normalized();
  const Vector3d a0 = B.transpose() * rig_.authored[0];
  Vector3d c(0, a0.y(), a0.z());
  c = c.norm() > 1e-9 ? c.normalized() : Vector3d(0, -1, 0);
  std::vector<Vector3d> u(n);
  for (std::size_t i = 0; i < n; ++i) {
    const Vector3d ai = (B.transpose() * rig_.authored[i]).normalized();
    const Quaterniond Q = Quaterniond::Identity().slerp(beta, swing(c, ai));
    const Eigen::AngleAxisd lift(carry * double(i + 1) / double(n), Vector3d::UnitX());
    u[i] = B * (lift * (Q * c)).normalized();
  }
  return u;
}

double SpringChain::clearance(const std::vector<Vector3d>& u) const {
  double least = INFINITY;
  Vector3d p = Vector3d::Zero(); // the chain's root, where the obstacles are placed from
  const bool floor = floor_on_ && std::isfinite(rig_.root_y);
  const double floor_y = rig_.floor_y + params_.floor_clearance_m * rig_.scale;
  for (std::size_t i = 0; i < u.size(); ++i) {
    p += rig_.length[i] * u[i];
    if (floor) least = std::min(least, rig_.root_y + p.dot(rig_.up_local.normalized()) - floor_y);
    for (const RestObstacle& o : rig_.clear_of) {
      const Vector3d ab = o.b - o.a;
      const double t =
          ab.squaredNorm() > 0 ? std::clamp((p - o.a).dot(ab) / ab.squaredNorm(), 0.0, 1.0) : 0.0;
      least = std::min(least, (p - (o.a + t * ab)).norm() - o.radius);
    }
  }
  return least;
}

/// The rest arc (SPEC §7, and carry_as_needed): in the hips' canonical frame (x left, y up, z
/// forward), c = normalize(0, a0y, a0z); u_i = R_x(C (i+1)/N) rot(Q_i(beta), c) with
/// Q_i(beta) = slerp(I, swing(c, a_i), beta). With obstacles to clear (carry_as_needed), C is
/// the least whole degree up to carry_deg whose arc's joints clear them, or when none does the
/// least that clears them most; else C = carry_deg. Each u_i is then turned back to within
/// rest_skin_share of its skin limit from G_{i-1} a_i (its bind direction under the rest held so
/// far); then the cumulative rest rotations G_i that carry each authored direction onto its arc
/// direction, and r_i = G_{i-1}^-1 u_i.
void SpringChain::build_rest_arc() {
  std::size_t n = rig_.links();
  const Vector3d up = rig_.up_local.normalized();
  const Vector3d left = (rig_.left_local - rig_.left_local.dot(up) * up).normalized();
  forward_local_ = left.cross(up).normalized();
  carry_deg_ = params_.carry_deg;
  clears_ = false;
  u_ = arc(params_.carry_deg * M_PI / 180, params_.rest_curve);
  if (params_.carry_as_needed && !rig_.clear_of.empty()) {
    // The least carry whose arc clears; when none does, the one that clears the most (the least
    // of those within a millimetre at H = 1.8): lifting further helps nothing.
    const double tolerance = 1e-3 * rig_.scale;
    double best = -INFINITY;
    for (int deg = 0; deg <= int(std::floor(params_.carry_deg)); ++deg) {
      std::vector<Vector3d> lifted = arc(deg * M_PI / 180, params_.rest_curve);
      const double clear = clearance(lifted);
      if (clear > best + tolerance) best = clear, u_ = lifted, carry_deg_ = deg;
      if (clear < 0) continue;
      u_ = std::move(lifted);
      carry_deg_ = deg;
      clears_ = true;
      break;
    }
  }
  rest_.resize(n);
  r_.resize(n);
  parent_rest_.assign(n, Eigen::Matrix3d::Identity());
  Quaterniond G = Quaterniond::Identity();
  for (std::size_t i = 0; i < n; ++i) {
    // A rest the skin holds: within its share of the skin limit of the bind direction, in the
    // parent's rest frame as held so far (a thick tail rests near its modelled shape).
    const double skin = skin_limit_toward(i, G, u_[i]);
    if (params_.rest_skin_share > 0 && skin < M_PI)
      u_[i] =
          turned_within(u_[i], (G * rig_.authored[i]).normalized(), params_.rest_skin_share * skin);
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
  if (dir.dot(bind) >= cos_limit) return dir; // within the limit: no acos needed
  Vector3d out = turned_within(dir, bind, limit);
  if (out != dir) remove_push(dir, out, v);
  return out;
}

} // namespace

double SpringChain::skin_limit_toward(std::size_t i, const Quaterniond& parent,
                                      const Vector3d& dir) const {
  if (i >= rig_.weighted_limit.size() || rig_.weighted_limit[i].by_axis.empty())
    return skin_limit_[i];
  const Vector3d n = rig_.authored[i].cross(rotate(parent.conjugate(), dir));
  const double s = n.norm();
  if (!(s > 1e-12)) return skin_limit_[i];
  return rig_.weighted_limit[i].toward(rig_.authored[i], n / s);
}

Vector3d SpringChain::within_skin(std::size_t i, const Quaterniond& parent, const Vector3d& dir,
                                  Vector3d& v) const {
  const Vector3d bind = rotate(parent, rig_.authored[i]);
  if (dir.dot(bind) >= skin_cos_[i]) return dir; // within the least limit: no direction needed
  const double limit = skin_limit_toward(i, parent, dir);
  return skin_limited(dir, bind, limit, limit < M_PI ? std::cos(limit) : -2.0, v);
}

void SpringChain::hold_rest_in_skin(const AnchorPose& hips) {
  Quaterniond cum = Quaterniond::Identity();
  Vector3d h = root_;
  bool within = true;
  for (std::size_t i = 0; i < rig_.links() && within; ++i) { // the arc as placed, checked
    const Quaterniond parent = unit(hips.rotation * cum);
    const Vector3d dir = unit(p_[i] - h);
    within = !(std::acos(std::clamp(dir.dot(rotate(parent, rig_.authored[i])), -1.0, 1.0)) >
               skin_limit_toward(i, parent, dir) + 1e-9);
    cum = unit(cum * swing_unit(rig_.authored[i], rotate(parent.conjugate(), dir)));
    h = p_[i];
  }
  if (within) return;
  cum = Quaterniond::Identity();
  h = root_;
  for (std::size_t i = 0; i < rig_.links(); ++i) { // each link within its skin's limit
    const Quaterniond parent = unit(hips.rotation * cum);
    const Vector3d dir = within_skin(i, parent, unit(hips.rotation * u_[i]), v_[i]);
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
  return within_skin(i, parent, dir, v_[i]);
}

Vector3d SpringChain::constrain_link(std::size_t i, const Vector3d& h, Vector3d p,
                                     const Vector3d& rest_dir) {
  const double len = rig_.length[i];
  const Vector3d& forward = forward_;
  // 6. The forward plane through the tail root: no particle in front of it below the root (it
  // keeps the tail from swinging between the legs, which hang below the hips; a tail curled up
  // over the back is modelled ahead of it, above them).
  double ahead = (p - root_).dot(forward);
  if (plane_ && ahead > 0 && p.y() < root_.y()) {
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

void SpringChain::step(const AnchorPose& hips, double dt,
                       const std::vector<RestObstacle>* colliders) {
  begin_step(hips, dt);
  collider_contact_ = false;
  Quaterniond cum =
      Quaterniond::Identity(); // product of solved local rotations so far (hips space)
  Vector3d h = root_;
  for (std::size_t i = 0; i < rig_.links(); ++i) {
    const Quaterniond parent = unit(hips.rotation * cum); // parent's current world frame
    Vector3d rest_dir;
    const Vector3d nrm = spring_link(i, h, parent, dt, rest_dir);
    const Vector3d dir = bend_link(i, parent, nrm);
    Vector3d p = h + rig_.length[i] * dir;
    if (colliders) { // out of the colliders, within their share of the skin's limit
      p = collide_link(i, h, p, *colliders);
      p = h + rig_.length[i] * skin_limited(unit(p - h), rotate(parent, rig_.authored[i]),
                                            collider_limit_[i], collider_cos_[i], v_[i]);
    }
    p_[i] = constrain_link(i, h, p, rest_dir);
    read_back_link(i, parent, h, cum);
    h = p_[i];
  }
  if (colliders) spread_colliders(hips, *colliders);
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
