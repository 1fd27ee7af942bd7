// Components and rings of the welded graph (graph.h).
#include "retail/detect/graph.h"

#include <algorithm>

namespace retail {

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

} // namespace retail
