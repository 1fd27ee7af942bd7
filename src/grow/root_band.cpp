// The root band's harmonic weights (root_band.h).
#include "retail/grow/root_band.h"

#include "retail/base/error.h"
#include "retail/detect/geodesic.h"

#include <algorithm>
#include <cmath>

namespace retail {

void RootBandParams::validate() const {
  if (!(width_radii >= 0) || !(seam_links >= 0) || !std::isfinite(seam_links) ||
      max_influences < 1 || max_iterations < 1 || !(tolerance > 0) || !(min_far_share >= 0) ||
      !std::isfinite(min_far_share))
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

std::vector<int> grown_band_vertices(const WeldedMesh& mesh, const std::vector<bool>& inside,
                                     double width, const RootBandParams& params,
                                     const std::vector<bool>& passable, double& grown) {
  grown = width;
  std::vector<int> band = band_vertices(mesh, inside, width, passable);
  if (!(params.min_far_share > 0) || band.empty()) return band;
  std::size_t far = 0, near = 0;
  for (int n : welded_ring(mesh, band)) (inside[std::size_t(n)] ? near : far) += 1;
  if (!(double(far) < params.min_far_share * double(near))) return band;
  grown = 2 * width;
  return band_vertices(mesh, inside, grown, passable);
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

Influences mix_influences(const Influences& a, const Influences& b, double t, int most) {
  std::map<int, double> sum;
  for (const auto& [n, x] : a) sum[n] += (1 - t) * x;
  for (const auto& [n, x] : b) sum[n] += t * x;
  std::vector<int> nodes;
  std::vector<double> w;
  for (const auto& [n, x] : sum) nodes.push_back(n), w.push_back(x);
  return strongest(nodes, w.data(), most);
}

SeamSources seam_sources(const WeldedMesh& mesh, const std::vector<bool>& inside,
                         const RootBand& band, double width) {
  SeamSources out;
  std::vector<bool> in_band(mesh.size(), false), in_piece(mesh.size(), false);
  std::vector<int> piece, slot(mesh.size(), -1);
  for (std::size_t w = 0; w < mesh.size() && w < inside.size(); ++w)
    if (inside[w]) piece.push_back(int(w)), in_piece[w] = true;
  for (std::size_t i = 0; i < band.vertices.size(); ++i) {
    in_band[std::size_t(band.vertices[i])] = true;
    slot[std::size_t(band.vertices[i])] = int(i);
  }
  const NearestSource to_piece = nearest_source(mesh, piece, in_band, width);
  for (int w : band.vertices)
    out.band.push_back({to_piece.distance[std::size_t(w)], to_piece.distance[std::size_t(w)] < width
                                                               ? to_piece.source[std::size_t(w)]
                                                               : -1});
  const NearestSource to_band = nearest_source(mesh, band.vertices, in_piece, width);
  for (int w : piece)
    if (to_band.distance[std::size_t(w)] < width)
      out.piece.emplace_back(w, to_band.distance[std::size_t(w)],
                             slot[std::size_t(to_band.source[std::size_t(w)])]);
  return out;
}

} // namespace retail
