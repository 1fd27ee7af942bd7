// Spreading a baked loop's seam over the loop (loop_seam.h).
#include "retail/motion/loop_seam.h"

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>

namespace retail {

double spread_loop_seam(const std::vector<float>& times, std::vector<std::vector<float>>& values) {
  const std::size_t n = times.size();
  if (n < 2 || !(double(times.back()) > double(times.front()))) return 0;
  const double t0 = times.front(), span = double(times.back()) - t0;
  double widest = 0;
  for (auto& track : values) {
    if (track.size() != 4 * n) continue;
    auto key = [&](std::size_t k) {
      return Eigen::Quaterniond(track[4 * k + 3], track[4 * k], track[4 * k + 1], track[4 * k + 2])
          .normalized();
    };
    Eigen::Quaterniond e = (key(n - 1) * key(0).conjugate()).normalized();
    if (e.w() < 0) e.coeffs() = -e.coeffs(); // the shorter way round
    const double angle = 2 * std::acos(std::clamp(e.w(), -1.0, 1.0));
    if (!(angle > 0)) continue;
    widest = std::max(widest, angle * 180 / M_PI);
    const Eigen::Quaterniond undo = e.conjugate();
    for (std::size_t k = 1; k < n; ++k) {
      const double s = (double(times[k]) - t0) / span;
      Eigen::Quaterniond q = (Eigen::Quaterniond::Identity().slerp(s, undo) * key(k)).normalized();
      track[4 * k] = float(q.x()), track[4 * k + 1] = float(q.y());
      track[4 * k + 2] = float(q.z()), track[4 * k + 3] = float(q.w());
    }
  }
  return widest;
}

} // namespace retail
