// retail — walking the welded graph (rig/mesh.h's WeldedMesh): floods from seeds within a
// predicate, the connected parts of a vertex subset, and the ring of vertices around a set.
#pragma once

#include "retail/rig/mesh.h"

#include <cstddef>
#include <vector>

namespace retail {

/// Floods over welded edges from `seeds` through the vertices `admit(v)` accepts (a callable
/// int -> bool) and `reached` does not mark yet, marking each in `reached`. Returns the vertices
/// it marked, in the order it reached them; the seeds are marked too (not tested by `admit`) but
/// not returned. Order, deterministic: depth-first from a stack holding `seeds` in their order;
/// the vertex on top is popped and each of its neighbours, in adjacency order, that is admitted
/// and not yet reached is marked, returned and pushed. Pre: `reached` has one entry per welded
/// vertex; seeds are welded ids. Never fails.
template <class Admit>
std::vector<int> flood_welded(const WeldedMesh& mesh, std::vector<int> seeds,
                              std::vector<bool>& reached, const Admit& admit) {
  for (int s : seeds) reached[std::size_t(s)] = true;
  std::vector<int> out;
  std::vector<int>& stack = seeds;
  while (!stack.empty()) {
    const std::size_t a = std::size_t(stack.back());
    stack.pop_back();
    for (int e = mesh.adjacency_start[a]; e < mesh.adjacency_start[a + 1]; ++e) {
      const int b = mesh.adjacency[std::size_t(e)];
      if (reached[std::size_t(b)] || !admit(b)) continue;
      reached[std::size_t(b)] = true;
      out.push_back(b);
      stack.push_back(b);
    }
  }
  return out;
}

/// Connected parts of the welded vertices with `member` true (#W), along welded edges: each
/// sorted ascending, the parts listed in order of their lowest vertex. Never fails.
std::vector<std::vector<int>> welded_components(const WeldedMesh& mesh,
                                                const std::vector<bool>& member);

/// The ring around `set` (welded ids): the welded vertices adjacent to one of them and not in
/// it, ascending, each once. Empty when nothing borders the set. Never fails.
std::vector<int> welded_ring(const WeldedMesh& mesh, const std::vector<int>& set);

/// Length of the open border of the welded vertices `vertices`: the edges of faces with all
/// three corners among them that only one such face has (a tube: its root ring; a sheet: all
/// round; a closed shell: 0), in metres of the welded positions. Uses are counted on each
/// edge's slot in its lower end's adjacency; where a face edge has none (a hand-built graph),
/// every use is listed, sorted and counted instead. Summed in ascending (low, high) order
/// either way, so both give the same bits. When `ends` is given it receives the border edges'
/// ends (welded ids, each once, ascending; empty for a closed shell). Never fails.
double open_border(const WeldedMesh& mesh, const std::vector<int>& vertices,
                   std::vector<int>* ends = nullptr);

} // namespace retail
