// The root band's harmonic weights (root_band.h).
#include "retail/grow/root_band.h"

#include "retail/base/error.h"
#include "retail/detect/geodesic.h"

#include <algorithm>
#include <cmath>

namespace retail {

void RootBandParams::validate() const {
  if (!(width_radii >= 0) || max_influences < 1 || max_iterations < 1 || !(tolerance > 0))
    throw Error(ExitCode::Usage, "root band parameters out of range");
}

std::vector<int> band_vertices(const WeldedMesh& mesh, const std::vector<bool>& inside,
                               double width, const std::vector<bool>& passable) {
  std::vector<int> out;
  if (!(width > 0)) return out;
  std::vector<int> sources;
  std::vector<bool> allowed(mesh.size(), true);
  for (std::size_t w = 0; w < mesh.size(); ++w) {
    if (inside[w]) sources.push_back(int(w));
    if (!passable.empty() && !inside[w] && !passable[w]) allowed[w] = false;
  }
  std::vector<double> d = geodesic_distance(mesh, sources, allowed, width);
  for (std::size_t w = 0; w < mesh.size(); ++w)
    if (!inside[w] && d[w] <= width) out.push_back(int(w));
  return out;
}

namespace {

/// Keeps the `most` largest influences (ties: lower node first), renormalised, nodes ascending.
Influences strongest(const std::vector<int>& nodes, const double* w, int most) {
  Influences all;
  for (std::size_t j = 0; j < nodes.size(); ++j)
    if (w[j] > 0) all.push_back({nodes[j], w[j]});
  std::stable_sort(all.begin(), all.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  if (all.size() > std::size_t(most)) all.resize(std::size_t(most));
  double sum = 0;
  for (const auto& [n, x] : all) sum += x;
  for (auto& [n, x] : all) x /= sum;
  std::sort(all.begin(), all.end());
  return all;
}

} // namespace

RootBand solve_root_band(const WeldedMesh& mesh, const std::vector<int>& band,
                         const std::map<int, Influences>& boundary, const RootBandParams& params) {
  params.validate();
  RootBand out;
  out.vertices = band;
  if (band.empty()) return out;
  // Dense unknowns: band vertex x joint (every joint a boundary vertex uses).
  std::vector<int> nodes;
  for (const auto& [w, inf] : boundary)
    for (const auto& [n, x] : inf) nodes.push_back(n);
  std::sort(nodes.begin(), nodes.end());
  nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
  const std::size_t J = nodes.size();
  std::map<int, std::vector<double>> fixed;
  for (const auto& [w, inf] : boundary) {
    std::vector<double>& row = fixed[w];
    row.assign(J, 0.0);
    for (const auto& [n, x] : inf)
      row[std::size_t(std::lower_bound(nodes.begin(), nodes.end(), n) - nodes.begin())] += x;
  }
  std::vector<int> slot(mesh.size(), -1);
  for (std::size_t i = 0; i < band.size(); ++i) slot[std::size_t(band[i])] = int(i);
  std::vector<double> x(band.size() * J, 1.0 / double(std::max<std::size_t>(J, 1))), acc(J);
  out.converged = false;
  for (out.iterations = 1; out.iterations <= params.max_iterations; ++out.iterations) {
    double moved = 0;
    for (std::size_t i = 0; i < band.size(); ++i) {
      std::size_t w = std::size_t(band[i]);
      std::fill(acc.begin(), acc.end(), 0.0);
      double total = 0;
      for (int k = mesh.adjacency_start[w]; k < mesh.adjacency_start[w + 1]; ++k) {
        int n = mesh.adjacency[std::size_t(k)];
        double c = 1.0 / std::max(mesh.edge_length[std::size_t(k)], 1e-12);
        const double* v = slot[std::size_t(n)] >= 0 ? &x[std::size_t(slot[std::size_t(n)]) * J]
                                                    : fixed.at(n).data();
        for (std::size_t j = 0; j < J; ++j) acc[j] += c * v[j];
        total += c;
      }
      if (!(total > 0)) continue;
      for (std::size_t j = 0; j < J; ++j) {
        moved = std::max(moved, std::abs(acc[j] / total - x[i * J + j]));
        x[i * J + j] = acc[j] / total;
      }
    }
    if (moved < params.tolerance) {
      out.converged = true;
      break;
    }
  }
  out.iterations = std::min(out.iterations, params.max_iterations);
  for (std::size_t i = 0; i < band.size(); ++i)
    out.influences.push_back(strongest(nodes, &x[i * J], params.max_influences));
  return out;
}

} // namespace retail
