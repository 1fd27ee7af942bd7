// Grown pieces that take their separate shell (shells_internal.h).
#include "detect/shells_internal.h"

#include "retail/detect/graph.h"

#include <algorithm>

namespace retail {

namespace {

/// Where piece q lies against shell s: 1 wholly on it, 2 partly, 0 off it.
int on_shell(const Piece& q, const std::vector<int>& shell_of, int s) {
  bool in = false, out = false;
  for (int v : q.vertices) (shell_of[std::size_t(v)] == s ? in : out) = true;
  return in && out ? 2 : in ? 1 : 0;
}

/// Does `shell` stick out as an appendage: its centroid's skeleton distance at least
/// params.centroid_ratio of the largest of its vertices' (the centroid test pieces pass)?
bool sticks_out(const WeldedMesh& m, const DistanceField& field,
                const std::vector<Segment>& segments, const std::vector<int>& shell,
                const DetectParams& params) {
  const auto [reach, centroid] = reach_and_centroid(m, field, segments, shell);
  return centroid >= params.centroid_ratio * reach;
}

} // namespace

std::pair<double, double> reach_and_centroid(const WeldedMesh& m, const DistanceField& f,
                                             const std::vector<Segment>& segs,
                                             const std::vector<int>& vertices) {
  double reach = 0;
  Eigen::Vector3d centroid = Eigen::Vector3d::Zero();
  for (int v : vertices) {
    reach = std::max(reach, f.distance[std::size_t(v)]);
    centroid += m.welded.row(v).transpose();
  }
  centroid /= double(vertices.size());
  Eigen::MatrixX3d c(1, 3);
  c.row(0) = centroid.transpose();
  return {reach, skeleton_distance(c, segs, 0).distance[0]};
}

void take_grown_shells(const WeldedMesh& m, const DistanceField& field,
                       const std::vector<Segment>& segments, const DetectParams& params,
                       std::vector<Piece>& pieces) {
  auto grown = [](const Piece& p) {
    return !p.vertices.empty() && p.junction < 0 && !p.separate_shell && p.base_added > 0;
  };
  if (std::none_of(pieces.begin(), pieces.end(), grown)) return; // no shell to label
  std::vector<int> shell_of(m.size(), -1);
  const auto shells = welded_components(m, std::vector<bool>(m.size(), true));
  for (std::size_t s = 0; s < shells.size(); ++s)
    for (int v : shells[s]) shell_of[std::size_t(v)] = int(s);
  std::vector<char> gone(pieces.size(), 0);
  bool took = false;
  for (std::size_t g = 0; g < pieces.size(); ++g) {
    Piece& p = pieces[g];
    if (gone[g] || !grown(p)) continue;
    const int s = shell_of[std::size_t(p.vertices[0])];
    const std::vector<int>& shell = shells[std::size_t(s)];
    if (on_shell(p, shell_of, s) != 1 || p.vertices.size() == shell.size() ||
        double(shell.size()) > params.small_shell * double(m.size()) ||
        double(p.vertices.size()) < params.grown_shell_fraction * double(shell.size()) ||
        !sticks_out(m, field, segments, shell, params))
      continue;
    std::vector<std::size_t> joining;
    bool blocked = false;
    for (std::size_t q = 0; q < pieces.size() && !blocked; ++q) {
      if (q == g || gone[q]) continue;
      const int where = on_shell(pieces[q], shell_of, s);
      blocked = where == 2;
      if (where == 1) joining.push_back(q);
    }
    if (blocked) continue;
    for (std::size_t q : joining) gone[q] = 1;
    p.vertices = shell;
    std::sort(p.vertices.begin(), p.vertices.end());
    p.separate_shell = true;
    p.base.clear();
    p.base_added = 0;
    took = true;
  }
  std::size_t kept = 0;
  for (std::size_t q = 0; q < pieces.size(); ++q)
    if (!gone[q]) {
      if (kept != q) pieces[kept] = std::move(pieces[q]);
      ++kept;
    }
  pieces.resize(kept);
  if (took) // as isolate_pieces leaves them: by their first vertex
    std::sort(pieces.begin(), pieces.end(),
              [](const Piece& a, const Piece& b) { return a.vertices[0] < b.vertices[0]; });
}

} // namespace retail
