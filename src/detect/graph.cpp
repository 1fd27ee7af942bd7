// Components and rings of the welded graph (graph.h).
#include "retail/detect/graph.h"

#include <algorithm>

namespace retail {

std::vector<std::vector<int>> welded_components(const WeldedMesh& m,
                                                const std::vector<bool>& member) {
  std::vector<bool> seen(m.size(), false);
  std::vector<std::vector<int>> out;
  auto admit = [&](int v) { return bool(member[std::size_t(v)]); };
  for (std::size_t s = 0; s < m.size(); ++s) {
    if (!member[s] || seen[s]) continue;
    std::vector<int> comp = flood_welded(m, {int(s)}, seen, admit);
    comp.push_back(int(s));
    std::sort(comp.begin(), comp.end());
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

} // namespace retail
