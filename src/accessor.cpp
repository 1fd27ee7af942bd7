// Accessor reads: component decoding, strides, matrix column padding, sparse substitution.
#include "retail/accessor.h"

#include "retail/error.h"

#include <cstring>

namespace retail {
namespace {

double decode(const std::uint8_t* p, int type, bool normalized) {
  switch (type) {
  case kFloat: {
    float f;
    std::memcpy(&f, p, 4);
    return f;
  }
  case kByte: {
    double v = double(std::int8_t(p[0]));
    return normalized ? std::max(v / 127.0, -1.0) : v;
  }
  case kUnsignedByte:
    return normalized ? p[0] / 255.0 : double(p[0]);
  case kShort: {
    std::int16_t s;
    std::memcpy(&s, p, 2);
    return normalized ? std::max(s / 32767.0, -1.0) : double(s);
  }
  case kUnsignedShort: {
    std::uint16_t s;
    std::memcpy(&s, p, 2);
    return normalized ? s / 65535.0 : double(s);
  }
  case kUnsignedInt: {
    std::uint32_t u;
    std::memcpy(&u, p, 4);
    return double(u);
  }
  default:
    return 0.0;
  }
}

/// Byte offset of component `c` inside an element (accounts for matrix column padding).
int component_offset(const Accessor& a, int c) {
  int cs = component_size(a.component_type);
  int rows = a.components == 4 && a.type == "MAT2" ? 2 : a.components == 9 ? 3 : 0;
  if (rows == 0 || (rows * cs) % 4 == 0) return c * cs;
  int column_bytes = (rows * cs + 3) / 4 * 4;
  return (c / rows) * column_bytes + (c % rows) * cs;
}

const std::uint8_t* view_data(const Document& doc, const Model& model, int view,
                              std::uint64_t offset) {
  const BufferView& bv = model.buffer_views[view];
  return doc.buffers[bv.buffer].data() + bv.byte_offset + offset;
}

} // namespace

int element_size(const Accessor& a) {
  int cs = component_size(a.component_type);
  if (a.type == "MAT2" && cs == 1) return 8;
  if (a.type == "MAT3" && cs == 1) return 12;
  if (a.type == "MAT3" && cs == 2) return 24;
  return a.components * cs;
}

AccessorData read_accessor(const Document& doc, const Model& model, int index) {
  const Accessor& a = model.accessors[index];
  AccessorData out = AccessorData::Zero(Eigen::Index(a.count), a.components);
  if (a.buffer_view >= 0) {
    const BufferView& bv = model.buffer_views[a.buffer_view];
    std::size_t stride =
        bv.byte_stride ? std::size_t(bv.byte_stride) : std::size_t(element_size(a));
    const std::uint8_t* base = view_data(doc, model, a.buffer_view, a.byte_offset);
    for (std::uint64_t i = 0; i < a.count; ++i)
      for (int c = 0; c < a.components; ++c)
        out(Eigen::Index(i), c) =
            decode(base + i * stride + component_offset(a, c), a.component_type, a.normalized);
  }
  if (a.sparse) {
    const SparseInfo& s = *a.sparse;
    const std::uint8_t* idx = view_data(doc, model, s.indices_view, s.indices_offset);
    const std::uint8_t* val = view_data(doc, model, s.values_view, s.values_offset);
    int isz = component_size(s.indices_component);
    std::size_t esz = std::size_t(element_size(a));
    for (std::uint64_t k = 0; k < s.count; ++k) {
      std::uint64_t target = std::uint64_t(decode(idx + k * isz, s.indices_component, false));
      if (target >= a.count)
        fail_invalid("accessors[" + std::to_string(index) +
                     "].sparse.indices: " + std::to_string(target) + " out of range (count " +
                     std::to_string(a.count) + ")");
      for (int c = 0; c < a.components; ++c)
        out(Eigen::Index(target), c) =
            decode(val + k * esz + component_offset(a, c), a.component_type, a.normalized);
    }
  }
  return out;
}

std::vector<std::uint32_t> read_accessor_uint(const Document& doc, const Model& model, int index) {
  AccessorData d = read_accessor(doc, model, index);
  std::vector<std::uint32_t> out(std::size_t(d.size()));
  for (Eigen::Index i = 0; i < d.size(); ++i) out[std::size_t(i)] = std::uint32_t(d.data()[i]);
  return out;
}

} // namespace retail
