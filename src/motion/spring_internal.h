// Private to the spring (src/motion/spring.cpp, src/motion/spring_contact.cpp): the quaternion
// helpers both halves of the step use, inline so each stays in its caller's loop.
#pragma once

#include <Eigen/Geometry>

#include <cmath>

namespace retail::spring_detail {

/// Spherical interpolation from a to b (unit quaternions) along the shorter arc, as Eigen's
/// slerp, with one acos and one sine/cosine pair: sin((1-t)T)/sin T = cos tT - cos T sin tT/sin T.
inline Eigen::Quaterniond slerp(const Eigen::Quaterniond& a, const Eigen::Quaterniond& b,
                                double t) {
  double d = a.dot(b), sign = d < 0 ? -1.0 : 1.0;
  d = std::abs(d);
  double s0 = 1 - t, s1 = t;
  if (d < 1 - 1e-15) {
    double theta = std::acos(d), sin_theta = std::sqrt(1 - d * d);
    s1 = std::sin(t * theta) / sin_theta;
    s0 = std::cos(t * theta) - d * s1;
  }
  Eigen::Quaterniond q;
  q.coeffs() = s0 * a.coeffs() + (sign * s1) * b.coeffs();
  return q;
}

/// q v q^-1 for a unit quaternion q: Eigen's formula (v + w t + q.v x t, t = 2 q.v x v, the
/// same operations in the same order) written out in scalars; Eigen's operator* and its cross
/// product of a quaternion's vector part are out-of-line calls here, a sixth of the step.
inline Eigen::Vector3d rotate(const Eigen::Quaterniond& q, const Eigen::Vector3d& v) {
  const double x = q.x(), y = q.y(), z = q.z(), w = q.w();
  const double tx = 2 * (y * v.z() - z * v.y()), ty = 2 * (z * v.x() - x * v.z()),
               tz = 2 * (x * v.y() - y * v.x());
  return Eigen::Vector3d(v.x() + w * tx + (y * tz - z * ty), v.y() + w * ty + (z * tx - x * tz),
                         v.z() + w * tz + (x * ty - y * tx));
}

} // namespace retail::spring_detail
