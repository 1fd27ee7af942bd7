#include "retail/detect/geodesic.h"

#include <Eigen/Geometry>
#include <cmath>
#include <queue>
#include <tuple>

namespace retail {

std::vector<double> geodesic_distance(const WeldedMesh& m, const std::vector<int>& sources,
                                      const std::vector<bool>& allowed, double limit) {
  std::vector<double> d(m.size(), INFINITY);
  using Item = std::pair<double, int>;
  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> queue;
  for (int s : sources) {
    d[std::size_t(s)] = 0;
    queue.push({0.0, s});
  }
  while (!queue.empty()) {
    auto [du, u] = queue.top();
    queue.pop();
    if (du > d[std::size_t(u)] || du > limit) continue;
    for (int e = m.adjacency_start[std::size_t(u)]; e < m.adjacency_start[std::size_t(u) + 1];
         ++e) {
      int v = m.adjacency[std::size_t(e)];
      if (!allowed.empty() && !allowed[std::size_t(v)]) continue;
      double nd = du + m.edge_length[std::size_t(e)];
      if (nd < d[std::size_t(v)]) {
        d[std::size_t(v)] = nd;
        queue.push({nd, v});
      }
    }
  }
  return d;
}

std::vector<double> geodesic_within(const WeldedMesh& m, const std::vector<int>& sources,
                                    const std::vector<int>& set) {
  std::vector<bool> allowed(m.size(), false);
  for (int v : set) allowed[std::size_t(v)] = true;
  return geodesic_distance(m, sources, allowed, INFINITY);
}

NearestSource nearest_source(const WeldedMesh& m, const std::vector<int>& sources,
                             const std::vector<bool>& allowed, double limit) {
  NearestSource out;
  out.distance.assign(m.size(), INFINITY);
  out.source.assign(m.size(), -1);
  using Item = std::tuple<double, int, int>; // distance, source, vertex
  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> queue;
  for (int s : sources) {
    out.distance[std::size_t(s)] = 0;
    out.source[std::size_t(s)] = s;
    queue.push({0.0, s, s});
  }
  while (!queue.empty()) {
    const auto [du, src, u] = queue.top();
    queue.pop();
    if (du > out.distance[std::size_t(u)] || src != out.source[std::size_t(u)] || du > limit)
      continue;
    for (int e = m.adjacency_start[std::size_t(u)]; e < m.adjacency_start[std::size_t(u) + 1];
         ++e) {
      const int v = m.adjacency[std::size_t(e)];
      if (!allowed.empty() && !allowed[std::size_t(v)]) continue;
      const double nd = du + m.edge_length[std::size_t(e)];
      double& dv = out.distance[std::size_t(v)];
      int& sv = out.source[std::size_t(v)];
      if (nd < dv || (nd == dv && src < sv)) {
        dv = nd;
        sv = src;
        queue.push({nd, src, v});
      }
    }
  }
  return out;
}

double face_isoline(const WeldedMesh& m, const std::array<int, 3>& f, const std::vector<double>& u,
                    double level) {
  Eigen::RowVector3d pts[2];
  int k = 0;
  for (int e = 0; e < 3 && k < 2; ++e) {
    int a = f[std::size_t(e)], b = f[std::size_t((e + 1) % 3)];
    double ua = u[std::size_t(a)], ub = u[std::size_t(b)];
    if (!std::isfinite(ua) || !std::isfinite(ub) || (ua < level) == (ub < level)) continue;
    double s = (level - ua) / (ub - ua);
    pts[k++] = m.welded.row(a) + s * (m.welded.row(b) - m.welded.row(a));
  }
  return k == 2 ? (pts[0] - pts[1]).norm() : 0.0;
}

double isoline_length(const WeldedMesh& m, const std::vector<double>& u, double level) {
  double total = 0;
  for (const auto& f : m.faces) total += face_isoline(m, f, u, level);
  return total;
}

double isoline_radius(const WeldedMesh& m, const std::vector<double>& u, double level) {
  std::vector<std::pair<Eigen::Vector3d, Eigen::Vector3d>> segments; // from exit to entry
  Eigen::Vector3d mean = Eigen::Vector3d::Zero();
  for (const auto& f : m.faces) {
    Eigen::Vector3d enter, leave;
    int in = 0, out = 0;
    for (int e = 0; e < 3; ++e) {
      const int a = f[std::size_t(e)], b = f[std::size_t((e + 1) % 3)];
      const double ua = u[std::size_t(a)], ub = u[std::size_t(b)];
      if (!std::isfinite(ua) || !std::isfinite(ub) || (ua < level) == (ub < level)) continue;
      const double s = (level - ua) / (ub - ua);
      const Eigen::Vector3d p =
          (m.welded.row(a) + s * (m.welded.row(b) - m.welded.row(a))).transpose();
      if (ua < level)
        enter = p, ++in;
      else
        leave = p, ++out;
    }
    if (in != 1 || out != 1) continue;
    segments.emplace_back(leave, enter);
    mean += leave + enter;
  }
  if (segments.empty()) return 0;
  mean /= double(2 * segments.size());
  Eigen::Vector3d area = Eigen::Vector3d::Zero();
  for (const auto& [a, b] : segments) area += 0.5 * (a - mean).cross(b - mean);
  return std::sqrt(area.norm() / M_PI);
}

std::vector<double> vertex_areas(const WeldedMesh& m) {
  return vertex_areas(m, std::vector<bool>(m.size(), true));
}

std::vector<double> vertex_areas(const WeldedMesh& m, const std::vector<bool>& only) {
  std::vector<double> area(m.size(), 0.0);
  for (const auto& f : m.faces) {
    if (!only[std::size_t(f[0])] && !only[std::size_t(f[1])] && !only[std::size_t(f[2])]) continue;
    Eigen::Vector3d a = m.welded.row(f[0]).transpose(), b = m.welded.row(f[1]).transpose(),
                    c = m.welded.row(f[2]).transpose();
    double third = (b - a).cross(c - a).norm() / 6.0;
    for (int v : f)
      if (only[std::size_t(v)]) area[std::size_t(v)] += third;
  }
  return area;
}

} // namespace retail
