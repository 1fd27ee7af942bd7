// select_geometry: mesh/primitive indices, mesh names, material names (selector.h).
#include "retail/detect/selector.h"

#include "retail/base/error.h"

#include <cctype>

namespace retail {
namespace {

/// "M/P" as two whole numbers, or false.
bool parse_index(const std::string& s, int& mesh, int& primitive) {
  std::size_t slash = s.find('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 == s.size() || s.size() > 20)
    return false;
  for (std::size_t i = 0; i < s.size(); ++i)
    if (i != slash && !std::isdigit(static_cast<unsigned char>(s[i]))) return false;
  mesh = std::stoi(s.substr(0, slash));
  primitive = std::stoi(s.substr(slash + 1));
  return true;
}

std::string name_of(const Json& object) {
  return object.is_object() && object.contains("name") && object["name"].is_string()
             ? object["name"].get<std::string>()
             : std::string();
}

} // namespace

bool parse_piece_selector(const std::string& selector, int& id) {
  const std::string prefix = "piece:";
  if (selector.compare(0, prefix.size(), prefix) != 0 || selector.size() == prefix.size() ||
      selector.size() > prefix.size() + 9)
    return false;
  for (std::size_t i = prefix.size(); i < selector.size(); ++i)
    if (!std::isdigit(static_cast<unsigned char>(selector[i]))) return false;
  id = std::stoi(selector.substr(prefix.size()));
  return true;
}

std::vector<bool> select_geometry(const Document& doc, const WeldedMesh& mesh,
                                  const std::string& selector) {
  std::vector<bool> out(std::size_t(mesh.positions.rows()), false);
  int piece = -1;
  if (parse_piece_selector(selector, piece)) return out;
  int want_mesh = -1, want_prim = -1;
  const bool by_index = parse_index(selector, want_mesh, want_prim);
  const Json empty = Json::object();
  const Json& meshes = doc.gltf.contains("meshes") ? doc.gltf["meshes"] : empty;
  const Json& materials = doc.gltf.contains("materials") ? doc.gltf["materials"] : empty;
  // The first rule that names anything wins: indices, then mesh names, then material names.
  for (int rule = by_index ? 0 : 1; rule < 3; ++rule) {
    bool any = false;
    for (const auto& src : mesh.sources) {
      const int m = src.where.mesh, p = src.where.primitive;
      bool hit = false;
      if (rule == 0) hit = m == want_mesh && p == want_prim;
      if (rule == 1) hit = name_of(meshes[std::size_t(m)]) == selector;
      if (rule == 2) {
        const Json& prim = meshes[std::size_t(m)]["primitives"][std::size_t(p)];
        if (prim.contains("material") && prim["material"].is_number_integer()) {
          std::size_t mat = prim["material"].get<std::size_t>();
          hit = mat < materials.size() && name_of(materials[mat]) == selector;
        }
      }
      if (!hit) continue;
      any = true;
      for (std::size_t v = 0; v < src.count; ++v) out[src.first + v] = true;
    }
    if (any) return out;
    if (rule == 0) break; // "M/P" names indices only
  }
  return out;
}

void require_selected(const std::string& selector, const std::string& what, bool matched) {
  if (!matched)
    throw Error(ExitCode::Usage,
                what + " '" + selector + "' names no skinned mesh/primitive, mesh or material");
}

} // namespace retail
