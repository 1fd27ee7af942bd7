// Chain growth along a piece's geodesic coordinate, the axis coordinate its weights read, and
// the chain weight formula (SPEC §6).
#include "retail/grow/chain.h"

#include "retail/base/error.h"
#include "retail/detect/distance.h"
#include "retail/detect/geodesic.h"

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>

namespace retail {

const char* chain_kind_name(ChainKind kind) {
  switch (kind) {
  case ChainKind::Tail:
    return "tail";
  case ChainKind::Hair:
    return "hair";
  case ChainKind::Ears:
    return "ears";
  }
  return "tail";
}

void ChainParams::validate() const {
  if (!(segment_h > 0) || !(short_tail_h >= 0) || min_bones < 1 || max_bones < min_bones ||
      smoothing_passes < 0 || !(axis_tolerance >= 0))
    throw Error(ExitCode::Usage, "chain parameters out of range");
}

int chain_bone_count(double length, double height, const ChainParams& params) {
  long k = std::lround(length / (params.segment_h * height));
  if (length < params.short_tail_h * height) // a short tail: fewer links, never none
    return int(std::clamp<long>(k, 1, params.max_bones));
  return int(std::clamp<long>(k, params.min_bones, params.max_bones));
}

namespace {

/// Chain::radius: per joint i < K, the largest distance from the polyline J of the vertices
/// with |K c / L - i| <= 1/4 (the collar joins joint 0) and of both ends of every piece edge
/// with one end below that blend and the other above it: every one of them must stay untorn.
std::vector<double> joint_radii(const WeldedMesh& m, const Piece& piece,
                                const std::vector<double>& coordinate,
                                const std::vector<Eigen::Vector3d>& J, int K) {
  std::vector<std::vector<double>> d(static_cast<std::size_t>(K));
  auto polyline = [&](int v) { return polyline_distance(m.welded.row(v).transpose(), J); };
  for (int v : piece.collar) d[0].push_back(polyline(v));
  double L = std::max(piece.length, 1e-12);
  for (std::size_t k = 0; k < piece.vertices.size(); ++k) {
    double s = K * coordinate[k] / L;
    long i = std::lround(s);
    if (i < K && std::abs(s - double(i)) <= 0.25)
      d[std::size_t(i)].push_back(polyline(piece.vertices[k]));
  }
  // Edges that span a joint's blend with both ends outside it (coarse meshes) bend with it too.
  std::vector<double> at(m.size(), NAN);
  for (std::size_t k = 0; k < piece.vertices.size(); ++k)
    at[std::size_t(piece.vertices[k])] = K * coordinate[k] / L;
  for (int a : piece.vertices)
    for (int e = m.adjacency_start[std::size_t(a)]; e < m.adjacency_start[std::size_t(a) + 1];
         ++e) {
      const int b = m.adjacency[std::size_t(e)];
      const double sa = at[std::size_t(a)], sb = at[std::size_t(b)];
      if (!(sb > sa)) continue; // each edge once, both ends on the piece
      for (long i = std::max(1L, long(std::ceil(sa - 0.25))); i < K && i - 0.25 < sb; ++i)
        if (sa < i - 0.25 && sb > i + 0.25)
          d[std::size_t(i)].insert(d[std::size_t(i)].end(), {polyline(a), polyline(b)});
    }
  std::vector<double> r(std::size_t(K), 0.0);
  std::vector<std::size_t> filled;
  for (std::size_t i = 0; i < r.size(); ++i)
    if (!d[i].empty()) {
      r[i] = *std::max_element(d[i].begin(), d[i].end());
      filled.push_back(i);
    }
  // Joints no vertex blends across (coarse meshes): linear between the nearest measured ones.
  for (std::size_t i = 0; i < r.size() && !filled.empty(); ++i) {
    if (!d[i].empty()) continue;
    auto next = std::lower_bound(filled.begin(), filled.end(), i);
    if (next == filled.begin() || next == filled.end()) {
      r[i] = r[next == filled.end() ? filled.back() : *next];
    } else {
      std::size_t a = *(next - 1), b = *next;
      double t = double(i - a) / double(b - a);
      r[i] = (1 - t) * r[a] + t * r[b];
    }
  }
  return r;
}

/// The chain's coordinate (params.coordinate: g, or g held near the axis coordinate), then
/// its skin radius per joint and its root radius. Pre: chain.joints and chain.bones set.
void read_along(const WeldedMesh& m, const Piece& piece, const ChainParams& params, Chain& chain) {
  const std::vector<Eigen::Vector3d>& J = chain.joints;
  const int K = chain.bones;
  chain.coordinate = piece.geodesic;
  if (params.coordinate == ChainParams::Coordinate::Axis) {
    const std::vector<double> axis = axis_coordinate(m, piece, J);
    const double tolerance = params.axis_tolerance * std::max(piece.length, 0.0) / K;
    for (std::size_t k = 0; k < axis.size(); ++k)
      chain.coordinate[k] = held_near(piece.geodesic[k], axis[k], tolerance);
  }
  chain.radius = joint_radii(m, piece, chain.coordinate, J, K);
  chain.root_radius = params.coordinate == ChainParams::Coordinate::Axis
                          ? joint_radii(m, piece, piece.geodesic, J, K)[0]
                          : chain.radius[0];
}

} // namespace

Chain grow_chain(const WeldedMesh& m, const Piece& piece, double height,
                 const ChainParams& params) {
  params.validate();
  Chain chain;
  chain.piece = piece.id;
  chain.length = piece.length;
  int K = chain_bone_count(piece.length, height, params);
  chain.bones = K;
  // Centroids of the skin: each vertex stands for a third of the area of its triangles, so a
  // band's centroid does not lean towards where the mesh happens to be densely tessellated.
  std::vector<bool> banded(m.size(), false); // the collar and the piece: the areas read below
  for (const auto* list : {&piece.collar, &piece.vertices})
    for (int v : *list) banded[std::size_t(v)] = true;
  const std::vector<double> area = vertex_areas(m, banded);
  std::vector<Eigen::Vector3d> sum(std::size_t(K) + 1, Eigen::Vector3d::Zero());
  std::vector<double> mass(std::size_t(K) + 1, 0.0);
  std::vector<int> count(std::size_t(K) + 1, 0);
  auto add = [&](int b, int v) {
    double a = std::max(area[std::size_t(v)], 1e-300);
    sum[std::size_t(b)] += a * m.welded.row(v).transpose();
    mass[std::size_t(b)] += a;
    ++count[std::size_t(b)];
  };
  for (int v : piece.collar) add(0, v);
  double L = std::max(piece.length, 1e-12), half = L / (2.0 * K);
  for (std::size_t i = 0; i < piece.vertices.size(); ++i) {
    double g = piece.geodesic[i];
    for (int b = 1; b <= K; ++b)
      if (std::abs(g - b * L / K) <= half) add(b, piece.vertices[i]);
  }
  std::vector<Eigen::Vector3d> J(std::size_t(K) + 1);
  std::vector<int> filled;
  for (int b = 0; b <= K; ++b)
    if (count[std::size_t(b)] > 0) {
      J[std::size_t(b)] = sum[std::size_t(b)] / mass[std::size_t(b)];
      filled.push_back(b);
    } else {
      chain.empty_bands.push_back(b);
    }
  if (filled.empty()) { // no collar and no band: a degenerate piece, a point chain at its centroid
    Eigen::Vector3d c = Eigen::Vector3d::Zero();
    for (int v : piece.vertices) c += m.welded.row(v).transpose();
    filled.push_back(0);
    J[0] = piece.vertices.empty() ? c : c / double(piece.vertices.size());
  }
  for (int b = 0; b <= K; ++b) {
    if (count[std::size_t(b)] > 0 || b == filled[0]) continue;
    auto next = std::lower_bound(filled.begin(), filled.end(), b);
    if (next == filled.begin())
      J[std::size_t(b)] = J[std::size_t(*next)];
    else if (next == filled.end()) { // past the last filled band: continue its last step
      int a = filled.back();
      Eigen::Vector3d step = Eigen::Vector3d::Zero();
      if (filled.size() >= 2) {
        int z = filled[filled.size() - 2];
        step = (J[std::size_t(a)] - J[std::size_t(z)]) / double(a - z);
      }
      J[std::size_t(b)] = J[std::size_t(a)] + step * double(b - a);
    } else {
      int a = *(next - 1), c = *next;
      double t = double(b - a) / double(c - a);
      J[std::size_t(b)] = (1 - t) * J[std::size_t(a)] + t * J[std::size_t(c)];
    }
  }
  for (int pass = 0; pass < params.smoothing_passes; ++pass) {
    std::vector<Eigen::Vector3d> prev = J;
    for (int i = 1; i < K; ++i)
      J[std::size_t(i)] =
          0.5 * prev[std::size_t(i)] + 0.25 * (prev[std::size_t(i - 1)] + prev[std::size_t(i + 1)]);
  }
  chain.joints = J;
  read_along(m, piece, params, chain);
  return chain;
}

namespace {

/// Section planes of a polyline: unit segment directions (zero where a segment is degenerate)
/// and, per joint, the plane's unit normal (the mean of the directions meeting there).
struct SectionPlanes {
  std::vector<Eigen::Vector3d> direction, normal;
  std::vector<bool> usable;
};

SectionPlanes section_planes(const std::vector<Eigen::Vector3d>& J) {
  std::size_t K = J.size() - 1;
  SectionPlanes sp;
  sp.direction.assign(K, Eigen::Vector3d::Zero());
  sp.usable.assign(K, false);
  double span = 0;
  for (std::size_t i = 0; i < K; ++i) span += (J[i + 1] - J[i]).norm();
  for (std::size_t i = 0; i < K; ++i) {
    Eigen::Vector3d d = J[i + 1] - J[i];
    if (d.norm() > 1e-9 * std::max(span, 1e-300))
      sp.direction[i] = d.normalized(), sp.usable[i] = true;
  }
  sp.normal.assign(K + 1, Eigen::Vector3d::Zero());
  for (std::size_t i = 0; i <= K; ++i) {
    Eigen::Vector3d in = i > 0 ? sp.direction[i - 1] : sp.direction[i];
    Eigen::Vector3d out = i < K ? sp.direction[i] : sp.direction[i - 1];
    Eigen::Vector3d n = in + out;
    // A fold back on itself (or a degenerate neighbour): the plane of the usable side.
    sp.normal[i] = n.norm() > 1e-6 ? n.normalized() : (out.norm() > 0 ? out : in);
  }
  return sp;
}

} // namespace

std::vector<double> axis_coordinate(const WeldedMesh& m, const Piece& piece,
                                    const std::vector<Eigen::Vector3d>& J) {
  int K = int(J.size()) - 1;
  if (K < 1) return piece.geodesic;
  SectionPlanes sp = section_planes(J);
  double L = std::max(piece.length, 1e-12);
  std::vector<double> out(piece.vertices.size());
  for (std::size_t k = 0; k < piece.vertices.size(); ++k) {
    Eigen::Vector3d p = m.welded.row(piece.vertices[k]).transpose();
    double s_g = std::floor(K * piece.geodesic[k] / L); // clamped before the cast: never UB
    int home = std::isfinite(s_g) ? int(std::clamp(s_g, 0.0, double(K - 1))) : 0;
    double in_dist = INFINITY, near_dist = INFINITY, in_s = 0, near_s = 0;
    for (int i = std::max(home - 1, 0); i <= std::min(home + 1, K - 1); ++i) {
      std::size_t u = std::size_t(i);
      if (!sp.usable[u]) continue;
      double a = sp.normal[u].dot(p - J[u]), b = sp.normal[u + 1].dot(p - J[u + 1]);
      double dist = segment_distance(p, J[u], J[u + 1]);
      bool inside = (a >= 0 || i == 0) && (b < 0 || i == K - 1);
      double t = a < 0 ? 0.0 : b >= 0 ? 1.0 : a / (a - b);
      if (inside && dist < in_dist) in_dist = dist, in_s = i + t;
      if (dist < near_dist) {
        Eigen::Vector3d d = J[u + 1] - J[u];
        near_dist = dist, near_s = i + std::clamp((p - J[u]).dot(d) / d.squaredNorm(), 0.0, 1.0);
      }
    }
    double g = std::min(piece.geodesic[k], L);
    if (!std::isfinite(near_dist))
      out[k] = g; // no usable candidate segment
    else
      out[k] = (std::isfinite(in_dist) ? in_s : near_s) * L / K;
    out[k] = std::max(out[k], std::min(g, 0.5 * L / K)); // the root keeps the geodesic's floor
  }
  return out;
}

ChainWeight chain_weight(double g, double length, int K) {
  double s = length > 0 ? K * g / length : 0;
  s = std::clamp(s, 0.0, std::nextafter(double(K), 0.0));
  int k = int(std::floor(s));
  double f = s - k;
  double w_prev = std::clamp(0.5 - 2 * f, 0.0, 0.5), w_next = std::clamp(2 * f - 1.5, 0.0, 0.5);
  if (k == K - 1) w_next = 0; // the last segment folds "next" into itself
  ChainWeight w;
  w.bone[0] = k + 1;
  w.weight[0] = 1 - w_prev - w_next;
  w.count = 1;
  if (w_prev > 0) {
    w.bone[std::size_t(w.count)] = k;
    w.weight[std::size_t(w.count++)] = w_prev;
  }
  if (w_next > 0) {
    w.bone[std::size_t(w.count)] = k + 2;
    w.weight[std::size_t(w.count++)] = w_next;
  }
  return w;
}

} // namespace retail
