// ride_along: plates, spikes and fins modelled as shells of their own join the tail they are
// sunk into (docs/detection.md, "Riders").
#include "detect/classify_internal.h"

#include <Eigen/Geometry>

#include <algorithm>
#include <array>
#include <cmath>
#include <string>

namespace retail {

namespace {

/// Do welded `shell`'s vertices touch `tail` past the tail's root quarter (g >= L/4): does one
/// of them lie nearer a tail vertex there than any of them lies to a bone (their least skeleton
/// distance)? A plate or fin sunk into a tail touches its skin; a shell on the body comes no
/// closer to the tail than to its own bones. Only tail vertices in the shell's box grown by that
/// distance are compared.
bool touches_tail(const WeldedMesh& m, const DistanceField& f, const Piece& tail,
                  const std::vector<int>& shell) {
  double reach = INFINITY;
  for (int v : shell) reach = std::min(reach, f.distance[std::size_t(v)]);
  if (!std::isfinite(reach) || tail.geodesic.size() != tail.vertices.size()) return false;
  Eigen::Vector3d lo, hi;
  box_of(m, shell, lo, hi);
  lo.array() -= reach, hi.array() += reach;
  for (std::size_t i = 0; i < tail.vertices.size(); ++i) {
    const Eigen::Vector3d q = m.welded.row(tail.vertices[i]).transpose();
    if (tail.geodesic[i] < 0.25 * tail.length || (q.array() < lo.array()).any() ||
        (q.array() > hi.array()).any())
      continue;
    for (int v : shell)
      if ((m.welded.row(v).transpose() - q).squaredNorm() < reach * reach) return true;
  }
  return false;
}

/// Per welded vertex, +1 or -1: the sign of the volume its connected part of the welded graph
/// encloses as its triangles are wound (each face's signed tetrahedron from the part's centroid,
/// summed; a face counts for its first corner's part). -1 where that volume is negative (a part
/// wound inside out, or mirrored by its node); +1 where it is positive or zero (a flat card).
std::vector<signed char> outward_sign(const WeldedMesh& m) {
  std::vector<int> part(m.size(), -1);
  std::vector<Eigen::Vector3d> centre;
  for (const auto& comp : welded_components(m, std::vector<bool>(m.size(), true))) {
    Eigen::Vector3d c = Eigen::Vector3d::Zero();
    for (int v : comp) part[std::size_t(v)] = int(centre.size()), c += m.welded.row(v).transpose();
    centre.push_back(c / double(comp.size()));
  }
  std::vector<double> volume(centre.size(), 0.0);
  for (const auto& t : m.faces) {
    const int k = part[std::size_t(t[0])];
    if (k < 0) continue;
    const Eigen::Vector3d& o = centre[std::size_t(k)];
    const Eigen::Vector3d a = m.welded.row(t[0]).transpose() - o,
                          b = m.welded.row(t[1]).transpose() - o,
                          c = m.welded.row(t[2]).transpose() - o;
    volume[std::size_t(k)] += a.dot(b.cross(c));
  }
  std::vector<signed char> sign(m.size(), 1);
  for (std::size_t v = 0; v < m.size(); ++v)
    if (part[v] >= 0 && volume[std::size_t(part[v])] < 0) sign[v] = -1;
  return sign;
}

/// Area-weighted normals (#welded by 3, unnormalised) of every welded vertex, from its
/// triangles, pointing out of its part (outward_sign: a part wound inside out is read the right
/// way round); zero on a vertex of no triangle.
Eigen::MatrixX3d vertex_normals(const WeldedMesh& m) {
  Eigen::MatrixX3d n = Eigen::MatrixX3d::Zero(Eigen::Index(m.size()), 3);
  for (const auto& t : m.faces) {
    const Eigen::Vector3d a = m.welded.row(t[0]).transpose(), b = m.welded.row(t[1]).transpose(),
                          c = m.welded.row(t[2]).transpose();
    const Eigen::Vector3d face = (b - a).cross(c - a);
    for (int k : t) n.row(k) += face.transpose();
  }
  const std::vector<signed char> sign = outward_sign(m);
  for (std::size_t v = 0; v < m.size(); ++v)
    if (sign[v] < 0) n.row(Eigen::Index(v)) *= -1;
  return n;
}

/// The tail vertex (of `tail_ids`) nearest point `p`, and its squared distance; (-1, inf) when
/// the tail is empty. Ties: the first in `tail_ids`' order.
std::pair<int, double> nearest_tail(const WeldedMesh& m, const std::vector<int>& tail_ids,
                                    const Eigen::Vector3d& p) {
  double best = INFINITY;
  int at = -1;
  for (int w : tail_ids) {
    const double d = (p - m.welded.row(w).transpose()).squaredNorm();
    if (d < best) best = d, at = w;
  }
  return {at, best};
}

/// Is point `p` behind the tail's surface at tail vertex `at` (`normal`, every welded vertex's,
/// from vertex_normals)? False when `at` is -1.
bool behind_at(const WeldedMesh& m, const Eigen::MatrixX3d& normal, const Eigen::Vector3d& p,
               int at) {
  return at >= 0 && (p - m.welded.row(at).transpose()).dot(normal.row(at).transpose()) < 0;
}

/// How welded `shell` lies against the tail (`tail_ids`; `normal`, every welded vertex's, from
/// vertex_normals): `inside`, one of its vertices lies behind the tail's surface at its nearest
/// tail vertex; `clear`, besides, no vertex outside the tail (`in_tail`, #welded), the shell and
/// the other candidate shells (`skip`, #welded) lies nearer to a vertex of the shell than the
/// nearest tail vertex does with that vertex behind its surface there, other than one buried in
/// the tail itself (behind its surface at its nearest tail vertex: the body's skin the tail's root
/// is sunk into, hidden by it). A spike sunk into a tail is inside it and in front of the rump
/// beside its root; a sheath beside it is outside it; a button sunk into the rump by the tail's
/// root is behind the rump where the rump shows. `by_x`: every welded vertex as (x, id), ascending,
/// for the scan; `buried` (#welded): whether each vertex asked so far is buried so (-1 not yet),
/// shared by the tail's candidates. Neither when the tail is empty.
struct Sunk {
  bool inside = false, clear = false;
};
Sunk sunk_into_tail(const WeldedMesh& m, const std::vector<int>& tail_ids,
                    const Eigen::MatrixX3d& normal, const std::vector<bool>& in_tail,
                    const std::vector<bool>& skip, const std::vector<std::pair<double, int>>& by_x,
                    const std::vector<int>& shell, std::vector<signed char>& buried) {
  Sunk out;
  Eigen::Vector3d lo, hi, tail_lo, tail_hi;
  box_of(m, shell, lo, hi);
  box_of(m, tail_ids, tail_lo, tail_hi);
  if ((hi.array() < tail_lo.array()).any() || (lo.array() > tail_hi.array()).any())
    return out; // nothing of it inside the tail's box
  double d2 = INFINITY;
  bool inside = false;
  for (int v : shell) {
    const Eigen::Vector3d p = m.welded.row(v).transpose();
    const auto [at, best] = nearest_tail(m, tail_ids, p);
    d2 = std::min(d2, best);
    inside = inside || behind_at(m, normal, p, at);
  }
  if (!std::isfinite(d2) || !inside) return out;
  out.inside = true;
  const double d = std::sqrt(d2);
  lo.array() -= d, hi.array() += d;
  auto from = std::lower_bound(by_x.begin(), by_x.end(), std::pair{lo.x(), -1});
  for (auto it = from; it != by_x.end() && it->first <= hi.x(); ++it) {
    const auto u = std::size_t(it->second);
    const Eigen::Vector3d q = m.welded.row(it->second).transpose();
    if (in_tail[u] || skip[u] || (q.array() < lo.array()).any() || (q.array() > hi.array()).any())
      continue;
    for (int v : shell) {
      const Eigen::Vector3d to = m.welded.row(v).transpose() - q;
      if (to.squaredNorm() < d2 && !(to.dot(normal.row(it->second).transpose()) > 0)) {
        signed char& b = buried[u];
        if (b < 0) b = behind_at(m, normal, q, nearest_tail(m, tail_ids, q).first) ? 1 : 0;
        if (b) break; // buried in the tail: no surface there
        return out;
      }
    }
  }
  out.clear = true;
  return out;
}

/// May piece `p` ride on `tail`, of `tail_size` vertices with the riders so far, by its box or
/// by touching (ride_along's rule for pieces that are not worn)?
bool rides(const WeldedMesh& m, const DistanceField& f, const DetectParams& params,
           const Piece& tail, std::size_t tail_size, const Piece& p) {
  if (&p == &tail || p.vertices.empty() || !p.collar_from_shell || p.decision == Decision::Head ||
      p.decision == Decision::Hair || p.decision == Decision::Worn ||
      p.decision == Decision::WornRigid || !p.selected.empty() || 4 * p.vertices.size() > tail_size)
    return false;
  return box_overlap(m, tail, p) > params.merge_overlap ||
         (p.open_border <= 0 && touches_tail(m, f, tail, p.vertices));
}

/// A worn piece that may be sunk into a tail of `tail_size` vertices: a whole closed shell, at
/// most a quarter of it, not --tail.
bool worn_candidate(const Piece& p, std::size_t tail_size) {
  return (p.decision == Decision::Worn || p.decision == Decision::WornRigid) &&
         !p.vertices.empty() && p.collar_from_shell && p.open_border <= 0 && p.selected.empty() &&
         4 * p.vertices.size() <= tail_size;
}

/// The shells (welded components) with a vertex in the box [lo, hi] of which no piece holds a
/// vertex, nor `joined` (riders taken already), none excluded, of 3 to `most` vertices and
/// closed (no edge of their triangles used by one triangle only), each ascending, in order of
/// their lowest vertex. Each vertex is visited at most once: a walk that meets a held vertex or
/// grows past `most` stops, and what it reached is not walked again.
std::vector<std::vector<int>>
loose_closed_shells(const WeldedMesh& m, const std::vector<Piece>& pieces,
                    const std::vector<int>& joined, const std::vector<bool>& excluded,
                    const Eigen::Vector3d& lo, const Eigen::Vector3d& hi, std::size_t most) {
  std::vector<char> state(m.size(), 0); // 0 not reached, 1 reached, 2 held or too large
  for (const Piece& p : pieces)
    for (int v : p.vertices) state[std::size_t(v)] = 2;
  for (int v : joined) state[std::size_t(v)] = 2;
  for (std::size_t v = 0; v < excluded.size() && v < m.size(); ++v)
    if (excluded[v]) state[v] = 2;
  std::vector<int> shell_of(m.size(), -1);
  std::vector<std::vector<int>> shells;
  for (std::size_t seed = 0; seed < m.size(); ++seed) {
    const Eigen::Vector3d q = m.welded.row(Eigen::Index(seed)).transpose();
    if (state[seed] != 0 || (q.array() < lo.array()).any() || (q.array() > hi.array()).any())
      continue;
    std::vector<int> comp{int(seed)};
    state[seed] = 1;
    bool whole = true;
    for (std::size_t i = 0; i < comp.size() && whole; ++i) {
      const int v = comp[i];
      for (int k = m.adjacency_start[std::size_t(v)]; k < m.adjacency_start[std::size_t(v) + 1];
           ++k) {
        const auto w = std::size_t(m.adjacency[std::size_t(k)]);
        if (state[w] == 2 || comp.size() > most) whole = false;
        if (state[w] != 0) continue;
        state[w] = 1;
        comp.push_back(int(w));
      }
    }
    if (!whole) { // part of a larger or held shell: a later walk meeting it stops too
      for (int v : comp) state[std::size_t(v)] = 2;
      continue;
    }
    if (comp.size() < 3) continue;
    std::sort(comp.begin(), comp.end());
    for (int v : comp) shell_of[std::size_t(v)] = int(shells.size());
    shells.push_back(std::move(comp));
  }
  // One pass over the triangles: every edge of a candidate's triangles, sorted, counted.
  std::vector<std::array<int, 3>> edges; // shell, lower vertex, higher vertex
  for (const auto& t : m.faces) {
    const int s = shell_of[std::size_t(t[0])];
    if (s < 0) continue;
    for (int e = 0; e < 3; ++e) {
      const int a = t[std::size_t(e)], b = t[std::size_t((e + 1) % 3)];
      edges.push_back({s, std::min(a, b), std::max(a, b)});
    }
  }
  std::sort(edges.begin(), edges.end());
  std::vector<bool> open(shells.size(), false);
  for (std::size_t i = 0; i < edges.size();) {
    std::size_t j = i;
    while (j < edges.size() && edges[j] == edges[i]) ++j;
    if (j - i == 1) open[std::size_t(edges[i][0])] = true;
    i = j;
  }
  std::vector<std::vector<int>> closed;
  for (std::size_t s = 0; s < shells.size(); ++s)
    if (!open[s]) closed.push_back(std::move(shells[s]));
  std::sort(closed.begin(), closed.end(),
            [](const std::vector<int>& x, const std::vector<int>& y) { return x[0] < y[0]; });
  return closed;
}

/// Each vertex of each rider shell (`riders`: welded ids, every one in `tail`) takes the
/// geodesic coordinate of the nearest (Euclidean) tail vertex that is not a rider among those in
/// the shell's box grown by the shell's least distance to one (so at least that one): a spike's
/// apex follows the tail under its base, not a ring beyond it, and a fin lying along the tail
/// bends with it. Ties: the first in the tail's order.
void rider_geodesic(const WeldedMesh& m, const std::vector<std::vector<int>>& riders,
                    const std::vector<bool>& rider, Piece& tail) {
  std::vector<std::size_t> body; // positions in `tail` of its own (non-rider) vertices
  for (std::size_t k = 0; k < tail.vertices.size(); ++k)
    if (!rider[std::size_t(tail.vertices[k])]) body.push_back(k);
  auto dist2 = [&](int v, std::size_t k) {
    return (m.welded.row(v) - m.welded.row(tail.vertices[k])).squaredNorm();
  };
  for (const auto& shell : riders) {
    double least = INFINITY;
    for (int v : shell)
      for (std::size_t k : body) least = std::min(least, dist2(v, k));
    Eigen::Vector3d lo, hi;
    box_of(m, shell, lo, hi);
    lo.array() -= std::sqrt(least), hi.array() += std::sqrt(least);
    std::vector<std::size_t> near;
    for (std::size_t k : body) {
      const Eigen::Vector3d q = m.welded.row(tail.vertices[k]).transpose();
      if ((q.array() >= lo.array()).all() && (q.array() <= hi.array()).all()) near.push_back(k);
    }
    if (near.empty()) near = body; // rounding: never without a coordinate
    for (int v : shell) {
      const auto at = std::lower_bound(tail.vertices.begin(), tail.vertices.end(), v);
      double best = INFINITY;
      for (std::size_t k : near) {
        const double d = dist2(v, k);
        if (d < best)
          best = d, tail.geodesic[std::size_t(at - tail.vertices.begin())] = tail.geodesic[k];
      }
    }
  }
}

/// What joins a tail: the riders' welded ids, and each rider's shell.
struct Riders {
  std::vector<int> joined;
  std::vector<std::vector<int>> shells;
};

/// Piece `p` rides on `tail`: its vertices join `r`, its id the tail's merged list; it is left
/// empty, Small, its reason naming the tail.
void absorb(Piece& tail, Piece& p, Riders& r) {
  tail.merged.push_back(p.id);
  r.joined.insert(r.joined.end(), p.vertices.begin(), p.vertices.end());
  r.shells.push_back(p.vertices);
  p.vertices.clear();
  p.decision = Decision::Small;
  p.reason = "merged into piece " + std::to_string(tail.id) +
             " (a shell riding on the tail: plate, spike or fin)";
}

/// What sunk_into_tail scans, made at the first candidate of a run: every welded vertex as
/// (x, id) ascending, and every welded vertex's normal (vertex_normals).
struct Scan {
  std::vector<std::pair<double, int>> by_x;
  Eigen::MatrixX3d normal;
};

/// Per candidate shell (welded ids): how it lies against `tail` (sunk_into_tail), the other
/// candidates and the riders `joined` set apart. `scan` is filled at the first call.
std::vector<Sunk> sunk(const WeldedMesh& m, const Piece& tail,
                       const std::vector<std::vector<int>>& candidates,
                       const std::vector<int>& joined, Scan& scan) {
  std::vector<Sunk> out(candidates.size());
  if (candidates.empty()) return out;
  std::vector<bool> in_tail(m.size(), false), skip(m.size(), false);
  for (int v : tail.vertices) in_tail[std::size_t(v)] = true;
  for (const auto& shell : candidates)
    for (int v : shell) skip[std::size_t(v)] = true;
  for (int v : joined) skip[std::size_t(v)] = true;
  if (scan.by_x.empty()) {
    for (std::size_t v = 0; v < m.size(); ++v)
      scan.by_x.push_back({m.welded(Eigen::Index(v), 0), int(v)});
    std::sort(scan.by_x.begin(), scan.by_x.end());
    scan.normal = vertex_normals(m);
  }
  std::vector<signed char> buried(m.size(), -1); // buried in the tail, per vertex asked
  for (std::size_t c = 0; c < candidates.size(); ++c)
    out[c] = sunk_into_tail(m, tail.vertices, scan.normal, in_tail, skip, scan.by_x, candidates[c],
                            buried);
  return out;
}

} // namespace

void ride_along(const WeldedMesh& m, const DistanceField& f, const std::vector<Segment>& segs,
                const std::vector<double>& areas, const DetectParams& params,
                const std::vector<bool>& excluded, std::vector<Piece>& pieces) {
  Scan scan; // made at the first candidate
  for (Piece& tail : pieces) {
    if (tail.decision != Decision::TailChain) continue;
    Riders r;
    for (Piece& p : pieces)
      if (rides(m, f, params, tail, tail.vertices.size() + r.joined.size(), p)) absorb(tail, p, r);
    // Loose shells ride touching the tail or inside it with nothing nearer; worn pieces only
    // inside it, touching it or with nothing nearer (a sheath hanging beside it touches it). A
    // rider lies within the far distance of the tail (a shell all far is a piece).
    const std::size_t size = tail.vertices.size() + r.joined.size();
    Eigen::Vector3d lo, hi;
    box_of(m, tail.vertices, lo, hi);
    lo.array() -= f.threshold, hi.array() += f.threshold;
    std::vector<std::vector<int>> candidates =
        loose_closed_shells(m, pieces, r.joined, excluded, lo, hi, size / 4);
    const std::size_t loose = candidates.size();
    std::vector<Piece*> worn;
    for (Piece& p : pieces)
      if (worn_candidate(p, size)) worn.push_back(&p), candidates.push_back(p.vertices);
    const std::vector<Sunk> in = sunk(m, tail, candidates, r.joined, scan);
    for (std::size_t c = 0; c < candidates.size(); ++c) {
      const bool sunk = in[c].inside && in[c].clear;
      const bool joins = c < loose
                             ? sunk || touches_tail(m, f, tail, candidates[c])
                             : sunk || (in[c].inside && touches_tail(m, f, tail, candidates[c]));
      if (!joins) continue;
      if (c >= loose) {
        absorb(tail, *worn[c - loose], r);
        continue;
      }
      ++tail.riding_shells;
      r.joined.insert(r.joined.end(), candidates[c].begin(), candidates[c].end());
      r.shells.push_back(candidates[c]);
    }
    if (r.joined.empty()) continue;
    std::vector<bool> rider(m.size(), false);
    for (int v : r.joined) rider[std::size_t(v)] = true;
    tail.vertices.insert(tail.vertices.end(), r.joined.begin(), r.joined.end());
    std::sort(tail.vertices.begin(), tail.vertices.end());
    measure(m, f, segs, areas, tail);
    rider_geodesic(m, r.shells, rider, tail);
  }
}

} // namespace retail
