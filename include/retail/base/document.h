// retail — the glTF document as the file holds it, and lossless container I/O.
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

/// Reads a `.glb`/`.vrm` (GLB container) or `.gltf` (JSON, with data-URI or sidecar buffers).
/// The container is decided by the file's magic bytes, not its name.
/// Failure: Error InvalidInput naming the file part (`GLB header`, `buffers[1]`, ...);
/// Unsupported for URIs outside the file's folder or non-data remote URIs.
/// Post: buffers.size() == gltf["buffers"].size(); each buffer holds at least byteLength bytes
/// (checked later by validation, which names the JSON path).
/// `sha256`: when non-null, receives the SHA-256 (hex) of the bytes read, so reports can name
/// the input without reading it a second time.
Document read_document(const std::string& path, std::string* sha256 = nullptr);

/// Parses a document from memory; `base_dir` resolves sidecar URIs (empty: none allowed).
Document parse_document(const Bytes& bytes, const std::string& base_dir);

/// Serialises to the container the document came from. GLB: JSON chunk padded with spaces,
/// BIN chunk with zeros, extra chunks after BIN. Deterministic: same document, same bytes.
/// `.gltf`: returns the JSON text; sidecars are written by write_document.
Bytes serialize_document(const Document& doc);

/// Writes atomically: sidecars first (each via temp + rename, skipped when it is the file it was
/// read from or an identical file is already there), then the main file via temp file in the target
/// folder + rename. On failure nothing new is left behind. Failure: Error OutputFailed naming the
/// path. `main`: the already serialised document (serialize_document(doc)), to avoid doing it
/// twice. Returns the sidecars it created (paths that did not exist before), for a caller that must
/// remove them should a later step fail.
std::vector<std::string> write_document(const Document& doc, const std::string& path,
                                        const Bytes* main = nullptr);

/// Decodes a base64 `data:` URI into `out` (appended); `media_type`, when non-null, receives
/// the type before `;base64` ("" when none). Returns false when it is not a base64 data URI.
bool decode_data_uri(const std::string& uri, Bytes& out, std::string* media_type = nullptr);

/// Writes `bytes` to `path` atomically (temp file in the same folder, then rename).
void write_file_atomic(const std::string& path, const Bytes& bytes);

/// The same for text (a page written without another copy of it).
void write_file_atomic(const std::string& path, std::string_view text);

/// Reads a whole file. Failure: Error InvalidInput ("cannot read").
Bytes read_file(const std::string& path);

/// Reads at most `max_bytes` from the start of a regular file (all of it when shorter).
/// Failure: as read_file.
Bytes read_file(const std::string& path, std::size_t max_bytes);

/// The files a glTF at `path` names by `uri` (buffers and images, data URIs left out), decoded
/// and relative to its folder, in JSON order; read from its JSON alone (a GLB's JSON chunk).
/// Failure: Error as read_document for a file that is not glTF, a bad JSON or a bad uri.
std::vector<std::string> sidecar_files(const std::string& path);

} // namespace retail
