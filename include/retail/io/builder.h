// retail — appending new data to a document without touching what is there.
//
// New bytes go to the end of one buffer: the GLB BIN chunk when the file has one (created as
// buffers[0] when a GLB has no buffers at all), otherwise a new buffer with a data URI. Existing
// buffer views, accessors and their bytes are never moved or changed.
#pragma once

#include "retail/base/document.h"

#include <cstdint>
#include <string>
#include <vector>

namespace retail {

/// Appends `data` (4-byte aligned) as a new buffer view; returns its index.
/// `target`: 34962 (ARRAY_BUFFER), 34963 (ELEMENT_ARRAY_BUFFER) or 0 (none, e.g. IBMs, animation).
int add_buffer_view(Document& doc, const Bytes& data, int target);

/// Appends float data as a new accessor of `type` ("SCALAR", "VEC3", "VEC4", "MAT4" ...).
/// `with_bounds` writes min/max (required for POSITION and animation inputs). Returns its index.
int add_float_accessor(Document& doc, const std::vector<float>& values, const std::string& type,
                       int target, bool with_bounds);

/// Appends unsigned integer data as `component_type` (5121, 5123, 5125), optionally normalized.
/// Values must fit the component type (checked: std::invalid_argument).
int add_uint_accessor(Document& doc, const std::vector<std::uint32_t>& values, int component_type,
                      const std::string& type, int target, bool normalized);

/// Appends `item` to the top-level array `key` (creating it) and returns its index.
int append_to_array(Json& gltf, const char* key, Json item);

} // namespace retail
