// retail — geodesic distance over the welded graph and isoline lengths.
#pragma once

#include "retail/rig/mesh.h"

#include <vector>

namespace retail {

/// Multi-source Dijkstra over welded edges weighted by length. `allowed[w]` false: vertex w is
/// never entered (sources are always allowed). Unreached vertices are +infinity.
/// `limit`: stop expanding past this distance (infinity: none).
std::vector<double> geodesic_distance(const WeldedMesh& mesh, const std::vector<int>& sources,
                                      const std::vector<bool>& allowed, double limit);

/// geodesic_distance from `sources` over `set` only (welded ids; the sources are always
/// entered), with no limit: a piece's own surface measured from its collar or ring.
std::vector<double> geodesic_within(const WeldedMesh& mesh, const std::vector<int>& sources,
                                    const std::vector<int>& set);

/// geodesic_distance that also says where each vertex was reached from: `source[w]` the source
/// nearest w (-1 where unreached). Ties in distance go to the lower source id (deterministic).
struct NearestSource {
  std::vector<double> distance; ///< #W, +infinity where unreached
  std::vector<int> source;      ///< #W
};
NearestSource nearest_source(const WeldedMesh& mesh, const std::vector<int>& sources,
                             const std::vector<bool>& allowed, double limit);

/// Length of the isoline {u = level} inside one triangle (0 when it does not cross it).
double face_isoline(const WeldedMesh& mesh, const std::array<int, 3>& face,
                    const std::vector<double>& u, double level);

/// Length of the isoline {u = level} over the welded faces, interpolated linearly inside each
/// triangle (a loop's perimeter; independent of how densely the surface is sampled).
double isoline_length(const WeldedMesh& mesh, const std::vector<double>& u, double level);

/// Effective radius of the isoline {u = level}: sqrt(|a| / pi), `a` the vector area of its
/// segments (each oriented by its triangle's winding, low u on its left), taken about their
/// mean point. A round tube's cross-section gives its radius; a thin fin or spike on it adds
/// length to the isoline but almost no area (its two sides cancel). Pre: faces consistently
/// wound. 0 when the isoline is empty.
double isoline_radius(const WeldedMesh& mesh, const std::vector<double>& u, double level);

/// Area each welded vertex stands for: a third of the area of its triangles (#W).
std::vector<double> vertex_areas(const WeldedMesh& mesh);

/// vertex_areas for the welded vertices `only` marks (#W), bit for bit the same there (the
/// faces summed in the same order), 0 elsewhere: only the faces touching them are measured.
std::vector<double> vertex_areas(const WeldedMesh& mesh, const std::vector<bool>& only);

} // namespace retail
