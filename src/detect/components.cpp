// Far pieces: connected far skin, the junction split for thick bodies, separate shells.
#include "detect/classify_internal.h"
#include "retail/base/error.h"
#include "retail/base/parallel.h"
#include "retail/detect/detect.h"
#include "retail/detect/geodesic.h"
#include "retail/detect/graph.h"

#include <Eigen/Geometry>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <queue>
#include <unordered_map>

namespace retail {

namespace {

/// Isoline perimeter P(k * step) for k = 0..levels-1, each face adding to the levels it spans.
std::vector<double> perimeter_profile(const WeldedMesh& m, const std::vector<double>& u,
                                      double step, int levels) {
  std::vector<double> p(std::size_t(levels), 0.0);
  for (const auto& f : m.faces) {
    double lo = INFINITY, hi = -INFINITY;
    for (int v : f) {
      lo = std::min(lo, u[std::size_t(v)]);
      hi = std::max(hi, u[std::size_t(v)]);
    }
    if (!std::isfinite(hi)) continue;
    int k0 = int(std::floor(lo / step)) + 1, k1 = std::min(levels - 1, int(std::floor(hi / step)));
    for (int k = std::max(k0, 1); k <= k1; ++k)
      p[std::size_t(k)] += face_isoline(m, f, u, k * step);
  }
  return p;
}

} // namespace

/// The geodesic distance from the tip at which a protrusion meets a body, or -1. Walking out
/// from the tip, the isoline perimeter P grows steeply over the tip's cap, slowly along a tail
/// (a tube), and steeply again once the wavefront spills onto the body; the cut is where that
/// second steep rise begins (docs/detection.md).
double find_junction(const WeldedMesh& m, const std::vector<double>& u, double height,
                     const DetectParams& params, double* neck_perimeter) {
  if (neck_perimeter) *neck_perimeter = 0;
  double step = params.level_step_h * height;
  double max_u = 0;
  for (double x : u)
    if (std::isfinite(x)) max_u = std::max(max_u, x);
  int levels = int(std::min(200000.0, std::floor(max_u / step) + 2)); // no int overflow
  if (levels < 8) return -1;
  std::vector<double> p = perimeter_profile(m, u, step, levels);
  int w = std::max(1, int(std::lround(params.junction_window_h * height / step)));
  auto slope = [&](int k) {
    return (p[std::size_t(std::min(k + w, levels - 1))] - p[std::size_t(k)]) / (w * step);
  };
  int k = 1;
  while (k + w < levels && slope(k) > params.junction_slope) ++k; // the tip's cap
  int tube_start = k;
  for (; k + w < levels; ++k) {
    if (slope(k) <= params.junction_slope) continue;
    if ((k - tube_start) * step < params.min_protrusion_h * height)
      return -1; // a bump, not a protrusion
    // The narrowest loop around the start of the steep rise, then the cut where the loop has
    // grown by junction_growth past it (the neck plus the start of the base's flare).
    int k_min = std::max(tube_start, k - w);
    for (int q = k_min; q <= std::min(k + w, levels - 1); ++q)
      if (p[std::size_t(q)] < p[std::size_t(k_min)]) k_min = q;
    int cut = k_min;
    if (neck_perimeter) *neck_perimeter = p[std::size_t(k_min)];
    while (cut + 1 < levels &&
           p[std::size_t(cut)] < (1 + params.junction_growth) * p[std::size_t(k_min)])
      ++cut;
    return cut * step;
  }
  return -1;
}

namespace {

using Cell = std::array<long long, 3>;
/// splitmix64's finaliser over the three indices: lookups only test membership, so the map's
/// order (and the hash) never reaches a result.
struct CellHash {
  std::size_t operator()(const Cell& c) const {
    std::uint64_t h = 0;
    for (long long x : c) {
      std::uint64_t z = (h ^ std::uint64_t(x)) + 0x9e3779b97f4a7c15ULL;
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
      h = z ^ (z >> 31);
    }
    return std::size_t(h);
  }
};
using CellMap = std::unordered_map<Cell, std::vector<int>, CellHash>;

/// The cell (`size` wide) of p. Far-out points (a joint 1e30 away reflects the skin there) share
/// the outermost cells, as in the weld: the distance test still decides, and index +-1 stays
/// within a long long.
Cell cell_of(const Eigen::Vector3d& p, double size) {
  Cell c;
  for (int k = 0; k < 3; ++k) {
    const double x = p[k] / size;
    c[std::size_t(k)] = (long long)std::floor(std::isfinite(x) ? std::clamp(x, -4e18, 4e18) : 0.0);
  }
  return c;
}

/// Is a vertex of `grid` (cells `tolerance` wide) within `tolerance` of q? Stops at the first.
bool near_any(const WeldedMesh& m, const CellMap& grid, const Eigen::Vector3d& q,
              double tolerance) {
  const Cell k = cell_of(q, tolerance);
  for (long long dx = -1; dx <= 1; ++dx)
    for (long long dy = -1; dy <= 1; ++dy)
      for (long long dz = -1; dz <= 1; ++dz) {
        auto it = grid.find({k[0] + dx, k[1] + dy, k[2] + dz});
        if (it == grid.end()) continue;
        for (int v : it->second)
          if ((m.welded.row(Eigen::Index(v)).transpose() - q).norm() <= tolerance) return true;
      }
  return false;
}

} // namespace

std::vector<char> mixed_base_skin(const WeldedMesh& m, const std::vector<double>& legs,
                                  const std::vector<char>& mixed, const Character& c,
                                  double tolerance, int threads) {
  std::vector<char> out(m.size(), 0);
  for (std::size_t w = 0; w < m.size(); ++w) out[w] = legs[w] >= 0.5 && mixed[w];
  int l = c.joint_index(c.roles.upper_leg[0]), r = c.joint_index(c.roles.upper_leg[1]);
  if (l < 0 || r < 0 || !(tolerance > 0)) return out;
  Eigen::Vector3d axis = c.bind_position(l) - c.bind_position(r);
  if (!(axis.norm() > 0)) return out;
  axis.normalize();
  const double mid = 0.5 * (c.bind_position(l) + c.bind_position(r)).dot(axis);
  // Hash grid (cell = tolerance) of the mixed leg-weighted skin, and its box grown by the
  // tolerance: a reflection outside the box matches nothing.
  CellMap grid;
  Eigen::AlignedBox3d box;
  for (std::size_t w = 0; w < m.size(); ++w)
    if (out[w]) {
      grid[cell_of(m.welded.row(Eigen::Index(w)).transpose(), tolerance)].push_back(int(w));
      box.extend(m.welded.row(Eigen::Index(w)).transpose());
    }
  if (grid.empty()) return out;
  box.min().array() -= tolerance;
  box.max().array() += tolerance;
  // Each vertex writes its own entry: the same on any number of workers.
  std::vector<char> mirrored = out;
  constexpr std::size_t kBlock = 4096;
  parallel_for((m.size() + kBlock - 1) / kBlock, threads, [&](std::size_t b) {
    for (std::size_t w = b * kBlock; w < std::min(m.size(), (b + 1) * kBlock); ++w) {
      if (out[w] || !(legs[w] >= 0.5)) continue;
      const Eigen::Vector3d p = m.welded.row(Eigen::Index(w)).transpose();
      const Eigen::Vector3d q = p - 2 * (p.dot(axis) - mid) * axis; // reflected across the midline
      if (box.contains(q)) mirrored[w] = near_any(m, grid, q, tolerance);
    }
  });
  return mirrored;
}

namespace {

/// Is welded vertex v skin a piece may grow over: mis-weighted, or leg-weighted within `midline`
/// of the body's midline?
bool marked(const BaseCues& cues, int v, double midline) {
  return (!cues.misweighted.empty() && cues.misweighted[std::size_t(v)]) ||
         (!cues.leg_midline.empty() && cues.leg_midline[std::size_t(v)] <= midline) ||
         (!cues.limbs_mixed.empty() && cues.limbs_mixed[std::size_t(v)]);
}

bool any_cue(const BaseCues& cues) {
  return !cues.misweighted.empty() || !cues.leg_midline.empty() || !cues.limbs_mixed.empty();
}

/// Grows `piece` past its cut: connected marked skin (`cues`, leg-weighted within `midline`)
/// with u < reach, then the skin with u < reach that the grown piece encloses (no path to u >=
/// reach avoiding it). Returns how many vertices were added.
std::size_t grow_base(const WeldedMesh& m, const std::vector<double>& u, double reach,
                      const BaseCues& cues, double midline, const std::vector<bool>& taken,
                      std::vector<int>& piece, std::vector<int>& base) {
  std::vector<bool> in(m.size(), false);
  for (int v : piece) in[std::size_t(v)] = true;
  auto zone = [&](int v) { return u[std::size_t(v)] < reach && !taken[std::size_t(v)]; };
  std::vector<int> added =
      flood_welded(m, piece, in, [&](int v) { return zone(v) && marked(cues, v, midline); });
  if (added.empty()) return 0;
  // Enclosed skin: zone vertices outside the piece from which the zone's edge (a neighbour at
  // u >= reach, or taken by another piece) cannot be reached without crossing the piece.
  std::vector<bool> open(m.size(), false);
  std::vector<int> edge;
  for (std::size_t v = 0; v < m.size(); ++v) {
    if (in[v] || !zone(int(v))) continue;
    for (int e = m.adjacency_start[v]; e < m.adjacency_start[v + 1] && !open[v]; ++e)
      if (!zone(m.adjacency[std::size_t(e)])) open[v] = true, edge.push_back(int(v));
  }
  flood_welded(m, std::move(edge), open, [&](int v) { return !in[std::size_t(v)] && zone(v); });
  for (std::size_t v = 0; v < m.size(); ++v)
    if (!in[v] && !open[v] && zone(int(v)) && u[v] < reach) {
      bool touches = false; // only holes next to the piece (not unreached islands)
      for (int e = m.adjacency_start[v]; e < m.adjacency_start[v + 1] && !touches; ++e)
        touches = in[std::size_t(m.adjacency[std::size_t(e)])];
      if (touches) added.push_back(int(v));
    }
  piece.insert(piece.end(), added.begin(), added.end());
  std::sort(piece.begin(), piece.end());
  base = added;
  std::sort(base.begin(), base.end());
  base.erase(std::unique(base.begin(), base.end()), base.end());
  piece.erase(std::unique(piece.begin(), piece.end()), piece.end());
  return added.size();
}

/// A whole far component to grow over mis-weighted near skin: its index in the pieces and how
/// far (geodesic, model units) the growth may reach from it.
struct WholeGrowth {
  std::size_t piece;
  double limit;
  double midline; ///< leg-weighted skin within this of the midline counts (BaseCues::leg_midline)
};

/// Grows every `grow` piece over connected mis-weighted skin that is near (not `far`) and not
/// `taken`, within its limit; skin two pieces could take goes to the geodesically nearer
/// (ties: the piece listed first, then the lower vertex), so the order in which components were
/// found does not decide. A vertex of that skin's zone whose every neighbour joined the piece
/// comes too (no single-vertex holes). Marks what it adds in `taken`.
void grow_whole(const WeldedMesh& m, const std::vector<bool>& far, const BaseCues& cues,
                const std::vector<WholeGrowth>& grow, std::vector<bool>& taken,
                std::vector<Piece>& pieces) {
  std::vector<double> dist(m.size(), INFINITY);
  std::vector<int> label(m.size(), -1);
  using Item = std::pair<double, std::pair<int, int>>; // distance, (label, vertex)
  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> queue;
  for (std::size_t g = 0; g < grow.size(); ++g)
    for (int v : pieces[grow[g].piece].vertices)
      if (label[std::size_t(v)] < 0) {
        dist[std::size_t(v)] = 0, label[std::size_t(v)] = int(g);
        queue.push({0.0, {int(g), v}});
      }
  auto open = [&](int v, int g) {
    return !taken[std::size_t(v)] && !far[std::size_t(v)] &&
           marked(cues, v, grow[std::size_t(g)].midline);
  };
  while (!queue.empty()) {
    auto [d, lv] = queue.top();
    queue.pop();
    auto [g, a] = lv;
    if (d > dist[std::size_t(a)] || label[std::size_t(a)] != g) continue;
    for (int e = m.adjacency_start[std::size_t(a)]; e < m.adjacency_start[std::size_t(a) + 1];
         ++e) {
      int b = m.adjacency[std::size_t(e)];
      if (!open(b, g)) continue;
      double nd = d + (m.welded.row(Eigen::Index(a)) - m.welded.row(Eigen::Index(b))).norm();
      if (nd > grow[std::size_t(g)].limit) continue;
      if (nd < dist[std::size_t(b)] || (nd == dist[std::size_t(b)] && g < label[std::size_t(b)])) {
        dist[std::size_t(b)] = nd, label[std::size_t(b)] = g;
        queue.push({nd, {g, b}});
      }
    }
  }
  std::vector<std::vector<int>> added(grow.size());
  for (std::size_t v = 0; v < m.size(); ++v)
    if (label[v] >= 0 && !taken[v]) added[std::size_t(label[v])].push_back(int(v));
  for (std::size_t v = 0; v < m.size(); ++v) { // holes of one vertex
    if (label[v] >= 0 || taken[v] || far[v] || m.adjacency_start[v] == m.adjacency_start[v + 1])
      continue;
    int owner = label[std::size_t(m.adjacency[std::size_t(m.adjacency_start[v])])];
    for (int e = m.adjacency_start[v]; e < m.adjacency_start[v + 1] && owner >= 0; ++e)
      if (label[std::size_t(m.adjacency[std::size_t(e)])] != owner) owner = -1;
    if (owner >= 0) added[std::size_t(owner)].push_back(int(v));
  }
  for (std::size_t g = 0; g < grow.size(); ++g) {
    if (added[g].empty()) continue;
    Piece& p = pieces[grow[g].piece];
    std::sort(added[g].begin(), added[g].end());
    for (int v : added[g]) taken[std::size_t(v)] = true;
    p.base = added[g];
    p.base_added = added[g].size();
    p.vertices.insert(p.vertices.end(), added[g].begin(), added[g].end());
    std::sort(p.vertices.begin(), p.vertices.end());
  }
}
} // namespace

namespace {

/// The remote end of a far component: its vertex farthest (geodesic, over the component and
/// its collar) from the component's boundary, and that distance. A component with no outside
/// neighbour measures from its vertex nearest the skeleton (ties: the lower id). Ties for the
/// tip: the first in `comp` (ascending ids).
std::pair<int, double> remote_end(const WeldedMesh& m, const DistanceField& f,
                                  const std::vector<int>& comp, const std::vector<int>& collar) {
  std::vector<int> seeds = collar;
  if (seeds.empty())
    seeds = {*std::min_element(comp.begin(), comp.end(), [&](int a, int b) {
      return f.distance[std::size_t(a)] < f.distance[std::size_t(b)] ||
             (f.distance[std::size_t(a)] == f.distance[std::size_t(b)] && a < b);
    })};
  std::vector<double> h = geodesic_within(m, seeds, comp);
  int tip = comp[0];
  for (int v : comp)
    if (h[std::size_t(v)] > h[std::size_t(tip)]) tip = v;
  return {tip, h[std::size_t(tip)]};
}

/// The first level at which the skin around a protrusion's tip stops lying beyond the skeleton:
/// walking out from the tip in steps of level_step_h × H, the vertices with u in the last
/// junction_window_h × H are fewer than half `beyond` (BaseCues::beyond_end), returned as that
/// window's middle; -1 when that never happens within 200000 steps or happens within
/// min_protrusion_h × H of the tip. Empty windows are skipped.
double skeleton_end_cut(const std::vector<double>& u, const std::vector<char>& beyond,
                        double height, const DetectParams& params) {
  std::vector<std::pair<double, bool>> order; // (u, beyond), ascending u
  for (std::size_t v = 0; v < u.size(); ++v)
    if (std::isfinite(u[v])) order.emplace_back(u[v], beyond[v] != 0);
  std::sort(order.begin(), order.end());
  const double step = params.level_step_h * height, window = params.junction_window_h * height;
  std::size_t lo = 0, hi = 0, marked = 0;
  if (!(step > 0)) return -1;
  for (int k = 1; k <= 200000 && hi < order.size(); ++k) { // bounded as find_junction's levels
    const double level = k * step;
    for (; hi < order.size() && order[hi].first < level; ++hi) marked += order[hi].second;
    for (; lo < hi && order[lo].first < level - window; ++lo) marked -= order[lo].second;
    if (hi == lo || 2 * marked >= hi - lo) continue;
    return level < params.min_protrusion_h * height ? -1 : level - window / 2;
  }
  return -1;
}

/// A cut far smaller than its component (a spike at the end of a tail) gives way to a cut where
/// the skin around the tip stops lying beyond the skeleton (skeleton_end_cut), when the tip lies
/// beyond it and that cut is farther out; the new neck is the isoline's effective radius there
/// (fins and plates add length to an isoline, not area) and the base grows past it as usual.
void beyond_the_end(const WeldedMesh& m, const std::vector<int>& comp, const std::vector<double>& u,
                    double height, const DetectParams& params, const BaseCues& cues,
                    const std::vector<bool>& taken, Piece& piece) {
  if (cues.beyond_end.empty() || !cues.beyond_end[std::size_t(piece.tip)] || piece.junction < 0 ||
      double(piece.vertices.size()) >= params.peel_fraction * double(comp.size()))
    return;
  const double cut = skeleton_end_cut(u, cues.beyond_end, height, params);
  if (cut <= piece.junction) return;
  std::vector<bool> inside(m.size(), false);
  for (std::size_t v = 0; v < m.size(); ++v) inside[v] = u[v] < cut && !taken[v];
  for (auto& part : welded_components(m, inside))
    if (std::binary_search(part.begin(), part.end(), piece.tip) &&
        part.size() > piece.vertices.size()) {
      piece.vertices = std::move(part);
      piece.junction = cut;
      piece.base.clear();
      const double neck_radius = isoline_radius(m, u, cut);
      piece.base_added = any_cue(cues) ? grow_base(m, u, cut + params.base_zone_radii * neck_radius,
                                                   cues, params.leg_midline_radii * neck_radius,
                                                   taken, piece.vertices, piece.base)
                                       : 0;
    }
}

/// True when the far component `comp` is most of its shell (shell_fraction) and every shell
/// vertex lies within `zone` of the tip (u): the shell closes past the cut, so what lies there
/// is the piece's own base, not a body.
bool shell_closes(const std::vector<double>& u, const std::vector<int>& comp,
                  const std::vector<int>& shell, double zone, const DetectParams& params) {
  return double(comp.size()) >= params.shell_fraction * double(shell.size()) &&
         std::all_of(shell.begin(), shell.end(), [&](int v) { return u[std::size_t(v)] <= zone; });
}

/// True when the shell past `cut` (u >= cut) falls apart into two or more pieces: the tip lies
/// mid-way along the shell, not at an end. A tail coiled back near the spine is near the
/// skeleton at both ends, so its far skin's remote end is the middle of the coil, and a cut
/// there would leave both ends behind.
bool splits_past(const WeldedMesh& m, const std::vector<double>& u, const std::vector<int>& shell,
                 double cut) {
  std::vector<bool> past(m.size(), false);
  for (int v : shell) past[std::size_t(v)] = u[std::size_t(v)] >= cut;
  return welded_components(m, past).size() >= 2;
}

/// Adds the shell's vertices that are neither in the piece nor taken to its base (a closing
/// shell's remainder past the cut, whatever its weights). Returns how many were added.
std::size_t take_shell_base(const std::vector<int>& shell, const std::vector<bool>& taken,
                            Piece& piece) {
  std::vector<int> rest;
  for (int v : shell)
    if (!taken[std::size_t(v)] &&
        !std::binary_search(piece.vertices.begin(), piece.vertices.end(), v))
      rest.push_back(v);
  for (auto* list : {&piece.vertices, &piece.base}) {
    list->insert(list->end(), rest.begin(), rest.end());
    std::sort(list->begin(), list->end());
  }
  return rest.size();
}

/// The protrusion of a far component: cut at its junction (find_junction) with its base grown
/// past the cut, else the whole component, or its whole shell when the component is most of
/// a separate shell (or enough of a small one). When the shell closes within base_zone_radii
/// neck radii past the cut (shell_closes), the rest of the shell is the piece's base; if that
/// rest falls apart (splits_past), the tip lies mid-way and there is no end to cut from: the
/// whole shell is taken as when no junction is found. Vertices may include `taken` ones.
Piece protrusion(const WeldedMesh& m, const std::vector<int>& comp, int tip, double tip_depth,
                 double height, const std::vector<int>& shell, const DetectParams& params,
                 const BaseCues& cues, const std::vector<bool>& taken) {
  Piece piece;
  piece.tip = tip;
  std::vector<double> u =
      geodesic_distance(m, {tip}, {}, 3 * std::max(tip_depth, 1e-9 * height) + 1e-12);
  double neck = 0;
  double cut = find_junction(m, u, height, params, &neck);
  const double zone = cut + params.base_zone_radii * neck / (2 * M_PI);
  const bool closes = cut > 0 && shell_closes(u, comp, shell, zone, params);
  if (closes && splits_past(m, u, shell, cut)) cut = -1; // no end to cut from: the whole shell
  if (cut > 0) {
    std::vector<bool> inside(m.size(), false);
    for (std::size_t v = 0; v < m.size(); ++v) inside[v] = u[v] < cut && !taken[v];
    for (const auto& part : welded_components(m, inside))
      if (std::binary_search(part.begin(), part.end(), tip)) piece.vertices = part;
    piece.junction = cut;
    if (any_cue(cues) && !piece.vertices.empty()) { // no cues: a piece that grows no base
      piece.base_added = grow_base(m, u, zone, cues, params.leg_midline_radii * neck / (2 * M_PI),
                                   taken, piece.vertices, piece.base);
      if (closes) piece.base_added += take_shell_base(shell, taken, piece);
    }
  }
  if (piece.vertices.empty()) piece.vertices = comp;
  // Most of a separate shell: take the whole shell (its root ring included).
  const bool small = double(shell.size()) <= params.small_shell * double(m.size()) &&
                     double(comp.size()) >= params.small_shell_far * double(shell.size());
  if (piece.junction < 0 &&
      (double(comp.size()) >= params.shell_fraction * double(shell.size()) || small) &&
      shell.size() > comp.size()) {
    piece.vertices = shell;
    piece.separate_shell = true;
  }
  beyond_the_end(m, comp, u, height, params, cues, taken, piece);
  return piece;
}

} // namespace

std::vector<Piece> isolate_pieces(const WeldedMesh& m, const DistanceField& f, double height,
                                  const DetectParams& params, const BaseCues& cues,
                                  const std::vector<char>& no_base) {
  std::vector<Piece> pieces;
  std::vector<WholeGrowth> whole; // whole far components to grow once all are found
  std::vector<bool> taken(m.size(), false);
  std::vector<int> shell_of(m.size(), -1);
  auto shells = welded_components(m, std::vector<bool>(m.size(), true));
  for (std::size_t s = 0; s < shells.size(); ++s)
    for (int v : shells[s]) shell_of[std::size_t(v)] = int(s);
  BaseCues no_growth; // a component marked in no_base: every cue but those a base grows over
  no_growth.beyond_end = cues.beyond_end;
  for (const auto& comp : welded_components(m, f.far)) {
    std::vector<int> collar = welded_ring(m, comp);
    auto [tip, depth] = remote_end(m, f, comp, collar);
    const bool grows = std::none_of(comp.begin(), comp.end(), [&](int v) {
      return !no_base.empty() && no_base[std::size_t(v)];
    });
    const BaseCues& own = grows ? cues : no_growth;
    Piece piece = protrusion(m, comp, tip, depth, height,
                             shells[std::size_t(shell_of[std::size_t(tip)])], params, own, taken);
    // A whole far component (no junction) grows from its collar the same way, later and all
    // together (grow_whole): base_zone_radii collar radii over marked near skin.
    if (piece.junction < 0 && !piece.separate_shell && any_cue(own) && !collar.empty()) {
      const double radius = collar_radius(m, collar);
      whole.push_back(
          {pieces.size(), params.base_zone_radii * radius, params.leg_midline_radii * radius});
    }
    std::vector<int> kept;
    for (int v : piece.vertices)
      if (!taken[std::size_t(v)]) kept.push_back(v);
    piece.vertices = kept;
    for (int v : piece.vertices) taken[std::size_t(v)] = true;
    if (piece.vertices.empty() && !whole.empty() && whole.back().piece == pieces.size())
      whole.pop_back();
    if (!piece.vertices.empty()) pieces.push_back(std::move(piece));
    // Far skin of this component left outside the protrusion: its own pieces (body).
    std::vector<bool> rest(m.size(), false);
    for (int v : comp) rest[std::size_t(v)] = !taken[std::size_t(v)];
    for (auto& part : welded_components(m, rest)) {
      Piece r;
      r.vertices = part;
      r.tip = part[0];
      for (int v : part) taken[std::size_t(v)] = true;
      pieces.push_back(std::move(r));
    }
  }
  if (any_cue(cues)) grow_whole(m, f.far, cues, whole, taken, pieces);
  std::sort(pieces.begin(), pieces.end(),
            [](const Piece& a, const Piece& b) { return a.vertices[0] < b.vertices[0]; });
  return pieces;
}

std::vector<char> bases_not_for_tails(std::size_t vertices, const std::vector<Piece>& pieces) {
  const bool tail = std::any_of(pieces.begin(), pieces.end(),
                                [](const Piece& p) { return p.decision == Decision::TailChain; });
  std::vector<char> out(vertices, 0);
  bool any = false;
  for (const Piece& p : pieces) {
    const bool broad_hips =
        p.decision == Decision::Broad && (p.region == "hips" || p.region == "thigh");
    if (!(tail || broad_hips) || p.decision == Decision::TailChain || p.base.empty()) continue;
    for (int v : p.vertices)
      if (!std::binary_search(p.base.begin(), p.base.end(), v)) out[std::size_t(v)] = 1, any = true;
  }
  return any ? out : std::vector<char>{};
}

} // namespace retail
