// retail — lossless container I/O: a glTF document (base/document.h) read from and written to
// its file, GLB or `.gltf` with its sidecars.
#pragma once

#include "retail/base/document.h"

#include <string>
#include <vector>

namespace retail {

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

/// The files a glTF at `path` names by `uri` (buffers and images, data URIs left out), decoded
/// and relative to its folder, in JSON order; read from its JSON alone (a GLB's JSON chunk).
/// Failure: Error as read_document for a file that is not glTF, a bad JSON or a bad uri.
std::vector<std::string> sidecar_files(const std::string& path);

} // namespace retail
