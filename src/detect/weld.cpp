// weld_character: gather skinned primitives in world space, weld by position, build adjacency.
#include "retail/detect/weld.h"

#include "retail/base/error.h"
#include "retail/base/parallel.h"
#include "retail/io/accessor.h"

#include <algorithm>
#include <atomic>
#include <cmath>

namespace retail {
namespace {

using Cell = std::array<std::int64_t, 3>;

std::uint64_t cell_hash(const Cell& c) {
  return std::uint64_t(c[0]) * 73856093ULL ^ std::uint64_t(c[1]) * 19349663ULL ^
         std::uint64_t(c[2]) * 83492791ULL;
}

/// Welded vertices by grid cell: an open-addressing table (linear probing) whose slots hold a
/// cell's first welded vertex and a 32-bit tag of its hash; the cells themselves are kept per
/// welded vertex and read only when a tag matches. The other welded vertices of a cell are
/// linked through `next`. Flat arrays, 8 bytes a slot: no allocation per cell.
/// Most cells a vertex looks into are empty (cells are far smaller than edges): a filter answers
/// those without touching the table. It has a 64-bit word per hashed block of 4x4x4 cells, a bit
/// per cell, 16 bits per expected vertex; the eight cells a vertex looks into mostly share one or
/// two words (a few percent of empty cells share a set bit with another block and are looked up).
class CellGrid {
public:
  explicit CellGrid(std::size_t expected) {
    std::size_t cap = 16;
    shift_ = 60;
    while (cap < 2 * expected) cap *= 2, --shift_;
    slots_.assign(cap, Slot{});
    mask_ = cap - 1;
    words_.assign(cap / 8, 0); // 16 x expected bits (cap >= 2 x expected)
    word_mask_ = cap / 8 - 1;
    next_.reserve(expected);
    cell_of_.reserve(expected);
  }
  /// First welded vertex in `c`, or -1.
  int first(const Cell& c) const {
    if (!(words_[word(c)] >> bit(c) & 1)) return -1;
    return slots_[slot(c, mixed(c))].head;
  }
  /// Following welded vertex in the same cell, or -1.
  int next(int w) const { return next_[std::size_t(w)]; }
  /// Adds welded vertex w (ids arrive as 0, 1, 2, ...) to cell c.
  void add(const Cell& c, int w) {
    words_[word(c)] |= std::uint64_t(1) << bit(c);
    std::uint64_t h = mixed(c);
    Slot& s = slots_[slot(c, h)];
    next_.push_back(s.head);
    cell_of_.push_back(c);
    s.head = w;
    s.tag = std::uint32_t(h);
  }

private:
  struct Slot {
    int head = -1;         ///< the cell's latest welded vertex, -1: empty
    std::uint32_t tag = 0; ///< the cell hash's low 32 bits
  };
  /// Fibonacci hashing: the product's top bits pick the table slot, its low bits are the tag.
  static std::uint64_t mixed(const Cell& c) { return cell_hash(c) * 0x9E3779B97F4A7C15ULL; }
  /// The filter word of c's 4x4x4 block (floor division by 4), and c's bit in it.
  std::size_t word(const Cell& c) const {
    Cell block = {c[0] >> 2, c[1] >> 2, c[2] >> 2};
    return std::size_t(mixed(block) >> 32) & word_mask_;
  }
  static int bit(const Cell& c) { return int((c[0] & 3) | (c[1] & 3) << 2 | (c[2] & 3) << 4); }
  std::size_t slot(const Cell& c, std::uint64_t h) const {
    std::size_t s = std::size_t(h >> shift_);
    const std::uint32_t tag = std::uint32_t(h);
    while (slots_[s].head >= 0 &&
           !(slots_[s].tag == tag && same(cell_of_[std::size_t(slots_[s].head)], c)))
      s = (s + 1) & mask_;
    return s;
  }
  static bool same(const Cell& a, const Cell& b) {
    return a[0] == b[0] && a[1] == b[1] && a[2] == b[2];
  }
  std::vector<Slot> slots_;
  std::vector<int> next_;     ///< per welded vertex: the previous one added to its cell, or -1
  std::vector<Cell> cell_of_; ///< per welded vertex: its cell
  std::size_t mask_ = 0;
  int shift_ = 60;                   ///< 64 - log2(table size)
  std::vector<std::uint64_t> words_; ///< a set bit: that cell of some block there holds one
  std::size_t word_mask_ = 0;
};

/// Triangles of a primitive as vertex-index triples (modes 4, 5, 6; others have no faces).
std::vector<std::array<std::uint32_t, 3>> triangles_of(const Document& doc, const Model& model,
                                                       const Primitive& p, std::size_t count) {
  std::vector<std::uint32_t> idx;
  if (p.indices >= 0)
    idx = read_accessor_uint(doc, model, p.indices);
  else {
    idx.resize(count);
    for (std::size_t i = 0; i < count; ++i) idx[i] = std::uint32_t(i);
  }
  std::vector<std::array<std::uint32_t, 3>> tris;
  if (p.mode == 4)
    for (std::size_t i = 0; i + 2 < idx.size(); i += 3)
      tris.push_back({idx[i], idx[i + 1], idx[i + 2]});
  else if (p.mode == 5)
    for (std::size_t i = 0; i + 2 < idx.size(); ++i)
      tris.push_back({idx[i], idx[i + 1], idx[i + 2]});
  else if (p.mode == 6)
    for (std::size_t i = 1; i + 1 < idx.size(); ++i) tris.push_back({idx[0], idx[i], idx[i + 1]});
  return tris;
}

} // namespace

void sort_unique_edges(std::vector<std::pair<int, int>>& edges, std::size_t vertices) {
  std::vector<std::size_t> start(vertices + 1, 0);
  for (const auto& e : edges) ++start[std::size_t(e.first) + 1];
  for (std::size_t v = 0; v < vertices; ++v) start[v + 1] += start[v];
  std::vector<int> second(edges.size());
  std::vector<std::size_t> fill(start.begin(), start.end() - 1);
  for (const auto& e : edges) second[fill[std::size_t(e.first)]++] = e.second;
  edges.clear();
  for (std::size_t v = 0; v < vertices; ++v) {
    auto a = second.begin() + long(start[v]), b = second.begin() + long(start[v + 1]);
    std::sort(a, b);
    for (auto it = a; it != b; ++it)
      if (it == a || *it != *(it - 1)) edges.push_back({int(v), *it});
  }
}

void WeldParams::validate() const {
  if (!(weld_tolerance_h >= 0)) throw Error(ExitCode::Usage, "weld tolerance must not be negative");
  if (threads < 0) throw Error(ExitCode::Usage, "weld threads must not be negative");
}

std::vector<SourcePrimitive> character_sources(const Character& c) {
  std::vector<SourcePrimitive> out;
  std::size_t total = 0;
  for (const auto& sp : c.primitives) {
    out.push_back({sp, total, sp.vertex_count});
    total += sp.vertex_count;
  }
  return out;
}

std::vector<int> first_originals(const WeldedMesh& m) {
  std::vector<int> first(m.size(), -1);
  for (std::size_t v = m.weld_of.size(); v-- > 0;) first[std::size_t(m.weld_of[v])] = int(v);
  return first;
}

namespace {

/// `m.sources` and `m.positions`: every skinned vertex of the character in world space at bind.
void gather_world_positions(const Document& doc, const Model& model, const Character& c,
                            WeldedMesh& m) {
  m.sources = character_sources(c);
  const std::size_t total = source_vertices(m.sources);
  m.positions.resize(Eigen::Index(total), 3);
  for (const auto& src : m.sources) {
    const Primitive& prim =
        model.meshes[std::size_t(src.where.mesh)].primitives[std::size_t(src.where.primitive)];
    AccessorData pos = read_accessor(doc, model, prim.attributes.at("POSITION"));
    auto it = std::find(c.skins.begin(), c.skins.end(), src.where.skin);
    const Eigen::Matrix4d& to_world = c.skin_to_world[std::size_t(it - c.skins.begin())];
    for (Eigen::Index i = 0; i < pos.rows(); ++i)
      m.positions.row(Eigen::Index(src.first) + i) =
          (to_world.topLeftCorner<3, 3>() * pos.row(i).transpose() +
           to_world.topRightCorner<3, 1>())
              .transpose();
  }
}

/// The grid cell of `p` (cells `size` wide) and, per axis, the neighbour cell on the side `p` is
/// nearer to (-1 or +1).
void cell_of(const Eigen::RowVector3d& p, double size, Cell& cell, Cell& side) {
  for (int k = 0; k < 3; ++k) {
    // Far-out points (a vertex 1e40 away) share the outermost cells: the distance test still
    // decides, and the cell index stays an integer.
    double x = p[k] / size;
    x = std::isfinite(x) ? std::clamp(x, -4e18, 4e18) : 0.0;
    const double f = std::floor(x);
    cell[std::size_t(k)] = std::int64_t(f);
    side[std::size_t(k)] = x - f < 0.5 ? -1 : 1;
  }
}

/// Calls fn(w) for every entry w of the eight cells a point in `cell` looks into: its own and,
/// per axis, the neighbour on the side it is nearer to (`side`, cell_of).
template <class Fn>
void each_nearby(const CellGrid& grid, const Cell& cell, const Cell& side, const Fn& fn) {
  for (int n = 0; n < 8; ++n) {
    Cell near = {cell[0] + (n & 1 ? side[0] : 0), cell[1] + (n & 2 ? side[1] : 0),
                 cell[2] + (n & 4 ? side[2] : 0)};
    for (int w = grid.first(near); w >= 0; w = grid.next(w)) fn(w);
  }
}

/// The most vertices a grid cell, and the most earlier neighbours a vertex, may have for the
/// parallel weld: beyond, the positions are crowded (many copies of a point, a non-indexed
/// mesh's pole) and the serial weld, whose grid holds welded vertices only, runs instead. Bounds
/// the parallel search's time and memory on any file.
constexpr int kCrowdedCell = 32;
constexpr std::size_t kCrowdedNear = 8;

/// The sequential greedy weld (weld_positions' contract) with a grid of the welded vertices
/// only: time and memory linear in the vertices however many share a point.
void weld_serial(double tol, WeldedMesh& m) {
  const double size = 2 * tol;
  const std::size_t total = std::size_t(m.positions.rows());
  CellGrid grid(total);
  m.weld_of.assign(total, -1);
  std::vector<int> starter; // per welded vertex, the vertex that started it
  Cell cell, side;
  for (std::size_t i = 0; i < total; ++i) {
    const Eigen::RowVector3d p = m.positions.row(Eigen::Index(i));
    cell_of(p, size, cell, side);
    int found = -1;
    each_nearby(grid, cell, side, [&](int w) {
      if ((m.positions.row(starter[std::size_t(w)]) - p).norm() <= tol && (found < 0 || w < found))
        found = w;
    });
    if (found < 0) {
      found = int(starter.size());
      starter.push_back(int(i));
      grid.add(cell, found);
    }
    m.weld_of[i] = found;
  }
  m.welded.resize(Eigen::Index(starter.size()), 3);
  for (std::size_t w = 0; w < starter.size(); ++w)
    m.welded.row(Eigen::Index(w)) = m.positions.row(starter[w]);
}

/// Per vertex i, the earlier vertices j < i within `tol` of it (CSR over i, each list
/// ascending). A hash grid of every vertex with cells twice the tolerance, so the tolerance
/// ball meets at most two cells per axis: its own and the neighbour on the side it is nearer
/// to (8 lookups, not 27). The lookups run on `threads` workers in blocks; the lists are
/// joined in block order, so the result does not depend on the thread count. False (lists
/// unset) when the positions are crowded (kCrowdedCell, kCrowdedNear).
bool earlier_neighbours(const Eigen::MatrixX3d& positions, double tol, int threads,
                        std::vector<std::size_t>& start, std::vector<int>& ids) {
  const double size = 2 * tol;
  const std::size_t total = std::size_t(positions.rows());
  CellGrid grid(total);
  Cell cell, side;
  for (std::size_t i = 0; i < total; ++i) {
    cell_of(positions.row(Eigen::Index(i)), size, cell, side);
    int in_cell = 0; // walks at most kCrowdedCell entries
    for (int j = grid.first(cell); j >= 0 && in_cell < kCrowdedCell; j = grid.next(j)) ++in_cell;
    if (in_cell >= kCrowdedCell) return false;
    grid.add(cell, int(i));
  }
  std::atomic<bool> crowded{false};
  constexpr std::size_t kBlock = 1 << 14;
  const std::size_t blocks = (total + kBlock - 1) / kBlock;
  std::vector<std::vector<std::pair<int, int>>> found(blocks); // (i, j) per block
  parallel_for(blocks, threads, [&](std::size_t b) {
    for (std::size_t i = b * kBlock; i < std::min(total, (b + 1) * kBlock); ++i) {
      const Eigen::RowVector3d p = positions.row(Eigen::Index(i));
      const std::size_t before = found[b].size();
      Cell c, sd;
      cell_of(p, size, c, sd);
      each_nearby(grid, c, sd, [&](int j) {
        if (std::size_t(j) < i && (positions.row(j) - p).norm() <= tol)
          found[b].push_back({int(i), j});
      });
      if (found[b].size() - before > kCrowdedNear) {
        crowded = true;
        return;
      }
      std::sort(found[b].begin() + std::ptrdiff_t(before), found[b].end());
    }
  });
  if (crowded) return false;
  start.assign(total + 1, 0);
  for (const auto& f : found)
    for (const auto& [i, j] : f) ++start[std::size_t(i) + 1];
  for (std::size_t i = 0; i < total; ++i) start[i + 1] += start[i];
  ids.clear();
  ids.reserve(start[total]);
  for (const auto& f : found)
    for (const auto& [i, j] : f) ids.push_back(j);
  return true;
}

/// `m.triangles`, `m.faces` and the adjacency (CSR, with edge lengths) from every triangle of
/// the sources on welded ids.
void connect_triangles(const Document& doc, const Model& model, WeldedMesh& m) {
  std::vector<std::pair<int, int>> edges;
  for (const auto& src : m.sources) {
    const Primitive& prim =
        model.meshes[std::size_t(src.where.mesh)].primitives[std::size_t(src.where.primitive)];
    const auto tris = triangles_of(doc, model, prim, src.count);
    edges.reserve(edges.size() + 3 * tris.size());
    m.faces.reserve(m.faces.size() + tris.size());
    for (const auto& t : tris) {
      ++m.triangles;
      std::array<int, 3> f = {m.weld_of[src.first + t[0]], m.weld_of[src.first + t[1]],
                              m.weld_of[src.first + t[2]]};
      if (f[0] != f[1] && f[1] != f[2] && f[0] != f[2]) m.faces.push_back(f);
      for (int e = 0; e < 3; ++e) {
        int a = m.weld_of[src.first + t[std::size_t(e)]],
            b = m.weld_of[src.first + t[std::size_t((e + 1) % 3)]];
        if (a == b) continue;
        edges.push_back({std::min(a, b), std::max(a, b)});
      }
    }
  }
  const std::size_t n = std::size_t(m.welded.rows());
  sort_unique_edges(edges, n);
  m.adjacency_start.assign(n + 1, 0);
  for (const auto& [a, b] : edges) {
    ++m.adjacency_start[std::size_t(a) + 1];
    ++m.adjacency_start[std::size_t(b) + 1];
  }
  for (std::size_t i = 0; i < n; ++i) m.adjacency_start[i + 1] += m.adjacency_start[i];
  m.adjacency.assign(edges.size() * 2, 0);
  m.edge_length.assign(edges.size() * 2, 0);
  std::vector<int> fill(m.adjacency_start.begin(), m.adjacency_start.end() - 1);
  for (const auto& [a, b] : edges) {
    double len = (m.welded.row(a) - m.welded.row(b)).norm();
    m.adjacency[std::size_t(fill[std::size_t(a)])] = b;
    m.edge_length[std::size_t(fill[std::size_t(a)]++)] = len;
    m.adjacency[std::size_t(fill[std::size_t(b)])] = a;
    m.edge_length[std::size_t(fill[std::size_t(b)]++)] = len;
  }
}

} // namespace

void weld_positions(double tol, int threads, WeldedMesh& m) {
  const std::size_t total = std::size_t(m.positions.rows());
  std::vector<std::size_t> start;
  std::vector<int> near;
  if (!earlier_neighbours(m.positions, tol, threads, start, near)) return weld_serial(tol, m);
  m.weld_of.assign(total, -1);
  std::vector<int> starter; // per welded vertex, the vertex that started it
  std::vector<bool> starts(total, false);
  for (std::size_t i = 0; i < total; ++i) {
    int found = -1;
    for (std::size_t k = start[i]; k < start[i + 1] && found < 0; ++k) // ascending j
      if (starts[std::size_t(near[k])]) found = m.weld_of[std::size_t(near[k])];
    if (found < 0) {
      found = int(starter.size());
      starter.push_back(int(i));
      starts[i] = true;
    }
    m.weld_of[i] = found;
  }
  m.welded.resize(Eigen::Index(starter.size()), 3);
  for (std::size_t w = 0; w < starter.size(); ++w)
    m.welded.row(Eigen::Index(w)) = m.positions.row(starter[w]);
}

WeldedMesh weld_character(const Document& doc, const Model& model, const Character& c,
                          const WeldParams& params) {
  params.validate();
  WeldedMesh m;
  gather_world_positions(doc, model, c, m);
  weld_positions(std::max(params.weld_tolerance_h * c.height, 1e-12), params.threads, m);
  connect_triangles(doc, model, m);
  return m;
}

} // namespace retail
