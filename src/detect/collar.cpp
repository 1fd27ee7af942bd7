// Collars: where a piece meets the rest of the character, or the root of a separate shell;
// with the welded-position helpers detection shares (welded_rows, collar_radius).
#include "retail/detect/detect.h"
#include "retail/detect/distance.h"
#include "retail/detect/geodesic.h"
#include "retail/detect/graph.h"

#include <algorithm>
#include <cmath>

namespace retail {

Eigen::MatrixX3d welded_rows(const WeldedMesh& m, const std::vector<int>& ids) {
  Eigen::MatrixX3d p(Eigen::Index(ids.size()), 3);
  for (std::size_t i = 0; i < ids.size(); ++i) p.row(Eigen::Index(i)) = m.welded.row(ids[i]);
  return p;
}

double collar_radius(const WeldedMesh& m, const std::vector<int>& collar) {
  Eigen::Vector3d centre = Eigen::Vector3d::Zero();
  for (int v : collar) centre += m.welded.row(Eigen::Index(v)).transpose();
  centre /= double(collar.size());
  double radius = 0;
  for (int v : collar) radius += (m.welded.row(Eigen::Index(v)).transpose() - centre).norm();
  return radius / double(collar.size());
}

namespace {

/// The members of `nearest` (a shell's vertices nearest the skeleton, nearest first) that lie in
/// one place: their geodesic distance over `shell` from the first is at most `kCollarDetour`
/// times their straight distance, or they lie within those members' collar radius of one of
/// them (a second layer over the same root: skin and fur shells welded only at their tips). A tail
/// coiled back over the body comes near the skeleton at both ends; its collar is where it starts,
/// not both ends (a collar at both halved its length). Returned sorted.
std::vector<int> one_place(const WeldedMesh& m, const std::vector<int>& shell,
                           const std::vector<int>& nearest) {
  constexpr double kCollarDetour = 2.0; // a path over a hemispherical cap: pi/2
  std::vector<bool> allowed(m.size(), false);
  for (int v : shell) allowed[std::size_t(v)] = true;
  const int first = nearest.front();
  // Only distances up to the largest detour allowed are compared: the walk stops there (every
  // vertex within it still gets its exact distance).
  double limit = 0;
  for (int v : nearest)
    limit = std::max(limit, kCollarDetour * (m.welded.row(v) - m.welded.row(first)).norm());
  std::vector<double> g = geodesic_distance(m, {first}, allowed, limit);
  std::vector<int> out, rest;
  for (int v : nearest) {
    const double straight = (m.welded.row(v) - m.welded.row(first)).norm();
    (g[std::size_t(v)] <= kCollarDetour * straight || v == first ? out : rest).push_back(v);
  }
  const double gap = collar_radius(m, out);
  const std::size_t placed = out.size();
  for (int v : rest)
    for (std::size_t i = 0; i < placed; ++i)
      if ((m.welded.row(v) - m.welded.row(out[i])).norm() <= gap) {
        out.push_back(v);
        break;
      }
  std::sort(out.begin(), out.end());
  return out;
}

/// True when the base grown past a piece's cut (piece.base) reaches more than `ratio` times as
/// far from the cut's ring `ring` (geodesic over the piece) as the rest of the piece, its tip
/// part `cut`, does: the far skin was the tail's end and the base is most of its length (a stub
/// with a joint inside it, where only the tip lies far from the bones), so the cut is not where
/// the piece meets the body.
bool base_outreaches_tip(const WeldedMesh& m, const Piece& piece, const std::vector<int>& cut,
                         const std::vector<int>& ring, double ratio) {
  const std::vector<double> g = geodesic_within(m, ring, piece.vertices);
  auto farthest = [&](const std::vector<int>& set) {
    double out = 0;
    for (int v : set)
      if (std::isfinite(g[std::size_t(v)])) out = std::max(out, g[std::size_t(v)]);
    return out;
  };
  return farthest(piece.base) > ratio * farthest(cut);
}

} // namespace

std::vector<int> collar_of(const WeldedMesh& m, const std::vector<Segment>& torso,
                           const DistanceField& f, const Piece& piece, bool& from_shell,
                           double base_reach) {
  // The collar of a piece whose base was grown past its cut stays at the cut (the base is in
  // the collar's ring or behind it, and its geodesic coordinate starts there).
  std::vector<bool> in_base(m.size(), false);
  for (int v : piece.base) in_base[std::size_t(v)] = true;
  std::vector<int> cut;
  for (int v : piece.vertices)
    if (!in_base[std::size_t(v)]) cut.push_back(v);
  std::vector<int> out = welded_ring(m, cut);
  from_shell = out.empty();
  // ...unless the base is most of the piece's length: then the piece meets the body where the
  // base ends, and its collar is the ring around the whole piece.
  if (!out.empty() && !piece.base.empty() && base_reach > 0 &&
      base_outreaches_tip(m, piece, cut, out, base_reach)) {
    std::vector<int> whole = welded_ring(m, piece.vertices);
    if (!whole.empty()) return whole;
  }
  if (!out.empty()) return out;
  // A separate shell: its vertices nearest the skeleton (bottom 5%, at least one). Nearest the
  // pelvis's bones (else the spine's) when there are any: a tail hanging beside the legs passes
  // closer to a shin mid-way than to the pelvis it hangs from, and one coiled over the back
  // closer to the spine.
  std::vector<double> d(piece.vertices.size());
  if (!torso.empty())
    d = skeleton_distance(welded_rows(m, piece.vertices), torso, 0).distance;
  else
    for (std::size_t i = 0; i < d.size(); ++i) d[i] = f.distance[std::size_t(piece.vertices[i])];
  std::vector<std::size_t> order(d.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return d[a] < d[b]; });
  std::vector<int> sorted;
  for (std::size_t i = 0; i < std::max<std::size_t>(1, order.size() / 20); ++i)
    sorted.push_back(piece.vertices[order[i]]);
  return one_place(m, piece.vertices, sorted);
}

} // namespace retail
