// parse_model, part 2: meshes, nodes, skins, animations, scenes, and checks on the data itself.
#include "io/validate_graph.h"

#include "retail/base/error.h"
#include "retail/base/model.h"
#include "retail/io/accessor.h"

#include <Eigen/Dense>
#include <cmath>
#include <set>

namespace retail {
namespace {

std::string at(const std::string& array, std::size_t i) {
  return array + "[" + std::to_string(i) + "]";
}

std::size_t count_of(const Json& gltf, const char* key) {
  return gltf.contains(key) && gltf[key].is_array() ? gltf[key].size() : 0;
}

int index_in(const Json& v, std::size_t size, const std::string& where, const char* what) {
  if (!v.is_number_integer() || v.get<std::int64_t>() < 0)
    fail_invalid(where + ": not a valid index");
  std::int64_t i = v.get<std::int64_t>();
  if (std::uint64_t(i) >= size)
    fail_invalid(where + ": " + what + " " + std::to_string(i) + " out of range (" +
                 std::to_string(size) + " " + what + "s)");
  return int(i);
}

int optional_index(const Json& obj, const char* key, std::size_t size, const std::string& where,
                   const char* what) {
  if (!obj.contains(key)) return -1;
  return index_in(obj[key], size, where + "." + key, what);
}

const Json& list(const Json& obj, const char* key, const std::string& where) {
  static const Json empty = Json::array();
  if (!obj.contains(key)) return empty;
  if (!obj[key].is_array()) fail_invalid(where + "." + key + ": not an array");
  return obj[key];
}

std::string name_of(const Json& obj) {
  return obj.contains("name") && obj["name"].is_string() ? obj["name"].get<std::string>()
                                                         : std::string();
}

bool quantization_used(const Json& gltf) {
  if (!gltf.contains("extensionsUsed") || !gltf["extensionsUsed"].is_array()) return false;
  for (const auto& e : gltf["extensionsUsed"])
    if (e.is_string() && e.get<std::string>() == "KHR_mesh_quantization") return true;
  return false;
}

void check_attribute(const Model& m, const std::string& semantic, int index, bool quantized) {
  const Accessor& a = m.accessors[index];
  std::string where = at("accessors", std::size_t(index)) + " (" + a.usage + ")";
  if (semantic.rfind("JOINTS_", 0) == 0) {
    if (a.type != "VEC4" || a.normalized ||
        (a.component_type != kUnsignedByte && a.component_type != kUnsignedShort))
      fail_invalid(where + ": JOINTS must be VEC4 unsigned byte or unsigned short");
  } else if (semantic.rfind("WEIGHTS_", 0) == 0) {
    bool ok = a.type == "VEC4" && (a.component_type == kFloat ||
                                   (a.normalized && (a.component_type == kUnsignedByte ||
                                                     a.component_type == kUnsignedShort)));
    if (!ok) fail_invalid(where + ": WEIGHTS must be VEC4 float or normalized unsigned byte/short");
  } else if (semantic == "POSITION") {
    if (a.type != "VEC3") fail_invalid(where + ": POSITION must be VEC3");
    if (a.component_type != kFloat && !quantized)
      fail_invalid(where +
                   ": POSITION must be float (integer positions need KHR_mesh_quantization)");
    if (a.component_type == kUnsignedInt) fail_invalid(where + ": POSITION cannot be unsigned int");
  }
}

} // namespace

void parse_meshes(const Json& gltf, Model& m) {
  std::size_t n_materials = count_of(gltf, "materials");
  bool quantized = quantization_used(gltf);
  const Json& meshes = list(gltf, "meshes", "");
  for (std::size_t mi = 0; mi < meshes.size(); ++mi) {
    std::string mw = at("meshes", mi);
    if (!meshes[mi].is_object()) fail_invalid(mw + ": not an object");
    Mesh mesh;
    mesh.name = name_of(meshes[mi]);
    const Json& prims = list(meshes[mi], "primitives", mw);
    for (std::size_t pi = 0; pi < prims.size(); ++pi) {
      std::string pw = mw + "." + at("primitives", pi);
      const Json& p = prims[pi];
      if (!p.is_object() || !p.contains("attributes") || !p["attributes"].is_object())
        fail_invalid(pw + ": attributes missing");
      if (p.contains("extensions") && p["extensions"].is_object() &&
          p["extensions"].contains("KHR_draco_mesh_compression"))
        fail_unsupported(pw + ": KHR_draco_mesh_compression (compressed geometry is not decoded)");
      Primitive prim;
      prim.mode = int(p.value("mode", 4));
      if (!p.value("mode", Json(4)).is_number_integer() || prim.mode < 0 || prim.mode > 6)
        fail_invalid(pw + ".mode: not a glTF primitive mode");
      optional_index(p, "material", n_materials, pw, "material");
      std::uint64_t vertex_count = 0;
      bool first = true;
      for (const auto& [sem, v] : p["attributes"].items()) {
        int ai = index_in(v, m.accessors.size(), pw + ".attributes." + sem, "accessor");
        prim.attributes[sem] = ai;
        check_attribute(m, sem, ai, quantized);
        if (!first && m.accessors[ai].count != vertex_count)
          fail_invalid(pw + ".attributes." + sem + ": count " +
                       std::to_string(m.accessors[ai].count) +
                       " differs from the other attributes' " + std::to_string(vertex_count));
        vertex_count = m.accessors[ai].count;
        first = false;
      }
      prim.indices = optional_index(p, "indices", m.accessors.size(), pw, "accessor");
      if (prim.indices >= 0) {
        const Accessor& ia = m.accessors[prim.indices];
        if (ia.type != "SCALAR" || ia.normalized ||
            (ia.component_type != kUnsignedByte && ia.component_type != kUnsignedShort &&
             ia.component_type != kUnsignedInt))
          fail_invalid(at("accessors", std::size_t(prim.indices)) + " (" + ia.usage +
                       "): indices must be unsigned integer scalars");
      }
      const Json& targets = list(p, "targets", pw);
      for (std::size_t ti = 0; ti < targets.size(); ++ti) {
        if (!targets[ti].is_object())
          fail_invalid(pw + "." + at("targets", ti) + ": not an object");
        for (const auto& [sem, v] : targets[ti].items()) {
          int ai =
              index_in(v, m.accessors.size(), pw + "." + at("targets", ti) + "." + sem, "accessor");
          if (m.accessors[ai].count != vertex_count)
            fail_invalid(pw + "." + at("targets", ti) + "." + sem +
                         ": count differs from the vertex count");
        }
      }
      prim.target_count = int(targets.size());
      mesh.primitives.push_back(prim);
    }
    m.meshes.push_back(mesh);
  }
}

namespace {

/// nodes: name, mesh, skin, camera, matrix or TRS (finite), children (one parent each).
void parse_nodes(const Json& gltf, Model& m) {
  const Json& nodes = list(gltf, "nodes", "");
  std::size_t n = nodes.size();
  std::size_t n_cameras = count_of(gltf, "cameras");
  std::size_t n_skins = count_of(gltf, "skins");
  m.nodes.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    std::string w = at("nodes", i);
    const Json& j = nodes[i];
    if (!j.is_object()) fail_invalid(w + ": not an object");
    Node& node = m.nodes[i];
    node.name = name_of(j);
    node.mesh = optional_index(j, "mesh", m.meshes.size(), w, "mesh");
    node.skin = optional_index(j, "skin", n_skins, w, "skin");
    optional_index(j, "camera", n_cameras, w, "camera");
    if (j.contains("matrix")) {
      const Json& a = j["matrix"];
      if (!a.is_array() || a.size() != 16) fail_invalid(w + ".matrix: needs 16 numbers");
      auto matrix = std::make_shared<std::array<double, 16>>();
      for (int k = 0; k < 16; ++k) {
        if (!a[k].is_number() || !std::isfinite(a[k].get<double>()))
          fail_invalid(w + ".matrix: needs 16 finite numbers");
        (*matrix)[std::size_t(k)] = a[k].get<double>();
      }
      node.matrix = std::move(matrix);
      node.has_matrix = true;
    }
    auto vec = [&](const char* key, double* out, int len) {
      if (!j.contains(key)) return;
      const Json& a = j[key];
      if (!a.is_array() || int(a.size()) != len)
        fail_invalid(w + "." + key + ": needs " + std::to_string(len) + " numbers");
      for (int k = 0; k < len; ++k) {
        if (!a[k].is_number() || !std::isfinite(a[k].get<double>()))
          fail_invalid(w + "." + key + ": needs " + std::to_string(len) + " finite numbers");
        out[k] = a[k].get<double>();
      }
    };
    vec("translation", node.translation.data(), 3);
    vec("rotation", node.rotation.data(), 4);
    vec("scale", node.scale.data(), 3);
    const Json& children = list(j, "children", w);
    for (std::size_t c = 0; c < children.size(); ++c) {
      int ci = index_in(children[c], n, w + "." + at("children", c), "node");
      if (m.nodes[ci].parent >= 0)
        fail_invalid(w + "." + at("children", c) + ": node " + std::to_string(ci) +
                     " already has parent nodes[" + std::to_string(m.nodes[ci].parent) + "]");
      m.nodes[ci].parent = int(i);
      node.children.push_back(ci);
    }
  }
}

/// With at most one parent each, a cycle is a parent walk that never reaches a root.
void check_node_cycles(const Model& m) {
  const std::size_t n = m.nodes.size();
  std::vector<int> state(n, 0); // 0 unknown, 1 on the current walk, 2 reaches a root
  for (std::size_t i = 0; i < n; ++i) {
    std::vector<int> walk;
    int cur = int(i);
    while (cur >= 0 && state[cur] == 0) {
      state[cur] = 1;
      walk.push_back(cur);
      cur = m.nodes[cur].parent;
    }
    if (cur >= 0 && state[cur] == 1)
      fail_invalid(at("nodes", std::size_t(cur)) + ": the node hierarchy has a cycle through '" +
                   m.nodes[cur].name + "'");
    for (int w : walk) state[w] = 2;
  }
}

/// skins: joints (distinct nodes), skeleton, inverse bind matrices (MAT4 float, one per joint).
void parse_skins(const Json& gltf, Model& m) {
  const std::size_t n = m.nodes.size();
  const Json& skins = list(gltf, "skins", "");
  for (std::size_t si = 0; si < skins.size(); ++si) {
    std::string w = at("skins", si);
    if (!skins[si].is_object()) fail_invalid(w + ": not an object");
    Skin skin;
    skin.name = name_of(skins[si]);
    const Json& joints = list(skins[si], "joints", w);
    if (joints.empty()) fail_invalid(w + ".joints: empty");
    std::set<int> seen;
    for (std::size_t k = 0; k < joints.size(); ++k) {
      int ji = index_in(joints[k], n, w + "." + at("joints", k), "node");
      if (!seen.insert(ji).second)
        fail_invalid(w + "." + at("joints", k) + ": node " + std::to_string(ji) + " listed twice");
      skin.joints.push_back(ji);
    }
    skin.skeleton = optional_index(skins[si], "skeleton", n, w, "node");
    skin.inverse_bind_matrices =
        optional_index(skins[si], "inverseBindMatrices", m.accessors.size(), w, "accessor");
    if (skin.inverse_bind_matrices >= 0) {
      const Accessor& a = m.accessors[skin.inverse_bind_matrices];
      std::string aw =
          at("accessors", std::size_t(skin.inverse_bind_matrices)) + " (" + a.usage + ")";
      if (a.type != "MAT4" || a.component_type != kFloat) fail_invalid(aw + ": must be MAT4 float");
      if (a.count < skin.joints.size())
        fail_invalid(aw + ": " + std::to_string(a.count) + " matrices for " +
                     std::to_string(skin.joints.size()) + " joints");
    }
    m.skins.push_back(skin);
  }
}

} // namespace

void parse_nodes_and_skins(const Json& gltf, Model& m) {
  parse_nodes(gltf, m);
  check_node_cycles(m);
  parse_skins(gltf, m);
  const std::size_t n = m.nodes.size();
  for (std::size_t i = 0; i < n; ++i)
    if (m.nodes[i].skin >= 0 && m.nodes[i].mesh < 0)
      m.tolerated.push_back(at("nodes", i) + ": has a skin but no mesh");
}

namespace {

/// animations[ai].samplers into anim (input float scalars; enough output values for the keys).
void parse_samplers(const Json& a, const std::string& w, const Model& m, Animation& anim) {
  const Json& samplers = list(a, "samplers", w);
  for (std::size_t si = 0; si < samplers.size(); ++si) {
    std::string sw = w + "." + at("samplers", si);
    if (!samplers[si].is_object()) fail_invalid(sw + ": not an object");
    AnimationSampler s;
    s.input = optional_index(samplers[si], "input", m.accessors.size(), sw, "accessor");
    s.output = optional_index(samplers[si], "output", m.accessors.size(), sw, "accessor");
    if (s.input < 0 || s.output < 0) fail_invalid(sw + ": input and output are required");
    s.interpolation = samplers[si].value("interpolation", std::string("LINEAR"));
    if (s.interpolation != "LINEAR" && s.interpolation != "STEP" &&
        s.interpolation != "CUBICSPLINE")
      fail_invalid(sw + ".interpolation: '" + s.interpolation + "'");
    const Accessor& in = m.accessors[s.input];
    if (in.type != "SCALAR" || in.component_type != kFloat)
      fail_invalid(at("accessors", std::size_t(s.input)) + " (" + in.usage +
                   "): animation input must be float scalars");
    std::uint64_t need = in.count * (s.interpolation == "CUBICSPLINE" ? 3 : 1);
    if (m.accessors[s.output].count < need)
      fail_invalid(at("accessors", std::size_t(s.output)) + " (" + m.accessors[s.output].usage +
                   "): " + std::to_string(m.accessors[s.output].count) + " values for " +
                   std::to_string(need) + " keys");
    anim.samplers.push_back(s);
  }
}

/// animations[ai].channels into anim (a sampler, a node, a path whose output width matches).
void parse_channels(const Json& a, const std::string& w, const Model& m, Animation& anim) {
  const Json& channels = list(a, "channels", w);
  for (std::size_t ci = 0; ci < channels.size(); ++ci) {
    std::string cw = w + "." + at("channels", ci);
    const Json& c = channels[ci];
    if (!c.is_object() || !c.contains("target") || !c["target"].is_object())
      fail_invalid(cw + ": target missing");
    AnimationChannel ch;
    ch.sampler = optional_index(c, "sampler", anim.samplers.size(), cw, "sampler");
    if (ch.sampler < 0) fail_invalid(cw + ": sampler missing");
    ch.node = optional_index(c["target"], "node", m.nodes.size(), cw + ".target", "node");
    ch.path = c["target"].value("path", std::string());
    int comps = ch.path == "translation" || ch.path == "scale" ? 3 : ch.path == "rotation" ? 4 : 0;
    const Accessor& out = m.accessors[anim.samplers[ch.sampler].output];
    if (comps && out.components != comps)
      fail_invalid(at("accessors", std::size_t(anim.samplers[ch.sampler].output)) + " (" +
                   out.usage + "): " + ch.path + " needs " + std::to_string(comps) + " components");
    anim.channels.push_back(ch);
  }
}

/// scenes (roots that are roots) and the default scene's roots (every root node when none).
void parse_scenes(const Json& gltf, Model& m) {
  const Json& scenes = list(gltf, "scenes", "");
  for (std::size_t si = 0; si < scenes.size(); ++si) {
    if (!scenes[si].is_object()) fail_invalid(at("scenes", si) + ": not an object");
    const Json& roots = list(scenes[si], "nodes", at("scenes", si));
    for (std::size_t k = 0; k < roots.size(); ++k) {
      int r = index_in(roots[k], m.nodes.size(), at("scenes", si) + "." + at("nodes", k), "node");
      if (m.nodes[r].parent >= 0)
        fail_invalid(at("scenes", si) + "." + at("nodes", k) + ": node " + std::to_string(r) +
                     " is not a root");
    }
  }
  int scene = optional_index(gltf, "scene", scenes.size(), "", "scene");
  if (scene < 0 && !scenes.empty()) scene = 0;
  if (scene >= 0) {
    for (const auto& r : list(scenes[scene], "nodes", "")) m.scene_roots.push_back(r.get<int>());
  } else {
    for (std::size_t i = 0; i < m.nodes.size(); ++i)
      if (m.nodes[i].parent < 0) m.scene_roots.push_back(int(i));
  }
}

/// Other references: textures, images, samplers, material texture slots.
void check_texture_references(const Json& gltf, const Model& m) {
  std::size_t n_images = count_of(gltf, "images"), n_samplers = count_of(gltf, "samplers");
  std::size_t n_textures = count_of(gltf, "textures");
  const Json& textures = list(gltf, "textures", "");
  for (std::size_t i = 0; i < textures.size(); ++i) {
    if (!textures[i].is_object()) fail_invalid(at("textures", i) + ": not an object");
    optional_index(textures[i], "source", n_images, at("textures", i), "image");
    optional_index(textures[i], "sampler", n_samplers, at("textures", i), "sampler");
  }
  const Json& images = list(gltf, "images", "");
  for (std::size_t i = 0; i < images.size(); ++i) {
    if (!images[i].is_object()) fail_invalid(at("images", i) + ": not an object");
    optional_index(images[i], "bufferView", m.buffer_views.size(), at("images", i), "bufferView");
  }
  const Json& materials = list(gltf, "materials", "");
  for (std::size_t i = 0; i < materials.size(); ++i) {
    // Any "...Texture": {"index": N} inside the material (core and KHR_materials_*).
    std::vector<std::pair<const Json*, std::string>> stack{{&materials[i], at("materials", i)}};
    while (!stack.empty()) {
      auto [obj, w] = stack.back();
      stack.pop_back();
      if (!obj->is_object()) continue;
      for (const auto& [k, v] : obj->items()) {
        if (!v.is_object()) continue;
        bool is_texture = k.size() >= 7 && k.compare(k.size() - 7, 7, "Texture") == 0;
        if (is_texture && v.contains("index"))
          optional_index(v, "index", n_textures, w + "." + k, "texture");
        else
          stack.push_back({&v, w + "." + k});
      }
    }
  }
}

} // namespace

void parse_animations_and_scenes(const Json& gltf, Model& m) {
  const Json& anims = list(gltf, "animations", "");
  for (std::size_t ai = 0; ai < anims.size(); ++ai) {
    std::string w = at("animations", ai);
    if (!anims[ai].is_object()) fail_invalid(w + ": not an object");
    Animation anim;
    anim.name = name_of(anims[ai]);
    parse_samplers(anims[ai], w, m, anim);
    parse_channels(anims[ai], w, m, anim);
    m.animations.push_back(anim);
  }
  parse_scenes(gltf, m);
  check_texture_references(gltf, m);
}

namespace {

/// Finite floats everywhere retail reads them.
void check_finite(const Document& doc, const Model& m) {
  for (std::size_t i = 0; i < m.accessors.size(); ++i) {
    const Accessor& a = m.accessors[i];
    std::int64_t bad = first_non_finite(doc, m, int(i));
    if (bad >= 0)
      fail_invalid(at("accessors", i) + (a.usage.empty() ? "" : " (" + a.usage + ")") +
                   ": element " + std::to_string(bad) + " is not finite");
  }
}

/// Key times never decrease (equal times are tolerated: a one-pose clip has all keys at one).
void check_key_times(const Document& doc, const Model& m) {
  std::set<int> inputs;
  for (const Animation& a : m.animations)
    for (const AnimationSampler& s : a.samplers) {
      if (!inputs.insert(s.input).second) continue;
      AccessorData t = read_accessor(doc, m, s.input);
      for (Eigen::Index k = 1; k < t.rows(); ++k)
        if (t(k, 0) < t(k - 1, 0))
          fail_invalid(at("accessors", std::size_t(s.input)) + " (" +
                       m.accessors[std::size_t(s.input)].usage + "): key " + std::to_string(k) +
                       " at " + std::to_string(t(k, 0)) + " s comes before key " +
                       std::to_string(k - 1) + " at " + std::to_string(t(k - 1, 0)) +
                       " s (key times must not decrease)");
    }
}

/// Vertex indices in range; JOINTS_n and WEIGHTS_n together; weights not all zero, none negative.
void check_primitives(const Document& doc, const Model& m) {
  for (std::size_t mi = 0; mi < m.meshes.size(); ++mi)
    for (std::size_t pi = 0; pi < m.meshes[mi].primitives.size(); ++pi) {
      const Primitive& p = m.meshes[mi].primitives[pi];
      std::uint64_t nv = p.attributes.empty() ? 0 : m.accessors[p.attributes.begin()->second].count;
      if (p.indices >= 0) {
        std::vector<std::uint32_t> idx = read_accessor_uint(doc, m, p.indices);
        for (std::size_t k = 0; k < idx.size(); ++k)
          if (idx[k] >= nv)
            fail_invalid(at("accessors", std::size_t(p.indices)) + " (" +
                         m.accessors[p.indices].usage + "): index " + std::to_string(k) +
                         " is vertex " + std::to_string(idx[k]) + ", the primitive has " +
                         std::to_string(nv));
      }
      for (int set = 0;; ++set) {
        auto jt = p.attributes.find("JOINTS_" + std::to_string(set));
        auto wt = p.attributes.find("WEIGHTS_" + std::to_string(set));
        if (jt == p.attributes.end() && wt == p.attributes.end()) break;
        if (jt == p.attributes.end() || wt == p.attributes.end())
          fail_invalid("meshes[" + std::to_string(mi) + "].primitives[" + std::to_string(pi) +
                       "]: JOINTS_" + std::to_string(set) + " and WEIGHTS_" + std::to_string(set) +
                       " must come together");
        AccessorData w = read_accessor(doc, m, wt->second);
        if (set == 0 && w.rows() > 0 && (w.array() == 0.0).all() &&
            p.attributes.find("WEIGHTS_1") == p.attributes.end())
          fail_invalid(at("accessors", std::size_t(wt->second)) + " (" +
                       m.accessors[wt->second].usage + "): all weights are zero");
        for (Eigen::Index k = 0; k < w.size(); ++k)
          if (w.data()[k] < 0)
            fail_invalid(at("accessors", std::size_t(wt->second)) + " (" +
                         m.accessors[wt->second].usage + "): vertex " + std::to_string(k / 4) +
                         " has a negative weight");
      }
    }
}

/// Joints in range of the skin each skinned node draws its mesh with (where weighted).
void check_skinned_joints(const Document& doc, const Model& m) {
  for (std::size_t ni = 0; ni < m.nodes.size(); ++ni) {
    const Node& node = m.nodes[ni];
    if (node.mesh < 0 || node.skin < 0) continue;
    std::size_t nj = m.skins[node.skin].joints.size();
    for (const Primitive& p : m.meshes[node.mesh].primitives)
      for (const auto& [sem, ai] : p.attributes) {
        if (sem.rfind("JOINTS_", 0) != 0) continue;
        auto wt = p.attributes.find("WEIGHTS_" + sem.substr(7));
        std::vector<std::uint32_t> j = read_accessor_uint(doc, m, ai);
        AccessorData w = read_accessor(doc, m, wt->second);
        for (std::size_t k = 0; k < j.size(); ++k)
          if (j[k] >= nj && w.data()[k] > 0)
            fail_invalid("accessors[" + std::to_string(ai) + "] (" + m.accessors[ai].usage +
                         "): vertex " + std::to_string(k / 4) + " uses joint " +
                         std::to_string(j[k]) + ", skins[" + std::to_string(node.skin) + "] has " +
                         std::to_string(nj) + " (nodes[" + std::to_string(ni) + "])");
      }
  }
}

/// Every inverse bind matrix invertible.
void check_inverse_binds(const Document& doc, const Model& m) {
  for (std::size_t si = 0; si < m.skins.size(); ++si) {
    const Skin& s = m.skins[si];
    if (s.inverse_bind_matrices < 0) continue;
    AccessorData ibm = read_accessor(doc, m, s.inverse_bind_matrices);
    for (std::size_t k = 0; k < s.joints.size(); ++k) {
      Eigen::Map<const Eigen::Matrix4d> mat(ibm.row(Eigen::Index(k)).data());
      if (!(std::abs(mat.topLeftCorner<3, 3>().determinant()) > 1e-12))
        fail_invalid("accessors[" + std::to_string(s.inverse_bind_matrices) +
                     "] (inverseBindMatrices of skins[" + std::to_string(si) + "]): matrix " +
                     std::to_string(k) + " is singular");
    }
  }
}

} // namespace

void check_data(const Document& doc, Model& m) {
  check_finite(doc, m);
  check_key_times(doc, m);
  check_primitives(doc, m);
  check_skinned_joints(doc, m);
  check_inverse_binds(doc, m);
}

} // namespace retail
