// retail — the glTF document as the file holds it (reading and writing it: io/io.h).
//
// retail never round-trips a file through a typed glTF model: the JSON is kept as the file
// wrote it (key order, numbers, extensions, extras, empty arrays) in an ordered JSON tree, and
// every buffer is kept as raw bytes. Stages read through a validated typed view (model.h) and
// edit by appending to this document (builder.h), so everything they do not touch is written
// back exactly as it was read.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace retail {

using Json = nlohmann::ordered_json;
using Bytes = std::vector<std::uint8_t>;

enum class Container { Glb, Gltf };

/// A resource of a `.gltf` file stored outside it (a buffer or image `uri` that is a file path).
struct ExternalFile {
  std::string uri;    ///< as written in the JSON (percent-encoded)
  std::string path;   ///< decoded, relative to the .gltf's folder
  Bytes bytes;        ///< the file's content (a buffer's: at most its byteLength)
  std::string source; ///< the file it was read from ("" when not read from disk)
};

/// A GLB chunk that is neither JSON nor BIN; kept and written back in place.
struct ExtraChunk {
  std::uint32_t type = 0;
  Bytes bytes;
};

struct Document {
  Container container = Container::Glb;
  Json gltf;                          ///< the JSON as read
  std::vector<Bytes> buffers;         ///< one per `buffers[i]`; the GLB BIN chunk keeps its padding
  std::vector<bool> buffer_is_glb;    ///< buffers[i] is the GLB BIN chunk (no uri)
  std::vector<int> buffer_external;   ///< index into `external`, or -1 (data URI / BIN chunk)
  std::vector<ExternalFile> external; ///< .gltf sidecar files (buffers and images)
  std::vector<ExtraChunk> extra_chunks;
  int append_buffer = -1; ///< buffer new data goes to (builder.h); -1 until first needed
};

} // namespace retail
