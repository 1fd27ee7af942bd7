// Components and rings of the welded graph (graph.h).
#include "retail/detect/graph.h"

#include <algorithm>
#include <cstdint>

namespace retail {
namespace {

/// Sum of the lengths of `edges` ((low, high) welded ids) that occur exactly once, in ascending
/// order. Sorts `edges`.
double single_edges_length(const WeldedMesh& m, std::vector<std::pair<int, int>>& edges) {
  std::sort(edges.begin(), edges.end());
  double length = 0;
  for (std::size_t i = 0; i < edges.size();) {
    std::size_t j = i + 1;
    while (j < edges.size() && edges[j] == edges[i]) ++j;
    if (j - i == 1) length += (m.welded.row(edges[i].first) - m.welded.row(edges[i].second)).norm();
    i = j;
  }
  return length;
}

/// Calls fn(low, high) for each edge of each face with all three corners `in`.
template <class Fn>
void each_face_edge(const WeldedMesh& m, const std::vector<bool>& in, const Fn& fn) {
  for (const auto& f : m.faces) {
    if (!in[std::size_t(f[0])] || !in[std::size_t(f[1])] || !in[std::size_t(f[2])]) continue;
    for (int k = 0; k < 3; ++k) {
      const int a = f[std::size_t(k)], b = f[std::size_t((k + 1) % 3)];
      fn(std::min(a, b), std::max(a, b));
    }
  }
}

/// The slot of b in a's adjacency list, or -1.
int adjacency_slot(const WeldedMesh& m, int a, int b) {
  for (int e = m.adjacency_start[std::size_t(a)]; e < m.adjacency_start[std::size_t(a) + 1]; ++e)
    if (m.adjacency[std::size_t(e)] == b) return e;
  return -1;
}

} // namespace

std::vector<std::vector<int>> welded_components(const WeldedMesh& m,
                                                const std::vector<bool>& member) {
  // Label each part by flooding from its lowest vertex, then list every part's vertices in one
  // ascending sweep (each part comes out sorted without a sort).
  std::vector<bool> seen(m.size(), false);
  std::vector<int> label(m.size(), -1);
  std::vector<std::size_t> sizes;
  auto admit = [&](int v) { return bool(member[std::size_t(v)]); };
  for (std::size_t s = 0; s < m.size(); ++s) {
    if (!member[s] || seen[s]) continue;
    const int part = int(sizes.size());
    const std::vector<int> comp = flood_welded(m, {int(s)}, seen, admit);
    label[s] = part;
    for (int v : comp) label[std::size_t(v)] = part;
    sizes.push_back(comp.size() + 1);
  }
  std::vector<std::vector<int>> out(sizes.size());
  for (std::size_t k = 0; k < sizes.size(); ++k) out[k].reserve(sizes[k]);
  for (std::size_t v = 0; v < m.size(); ++v)
    if (label[v] >= 0) out[std::size_t(label[v])].push_back(int(v));
  return out;
}

std::vector<int> welded_ring(const WeldedMesh& m, const std::vector<int>& set) {
  std::vector<bool> in(m.size(), false);
  for (int v : set) in[std::size_t(v)] = true;
  std::vector<int> out;
  for (int u : set)
    for (int e = m.adjacency_start[std::size_t(u)]; e < m.adjacency_start[std::size_t(u) + 1]; ++e)
      if (!in[std::size_t(m.adjacency[std::size_t(e)])]) out.push_back(m.adjacency[std::size_t(e)]);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

double open_border(const WeldedMesh& m, const std::vector<int>& vertices) {
  std::vector<bool> in(m.size(), false);
  for (int v : vertices) in[std::size_t(v)] = true;
  std::vector<std::uint8_t> uses(m.adjacency.size(), 0); // per slot: 0, 1, 2 (or more)
  bool whole = true;
  each_face_edge(m, in, [&](int a, int b) {
    const int e = adjacency_slot(m, a, b);
    if (e < 0)
      whole = false;
    else
      uses[std::size_t(e)] = std::uint8_t(std::min(2, uses[std::size_t(e)] + 1));
  });
  std::vector<std::pair<int, int>> edges;
  if (!whole)
    each_face_edge(m, in, [&](int a, int b) { edges.push_back({a, b}); });
  else
    for (std::size_t a = 0; a < m.size(); ++a)
      for (int e = m.adjacency_start[a]; in[a] && e < m.adjacency_start[a + 1]; ++e)
        if (uses[std::size_t(e)] == 1 && m.adjacency[std::size_t(e)] > int(a))
          edges.push_back({int(a), m.adjacency[std::size_t(e)]});
  return single_edges_length(m, edges);
}

} // namespace retail
