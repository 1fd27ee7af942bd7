// A tail's base keeps a share of its own limb weights (base_keep.h).
#include "retail/grow/base_keep.h"

#include "retail/base/error.h"
#include "retail/detect/weld.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>

namespace retail {

void BaseKeepParams::validate() const {
  if (!(radii >= 0) || !std::isfinite(radii))
    throw Error(ExitCode::Usage, "base keep parameters out of range");
}

std::vector<std::vector<std::pair<int, double>>>
base_keep(const WeldedMesh& mesh, const SkinWeights& sw, const Character& c, const Piece& piece,
          const std::vector<double>& coordinate, double root_radius, const BaseKeepParams& params) {
  params.validate();
  std::vector<std::vector<std::pair<int, double>>> out(piece.vertices.size());
  const int l = c.joint_index(c.roles.upper_leg[0]), r = c.joint_index(c.roles.upper_leg[1]);
  const double reach = params.radii * root_radius;
  if (!(reach > 0) || l < 0 || r < 0) return out;
  Eigen::Vector3d axis = c.bind_position(l) - c.bind_position(r);
  if (!(axis.norm() > 0)) return out;
  axis.normalize();
  const double mid = 0.5 * (c.bind_position(l) + c.bind_position(r)).dot(axis);
  const std::vector<int> side = limb_sides(c);
  const std::vector<int> first = first_originals(mesh);
  for (std::size_t i = 0; i < piece.vertices.size() && i < coordinate.size(); ++i) {
    const double fall = 1 - coordinate[i] / reach;
    const int w = piece.vertices[i], v = first[std::size_t(w)];
    if (!(fall > 0) || v < 0 || std::size_t(v) >= sw.joint.size()) continue;
    const double off = mesh.welded.row(Eigen::Index(w)).transpose().dot(axis) - mid;
    const int own = off >= 0 ? 0 : 1;
    static const double lat0 = std::getenv("BK_LAT0") ? std::atof(std::getenv("BK_LAT0")) : -1;
    static const double lat1 = std::getenv("BK_LAT1") ? std::atof(std::getenv("BK_LAT1")) : 1;
    const double lat =
        lat0 < 0 ? 1 : std::clamp((std::abs(off) / root_radius - lat0) / lat1, 0.0, 1.0);
    if (!(lat > 0)) continue;
    for (int k = 0; k < SkinWeights::kMax; ++k) {
      const int j = sw.joint[std::size_t(v)][std::size_t(k)];
      const double x = sw.weight[std::size_t(v)][std::size_t(k)];
      if (j >= 0 && x > 0 && side[std::size_t(j)] == own)
        out[i].push_back(
            {c.joints[std::size_t(j)],
             x * fall * lat *
                 (std::getenv("BK_SCALE") ? std::atof(std::getenv("BK_SCALE")) : 1.0)});
    }
  }
  return out;
}

std::vector<std::pair<int, double>> own_limbs_exp(const WeldedMesh& mesh, const SkinWeights& sw,
                                                  const Character& c, int w, double root_radius) {
  std::vector<std::pair<int, double>> out;
  const int l = c.joint_index(c.roles.upper_leg[0]), r = c.joint_index(c.roles.upper_leg[1]);
  if (l < 0 || r < 0) return out;
  Eigen::Vector3d axis = (c.bind_position(l) - c.bind_position(r)).normalized();
  const double mid = 0.5 * (c.bind_position(l) + c.bind_position(r)).dot(axis);
  static std::vector<int> side;
  if (side.empty()) side = limb_sides(c);
  static std::vector<int> first;
  if (first.empty()) first = first_originals(mesh);
  const int v = first[std::size_t(w)];
  const double off = mesh.welded.row(Eigen::Index(w)).transpose().dot(axis) - mid;
  const int own = off >= 0 ? 0 : 1;
  static const double lat0 = std::getenv("BK_LAT0") ? std::atof(std::getenv("BK_LAT0")) : -1;
  static const double lat1 = std::getenv("BK_LAT1") ? std::atof(std::getenv("BK_LAT1")) : 1;
  static const double band = std::getenv("BK_BAND") ? std::atof(std::getenv("BK_BAND")) : 0;
  const double lat =
      lat0 < 0 ? 1 : std::clamp((std::abs(off) / root_radius - lat0) / lat1, 0.0, 1.0);
  if (!(lat > 0)) return out;
  for (int k = 0; k < SkinWeights::kMax; ++k) {
    const int j = sw.joint[std::size_t(v)][std::size_t(k)];
    const double x = sw.weight[std::size_t(v)][std::size_t(k)];
    if (j >= 0 && x > 0 && side[std::size_t(j)] == own)
      out.push_back({c.joints[std::size_t(j)], x * lat * band});
  }
  return out;
}

std::vector<std::pair<int, double>> with_kept(const std::vector<std::pair<int, double>>& chain,
                                              const std::vector<std::pair<int, double>>& keep) {
  if (keep.empty()) return chain;
  double kept = 0;
  for (const auto& [n, x] : keep) kept += x;
  std::map<int, double> sum;
  for (const auto& [n, x] : chain) sum[n] += x * (1 - kept);
  for (const auto& [n, x] : keep) sum[n] += x;
  std::vector<std::pair<int, double>> all(sum.begin(), sum.end());
  std::stable_sort(all.begin(), all.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  if (all.size() > 4) all.resize(4);
  double total = 0;
  for (const auto& [n, x] : all) total += x;
  for (auto& [n, x] : all) x /= total;
  std::sort(all.begin(), all.end());
  return all;
}

} // namespace retail
