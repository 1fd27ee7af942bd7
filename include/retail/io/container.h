// retail — container conversion: a document read from a GLB written as .gltf and back
// (docs/containers.md).
//
// OUT's extension picks the container: `.glb` and `.vrm` are GLB, `.gltf` is JSON with its
// binary data beside it. Conversion is lossless: the JSON keeps every key it had (only the
// buffer and image references change), every buffer view keeps its bytes, and every image keeps
// its bytes (never decoded). Same input, same bytes out.
//
//   GLB -> .gltf   the BIN chunk becomes one sidecar `OUT-stem.bin` beside OUT (as gltfpack and
//                  gltf-transform write it); images stored in buffer views stay there (in the
//                  .bin); buffers and images the GLB already referenced by uri keep their uri.
//   .gltf -> GLB   every buffer (sidecar or data URI) goes into the one BIN chunk, in buffer
//                  order, each at a 4-byte boundary; images referenced by uri (sidecar files or
//                  data URIs) go into buffer views after them with their `mimeType` (a
//                  self-contained file, as gltf-transform writes GLBs); an image whose type is
//                  not known (PNG, JPEG, WebP, KTX2, GIF, BMP) keeps its uri.
#pragma once

#include "retail/base/document.h"

#include <string>

namespace retail {

/// The container OUT's extension asks for: `.glb`/`.vrm` (any case) GLB, `.gltf` glTF.
/// Failure: Error(Usage) for any other extension, naming the path.
Container container_for_path(const std::string& path);

/// The sidecar a GLB's BIN chunk becomes when written as `out_path` (a .gltf): OUT's file name
/// with its extension replaced by `.bin`, relative to OUT's folder (`a/b/fox.gltf` -> `fox.bin`).
std::string bin_sidecar_name(const std::string& out_path);

/// Failure: Error(Unsupported) when `doc` cannot be written as `to` without losing data: a GLB
/// with chunks other than JSON and BIN (they have no place in a .gltf), or a GLB->.gltf whose
/// .bin name is already the uri of one of its sidecars. Cheap: call before the work.
void check_convertible(const Document& doc, Container to, const std::string& out_path);

/// `doc` as container `to`, for writing to `out_path` (which names the .bin of a .gltf).
/// Same container: `doc` unchanged. Post: serialize_document / write_document of the result
/// write the new container; doc.append_buffer is reset (-1). Failure: as check_convertible.
Document convert_container(Document doc, Container to, const std::string& out_path);

} // namespace retail
