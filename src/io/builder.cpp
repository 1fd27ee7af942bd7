// Appending buffer views and accessors (see builder.h).
#include "retail/io/builder.h"
#include "retail/base/model.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <stdexcept>

namespace retail {
namespace {

int append_buffer(Document& doc) {
  if (doc.append_buffer >= 0) return doc.append_buffer;
  for (std::size_t i = 0; i < doc.buffers.size(); ++i)
    if (doc.buffer_is_glb[i]) return doc.append_buffer = int(i);
  Json& gltf = doc.gltf;
  bool glb_first = doc.container == Container::Glb && doc.buffers.empty();
  Json buffer = {{"byteLength", 0}};
  int index = append_to_array(gltf, "buffers", buffer);
  doc.buffers.emplace_back();
  doc.buffer_is_glb.push_back(glb_first);
  doc.buffer_external.push_back(-1);
  return doc.append_buffer = index;
}

int components(const std::string& type) {
  int n = type_components(type);
  if (n == 0) throw std::invalid_argument("unknown accessor type " + type);
  return n;
}

} // namespace

int append_to_array(Json& gltf, const char* key, Json item) {
  if (!gltf.contains(key)) gltf[key] = Json::array();
  gltf[key].push_back(std::move(item));
  return int(gltf[key].size()) - 1;
}

int add_buffer_view(Document& doc, const Bytes& data, int target) {
  int b = append_buffer(doc);
  Bytes& buf = doc.buffers[std::size_t(b)];
  buf.resize((buf.size() + 3) / 4 * 4, 0);
  std::size_t offset = buf.size();
  buf.insert(buf.end(), data.begin(), data.end());
  doc.gltf["buffers"][std::size_t(b)]["byteLength"] = buf.size();
  Json view = {{"buffer", b}, {"byteOffset", offset}, {"byteLength", data.size()}};
  if (target) view["target"] = target;
  return append_to_array(doc.gltf, "bufferViews", view);
}

int add_float_accessor(Document& doc, const std::vector<float>& values, const std::string& type,
                       int target, bool with_bounds) {
  int n = components(type);
  Bytes bytes(values.size() * 4);
  if (!values.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
  int view = add_buffer_view(doc, bytes, target);
  std::size_t count = values.size() / std::size_t(n);
  Json acc = {{"bufferView", view}, {"componentType", 5126}, {"count", count}, {"type", type}};
  if (with_bounds && count > 0) {
    Json lo = Json::array(), hi = Json::array();
    for (int c = 0; c < n; ++c) {
      float a = std::numeric_limits<float>::infinity(), z = -a;
      for (std::size_t i = 0; i < count; ++i) {
        a = std::min(a, values[i * std::size_t(n) + std::size_t(c)]);
        z = std::max(z, values[i * std::size_t(n) + std::size_t(c)]);
      }
      lo.push_back(a);
      hi.push_back(z);
    }
    acc["min"] = lo;
    acc["max"] = hi;
  }
  return append_to_array(doc.gltf, "accessors", acc);
}

int add_uint_accessor(Document& doc, const std::vector<std::uint32_t>& values, int component_type,
                      const std::string& type, int target, bool normalized) {
  int size = component_type == 5121 ? 1 : component_type == 5123 ? 2 : 4;
  std::uint64_t limit = size == 1 ? 0xFFu : size == 2 ? 0xFFFFu : 0xFFFFFFFFu;
  Bytes bytes;
  bytes.reserve(values.size() * std::size_t(size));
  for (std::uint32_t v : values) {
    if (v > limit) throw std::invalid_argument("value does not fit the component type");
    for (int k = 0; k < size; ++k) bytes.push_back(std::uint8_t(v >> (8 * k)));
  }
  // Rows of 1- or 2-byte VEC elements stay 4-byte aligned for vertex attributes (VEC4 only here).
  int view = add_buffer_view(doc, bytes, target);
  Json acc = {{"bufferView", view},
              {"componentType", component_type},
              {"count", values.size() / std::size_t(components(type))},
              {"type", type}};
  if (normalized) acc["normalized"] = true;
  return append_to_array(doc.gltf, "accessors", acc);
}

} // namespace retail
