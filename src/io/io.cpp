// Container I/O: GLB chunks, .gltf JSON with data-URI or sidecar resources, atomic writes.
#include "retail/io/io.h"

#include "retail/base/document.h"
#include "retail/base/error.h"
#include "retail/base/files.h"
#include "retail/base/sha256.h"

#include <cstring>
#include <filesystem>
#include <future>
#include <memory>

namespace fs = std::filesystem;

namespace retail {
namespace {

constexpr std::uint32_t kGlbMagic = 0x46546C67;  // "glTF"
constexpr std::uint32_t kChunkJson = 0x4E4F534A; // "JSON"
constexpr std::uint32_t kChunkBin = 0x004E4942;  // "BIN\0"

std::uint32_t read_u32(const Bytes& b, std::size_t at) {
  return std::uint32_t(b[at]) | std::uint32_t(b[at + 1]) << 8 | std::uint32_t(b[at + 2]) << 16 |
         std::uint32_t(b[at + 3]) << 24;
}

void put_u32(Bytes& b, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) b.push_back(std::uint8_t(v >> (8 * i)));
}

int base64_value(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+' || c == '-') return 62;
  if (c == '/' || c == '_') return 63;
  return -1;
}

/// Decodes standard or URL-safe base64; '=' padding optional. Returns false on a bad character.
bool base64_decode(const std::string& text, std::size_t from, Bytes& out) {
  std::uint32_t acc = 0;
  int bits = 0;
  for (std::size_t i = from; i < text.size(); ++i) {
    char c = text[i];
    if (c == '=') break;
    int v = base64_value(c);
    if (v < 0) return false;
    acc = (acc << 6) | std::uint32_t(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(std::uint8_t((acc >> bits) & 0xFF));
    }
  }
  return true;
}

std::string base64_encode(const Bytes& data) {
  static const char* table = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((data.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 2 < data.size(); i += 3) {
    std::uint32_t v = std::uint32_t(data[i]) << 16 | std::uint32_t(data[i + 1]) << 8 | data[i + 2];
    for (int s = 18; s >= 0; s -= 6) out.push_back(table[(v >> s) & 63]);
  }
  if (i < data.size()) {
    std::uint32_t v = std::uint32_t(data[i]) << 16;
    if (i + 1 < data.size()) v |= std::uint32_t(data[i + 1]) << 8;
    out.push_back(table[(v >> 18) & 63]);
    out.push_back(table[(v >> 12) & 63]);
    out.push_back(i + 1 < data.size() ? table[(v >> 6) & 63] : '=');
    out.push_back('=');
  }
  return out;
}

/// Percent-decodes a relative URI. Returns false for malformed escapes.
bool percent_decode(const std::string& uri, std::string& out) {
  for (std::size_t i = 0; i < uri.size(); ++i) {
    if (uri[i] != '%') {
      out.push_back(uri[i]);
      continue;
    }
    if (i + 2 >= uri.size() || !std::isxdigit((unsigned char)uri[i + 1]) ||
        !std::isxdigit((unsigned char)uri[i + 2]))
      return false;
    out.push_back(char(std::stoi(uri.substr(i + 1, 2), nullptr, 16)));
    i += 2;
  }
  return true;
}

/// Resolves a sidecar URI to a path relative to the file's folder. Absolute paths, other URI
/// schemes and `..` segments are refused: batch jobs must never read or write outside the
/// asset's own folder.
std::string sidecar_path(const std::string& where, const std::string& uri) {
  std::string path;
  if (!percent_decode(uri, path)) fail_invalid(where + ": malformed percent escape in uri");
  if (path.find('\0') != std::string::npos)
    fail_invalid(where + ": uri '" + printable(uri) +
                 "' holds a NUL byte once percent-decoded (a file name cannot)");
  if (path.empty() || path[0] == '/' || path[0] == '\\' || path.find(':') != std::string::npos)
    fail_unsupported(
        where + ": uri '" + uri +
        "' is not a relative file path (remote or absolute resources are not supported)");
  for (const auto& part : fs::path(path))
    if (part == "..")
      fail_unsupported(where + ": uri '" + uri + "' points outside the file's folder");
  return path;
}

/// The most of an image sidecar retail reads (an image has no declared length).
constexpr std::size_t kMaxImageBytes = std::size_t(1) << 30;

/// Reads a sidecar file named by `uri` relative to `base_dir`: at most `max_bytes` of it.
/// Failure: Unsupported for URIs outside the folder or without a folder to resolve against;
/// InvalidInput when unreadable.
ExternalFile read_sidecar(const std::string& base_dir, const std::string& where,
                          const std::string& uri, std::size_t max_bytes) {
  std::string rel = sidecar_path(where, uri);
  if (base_dir.empty()) fail_unsupported(where + ": external uri '" + uri + "' cannot be resolved");
  const std::string full = (fs::path(base_dir) / rel).string();
  // A symbolic link (of the file or a folder on its way) must not lead out of the folder.
  std::error_code ec;
  if (fs::exists(full, ec) && !path_inside(full, base_dir) &&
      resolved_path(full) != resolved_path(base_dir))
    fail_invalid(where + ": uri '" + printable(uri) +
                 "' is a link leading outside the file's folder");
  Bytes bytes;
  try {
    bytes = read_file(full, max_bytes);
  } catch (const Error& e) {
    std::string why = e.what();
    std::size_t colon = why.find(": ");
    fail_invalid(where + ": cannot read '" + printable(uri) + "'" +
                 (colon == std::string::npos ? "" : why.substr(colon)));
  }
  return {uri, rel, std::move(bytes), full};
}

/// Nesting deeper than kMaxJsonDepth is refused before parsing: the parser copes, but copying,
/// serialising and destroying the tree recurse once per level (docs/robustness.md).
constexpr int kMaxJsonDepth = 256;

void check_json_depth(const char* begin, const char* end) {
  int depth = 0;
  bool in_string = false;
  for (const char* p = begin; p < end; ++p) {
    char c = *p;
    if (in_string) {
      if (c == '\\')
        ++p;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxJsonDepth)
        fail_invalid("JSON: nested deeper than " + std::to_string(kMaxJsonDepth) +
                     " levels at byte " + std::to_string(p - begin));
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
}

Json parse_json_text(const char* begin, const char* end) {
  check_json_depth(begin, end);
  while (end > begin && (end[-1] == ' ' || end[-1] == '\0' || end[-1] == '\n' || end[-1] == '\r' ||
                         end[-1] == '\t'))
    --end;
  Json j;
  try {
    j = Json::parse(begin, end);
  } catch (const nlohmann::json::exception& e) {
    fail_invalid("JSON: " + printable(e.what()));
  }
  if (!j.is_object()) fail_invalid("JSON: the top level is not an object");
  return j;
}

void load_resources(Document& doc, const std::string& base_dir, const Bytes* bin_chunk) {
  const Json& gltf = doc.gltf;
  if (gltf.contains("buffers") && !gltf["buffers"].is_array())
    fail_invalid("buffers: not an array");
  std::size_t n = gltf.contains("buffers") ? gltf["buffers"].size() : 0;
  doc.buffers.assign(n, Bytes());
  doc.buffer_is_glb.assign(n, false);
  doc.buffer_external.assign(n, -1);
  for (std::size_t i = 0; i < n; ++i) {
    const Json& b = gltf["buffers"][i];
    std::string where = "buffers[" + std::to_string(i) + "]";
    if (!b.is_object()) fail_invalid(where + ": not an object");
    if (!b.contains("uri")) {
      for (const char* ext : {"EXT_meshopt_compression", "KHR_meshopt_compression"})
        if (b.contains("extensions") && b["extensions"].is_object() &&
            b["extensions"].contains(ext))
          fail_unsupported(where + ": a " + ext +
                           " fallback buffer without data (the geometry is only in compressed "
                           "form, which retail does not decode; decompress first, e.g. gltfpack "
                           "-noq or gltf-transform copy)");
      if (i != 0 || !bin_chunk)
        fail_invalid(where + ": has no uri and there is no GLB BIN chunk for it");
      doc.buffers[i] = *bin_chunk;
      doc.buffer_is_glb[i] = true;
      continue;
    }
    if (!b["uri"].is_string()) fail_invalid(where + ".uri: not a string");
    const std::string uri = b["uri"].get<std::string>();
    if (uri.rfind("data:", 0) == 0) {
      auto comma = uri.find(',');
      if (comma == std::string::npos || uri.rfind(";base64", comma) == std::string::npos)
        fail_invalid(where + ": data URI is not base64");
      if (!decode_data_uri(uri, doc.buffers[i]))
        fail_invalid(where + ": data URI is not valid base64");
      continue;
    }
    // No more than the buffer declares: a sidecar may be far longer (a sparse 3 GiB file).
    if (!b.contains("byteLength")) fail_invalid(where + ": byteLength missing");
    if (!b["byteLength"].is_number_unsigned())
      fail_invalid(where + ".byteLength: not a non-negative integer");
    ExternalFile file = read_sidecar(
        base_dir, where, uri,
        std::size_t(std::min<std::uint64_t>(b["byteLength"].get<std::uint64_t>(), SIZE_MAX)));
    doc.buffers[i] = file.bytes;
    doc.buffer_external[i] = int(doc.external.size());
    doc.external.push_back(std::move(file));
  }
  if (gltf.contains("images") && gltf["images"].is_array()) {
    for (std::size_t i = 0; i < gltf["images"].size(); ++i) {
      const Json& im = gltf["images"][i];
      if (!im.is_object() || !im.contains("uri") || !im["uri"].is_string()) continue;
      const std::string uri = im["uri"].get<std::string>();
      if (uri.rfind("data:", 0) == 0) continue;
      std::string where = "images[" + std::to_string(i) + "]";
      ExternalFile file = read_sidecar(base_dir, where, uri, kMaxImageBytes + 1);
      if (file.bytes.size() > kMaxImageBytes)
        fail_unsupported(where + ": '" + printable(uri) + "' is larger than " +
                         std::to_string(kMaxImageBytes >> 20) +
                         " MiB, the most retail reads of an image");
      doc.external.push_back(std::move(file));
    }
  }
}

Document parse_glb(const Bytes& bytes, const std::string& base_dir) {
  if (bytes.size() < 12)
    fail_invalid("GLB header: file is " + std::to_string(bytes.size()) + " bytes, needs 12");
  if (read_u32(bytes, 4) != 2)
    fail_unsupported("GLB header: container version " + std::to_string(read_u32(bytes, 4)) +
                     " (only 2 is supported)");
  std::size_t length = read_u32(bytes, 8);
  if (length > bytes.size())
    fail_invalid("GLB header: declares " + std::to_string(length) + " bytes, file has " +
                 std::to_string(bytes.size()));
  Document doc;
  doc.container = Container::Glb;
  Bytes bin;
  bool have_bin = false, have_json = false;
  std::size_t at = 12;
  for (int chunk = 0; at < length; ++chunk) {
    std::string where = "GLB chunk " + std::to_string(chunk);
    if (length - at < 8) fail_invalid(where + ": header truncated at byte " + std::to_string(at));
    std::size_t clen = read_u32(bytes, at);
    std::uint32_t ctype = read_u32(bytes, at + 4);
    if (clen > length - at - 8)
      fail_invalid(where + ": declares " + std::to_string(clen) + " bytes, " +
                   std::to_string(length - at - 8) + " remain");
    const std::uint8_t* data = bytes.data() + at + 8;
    if (chunk == 0) {
      if (ctype != kChunkJson) fail_invalid(where + ": the first chunk is not JSON");
      doc.gltf = parse_json_text(reinterpret_cast<const char*>(data),
                                 reinterpret_cast<const char*>(data + clen));
      have_json = true;
    } else if (ctype == kChunkJson) {
      fail_invalid(where + ": a second JSON chunk");
    } else if (ctype == kChunkBin) {
      if (have_bin || chunk != 1)
        fail_invalid(where + ": BIN chunk must be the second chunk and appear once");
      bin.assign(data, data + clen);
      have_bin = true;
    } else {
      doc.extra_chunks.push_back({ctype, Bytes(data, data + clen)});
    }
    at += 8 + clen;
  }
  if (!have_json) fail_invalid("GLB: no JSON chunk");
  load_resources(doc, base_dir, have_bin ? &bin : nullptr);
  return doc;
}

} // namespace

bool decode_data_uri(const std::string& uri, Bytes& out, std::string* media_type) {
  if (uri.rfind("data:", 0) != 0) return false;
  auto comma = uri.find(',');
  if (comma == std::string::npos) return false;
  auto base64 = uri.rfind(";base64", comma);
  if (base64 == std::string::npos) return false;
  if (media_type) *media_type = uri.substr(5, uri.find(';', 5) - 5);
  return base64_decode(uri, comma + 1, out);
}

namespace {

/// The JSON of a .gltf file's bytes (a BOM and leading white space allowed).
Json parse_gltf_text(const Bytes& bytes) {
  std::size_t first = 0;
  if (bytes.size() >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF)
    first = 3; // BOM
  while (first < bytes.size() && std::isspace(bytes[first])) ++first;
  if (first >= bytes.size() || bytes[first] != '{')
    fail_invalid("not a glTF file (no GLB magic and no JSON object)");
  const char* text = reinterpret_cast<const char*>(bytes.data());
  return parse_json_text(text + first, text + bytes.size());
}

} // namespace

Document parse_document(const Bytes& bytes, const std::string& base_dir) {
  if (bytes.size() >= 4 && read_u32(bytes, 0) == kGlbMagic) return parse_glb(bytes, base_dir);
  Document doc;
  doc.container = Container::Gltf;
  doc.gltf = parse_gltf_text(bytes);
  load_resources(doc, base_dir, nullptr);
  return doc;
}

std::vector<std::string> sidecar_files(const std::string& path) {
  Json gltf;
  const Bytes head = read_file(path, 20);
  if (head.size() >= 4 && read_u32(head, 0) == kGlbMagic) {
    if (head.size() < 20 || read_u32(head, 16) != kChunkJson)
      fail_invalid("GLB: no JSON chunk first");
    const std::size_t length = read_u32(head, 12);
    const Bytes bytes = read_file(path, 20 + length);
    if (bytes.size() < 20 + length) fail_invalid("GLB chunk 0: truncated");
    gltf = parse_json_text(reinterpret_cast<const char*>(bytes.data() + 20),
                           reinterpret_cast<const char*>(bytes.data() + 20 + length));
  } else {
    gltf = parse_gltf_text(read_file(path)); // a .gltf: its resources are not read
  }
  std::vector<std::string> out;
  for (const char* key : {"buffers", "images"}) {
    if (!gltf.contains(key) || !gltf[key].is_array()) continue;
    for (std::size_t i = 0; i < gltf[key].size(); ++i) {
      const Json& item = gltf[key][i];
      if (!item.is_object() || !item.contains("uri") || !item["uri"].is_string()) continue;
      const std::string uri = item["uri"].get<std::string>();
      if (uri.rfind("data:", 0) == 0) continue;
      out.push_back(sidecar_path(std::string(key) + "[" + std::to_string(i) + "]", uri));
    }
  }
  return out;
}

Document read_document(const std::string& path, std::string* sha256) {
  const Bytes bytes = read_file(path);
  // The hash on a thread of its own while the JSON is parsed (both only read the bytes; the
  // future is destroyed, and so waited for, before them even when parsing throws).
  std::future<std::string> hash;
  if (sha256) hash = std::async(std::launch::async, [&bytes] { return sha256_hex(bytes); });
  std::string dir = fs::path(path).parent_path().string();
  Document doc = parse_document(bytes, dir.empty() ? "." : dir);
  if (sha256) *sha256 = hash.get();
  return doc;
}

Bytes serialize_document(const Document& doc) {
  // Data-URI buffers whose bytes changed are re-encoded (in a copy of the JSON); untouched ones
  // keep their text, and without any the document's own JSON is written as it is.
  auto stale = [&](std::size_t i) {
    if (doc.buffer_is_glb[i] || doc.buffer_external[i] >= 0) return false;
    const Json& b = doc.gltf.at("buffers").at(i);
    return b.value("byteLength", std::uint64_t(0)) != doc.buffers[i].size() || !b.contains("uri");
  };
  bool any_stale = false;
  for (std::size_t i = 0; i < doc.buffers.size(); ++i) any_stale = any_stale || stale(i);
  std::string text;
  if (any_stale) {
    Json gltf = doc.gltf;
    for (std::size_t i = 0; i < doc.buffers.size(); ++i)
      if (stale(i))
        gltf["buffers"][i]["uri"] =
            "data:application/octet-stream;base64," + base64_encode(doc.buffers[i]);
    text = gltf.dump();
  } else {
    text = doc.gltf.dump();
  }
  if (doc.container == Container::Gltf) return Bytes(text.begin(), text.end());
  while (text.size() % 4) text.push_back(' ');
  Bytes out;
  const Bytes* bin = nullptr;
  for (std::size_t i = 0; i < doc.buffers.size(); ++i)
    if (doc.buffer_is_glb[i]) bin = &doc.buffers[i];
  std::size_t bin_len = bin ? (bin->size() + 3) / 4 * 4 : 0;
  std::size_t total = 12 + 8 + text.size() + (bin ? 8 + bin_len : 0);
  for (const auto& c : doc.extra_chunks) total += 8 + c.bytes.size();
  out.reserve(total);
  put_u32(out, kGlbMagic);
  put_u32(out, 2);
  put_u32(out, std::uint32_t(total));
  put_u32(out, std::uint32_t(text.size()));
  put_u32(out, kChunkJson);
  out.insert(out.end(), text.begin(), text.end());
  if (bin) {
    put_u32(out, std::uint32_t(bin_len));
    put_u32(out, kChunkBin);
    out.insert(out.end(), bin->begin(), bin->end());
    out.resize(out.size() + (bin_len - bin->size()), 0);
  }
  for (const auto& c : doc.extra_chunks) {
    put_u32(out, std::uint32_t(c.bytes.size()));
    put_u32(out, c.type);
    out.insert(out.end(), c.bytes.begin(), c.bytes.end());
  }
  return out;
}

std::vector<std::string> write_document(const Document& doc, const std::string& path,
                                        const Bytes* serialized) {
  Bytes own;
  if (!serialized) own = serialize_document(doc);
  const Bytes& main = serialized ? *serialized : own;
  fs::path dir = fs::path(path).parent_path();
  std::vector<fs::path> created;
  std::vector<std::unique_ptr<RemoveOnSignal>> guards; // created sidecars, until OUT is written
  try {
    for (const auto& ext : doc.external) {
      fs::path target = dir / ext.path;
      std::error_code ec;
      // A folder on the way that is a link must not take the copy out of OUT's folder.
      const std::string out_dir = dir.empty() ? "." : dir.string();
      if (!path_inside(target.string(), out_dir))
        fail_output("cannot write '" + target.string() +
                    "': a link on its way leads outside the output's folder");
      if (fs::exists(target, ec)) {
        // The file it was read from (OUT beside IN): never written, whatever its length.
        if (!ext.source.empty() && fs::equivalent(target, ext.source, ec)) continue;
        Bytes existing;
        try {
          existing = read_file(target.string(), ext.bytes.size() + 1);
        } catch (const Error&) {
        }
        if (existing == ext.bytes) continue; // identical
      }
      fs::create_directories(target.parent_path().empty() ? fs::path(".") : target.parent_path(),
                             ec);
      bool existed = fs::exists(target, ec);
      write_file_atomic(target.string(), ext.bytes);
      if (!existed) {
        created.push_back(target);
        guards.push_back(std::make_unique<RemoveOnSignal>(target.string()));
      }
    }
    write_file_atomic(path, main);
  } catch (...) {
    std::error_code ec;
    for (const auto& c : created) fs::remove(c, ec);
    throw;
  }
  std::vector<std::string> out;
  for (const auto& c : created) out.push_back(c.string());
  return out;
}

} // namespace retail
