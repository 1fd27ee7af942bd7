// Accessor reads: component decoding, strides, matrix column padding, sparse substitution.
#include "retail/io/accessor.h"

#include "retail/base/error.h"

#include <array>
#include <cmath>
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

namespace {

/// Byte offsets of every component inside an element, computed once per accessor.
std::array<int, 16> component_offsets(const Accessor& a) {
  std::array<int, 16> off{};
  for (int c = 0; c < a.components && c < 16; ++c) off[std::size_t(c)] = component_offset(a, c);
  return off;
}

/// Decodes `count` elements of `a` starting at `base` (elements `stride` bytes apart) into rows
/// row `row_of(i)` of `out`. One switch per accessor, not one per component.
template <class RowOf>
void decode_elements(const Accessor& a, const std::uint8_t* base, std::size_t stride,
                     std::uint64_t count, RowOf row_of, AccessorData& out) {
  const std::array<int, 16> off = component_offsets(a);
  const int n = a.components;
  auto run = [&](auto one) {
    for (std::uint64_t i = 0; i < count; ++i) {
      const std::uint8_t* e = base + i * stride;
      double* dst = out.data() + Eigen::Index(row_of(i)) * n;
      for (int c = 0; c < n; ++c) dst[c] = one(e + off[std::size_t(c)]);
    }
  };
  const bool norm = a.normalized;
  switch (a.component_type) {
  case kFloat:
    return run([](const std::uint8_t* p) { return decode(p, kFloat, false); });
  case kUnsignedByte:
    return norm ? run([](const std::uint8_t* p) { return decode(p, kUnsignedByte, true); })
                : run([](const std::uint8_t* p) { return decode(p, kUnsignedByte, false); });
  case kUnsignedShort:
    return norm ? run([](const std::uint8_t* p) { return decode(p, kUnsignedShort, true); })
                : run([](const std::uint8_t* p) { return decode(p, kUnsignedShort, false); });
  default:
    return run([&](const std::uint8_t* p) { return decode(p, a.component_type, norm); });
  }
}

} // namespace

AccessorData read_accessor(const Document& doc, const Model& model, int index) {
  const Accessor& a = model.accessors[index];
  // Every element of a view-backed accessor is decoded below: only one without a view is zeros.
  AccessorData out(Eigen::Index(a.count), a.components);
  if (a.buffer_view < 0) out.setZero();
  if (a.buffer_view >= 0) {
    const BufferView& bv = model.buffer_views[a.buffer_view];
    std::size_t stride =
        bv.byte_stride ? std::size_t(bv.byte_stride) : std::size_t(element_size(a));
    const std::uint8_t* base = view_data(doc, model, a.buffer_view, a.byte_offset);
    decode_elements(
        a, base, stride, a.count, [](std::uint64_t i) { return i; }, out);
  }
  if (a.sparse) {
    const SparseInfo& s = *a.sparse;
    const std::uint8_t* idx = view_data(doc, model, s.indices_view, s.indices_offset);
    const std::uint8_t* val = view_data(doc, model, s.values_view, s.values_offset);
    int isz = component_size(s.indices_component);
    std::vector<std::uint64_t> targets(std::size_t(s.count));
    for (std::uint64_t k = 0; k < s.count; ++k) {
      targets[k] = std::uint64_t(decode(idx + k * isz, s.indices_component, false));
      if (targets[k] >= a.count)
        fail_invalid("accessors[" + std::to_string(index) +
                     "].sparse.indices: " + std::to_string(targets[k]) + " out of range (count " +
                     std::to_string(a.count) + ")");
    }
    decode_elements(
        a, val, std::size_t(element_size(a)), s.count, [&](std::uint64_t k) { return targets[k]; },
        out);
  }
  return out;
}

std::int64_t first_non_finite(const Document& doc, const Model& model, int index) {
  const Accessor& a = model.accessors[std::size_t(index)];
  if (a.component_type != kFloat) return -1;
  if (a.sparse) { // substituted values: check what a reader sees
    AccessorData d = read_accessor(doc, model, index);
    for (Eigen::Index k = 0; k < d.size(); ++k)
      if (!std::isfinite(d.data()[k])) return std::int64_t(k / a.components);
    return -1;
  }
  if (a.buffer_view < 0) return -1; // all zeros
  const BufferView& bv = model.buffer_views[std::size_t(a.buffer_view)];
  std::size_t stride = bv.byte_stride ? std::size_t(bv.byte_stride) : std::size_t(element_size(a));
  const std::uint8_t* base = view_data(doc, model, a.buffer_view, a.byte_offset);
  const std::array<int, 16> off = component_offsets(a);
  for (std::uint64_t i = 0; i < a.count; ++i)
    for (int c = 0; c < a.components; ++c) {
      float f;
      std::memcpy(&f, base + i * stride + std::size_t(off[std::size_t(c)]), 4);
      if (!std::isfinite(f)) return std::int64_t(i);
    }
  return -1;
}

namespace {

/// Dense unsigned integer components of `a` straight into `out` (no double in between).
template <class T>
void decode_uint(const Accessor& a, const std::uint8_t* base, std::size_t stride,
                 std::vector<std::uint32_t>& out) {
  const std::array<int, 16> off = component_offsets(a);
  const std::size_t n = std::size_t(a.components);
  for (std::uint64_t i = 0; i < a.count; ++i) {
    const std::uint8_t* e = base + i * stride;
    for (std::size_t c = 0; c < n; ++c) {
      T v;
      std::memcpy(&v, e + off[c], sizeof(T));
      out[std::size_t(i) * n + c] = std::uint32_t(v);
    }
  }
}

} // namespace

std::vector<std::uint32_t> read_accessor_uint(const Document& doc, const Model& model, int index) {
  const Accessor& a = model.accessors[std::size_t(index)];
  const int t = a.component_type;
  if (!a.sparse && a.buffer_view >= 0 && !a.normalized &&
      (t == kUnsignedByte || t == kUnsignedShort || t == kUnsignedInt)) {
    const BufferView& bv = model.buffer_views[std::size_t(a.buffer_view)];
    const std::size_t stride =
        bv.byte_stride ? std::size_t(bv.byte_stride) : std::size_t(element_size(a));
    const std::uint8_t* base = view_data(doc, model, a.buffer_view, a.byte_offset);
    std::vector<std::uint32_t> out(std::size_t(a.count) * std::size_t(a.components));
    if (t == kUnsignedByte) decode_uint<std::uint8_t>(a, base, stride, out);
    if (t == kUnsignedShort) decode_uint<std::uint16_t>(a, base, stride, out);
    if (t == kUnsignedInt) decode_uint<std::uint32_t>(a, base, stride, out);
    return out;
  }
  AccessorData d = read_accessor(doc, model, index); // sparse, normalized or other types
  std::vector<std::uint32_t> out(std::size_t(d.size()));
  for (Eigen::Index i = 0; i < d.size(); ++i) out[std::size_t(i)] = std::uint32_t(d.data()[i]);
  return out;
}

} // namespace retail
