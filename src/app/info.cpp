// make_info / format_info: the `retail info` command's content.
#include "retail/app/info.h"

#include "retail/io/accessor.h"
#include "retail/record/run_record.h"
#include "retail/rig/animation.h"

#include <cstdio>
#include <sstream>

namespace retail {
namespace {

Json node_ref(const Model& model, int node) {
  if (node < 0) return nullptr;
  return Json{{"node", node}, {"name", model.nodes[std::size_t(node)].name}};
}

std::size_t triangle_count(const Model& model, const Primitive& p) {
  std::size_t n =
      p.indices >= 0
          ? std::size_t(model.accessors[std::size_t(p.indices)].count)
          : (p.attributes.empty()
                 ? 0
                 : std::size_t(model.accessors[std::size_t(p.attributes.begin()->second)].count));
  if (p.mode == 4) return n / 3;
  if (p.mode == 5 || p.mode == 6) return n >= 3 ? n - 2 : 0;
  return 0;
}

Json roles_json(const Model& model, const Roles& r) {
  Json j = Json::object();
  j["source"] = r.source;
  j["hips"] = node_ref(model, r.hips);
  Json spine = Json::array();
  for (int n : r.spine) spine.push_back(node_ref(model, n));
  j["spine"] = spine;
  j["chest"] = node_ref(model, r.chest);
  j["neck"] = node_ref(model, r.neck);
  j["head"] = node_ref(model, r.head);
  const char* side[2] = {"left", "right"};
  for (int s = 0; s < 2; ++s) {
    std::string p = side[s];
    j[p + "UpperLeg"] = node_ref(model, r.upper_leg[s]);
    j[p + "LowerLeg"] = node_ref(model, r.lower_leg[s]);
    j[p + "Foot"] = node_ref(model, r.foot[s]);
    j[p + "Shoulder"] = node_ref(model, r.shoulder[s]);
    j[p + "UpperArm"] = node_ref(model, r.upper_arm[s]);
    j[p + "LowerArm"] = node_ref(model, r.lower_arm[s]);
    j[p + "Hand"] = node_ref(model, r.hand[s]);
  }
  j["notes"] = r.notes;
  j["missing"] = r.missing;
  return j;
}

/// Role label of each node, for the joint list ("hips", "spine", "leftUpperLeg", ...).
std::string role_of(const Roles& r, int node) {
  if (node == r.hips) return "hips";
  if (node == r.chest) return "chest";
  if (node == r.neck) return "neck";
  if (node == r.head) return "head";
  for (int n : r.spine)
    if (n == node) return "spine";
  const char* side[2] = {"left", "right"};
  for (int s = 0; s < 2; ++s) {
    std::string p = side[s];
    if (node == r.upper_leg[s]) return p + "UpperLeg";
    if (node == r.lower_leg[s]) return p + "LowerLeg";
    if (node == r.foot[s]) return p + "Foot";
    if (node == r.shoulder[s]) return p + "Shoulder";
    if (node == r.upper_arm[s]) return p + "UpperArm";
    if (node == r.lower_arm[s]) return p + "LowerArm";
    if (node == r.hand[s]) return p + "Hand";
  }
  return "";
}

/// One character of `retail info --json`: its skins, H, mapping, roles and joints.
Json character_json(const Model& model, const Character& c) {
  Json cj = Json::object();
  cj["skins"] = c.skins;
  cj["height"] = round6(c.height);
  cj["scale"] = round6(c.scale);
  cj["floor_y"] = round6(c.min_y);
  cj["skin_units"] = round6(c.skin_units);
  cj["skin_up"] = c.skin_up;
  cj["mapping"] = c.mapping;
  Json mats = Json::array();
  for (const auto& m : c.skin_to_world) {
    Json rows = Json::array();
    for (int r = 0; r < 3; ++r)
      rows.push_back({round6(m(r, 0)), round6(m(r, 1)), round6(m(r, 2)), round6(m(r, 3))});
    mats.push_back(rows);
  }
  cj["skin_to_world"] = mats;
  std::size_t nv = 0;
  for (const auto& p : c.primitives) nv += p.vertex_count;
  cj["skinned_primitives"] = c.primitives.size();
  cj["skinned_vertices"] = nv;
  cj["roles"] = roles_json(model, c.roles);
  Json joints = Json::array();
  for (std::size_t k = 0; k < c.joints.size(); ++k) {
    Eigen::Vector3d p = c.bind_position(int(k));
    int parent = c.parent[k] < 0 ? -1 : c.joints[std::size_t(c.parent[k])];
    joints.push_back({{"node", c.joints[k]},
                      {"name", model.nodes[std::size_t(c.joints[k])].name},
                      {"parent", parent < 0 ? Json(nullptr) : Json(parent)},
                      {"role", role_of(c.roles, c.joints[k])},
                      {"bind_position", {round6(p.x()), round6(p.y()), round6(p.z())}}});
  }
  cj["joints"] = joints;
  cj["warnings"] = c.warnings;
  return cj;
}

} // namespace

Json make_info(const std::string& file, const Document& doc, const Model& model,
               const std::vector<Character>& characters) {
  Json j = Json::object();
  j["schema"] = "retail.info/1";
  j["file"] = file;
  j["container"] = doc.container == Container::Glb ? "glb" : "gltf";
  j["generator"] = doc.gltf["asset"].value("generator", std::string());
  j["extensions_used"] = doc.gltf.value("extensionsUsed", Json::array());
  Json meshes = Json::array();
  for (std::size_t mi = 0; mi < model.meshes.size(); ++mi) {
    Json prims = Json::array();
    for (std::size_t pi = 0; pi < model.meshes[mi].primitives.size(); ++pi) {
      const Primitive& p = model.meshes[mi].primitives[pi];
      Json attrs = Json::array();
      for (const auto& [k, _] : p.attributes) attrs.push_back(k);
      std::size_t nv =
          p.attributes.empty()
              ? 0
              : std::size_t(model.accessors[std::size_t(p.attributes.begin()->second)].count);
      prims.push_back({{"index", pi},
                       {"vertices", nv},
                       {"triangles", triangle_count(model, p)},
                       {"mode", p.mode},
                       {"attributes", attrs},
                       {"morph_targets", p.target_count}});
    }
    meshes.push_back({{"index", mi}, {"name", model.meshes[mi].name}, {"primitives", prims}});
  }
  j["meshes"] = meshes;
  Json skins = Json::array();
  for (std::size_t si = 0; si < model.skins.size(); ++si) {
    const Skin& s = model.skins[si];
    skins.push_back(
        {{"index", si},
         {"name", s.name},
         {"joints", s.joints.size()},
         {"skeleton", s.skeleton < 0 ? Json(nullptr) : Json(s.skeleton)},
         {"inverse_bind_matrices",
          s.inverse_bind_matrices < 0 ? Json(nullptr) : Json(s.inverse_bind_matrices)}});
  }
  j["skins"] = skins;
  Json chars = Json::array();
  for (const Character& c : characters) {
    chars.push_back(character_json(model, c));
  }
  j["characters"] = chars;
  Json clips = Json::array();
  for (std::size_t ai = 0; ai < model.animations.size(); ++ai)
    clips.push_back({{"index", ai},
                     {"name", model.animations[ai].name},
                     {"duration_s", round6(clip_duration(doc, model, int(ai)))},
                     {"channels", model.animations[ai].channels.size()}});
  j["clips"] = clips;
  j["tolerated"] = model.tolerated;
  return j;
}

std::string format_info(const Json& info) {
  std::ostringstream o;
  char buf[256];
  o << info["file"].get<std::string>() << " (" << info["container"].get<std::string>();
  if (!info["generator"].get<std::string>().empty())
    o << ", " << info["generator"].get<std::string>();
  o << ")\n";
  if (!info["extensions_used"].empty())
    o << "extensions: " << info["extensions_used"].dump() << "\n";
  o << "meshes: " << info["meshes"].size() << "\n";
  for (const auto& m : info["meshes"]) {
    for (const auto& p : m["primitives"]) {
      std::snprintf(
          buf, sizeof buf, "  meshes[%d] %-20.20s prim %d: %7zu vertices %7zu triangles%s%s\n",
          m["index"].get<int>(), m["name"].get<std::string>().c_str(), p["index"].get<int>(),
          p["vertices"].get<std::size_t>(), p["triangles"].get<std::size_t>(),
          p["morph_targets"].get<int>() ? ", morph targets" : "",
          p["attributes"].dump().find("JOINTS_0") != std::string::npos ? ", skinned" : "");
      o << buf;
    }
  }
  o << "skins: " << info["skins"].size() << "\n";
  for (const auto& c : info["characters"]) {
    std::snprintf(buf, sizeof buf,
                  "character (skins %s): H = %.4g m, scale = %.4g, floor y = %.4g m, skin "
                  "units = %.4g, skin up %s\n",
                  c["skins"].dump().c_str(), c["height"].get<double>(), c["scale"].get<double>(),
                  c["floor_y"].get<double>(), c["skin_units"].get<double>(),
                  c["skin_up"].get<std::string>().c_str());
    o << buf;
    for (const auto& m : c["mapping"]) o << "  skin to world: " << m.get<std::string>() << "\n";
    const Json& r = c["roles"];
    o << "  roles (" << r["source"].get<std::string>() << "):\n";
    for (const auto& [k, v] : r.items()) {
      if (k == "source" || k == "notes" || k == "missing" || v.is_null()) continue;
      if (v.is_array()) {
        if (v.empty()) continue;
        o << "    " << k << ":";
        for (const auto& e : v) o << " " << e["name"].get<std::string>();
        o << "\n";
      } else {
        o << "    " << k << ": " << v["name"].get<std::string>() << "\n";
      }
    }
    for (const auto& n : r["notes"]) o << "  note: " << n.get<std::string>() << "\n";
    for (const auto& n : r["missing"]) o << "  MISSING role: " << n.get<std::string>() << "\n";
    o << "  joints: " << c["joints"].size() << "\n";
    for (const auto& w : c["warnings"]) o << "  warning: " << w.get<std::string>() << "\n";
  }
  o << "clips: " << info["clips"].size() << "\n";
  for (const auto& a : info["clips"]) {
    std::snprintf(buf, sizeof buf, "  %-40.40s %8.3f s  %3d channels\n",
                  a["name"].get<std::string>().c_str(), a["duration_s"].get<double>(),
                  a["channels"].get<int>());
    o << buf;
  }
  for (const auto& t : info["tolerated"]) o << "tolerated: " << t.get<std::string>() << "\n";
  return o.str();
}

} // namespace retail
