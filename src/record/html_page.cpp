// The QA page: data as JSON, models and heat maps as base64, three.js and the page's own script
// inlined into tools/html/page.html (html_page.h).
#include "retail/record/html_page.h"

#include "record/html_assets.h"

#include "retail/base/error.h"
#include "retail/io/io.h"
#include "retail/rig/animation.h"

#include <cctype>
#include <cstring>
#include <map>
#include <stdexcept>

namespace retail {

bool page_supported() {
  return html_assets::three_module_count > 0;
}

namespace {

/// Appends the base64 of `size` bytes at `data` to `out`.
void append_base64(std::string& out, const std::uint8_t* data, std::size_t size) {
  static const char* digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  for (std::size_t i = 0; i < size; i += 3) {
    const std::uint32_t a = data[i], b = i + 1 < size ? data[i + 1] : 0,
                        c = i + 2 < size ? data[i + 2] : 0, v = (a << 16) | (b << 8) | c;
    out += digits[(v >> 18) & 63];
    out += digits[(v >> 12) & 63];
    out += i + 1 < size ? digits[(v >> 6) & 63] : '=';
    out += i + 2 < size ? digits[v & 63] : '=';
  }
}

} // namespace

std::string base64(const std::uint8_t* data, std::size_t size) {
  std::string out;
  out.reserve((size + 2) / 3 * 4);
  append_base64(out, data, size);
  return out;
}

std::string html_text(const std::string& text) {
  std::string out;
  for (char ch : text) {
    switch (ch) {
    case '&':
      out += "&amp;";
      break;
    case '<':
      out += "&lt;";
      break;
    case '>':
      out += "&gt;";
      break;
    case '"':
      out += "&quot;";
      break;
    case '\'':
      out += "&#39;";
      break;
    default:
      out += ch;
    }
  }
  return out;
}

std::string script_safe(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    out += text[i];
    if (text[i] != '<') continue;
    if (text.compare(i + 1, 3, "!--") == 0) {
      out += '\\';
    } else if (i + 1 < text.size() && text[i + 1] == '/') {
      std::string word = text.substr(i + 2, 6);
      for (char& ch : word) ch = char(std::tolower((unsigned char)ch));
      if (word == "script") out += '\\';
    }
  }
  return out;
}

std::string json_in_script(const Json& j) {
  const std::string text = j.dump(-1, ' ', false, Json::error_handler_t::replace);
  std::string out;
  out.reserve(text.size());
  for (char ch : text) {
    // Outside strings JSON has none of these, inside them the escape is the same character.
    if (ch == '<')
      out += "\\u003c";
    else if (ch == '>')
      out += "\\u003e";
    else if (ch == '&')
      out += "\\u0026";
    else
      out += ch;
  }
  return out;
}

std::string fill_template(std::string_view tmpl, const std::map<std::string, std::string>& values) {
  std::string out;
  std::size_t size = tmpl.size();
  for (const auto& [name, value] : values) size += value.size();
  out.reserve(size); // each value once: the page's models are most of it
  std::size_t at = 0;
  while (true) {
    const std::size_t open = tmpl.find("{{", at);
    if (open == std::string_view::npos) break;
    const std::size_t close = tmpl.find("}}", open + 2);
    if (close == std::string_view::npos) break;
    const std::string name(tmpl.substr(open + 2, close - open - 2));
    auto it = values.find(name);
    if (it == values.end()) throw std::logic_error("html template: no value for {{" + name + "}}");
    out.append(tmpl.substr(at, open - at));
    out += it->second;
    at = close + 2;
  }
  out.append(tmpl.substr(at));
  return out;
}

namespace {

/// A media type for an image sidecar, from its file name (the page's browser decodes by content).
std::string image_mime(const std::string& uri) {
  std::string lower = uri;
  for (char& ch : lower) ch = char(std::tolower((unsigned char)ch));
  auto ends = [&](const char* ext) {
    const std::size_t n = std::strlen(ext);
    return lower.size() >= n && lower.compare(lower.size() - n, n, ext) == 0;
  };
  if (ends(".jpg") || ends(".jpeg")) return "image/jpeg";
  if (ends(".webp")) return "image/webp";
  if (ends(".ktx2")) return "image/ktx2";
  return "image/png";
}

} // namespace

int PageBlobs::add(const std::uint8_t* data, std::size_t size) {
  std::uint64_t h = 1469598103934665603ull; // FNV-1a
  for (std::size_t i = 0; i < size; ++i) h = (h ^ data[i]) * 1099511628211ull;
  h ^= size;
  for (auto [it, end] = by_hash_.equal_range(h); it != end; ++it) {
    const Bytes& b = blobs_[std::size_t(it->second)];
    if (b.size() == size && (size == 0 || std::memcmp(b.data(), data, size) == 0))
      return it->second;
  }
  blobs_.emplace_back(data, data + size);
  by_hash_.emplace(h, int(blobs_.size()) - 1);
  return int(blobs_.size()) - 1;
}

namespace {

/// Marks the buffer view `j[key]` names (when it is an index in range) in `used`.
void mark_view(const Json& j, const char* key, std::vector<bool>& used) {
  if (!j.is_object() || !j.contains(key) || !j[key].is_number_integer()) return;
  const std::int64_t v = j[key].get<std::int64_t>(); // an int the rig edit wrote, or unsigned
  if (v >= 0 && std::uint64_t(v) < used.size()) used[std::size_t(v)] = true;
}

/// The buffer views accessors (their sparse parts too) and images read.
std::vector<bool> used_views(const Json& gltf) {
  std::vector<bool> used(gltf.contains("bufferViews") ? gltf["bufferViews"].size() : 0, false);
  for (const char* list : {"accessors", "images"}) {
    if (!gltf.contains(list) || !gltf[list].is_array()) continue;
    for (const Json& item : gltf[list]) {
      mark_view(item, "bufferView", used);
      if (item.is_object() && item.contains("sparse") && item["sparse"].is_object()) {
        for (const char* part : {"indices", "values"})
          if (item["sparse"].contains(part)) mark_view(item["sparse"][part], "bufferView", used);
      }
    }
  }
  return used;
}

/// The bytes of image `image`'s uri: a sidecar read with `doc`, or a data URI; false when
/// neither (its uri is then dropped and the image shows nothing).
bool image_bytes(const Document& doc, const Json& image, Bytes& bytes, std::string& mime) {
  const std::string uri = image["uri"].get<std::string>();
  mime = image_mime(uri);
  if (uri.rfind("data:", 0) == 0) {
    std::string type;
    if (!decode_data_uri(uri, bytes, &type)) return false;
    if (type.rfind("image/", 0) == 0) mime = type;
    return true;
  }
  for (const ExternalFile& f : doc.external)
    if (f.uri == uri) return bytes = f.bytes, true;
  return false;
}

/// Every image with a uri moved into a new buffer view of `view` (its bytes a blob).
void embed_images(const Document& doc, PageBlobs& blobs, PageView& view) {
  Json& gltf = view.gltf;
  if (!gltf.contains("images") || !gltf["images"].is_array()) return;
  for (Json& image : gltf["images"]) {
    if (!image.is_object() || !image.contains("uri") || !image["uri"].is_string()) continue;
    Bytes bytes;
    std::string mime;
    const bool found = image_bytes(doc, image, bytes, mime);
    image.erase("uri");
    if (!found) continue;
    if (!image.contains("mimeType")) image["mimeType"] = mime;
    if (!gltf.contains("bufferViews")) gltf["bufferViews"] = Json::array();
    image["bufferView"] = gltf["bufferViews"].size();
    gltf["bufferViews"].push_back({{"buffer", 0}, {"byteLength", bytes.size()}});
    view.blobs.push_back(blobs.add(bytes.data(), bytes.size()));
  }
}

} // namespace

void embed_model(const Document& doc, PageBlobs& blobs, PageView& view) {
  view.gltf = doc.gltf;
  Json& gltf = view.gltf;
  const std::vector<bool> used = used_views(gltf);
  view.blobs.assign(used.size(), -1);
  for (std::size_t v = 0; v < used.size(); ++v) {
    Json& bv = gltf["bufferViews"][v];
    for (const char* ext : {"EXT_meshopt_compression", "KHR_meshopt_compression"})
      if (bv.contains("extensions") && bv["extensions"].is_object()) bv["extensions"].erase(ext);
    if (!used[v]) continue;
    const std::size_t b = bv.value("buffer", std::size_t(0)),
                      offset = bv.value("byteOffset", std::size_t(0)),
                      length = bv.value("byteLength", std::size_t(0));
    if (b >= doc.buffers.size() || offset > doc.buffers[b].size() ||
        length > doc.buffers[b].size() - offset)
      continue; // validated input never gets here
    view.blobs[v] = blobs.add(doc.buffers[b].data() + offset, length);
  }
  if (gltf.contains("buffers"))
    for (std::size_t i = 0; i < gltf["buffers"].size(); ++i)
      gltf["buffers"][i] = {
          {"byteLength", i < doc.buffers.size() ? doc.buffers[i].size() : std::size_t(0)}};
  embed_images(doc, blobs, view);
}

PageView make_view(const std::string& key, const std::string& label, const Document& doc,
                   const Model& model, const std::vector<Character>& characters,
                   const std::vector<int>& clips, int samples, int threads, PageBlobs& blobs,
                   const HeldSkins* held, const std::vector<RotationTrack>* tracks) {
  PageView v;
  v.key = key;
  v.label = label;
  embed_model(doc, blobs, v);
  v.heat = heat_map(doc, model, characters, clips, samples, threads, held, tracks);
  return v;
}

std::vector<PageClip> page_clips(const Document& doc, const Model& model,
                                 const std::vector<int>& clips) {
  std::vector<PageClip> out;
  for (int c : clips)
    out.push_back(
        {c, model.animations[std::size_t(c)].name, ClipSampler(doc, model, c).duration()});
  return out;
}

namespace {

/// One primitive's slice of per-vertex bytes, as base64.
std::string slice64(const std::vector<std::uint8_t>& bytes, const SourcePrimitive& s) {
  return base64(bytes.data() + s.first, s.count);
}

Json where_json(const SourcePrimitive& s) {
  return {{"node", s.where.node}, {"mesh", s.where.mesh}, {"primitive", s.where.primitive}};
}

/// A view's entry in the page data: its model's element id, chain nodes and per primitive the
/// heat map of every clip (heat_code bytes, base64).
Json view_json(const PageView& v, std::size_t clips) {
  Json heat = Json::array();
  for (const CharacterHeat& c : v.heat) {
    if (c.worst.size() != clips)
      throw std::invalid_argument("make_page: a heat map's clip count differs from the page's");
    std::vector<std::vector<std::uint8_t>> codes;
    for (const auto& worst : c.worst) {
      codes.emplace_back(worst.size());
      for (std::size_t i = 0; i < worst.size(); ++i) codes.back()[i] = heat_code(worst[i]);
    }
    for (const SourcePrimitive& s : c.sources) {
      Json entry = where_json(s), per_clip = Json::array();
      for (const auto& clip_codes : codes) per_clip.push_back(slice64(clip_codes, s));
      entry["clips"] = per_clip;
      heat.push_back(entry);
    }
  }
  return {{"key", v.key},
          {"label", v.label},
          {"gltf", v.gltf},
          {"blobs", v.blobs},
          {"chain_nodes", v.chain_nodes},
          {"heat", heat}};
}

/// Per primitive holding tail vertices: 1 byte per vertex (1: tail), base64.
Json tail_json(const PageData& data) {
  Json out = Json::array();
  if (data.views.empty()) return out;
  const auto& heat = data.views[0].heat;
  for (std::size_t k = 0; k < data.tail.size() && k < heat.size(); ++k) {
    std::vector<std::uint8_t> flags(heat[k].worst.empty() ? 0 : heat[k].worst[0].size(), 0);
    if (flags.empty())
      for (const auto& s : heat[k].sources) flags.resize(std::max(flags.size(), s.first + s.count));
    for (std::size_t v : data.tail[k])
      if (v < flags.size()) flags[v] = 1;
    for (const SourcePrimitive& s : heat[k].sources) {
      bool any = false;
      for (std::size_t i = 0; i < s.count; ++i) any = any || flags[s.first + i];
      if (!any) continue;
      Json entry = where_json(s);
      entry["vertices"] = slice64(flags, s);
      out.push_back(entry);
    }
  }
  return out;
}

Json data_json(const PageData& data) {
  Json clips = Json::array(), views = Json::array();
  for (const PageClip& c : data.clips)
    clips.push_back({{"index", c.index}, {"name", c.name}, {"duration", c.duration}});
  for (std::size_t i = 0; i < data.views.size(); ++i)
    views.push_back(view_json(data.views[i], data.clips.size()));
  return {{"schema", "retail.page/1"},
          {"kind", data.kind},
          {"title", data.title},
          {"three", std::string(html_assets::three_version)},
          {"torn_above", data.torn_above},
          {"torn_below", data.torn_below},
          {"clips", clips},
          {"views", views},
          {"tail", tail_json(data)},
          {"report", data.report}};
}

} // namespace

std::string make_page(const PageData& data) {
  if (!page_supported())
    throw Error(ExitCode::Unsupported,
                "this retail was built without three.js, which --html inlines into the page "
                "(run scripts/setup.sh, then configure and build again)");
  std::string modules;
  for (int i = 0; i < html_assets::three_module_count; ++i) {
    const html_assets::Module& m = html_assets::three_modules[i];
    modules += "<script type=\"text/plain\" data-specifier=\"" + std::string(m.specifier) + "\">" +
               script_safe(std::string(m.source)) + "</script>\n";
  }
  modules += "<script type=\"text/plain\" data-specifier=\"retail/report\">" +
             script_safe(std::string(html_assets::report_js)) + "</script>\n";
  std::map<std::string, std::string> values = {
      {"title", html_text(data.title)},
      {"style", std::string(html_assets::page_css)},
      {"data", json_in_script(data_json(data))},
      {"modules", std::move(modules)},
      {"app", script_safe(std::string(html_assets::page_js))},
      {"boot", script_safe(std::string(html_assets::boot_js))}};
  // The blobs, written once each straight into their element (no copy of the page's bulk).
  std::string& models = values["models"];
  std::size_t size = 0;
  for (const Bytes& b : data.blobs.all()) size += 64 + (b.size() + 2) / 3 * 4;
  models.reserve(size);
  for (std::size_t i = 0; i < data.blobs.all().size(); ++i) {
    const Bytes& b = data.blobs.all()[i];
    models += "<script type=\"text/plain\" id=\"retail-blob-" + std::to_string(i) + "\">";
    append_base64(models, b.data(), b.size());
    models += "</script>\n";
  }
  return fill_template(html_assets::page_html, values);
}

} // namespace retail
