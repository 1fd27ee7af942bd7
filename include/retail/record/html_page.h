// retail — the QA page (docs/html-page.md): one self-contained HTML file that shows the input
// rig, the rigid reference and the re-rigged output side by side (or one rig, for `retail
// report`), with the heat map retail computed and the report, and works offline.
//
// Everything the page needs is in the file: three.js (pinned in tests/js/package.json, inlined
// at build time from tools/html and node_modules by cmake/embed_html.cmake), the models (glTF
// JSON whose buffer views point at byte runs embedded once each, base64), the heat maps (one byte
// per vertex per clip, base64) and the report. The page makes no network request. Deterministic:
// the same data gives the same bytes.
#pragma once

#include "retail/base/document.h"
#include "retail/base/model.h"
#include "retail/qa/heat_map.h"
#include "retail/rig/skeleton.h"

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace retail {

/// The distinct runs of bytes the page's models read, each embedded once: the three rigs of a
/// re-rig share their mesh, textures and clips (only weights, joints, nodes and keys differ).
class PageBlobs {
public:
  /// The index of `size` bytes at `data` among the blobs: an equal run already there, else a
  /// copy appended.
  int add(const std::uint8_t* data, std::size_t size);
  const std::vector<Bytes>& all() const { return blobs_; }

private:
  std::vector<Bytes> blobs_;
  std::multimap<std::uint64_t, int> by_hash_;
};

/// One model on the page.
struct PageView {
  std::string key;   ///< "input", "rigid", "output" or "rig" (the test hook names views by it)
  std::string label; ///< the heading above it
  /// Its glTF JSON as the page loads it (embed_model): no buffer data, no uri; every image in a
  /// buffer view.
  Json gltf;
  std::vector<int> blobs; ///< per buffer view of `gltf`: its bytes in PageData::blobs, -1 unused
  std::vector<CharacterHeat> heat; ///< per character; clips as PageData::clips
  std::vector<int> chain_nodes;    ///< the grown chain's nodes ("tail motion off" drops them)
};

struct PageClip {
  int index = -1; ///< the glTF animation index (the same in every view)
  std::string name;
  double duration = 0; ///< seconds
};

/// What the page shows.
struct PageData {
  std::string kind;  ///< "rerig" (`retail IN OUT`) or "report" (`retail report IN`)
  std::string title; ///< the input's file name
  double torn_above = 1.5, torn_below = 0.67;
  std::vector<PageClip> clips; ///< the clips measured, in order
  std::vector<PageView> views;
  PageBlobs blobs; ///< the bytes every view's buffer views point at
  /// Per character: the tail's vertex ids (the character's primitives concatenated, as in
  /// views[0].heat[k].sources): the test hook's tail box.
  std::vector<std::vector<std::size_t>> tail;
  Json report; ///< retail.report/1 or retail.stretch/1, without its timings
};

/// Is three.js built in (cmake found tests/js/node_modules/three)? Without it make_page throws.
bool page_supported();

/// The page's HTML text. Failure: Error(Unsupported) when built without three.js;
/// std::invalid_argument when a view's heat map has a different clip count than `clips`.
std::string make_page(const PageData& data);

/// A view of `doc` (a rig as the page shows it): its model (embed_model, its bytes added to
/// `blobs`) and the heat map of every character under `clips` (heat_map.h, `samples` per clip,
/// clips on `threads` workers). Pre: as heat_map's (`held` with the model and characters of a
/// planned rig, `doc` holding its edit written; `tracks` the keys `doc` holds written). Failure:
/// what heat_map throws.
PageView make_view(const std::string& key, const std::string& label, const Document& doc,
                   const Model& model, const std::vector<Character>& characters,
                   const std::vector<int>& clips, int samples, int threads, PageBlobs& blobs,
                   const HeldSkins* held = nullptr,
                   const std::vector<RotationTrack>* tracks = nullptr);

/// The page's clip list: index, name and the duration the stretch samples (ClipSampler).
std::vector<PageClip> page_clips(const Document& doc, const Model& model,
                                 const std::vector<int>& clips);

/// `doc`'s model as the page loads it, GLB or .gltf alike: the bytes of every buffer view an
/// accessor or image uses (a buffer appended in memory too) and of every image a `uri` names (a
/// sidecar or a data URI) added to `blobs` once; `view.gltf` the JSON with buffers reduced to
/// their byteLength (no uri: the page fetches nothing), images moved into new buffer views,
/// meshopt extensions dropped from the views (their data is the uncompressed fallback retail
/// reads); `view.blobs` per buffer view its blob (-1: unused, not embedded).
void embed_model(const Document& doc, PageBlobs& blobs, PageView& view);

/// JavaScript source `text` safe inside an HTML <script> element: every "</script" (any case)
/// becomes "<\/script" and every "<!--" becomes "<\!--". Both can occur in valid JavaScript only
/// inside a string, template or regular expression, where the escaped form means the same.
std::string script_safe(const std::string& text);

/// `j` as JSON text that can stand inside an HTML <script> element: '<', '>' and '&' written
/// as \u003c, \u003e, \u0026 (the same JSON value); invalid UTF-8 replaced by U+FFFD.
std::string json_in_script(const Json& j);

/// `text` as HTML text content: & < > " ' escaped.
std::string html_text(const std::string& text);

/// `tmpl` with every {{name}} replaced by values.at(name), in one pass (inserted text is never
/// scanned for markers). Failure: std::logic_error for a marker without a value (a template bug).
std::string fill_template(std::string_view tmpl, const std::map<std::string, std::string>& values);

/// Standard base64 (RFC 4648, with '=' padding).
std::string base64(const std::uint8_t* data, std::size_t size);

} // namespace retail
