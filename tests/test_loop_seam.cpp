// Spreading a baked loop's seam (loop_seam.h): hand-computed keys about one axis.
#include "retail/motion/loop_seam.h"

#include <Eigen/Geometry>
#include <catch2/catch.hpp>
#include <cmath>

namespace test_loop_seam {

namespace {

/// Keys x y z w of rotations about +Z by `deg` degrees.
std::vector<float> about_z(const std::vector<double>& deg) {
  std::vector<float> out;
  for (double d : deg) {
    Eigen::Quaterniond q(Eigen::AngleAxisd(d * M_PI / 180, Eigen::Vector3d::UnitZ()));
    out.insert(out.end(), {float(q.x()), float(q.y()), float(q.z()), float(q.w())});
  }
  return out;
}

double angle_z_deg(const std::vector<float>& v, std::size_t k) {
  return 2 * std::atan2(double(v[4 * k + 2]), double(v[4 * k + 3])) * 180 / M_PI;
}

} // namespace

TEST_CASE("loop seam: spread linearly in time - by hand", "[loop_seam]") {
  // 0, 10, 20, 12 degrees at t = 0, 1, 2, 4: the seam is 12 degrees, undone by 12 t / 4.
  const std::vector<float> times = {0, 1, 2, 4};
  std::vector<std::vector<float>> values = {about_z({0, 10, 20, 12}), about_z({5, 5, 5, 5})};
  CHECK(retail::spread_loop_seam(times, values) == Approx(12).margin(1e-4));
  CHECK(angle_z_deg(values[0], 0) == Approx(0).margin(1e-5));
  CHECK(angle_z_deg(values[0], 1) == Approx(10 - 3).margin(1e-4));
  CHECK(angle_z_deg(values[0], 2) == Approx(20 - 6).margin(1e-4));
  CHECK(angle_z_deg(values[0], 3) == Approx(0).margin(1e-4)); // the last key is the first
  for (std::size_t k = 0; k < 4; ++k)                         // a closed track is left as it was
    CHECK(angle_z_deg(values[1], k) == Approx(5).margin(1e-5));
}

TEST_CASE("loop seam: closed, short or malformed tracks are left alone", "[loop_seam]") {
  const std::vector<float> times = {0, 1, 2};
  std::vector<std::vector<float>> closed = {about_z({3, 9, 3})};
  const auto before = closed;
  CHECK(retail::spread_loop_seam(times, closed) == 0);
  CHECK(closed == before);
  std::vector<std::vector<float>> odd = {{0, 0, 0, 1, 0, 0}};
  CHECK(retail::spread_loop_seam(times, odd) == 0); // not 4 floats per key
  std::vector<std::vector<float>> one = {about_z({7})};
  CHECK(retail::spread_loop_seam({0}, one) == 0);
  std::vector<std::vector<float>> flat = {about_z({0, 30})};
  CHECK(retail::spread_loop_seam({1, 1}, flat) == 0); // no time span
  CHECK(angle_z_deg(flat[0], 1) == Approx(30).margin(1e-5));
}

} // namespace test_loop_seam
