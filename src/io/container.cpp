// Container conversion, GLB <-> .gltf (see container.h).
#include "retail/io/container.h"
#include "retail/base/error.h"
#include "retail/io/io.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>

namespace fs = std::filesystem;

namespace retail {
namespace {

std::string lower_extension(const std::string& path) {
  std::string ext = fs::path(path).extension().string();
  for (char& ch : ext) ch = char(std::tolower((unsigned char)ch));
  return ext;
}

/// `name` as a relative URI: bytes outside RFC 3986's unreserved set percent-encoded.
std::string percent_encode(const std::string& name) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : name) {
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~') {
      out.push_back(char(c));
    } else {
      out.push_back('%');
      out.push_back(hex[c >> 4]);
      out.push_back(hex[c & 15]);
    }
  }
  return out;
}

std::size_t align4(std::size_t n) {
  return (n + 3) / 4 * 4;
}

/// The image media type its first bytes announce, or "" (PNG, JPEG, WebP, KTX2, GIF, BMP).
std::string sniff_image_type(const Bytes& b) {
  auto starts = [&](std::initializer_list<int> sig, std::size_t at = 0) {
    if (b.size() < at + sig.size()) return false;
    std::size_t i = at;
    for (int s : sig)
      if (b[i++] != std::uint8_t(s)) return false;
    return true;
  };
  if (starts({0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A})) return "image/png";
  if (starts({0xFF, 0xD8, 0xFF})) return "image/jpeg";
  if (starts({'R', 'I', 'F', 'F'}) && starts({'W', 'E', 'B', 'P'}, 8)) return "image/webp";
  if (starts({0xAB, 'K', 'T', 'X', ' ', '2', '0', 0xBB})) return "image/ktx2";
  if (starts({'G', 'I', 'F', '8'})) return "image/gif";
  if (starts({'B', 'M'})) return "image/bmp";
  return "";
}

/// Moves buffer `b`'s views (and meshopt extensions' references to it) to buffer 0 at `base`.
void rebase_views(Json& gltf, std::size_t b, std::size_t base) {
  if (!gltf.contains("bufferViews")) return;
  auto rebase = [&](Json& ref) {
    if (!ref.is_object() || !ref.contains("buffer") || ref["buffer"] != b) return;
    ref["buffer"] = 0;
    if (base != 0) ref["byteOffset"] = ref.value("byteOffset", std::uint64_t(0)) + base;
  };
  for (Json& view : gltf["bufferViews"]) {
    if (!view.is_object()) continue;
    if (view.contains("extensions") && view["extensions"].is_object())
      for (const char* ext : {"EXT_meshopt_compression", "KHR_meshopt_compression"})
        if (view["extensions"].contains(ext)) rebase(view["extensions"][ext]);
    rebase(view);
  }
}

/// GLB -> .gltf: the BIN chunk's buffer (its byteLength, without the chunk's padding) becomes
/// the sidecar `bin_name`; every other buffer and image keeps its reference.
Document glb_to_gltf(Document doc, const std::string& bin_name) {
  for (std::size_t i = 0; i < doc.buffers.size(); ++i) {
    if (!doc.buffer_is_glb[i]) continue;
    Json& b = doc.gltf["buffers"][i];
    Bytes bytes = doc.buffers[i];
    bytes.resize(std::min(bytes.size(), std::size_t(b.value("byteLength", bytes.size()))));
    const std::string uri = percent_encode(bin_name);
    b["uri"] = uri;
    doc.buffer_is_glb[i] = false;
    doc.buffer_external[i] = int(doc.external.size());
    doc.external.push_back({uri, bin_name, std::move(bytes), ""});
  }
  doc.container = Container::Gltf;
  doc.append_buffer = -1;
  return doc;
}

/// An image referenced by uri, with its bytes and media type; type "" when not embeddable.
struct UriImage {
  Bytes bytes;
  std::string type;
};

UriImage uri_image(const Document& doc, const Json& image) {
  UriImage out;
  const std::string uri = image["uri"].get<std::string>();
  std::string media;
  if (uri.rfind("data:", 0) == 0) {
    if (!decode_data_uri(uri, out.bytes, &media)) return {};
  } else {
    const ExternalFile* file = nullptr;
    for (std::size_t e = 0; e < doc.external.size() && !file; ++e) {
      bool is_buffer = false;
      for (int be : doc.buffer_external) is_buffer = is_buffer || be == int(e);
      if (!is_buffer && doc.external[e].uri == uri) file = &doc.external[e];
    }
    if (!file) return {};
    out.bytes = file->bytes;
  }
  if (image.contains("mimeType") && image["mimeType"].is_string())
    out.type = image["mimeType"].get<std::string>();
  else if (media.rfind("image/", 0) == 0)
    out.type = media;
  else
    out.type = sniff_image_type(out.bytes);
  return out;
}

/// .gltf -> GLB, the buffers: every buffer's bytes (its byteLength) into one, each at a 4-byte
/// boundary, the views rebased. Returns the merged bytes; doc.gltf["buffers"] is left to the
/// caller.
Bytes merge_buffers(Document& doc) {
  Bytes merged;
  for (std::size_t i = 0; i < doc.buffers.size(); ++i) {
    const Bytes& src = doc.buffers[i];
    std::size_t n = std::min(src.size(), std::size_t(doc.gltf["buffers"][i].value(
                                             "byteLength", std::uint64_t(src.size()))));
    std::size_t base = align4(merged.size());
    merged.resize(base, 0);
    merged.insert(merged.end(), src.begin(), src.begin() + std::ptrdiff_t(n));
    if (i != 0) rebase_views(doc.gltf, i, base);
  }
  return merged;
}

/// .gltf -> GLB, the images: each image referenced by uri whose type is known goes into a new
/// buffer view of `merged` (one view per distinct uri); the others keep their uri and, when a
/// sidecar, their file in `kept`.
void embed_images(Document& doc, Bytes& merged, std::vector<ExternalFile>& kept) {
  if (!doc.gltf.contains("images") || !doc.gltf["images"].is_array()) return;
  std::map<std::string, std::pair<std::size_t, std::string>> view_of_uri; // view, type
  for (Json& image : doc.gltf["images"]) {
    if (!image.is_object() || !image.contains("uri") || !image["uri"].is_string()) continue;
    const std::string uri = image["uri"].get<std::string>();
    auto known = view_of_uri.find(uri);
    if (known == view_of_uri.end()) {
      UriImage im = uri_image(doc, image);
      if (im.type.empty()) {
        for (const auto& e : doc.external)
          if (e.uri == uri && uri.rfind("data:", 0) != 0) kept.push_back(e);
        continue;
      }
      std::size_t base = align4(merged.size());
      merged.resize(base, 0);
      merged.insert(merged.end(), im.bytes.begin(), im.bytes.end());
      if (!doc.gltf.contains("bufferViews")) doc.gltf["bufferViews"] = Json::array();
      doc.gltf["bufferViews"].push_back(
          {{"buffer", 0}, {"byteOffset", base}, {"byteLength", im.bytes.size()}});
      known = view_of_uri.emplace(uri, std::make_pair(doc.gltf["bufferViews"].size() - 1, im.type))
                  .first;
    }
    image.erase("uri");
    image["bufferView"] = known->second.first;
    if (!image.contains("mimeType")) image["mimeType"] = known->second.second;
  }
}

/// .gltf -> GLB: buffers merged into the BIN chunk, images embedded (see container.h).
Document gltf_to_glb(Document doc) {
  Bytes merged = merge_buffers(doc);
  std::vector<ExternalFile> kept;
  embed_images(doc, merged, kept);
  const bool any = !doc.buffers.empty() || !merged.empty();
  if (any) {
    Json buffer = doc.buffers.empty() ? Json::object() : doc.gltf["buffers"][0];
    buffer.erase("uri");
    buffer["byteLength"] = merged.size();
    doc.gltf["buffers"] = Json::array({buffer});
  }
  doc.buffers.clear();
  if (any) doc.buffers.push_back(std::move(merged));
  doc.buffer_is_glb.assign(doc.buffers.size(), true);
  doc.buffer_external.assign(doc.buffers.size(), -1);
  doc.external = std::move(kept);
  doc.container = Container::Glb;
  doc.append_buffer = -1;
  return doc;
}

} // namespace

Container container_for_path(const std::string& path) {
  const std::string ext = lower_extension(path);
  if (ext == ".glb" || ext == ".vrm") return Container::Glb;
  if (ext == ".gltf") return Container::Gltf;
  throw Error(ExitCode::Usage, "the output '" + path + "' must end in .glb, .vrm or .gltf");
}

std::string bin_sidecar_name(const std::string& out_path) {
  return fs::path(out_path).filename().replace_extension(".bin").string();
}

void check_convertible(const Document& doc, Container to, const std::string& out_path) {
  if (doc.container == to || to != Container::Gltf) return;
  if (!doc.extra_chunks.empty())
    fail_unsupported("GLB: a chunk of type " + std::to_string(doc.extra_chunks[0].type) +
                     " (neither JSON nor BIN) has no place in a .gltf; write the output as .glb "
                     "or .vrm to keep it");
  const std::string bin = bin_sidecar_name(out_path);
  for (const auto& e : doc.external)
    if (fs::path(e.path).lexically_normal() == fs::path(bin))
      fail_unsupported("the GLB already references a sidecar '" + e.uri +
                       "', the name its BIN chunk would take as .gltf; name the output otherwise");
}

Document convert_container(Document doc, Container to, const std::string& out_path) {
  if (doc.container == to) return doc;
  check_convertible(doc, to, out_path);
  return to == Container::Gltf ? glb_to_gltf(std::move(doc), bin_sidecar_name(out_path))
                               : gltf_to_glb(std::move(doc));
}

} // namespace retail
