// parse_model: structural validation of a glTF document and its typed view (validate.h).
#include "retail/io/validate.h"

#include "io/validate_graph.h"

#include "retail/base/error.h"
#include "retail/io/accessor.h"

#include <cmath>
#include <set>

namespace retail {
namespace {

constexpr std::uint64_t kMaxCount = std::uint64_t(1) << 32;
constexpr std::uint64_t kMaxImplicitCount = std::uint64_t(1) << 24;

std::string at(const std::string& array, std::size_t i) {
  return array + "[" + std::to_string(i) + "]";
}

const Json& array_or_empty(const Json& obj, const char* key, const std::string& where) {
  static const Json empty = Json::array();
  if (!obj.contains(key)) return empty;
  const Json& a = obj[key];
  if (!a.is_array()) fail_invalid(where + key + ": not an array");
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!a[i].is_object() && std::string(key) != "children" && std::string(key) != "joints" &&
        std::string(key) != "nodes")
      fail_invalid(where + at(key, i) + ": not an object");
  return a;
}

/// Optional index property: -1 when absent; checks it is an integer in [0, size).
int index_of(const Json& obj, const char* key, std::size_t size, const std::string& where,
             const char* what) {
  if (!obj.contains(key)) return -1;
  const Json& v = obj[key];
  if (!v.is_number_integer() || v.get<std::int64_t>() < 0)
    fail_invalid(where + "." + key + ": not a valid index");
  std::int64_t i = v.get<std::int64_t>();
  if (std::uint64_t(i) >= size)
    fail_invalid(where + "." + key + ": " + what + " " + std::to_string(i) + " out of range (" +
                 std::to_string(size) + " " + what + "s)");
  return int(i);
}

std::uint64_t uint_of(const Json& obj, const char* key, std::uint64_t fallback,
                      const std::string& where) {
  if (!obj.contains(key)) return fallback;
  const Json& v = obj[key];
  if (!v.is_number_integer() || v.get<std::int64_t>() < 0)
    fail_invalid(where + "." + key + ": not a non-negative integer");
  return v.get<std::uint64_t>();
}

std::string string_of(const Json& obj, const char* key) {
  if (obj.contains(key) && obj[key].is_string()) return obj[key].get<std::string>();
  return {};
}

template <std::size_t N>
void numbers_of(const Json& obj, const char* key, std::array<double, N>& out,
                const std::string& where) {
  if (!obj.contains(key)) return;
  const Json& a = obj[key];
  if (!a.is_array() || a.size() != N)
    fail_invalid(where + "." + key + ": needs " + std::to_string(N) + " numbers");
  for (std::size_t i = 0; i < N; ++i) {
    if (!a[i].is_number())
      fail_invalid(where + "." + key + ": needs " + std::to_string(N) + " numbers");
    out[i] = a[i].get<double>();
    if (!std::isfinite(out[i])) fail_invalid(where + "." + key + ": not finite");
  }
}

/// Draco anywhere, meshopt when required. Meshopt only used (not required) means every
/// compressed buffer view has its data uncompressed in a fallback buffer as well, which is what
/// retail reads (a fallback buffer without data is refused when reading, io.cpp).
void check_compression(const Json& gltf) {
  static const char* features[] = {"KHR_draco_mesh_compression", "EXT_meshopt_compression",
                                   "KHR_meshopt_compression"};
  for (const char* f : features) {
    for (const char* list : {"extensionsRequired", "extensionsUsed"}) {
      if (std::string(list) == "extensionsUsed" &&
          std::string(f).find("meshopt") != std::string::npos)
        continue;
      if (!gltf.contains(list) || !gltf[list].is_array()) continue;
      for (const auto& e : gltf[list])
        if (e.is_string() && e.get<std::string>() == f)
          fail_unsupported(std::string(list) + ": " + f +
                           " (compressed geometry is not decoded; decompress first, e.g. gltfpack "
                           "-noq or gltf-transform copy)");
    }
  }
}

void parse_buffer_views(const Json& gltf, const Document& doc, Model& m) {
  const Json& buffers = array_or_empty(gltf, "buffers", "");
  for (std::size_t i = 0; i < buffers.size(); ++i) {
    std::string where = at("buffers", i);
    std::uint64_t len = uint_of(buffers[i], "byteLength", 0, where);
    if (!buffers[i].contains("byteLength")) fail_invalid(where + ": byteLength missing");
    if (len > doc.buffers[i].size())
      fail_invalid(where + ": byteLength " + std::to_string(len) + " but the data has " +
                   std::to_string(doc.buffers[i].size()) + " bytes");
  }
  const Json& views = array_or_empty(gltf, "bufferViews", "");
  for (std::size_t i = 0; i < views.size(); ++i) {
    std::string where = at("bufferViews", i);
    const Json& v = views[i];
    BufferView bv;
    bv.buffer = index_of(v, "buffer", buffers.size(), where, "buffer");
    if (bv.buffer < 0) fail_invalid(where + ": buffer missing");
    bv.byte_offset = uint_of(v, "byteOffset", 0, where);
    bv.byte_length = uint_of(v, "byteLength", 0, where);
    std::uint64_t stride = uint_of(v, "byteStride", 0, where);
    if (v.contains("byteStride") && (stride < 4 || stride > 252 || stride % 4))
      fail_invalid(where + ".byteStride: " + std::to_string(stride) +
                   " (must be 4..252, a multiple of 4)");
    bv.byte_stride = int(stride);
    std::uint64_t blen = buffers[bv.buffer]["byteLength"].get<std::uint64_t>();
    if (bv.byte_offset > blen || bv.byte_length > blen - bv.byte_offset)
      fail_invalid(where + ": bytes " + std::to_string(bv.byte_offset) + ".." +
                   std::to_string(bv.byte_offset + bv.byte_length) + " outside buffers[" +
                   std::to_string(bv.buffer) + "] (" + std::to_string(blen) + " bytes)");
    m.buffer_views.push_back(bv);
  }
}

/// Records what each accessor is used for, so messages can say "WEIGHTS_0 of
/// meshes[0].primitives[1]".
std::vector<std::string> accessor_usages(const Json& gltf, std::size_t n) {
  std::vector<std::string> use(n);
  auto note = [&](const Json& v, const std::string& what) {
    if (v.is_number_integer() && v.get<std::int64_t>() >= 0 &&
        std::uint64_t(v.get<std::int64_t>()) < n && use[v.get<std::size_t>()].empty())
      use[v.get<std::size_t>()] = what;
  };
  if (gltf.contains("meshes") && gltf["meshes"].is_array())
    for (std::size_t mi = 0; mi < gltf["meshes"].size(); ++mi) {
      const Json& mesh = gltf["meshes"][mi];
      if (!mesh.is_object() || !mesh.contains("primitives") || !mesh["primitives"].is_array())
        continue;
      for (std::size_t pi = 0; pi < mesh["primitives"].size(); ++pi) {
        const Json& p = mesh["primitives"][pi];
        if (!p.is_object()) continue;
        std::string where = at("meshes", mi) + "." + at("primitives", pi);
        if (p.contains("attributes") && p["attributes"].is_object())
          for (const auto& [k, v] : p["attributes"].items()) note(v, k + " of " + where);
        if (p.contains("indices")) note(p["indices"], "indices of " + where);
      }
    }
  if (gltf.contains("skins") && gltf["skins"].is_array())
    for (std::size_t si = 0; si < gltf["skins"].size(); ++si)
      if (gltf["skins"][si].is_object() && gltf["skins"][si].contains("inverseBindMatrices"))
        note(gltf["skins"][si]["inverseBindMatrices"], "inverseBindMatrices of " + at("skins", si));
  if (gltf.contains("animations") && gltf["animations"].is_array())
    for (std::size_t ai = 0; ai < gltf["animations"].size(); ++ai) {
      const Json& a = gltf["animations"][ai];
      if (!a.is_object() || !a.contains("samplers") || !a["samplers"].is_array()) continue;
      for (std::size_t si = 0; si < a["samplers"].size(); ++si) {
        const Json& s = a["samplers"][si];
        if (!s.is_object()) continue;
        std::string where = at("animations", ai) + "." + at("samplers", si);
        if (s.contains("input")) note(s["input"], "input of " + where);
        if (s.contains("output")) note(s["output"], "output of " + where);
      }
    }
  return use;
}

void check_range(const std::string& where, std::uint64_t offset, std::uint64_t stride,
                 std::uint64_t count, std::uint64_t elem, const BufferView& view, int view_index) {
  if (count == 0) return;
  // count <= 2^32 and stride <= 256, so the product cannot overflow 64 bits.
  std::uint64_t need = offset + stride * (count - 1) + elem;
  if (need > view.byte_length)
    fail_invalid(where + ": needs " + std::to_string(need) + " bytes, bufferViews[" +
                 std::to_string(view_index) + "] has " + std::to_string(view.byte_length));
}

void parse_accessors(const Json& gltf, Model& m) {
  const Json& accs = array_or_empty(gltf, "accessors", "");
  std::vector<std::string> use = accessor_usages(gltf, accs.size());
  for (std::size_t i = 0; i < accs.size(); ++i) {
    const Json& a = accs[i];
    Accessor acc;
    acc.usage = use[i];
    std::string where = at("accessors", i) + (use[i].empty() ? "" : " (" + use[i] + ")");
    if (!a.contains("componentType") || !a["componentType"].is_number_integer() ||
        component_size(a["componentType"].get<int>()) == 0)
      fail_invalid(where + ": componentType missing or not a glTF component type");
    acc.component_type = a["componentType"].get<int>();
    acc.type = string_of(a, "type");
    acc.components = type_components(acc.type);
    if (acc.components == 0)
      fail_invalid(where + ": type '" + acc.type + "' is not a glTF accessor type");
    if (a.contains("normalized") && !a["normalized"].is_boolean())
      fail_invalid(where + ".normalized: not a boolean");
    acc.normalized = a.value("normalized", false);
    if (!a.contains("count")) fail_invalid(where + ": count missing");
    acc.count = uint_of(a, "count", 0, where);
    if (acc.count > kMaxCount)
      fail_invalid(where + ": count " + std::to_string(acc.count) + " is too large");
    acc.byte_offset = uint_of(a, "byteOffset", 0, where);
    acc.buffer_view = index_of(a, "bufferView", m.buffer_views.size(), where, "bufferView");
    std::uint64_t elem = std::uint64_t(element_size(acc));
    if (acc.buffer_view >= 0) {
      const BufferView& v = m.buffer_views[acc.buffer_view];
      std::uint64_t stride = v.byte_stride ? std::uint64_t(v.byte_stride) : elem;
      if (v.byte_stride && std::uint64_t(v.byte_stride) < elem)
        fail_invalid(where + ": element of " + std::to_string(elem) +
                     " bytes exceeds bufferViews[" + std::to_string(acc.buffer_view) +
                     "].byteStride " + std::to_string(v.byte_stride));
      if (acc.byte_offset > v.byte_length)
        fail_invalid(where + ": byteOffset " + std::to_string(acc.byte_offset) +
                     " past bufferViews[" + std::to_string(acc.buffer_view) + "] (" +
                     std::to_string(v.byte_length) + " bytes)");
      check_range(where, acc.byte_offset, stride, acc.count, elem, v, acc.buffer_view);
    } else if (a.contains("byteOffset")) {
      fail_invalid(where + ": byteOffset without bufferView");
    } else if (acc.count > kMaxImplicitCount) {
      // Without a buffer view the data is implicit zeros: bounded by no file size, so cap it.
      fail_unsupported(where + ": " + std::to_string(acc.count) + " implicit elements (more than " +
                       std::to_string(kMaxImplicitCount) + ")");
    }
    if (a.contains("sparse")) {
      const Json& s = a["sparse"];
      std::string sw = where + ".sparse";
      if (!s.is_object() || !s.contains("indices") || !s.contains("values") ||
          !s["indices"].is_object() || !s["values"].is_object())
        fail_invalid(sw + ": needs count, indices and values");
      SparseInfo sp;
      sp.count = uint_of(s, "count", 0, sw);
      if (sp.count < 1 || sp.count > acc.count)
        fail_invalid(sw + ".count: must be 1.." + std::to_string(acc.count));
      const Json& si = s["indices"];
      sp.indices_view =
          index_of(si, "bufferView", m.buffer_views.size(), sw + ".indices", "bufferView");
      if (sp.indices_view < 0) fail_invalid(sw + ".indices: bufferView missing");
      sp.indices_offset = uint_of(si, "byteOffset", 0, sw + ".indices");
      sp.indices_component = si.value("componentType", 0);
      if (sp.indices_component != kUnsignedByte && sp.indices_component != kUnsignedShort &&
          sp.indices_component != kUnsignedInt)
        fail_invalid(sw + ".indices.componentType: must be an unsigned integer type");
      const BufferView& iv = m.buffer_views[sp.indices_view];
      check_range(sw + ".indices", sp.indices_offset, component_size(sp.indices_component),
                  sp.count, component_size(sp.indices_component), iv, sp.indices_view);
      const Json& sv = s["values"];
      sp.values_view =
          index_of(sv, "bufferView", m.buffer_views.size(), sw + ".values", "bufferView");
      if (sp.values_view < 0) fail_invalid(sw + ".values: bufferView missing");
      sp.values_offset = uint_of(sv, "byteOffset", 0, sw + ".values");
      check_range(sw + ".values", sp.values_offset, elem, sp.count, elem,
                  m.buffer_views[sp.values_view], sp.values_view);
      acc.sparse = sp;
    }
    m.accessors.push_back(acc);
  }
}

} // namespace

Model parse_model(const Document& doc) {
  const Json& gltf = doc.gltf;
  if (!gltf.contains("asset") || !gltf["asset"].is_object() || !gltf["asset"].contains("version"))
    fail_invalid("asset.version: missing");
  std::string version = string_of(gltf["asset"], "version");
  if (version.rfind("2.", 0) != 0)
    fail_unsupported("asset.version: '" + version + "' (only glTF 2.x is supported)");
  check_compression(gltf);
  Model m;
  parse_buffer_views(gltf, doc, m);
  parse_accessors(gltf, m);
  parse_meshes(gltf, m);
  parse_nodes_and_skins(gltf, m);
  parse_animations_and_scenes(gltf, m);
  check_data(doc, m);
  return m;
}

} // namespace retail
