// The driver: load_input and run (see pipeline.h).
#include "retail/pipeline.h"

#include "retail/error.h"
#include "retail/parallel.h"
#include "retail/report.h"
#include "retail/sha256.h"

#include <chrono>
#include <filesystem>
#include <future>
#include <memory>
#include <regex>
#include <set>

namespace fs = std::filesystem;

namespace retail {
namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

/// Bytes held in the document's buffers.
std::size_t buffer_bytes(const Document& doc) {
  std::size_t bytes = 0;
  for (const Bytes& b : doc.buffers) bytes += b.size();
  return bytes;
}

std::string lower_extension(const std::string& path) {
  std::string ext = fs::path(path).extension().string();
  for (char& ch : ext) ch = char(std::tolower((unsigned char)ch));
  return ext;
}

void check_output_path(const std::string& in_path, const std::string& out_path,
                       Container container) {
  std::error_code ec;
  if (fs::exists(out_path, ec) && fs::equivalent(in_path, out_path, ec))
    throw Error(ExitCode::Usage,
                "the output '" + out_path + "' is the input file; retail never modifies its input");
  std::string ext = lower_extension(out_path);
  bool want_glb = ext == ".glb" || ext == ".vrm";
  if (!want_glb && ext != ".gltf")
    throw Error(ExitCode::Usage, "the output '" + out_path + "' must end in .glb, .vrm or .gltf");
  if (want_glb != (container == Container::Glb))
    throw Error(ExitCode::Usage, std::string("the input is a ") +
                                     (container == Container::Glb ? "GLB" : ".gltf") +
                                     " file; write the output as " +
                                     (container == Container::Glb ? ".glb/.vrm" : ".gltf") +
                                     " (retail does not convert containers)");
  fs::path dir = fs::path(out_path).parent_path();
  if (!dir.empty() && !fs::is_directory(dir, ec))
    throw Error(ExitCode::OutputFailed, "the output folder '" + dir.string() + "' does not exist");
}

/// The re-rigged document read back once, for the bake and the stretch: our own output is
/// validated like any input. The bake only appends animation channels, so the characters and
/// the result's skins stay valid after it.
struct Rigged {
  Model model;
  std::vector<Character> characters;
  std::vector<std::unique_ptr<SkinSampler>> skins; ///< per character; null without a chain
};

Rigged read_rigged(const Input& in, const RunParams& params, const RunResult& result) {
  Rigged r;
  r.model = parse_model(in.doc);
  r.characters = build_characters(in.doc, r.model, params.bind);
  for (std::size_t k = 0; k < in.characters.size(); ++k)
    r.skins.push_back(result.characters[k].chains.empty()
                          ? nullptr
                          : std::make_unique<SkinSampler>(in.doc, r.model, r.characters[k]));
  return r;
}

/// The stretch rigs the bake does not change, per character with a chain: the original rig and
/// the rigid reference (tail only; the body's baseline is the result's), posed by the input's
/// clips. Prepared once the rerig has found the tail; measured beside the bake (run_before).
struct BeforeStretch {
  struct Rigs {
    std::size_t character = 0;
    std::unique_ptr<SkinSampler> before, rigid;
    std::vector<bool> tail;
    std::vector<std::pair<int, int>> edges;
    std::vector<std::vector<ClipStretch>> measured; ///< [0] original, [1] rigid; per clip
  };
  std::vector<Rigs> rigs;
  /// When measured beside the bake: the input's buffers as they were before it (the bake
  /// appends to, and may reallocate, the document's buffers meanwhile; clips read only
  /// buffers, accessor.h). Empty otherwise.
  Document buffers;
};

/// `copy_buffers`: keep a copy of the input's buffers to measure from (while the bake edits the
/// document); otherwise the job reads the document itself, after the bake.
std::unique_ptr<BeforeStretch> prepare_before(const Input& in, const RunResult& result,
                                              bool copy_buffers) {
  auto job = std::make_unique<BeforeStretch>();
  for (std::size_t k = 0; k < in.characters.size(); ++k) {
    const CharacterResult& cr = result.characters[k];
    if (cr.chains.empty()) continue;
    BeforeStretch::Rigs r;
    r.character = k;
    r.before = std::make_unique<SkinSampler>(in.doc, in.model, in.characters[k]);
    r.rigid = std::make_unique<SkinSampler>(*r.before); // the same skin, then pinned
    r.tail.assign(r.before->size(), false);
    for (const auto& ch : cr.chains)
      for (std::size_t v : ch.original_vertices) {
        r.tail[v] = true;
        r.rigid->pin(v, in.characters[k].roles.hips);
      }
    r.edges = mesh_edges(in.doc, in.model, *r.before);
    job->rigs.push_back(std::move(r));
  }
  if (copy_buffers) job->buffers.buffers = in.doc.buffers;
  return job;
}

/// Measures the prepared rigs on `threads` workers. Reads only the job and the input's model.
/// `doc`: the job's copy of the buffers, or the document once nothing edits it any more.
void run_before(BeforeStretch& job, const Document& doc, const Model& model,
                const std::vector<int>& clips, const StretchParams& params, int threads) {
  for (auto& r : job.rigs)
    r.measured =
        measure_stretch_rigs(doc, {{&model, r.before.get(), false}, {&model, r.rigid.get(), false}},
                             r.edges, r.tail, clips, params, threads);
}

/// Stretch of every character with a chain: the result rig (tail and body) measured here, the
/// original and rigid rigs from `before` (measured, or being measured, beside the bake).
/// `result_model`: the output's model (with the baked channels).
void measure_result(const Input& in, const Model& result_model, const Rigged& rigged,
                    const std::vector<int>& clips, const RunParams& params, BeforeStretch& before,
                    std::future<void>* before_done, RunResult& result) {
  // The result rigs first, on every worker, while the before rigs may still be running.
  std::vector<std::vector<ClipStretch>> after(in.characters.size());
  for (const auto& r : before.rigs)
    after[r.character] =
        measure_stretch_rigs(in.doc, {{&result_model, rigged.skins[r.character].get(), true}},
                             r.edges, r.tail, clips, params.stretch, params.threads)[0];
  if (before_done) before_done->get(); // rethrows what the before rigs threw
  std::size_t next = 0;
  for (std::size_t k = 0; k < in.characters.size(); ++k) {
    result.stretch.emplace_back();
    if (next >= before.rigs.size() || before.rigs[next].character != k) continue;
    const auto &a = before.rigs[next].measured[0], &b = before.rigs[next].measured[1],
               &c = after[k];
    ++next;
    for (std::size_t i = 0; i < clips.size(); ++i) {
      StretchRow row;
      row.clip = c[i].clip;
      row.name = c[i].name;
      row.duration = c[i].duration;
      row.original = a[i].tail;
      row.rigid = b[i].tail;
      row.result = c[i].tail;
      row.body = c[i].body;
      row.has_original = row.has_rigid = true;
      result.stretch.back().push_back(row);
    }
    for (const auto& f : evaluate_fail_on(params.fail_on, result.stretch.back()))
      result.failures.push_back(f);
  }
}

/// The spring baked into every selected clip, per character with chains. The floor g_0 is the
/// lowest bind point of the body's skin, vertices dominated by a chain bone excluded.
std::size_t bake_result(Input& in, const Rigged& rigged, const std::vector<int>& clips,
                        const RunParams& params, RunResult& result) {
  std::size_t baked = 0;
  for (std::size_t k = 0; k < in.characters.size(); ++k) {
    const CharacterResult& cr = result.characters[k];
    result.bakes.emplace_back();
    result.floors.push_back(NAN);
    if (cr.chains.empty()) continue;
    const SkinSampler& skin = *rigged.skins[k];
    std::set<int> chain_nodes;
    for (const auto& ch : cr.chains) chain_nodes.insert(ch.nodes.begin(), ch.nodes.end());
    std::vector<int> dominant = skin.dominant_node();
    double floor = INFINITY;
    for (std::size_t v = 0; v < skin.size(); ++v)
      if (!chain_nodes.count(dominant[v])) floor = std::min(floor, skin.bind()[v].y());
    if (!std::isfinite(floor)) floor = rigged.characters[k].min_y;
    if (std::isfinite(params.bake.floor_y)) floor = params.bake.floor_y;
    result.floors.back() = floor;
    result.bakes.back() = bake_chains(in.doc, rigged.model, rigged.characters[k], cr.chains, clips,
                                      floor, params.bake, result.warnings, params.threads);
    baked += result.bakes.back().size();
  }
  return baked;
}

} // namespace

std::vector<int> select_clips(const Model& model, const std::vector<std::string>& names) {
  std::vector<int> out;
  if (names.empty()) {
    for (std::size_t i = 0; i < model.animations.size(); ++i) out.push_back(int(i));
    return out;
  }
  auto short_name = [](const std::string& name) {
    std::size_t bar = name.rfind('|');
    return bar == std::string::npos ? name : name.substr(bar + 1);
  };
  for (const auto& n : names) {
    int found = -1, matches = 0;
    for (std::size_t i = 0; i < model.animations.size() && found < 0; ++i)
      if (model.animations[i].name == n) found = int(i);
    // "Walk" also names "CharacterArmature|Walk" (Blender's armature prefix), when only one.
    for (std::size_t i = 0; i < model.animations.size() && found < 0; ++i)
      if (short_name(model.animations[i].name) == n) ++matches;
    for (std::size_t i = 0; i < model.animations.size() && found < 0 && matches == 1; ++i)
      if (short_name(model.animations[i].name) == n) found = int(i);
    if (found < 0) {
      std::string known;
      for (const auto& a : model.animations) known += (known.empty() ? "" : ", ") + a.name;
      throw Error(ExitCode::Usage,
                  "no clip named '" + n + "' (clips: " + (known.empty() ? "none" : known) + ")");
    }
    out.push_back(found);
  }
  return out;
}

MeasureResult measure_rig(const std::string& path, const BindParams& bind,
                          const StretchParams& stretch, const std::vector<std::string>& clip_names,
                          const std::string& region_bones, const std::vector<FailCheck>& fail_on,
                          int threads) {
  stretch.validate();
  std::regex pattern;
  try {
    pattern = std::regex(region_bones, std::regex::icase);
  } catch (const std::regex_error&) {
    throw Error(ExitCode::Usage,
                "--region-bones '" + region_bones + "' is not a valid regular expression");
  }
  MeasureResult r;
  Input in = load_input(path, bind, r.stages, true);
  std::vector<int> clips = select_clips(in.model, clip_names);
  auto t0 = Clock::now();
  Json chars = Json::array();
  for (const auto& c : in.characters) {
    SkinSampler skin(in.doc, in.model, c);
    std::vector<int> dominant = skin.dominant_node();
    std::vector<char> matches(in.model.nodes.size()); // the pattern tried once per node
    for (std::size_t i = 0; i < matches.size(); ++i)
      matches[i] = std::regex_search(in.model.nodes[i].name, pattern);
    std::vector<bool> tail(skin.size(), false);
    std::size_t n = 0;
    for (std::size_t v = 0; v < tail.size(); ++v)
      if (dominant[v] >= 0 && matches[std::size_t(dominant[v])]) tail[v] = true, ++n;
    auto measured =
        measure_stretch_rigs(in.doc, {{&in.model, &skin, true}}, mesh_edges(in.doc, in.model, skin),
                             tail, clips, stretch, threads)[0];
    std::vector<StretchRow> rows;
    for (const auto& m : measured) {
      StretchRow row;
      row.clip = m.clip;
      row.name = m.name;
      row.duration = m.duration;
      row.result = m.tail;
      row.body = m.body;
      rows.push_back(row);
    }
    for (const auto& f : evaluate_fail_on(fail_on, rows)) r.failures.push_back(f);
    chars.push_back({{"skins", c.skins},
                     {"height", c.height},
                     {"region_vertices", n},
                     {"stretch", stretch_json(rows, stretch)}});
    r.stretch.push_back(rows);
    r.region_vertices.push_back(n);
  }
  r.stages.push_back({"stretch", ms_since(t0), std::to_string(clips.size()) + " clip(s)"});
  r.json = {{"schema", "retail.stretch/1"},
            {"tool", {{"name", "retail"}, {"version", RETAIL_VERSION}}},
            {"file", path},
            {"sha256", in.sha256},
            {"region_bones", region_bones},
            {"characters", chars},
            {"failures", r.failures}};
  return r;
}

Input load_input(const std::string& path, const BindParams& bind, std::vector<StageStat>& stats,
                 bool hash_input) {
  Input in;
  in.path = path;
  auto t0 = Clock::now();
  in.doc = read_document(path, hash_input ? &in.sha256 : nullptr);
  const std::size_t bytes = buffer_bytes(in.doc);
  stats.push_back(
      {"read", ms_since(t0),
       std::to_string(in.doc.buffers.size()) + " buffers, " + std::to_string(bytes) + " bytes"});
  t0 = Clock::now();
  in.model = parse_model(in.doc);
  stats.push_back({"validate", ms_since(t0),
                   std::to_string(in.model.accessors.size()) + " accessors, " +
                       std::to_string(in.model.nodes.size()) + " nodes, " +
                       std::to_string(in.model.animations.size()) + " clips"});
  t0 = Clock::now();
  in.characters = build_characters(in.doc, in.model, bind);
  std::string summary = std::to_string(in.characters.size()) + " character(s)";
  for (const auto& c : in.characters)
    summary += "; H " + std::to_string(c.height) + ", " + std::to_string(c.joints.size()) +
               " joints, roles from " + c.roles.source;
  stats.push_back({"skeleton", ms_since(t0), summary});
  return in;
}

RunResult run(const std::string& in_path, const std::string& out_path, const RunParams& params) {
  params.validate();
  RunResult result;
  Input in = load_input(in_path, params.bind, result.stages, true);
  check_output_path(in_path, out_path, in.doc.container);
  for (const auto& c : in.characters) {
    require_roles(in.model, c);
    for (const auto& w : c.warnings) result.warnings.push_back(w);
    for (const auto& n : c.roles.notes) result.notes.push_back(n);
  }
  for (const auto& t : in.model.tolerated) result.warnings.push_back(t);
  if (in.characters.empty())
    result.warnings.push_back("no skin: nothing to re-rig, writing a faithful copy");

  std::vector<int> clips = select_clips(in.model, params.clips);
  auto t0 = Clock::now();
  std::size_t chains = 0, pieces = 0;
  for (const auto& c : in.characters) {
    result.characters.push_back(rerig_character(in.doc, in.model, c, params.rerig));
    const CharacterResult& r = result.characters.back();
    chains += r.chains.size();
    pieces += r.detection.pieces.size();
    for (const auto& w : r.warnings) result.warnings.push_back(w);
  }
  result.stages.push_back(
      {"rerig", ms_since(t0),
       std::to_string(pieces) + " far pieces, " + std::to_string(chains) + " tail chain(s)"});

  // The original and rigid rigs' stretch does not depend on the bake: with more than one
  // worker it runs from here on a thread of its own (itself spreading clips over the workers),
  // filling the cores the serial stages below leave idle; with one, in line after the bake.
  // It reads a copy of the input's buffers, so only inputs up to 8 MB of buffers overlap: the
  // copy is cheap there and the serial stages are a large share of the run; on big meshes the
  // copy, the second set of scratch memory and the shared cores cost more than the idle time
  // it fills (measured on the 1M rig: +5% time, +280 MB).
  std::unique_ptr<BeforeStretch> before;
  std::future<void> before_done;
  if (chains > 0 && !clips.empty()) {
    const bool overlap =
        worker_count(params.threads) > 1 && buffer_bytes(in.doc) <= (std::size_t(8) << 20);
    before = prepare_before(in, result, overlap);
    if (overlap)
      before_done = std::async(std::launch::async, [&] {
        run_before(*before, before->buffers, in.model, clips, params.stretch, params.threads);
      });
  }

  Rigged rigged;
  bool baked_any = false;
  if (params.bake_enabled && chains > 0 && params.rerig.mode == Mode::Chain && !clips.empty()) {
    t0 = Clock::now();
    rigged = read_rigged(in, params, result);
    std::size_t baked = bake_result(in, rigged, clips, params, result);
    baked_any = baked > 0;
    result.stages.push_back({"bake", ms_since(t0), std::to_string(baked) + " clip(s) baked"});
  }
  if (chains > 0) {
    t0 = Clock::now();
    if (rigged.characters.empty()) rigged = read_rigged(in, params, result);
    // The output's clips as written: read back again when the bake appended channels.
    Model baked_model = baked_any ? parse_model(in.doc) : Model{};
    if (!before_done.valid() && before)
      run_before(*before, in.doc, in.model, clips, params.stretch, params.threads);
    if (before)
      measure_result(in, baked_any ? baked_model : rigged.model, rigged, clips, params, *before,
                     before_done.valid() ? &before_done : nullptr, result);
    else
      for (std::size_t k = 0; k < in.characters.size(); ++k) result.stretch.emplace_back();
    result.stages.push_back({"stretch", ms_since(t0),
                             std::to_string(clips.size()) + " clip(s) x " +
                                 std::to_string(params.stretch.samples) + " samples, 3 rigs"});
  }

  t0 = Clock::now();
  Bytes out = serialize_document(in.doc);
  ReportInput ri;
  ri.input_path = in_path;
  ri.input_sha256 = in.sha256;
  ri.output_path = out_path;
  ri.output_sha256 = sha256_hex(out);
  ri.mode = params.rerig.mode == Mode::Chain   ? "chain"
            : params.rerig.mode == Mode::Rigid ? "rigid"
                                               : "detect";
  ri.model = &in.model;
  ri.characters = &in.characters;
  ri.results = &result.characters;
  ri.stages = &result.stages;
  ri.warnings = result.warnings;
  ri.stretch = &result.stretch;
  ri.bakes = &result.bakes;
  ri.floors = result.floors;
  ri.stretch_params = params.stretch;
  ri.failures = result.failures;
  result.report_path =
      params.report_path.empty() ? default_report_path(out_path) : params.report_path;
  write_document(in.doc, out_path, &out);
  result.stages.push_back(
      {"write", ms_since(t0), out_path + " (" + std::to_string(out.size()) + " bytes)"});
  result.report = make_report(ri);
  if (result.report_path != "-") {
    std::string text = result.report.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
    try {
      write_file_atomic(result.report_path, Bytes(text.begin(), text.end()));
    } catch (const Error&) {
      std::error_code ec;
      fs::remove(out_path, ec); // no partial result: the output goes with its report
      throw;
    }
  }
  return result;
}

} // namespace retail
