// Components and rings of the welded graph (graph.h).
#include "retail/detect/graph.h"

#include <algorithm>
#include <cstdint>

namespace retail {
namespace {

/// Sum of the lengths of `edges` ((low, high) welded ids) that occur exactly once, in ascending
/// order; their ends into `ends` when given (each once, ascending). Sorts `edges`.
double single_edges_length(const WeldedMesh& m, std::vector<std::pair<int, int>>& edges,
                           std::vector<int>* ends) {
  std::sort(edges.begin(), edges.end());
  double length = 0;
  for (std::size_t i = 0; i < edges.size();) {
    std::size_t j = i + 1;
    while (j < edges.size() && edges[j] == edges[i]) ++j;
    if (j - i == 1) {
      length += (m.welded.row(edges[i].first) - m.welded.row(edges[i].second)).norm();
      if (ends) ends->insert(ends->end(), {edges[i].first, edges[i].second});
    }
    i = j;
  }
  if (ends) {
    std::sort(ends->begin(), ends->end());
    ends->erase(std::unique(ends->begin(), ends->end()), ends->end());
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
  std::vector<bool> seen(m.size(), false), mark;
  std::vector<std::vector<int>> out;
  auto admit = [&](int v) { return bool(member[std::size_t(v)]); };
  for (std::size_t s = 0; s < m.size(); ++s) {
    if (!member[s] || seen[s]) continue;
    std::vector<int> comp = flood_welded(m, {int(s)}, seen, admit);
    comp.push_back(int(s));
    // A large part (over 1/16 of the graph, so at most 16 a call) is put in order by one sweep
    // over a marked copy, a small one by sorting: either way linear in the graph per call.
    if (comp.size() * 16 > m.size()) {
      mark.assign(m.size(), false);
      for (int v : comp) mark[std::size_t(v)] = true;
      comp.clear();
      for (std::size_t v = 0; v < m.size(); ++v)
        if (mark[v]) comp.push_back(int(v));
    } else {
      std::sort(comp.begin(), comp.end());
    }
    out.push_back(std::move(comp));
  }
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

double open_border(const WeldedMesh& m, const std::vector<int>& vertices, std::vector<int>* ends) {
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
    for (int a : vertices) // each border edge once: its slot is cleared when taken
      for (int e = m.adjacency_start[std::size_t(a)]; e < m.adjacency_start[std::size_t(a) + 1];
           ++e)
        if (uses[std::size_t(e)] == 1 && m.adjacency[std::size_t(e)] > a) {
          edges.push_back({a, m.adjacency[std::size_t(e)]});
          uses[std::size_t(e)] = 0;
        }
  if (ends) ends->clear();
  return single_edges_length(m, edges, ends); // sorted there: summed in ascending order
}

} // namespace retail
