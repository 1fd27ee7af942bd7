// The driver: load_input and run (see pipeline.h).
#include "retail/app/pipeline.h"

#include "app/pipeline_internal.h"
#include "retail/base/error.h"
#include "retail/base/files.h"
#include "retail/base/sha256.h"
#include "retail/detect/selector.h"
#include "retail/io/builder.h"
#include "retail/io/container.h"
#include "retail/io/io.h"
#include "retail/io/validate.h"
#include "retail/motion/clip_pass.h"
#include "retail/motion/hair_qa.h"
#include "retail/motion/spring_bake.h"
#include "retail/motion/vrm_spring_export.h"
#include "retail/qa/tear_map.h"
#include "retail/record/html_page.h"
#include "retail/record/report.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <future>
#include <map>
#include <memory>
#include <regex>

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

/// The container OUT is written in (its extension; container.h). Failure: Error(Usage) when OUT
/// is IN or has another extension, Error(OutputFailed) when its folder is missing or OUT is one.
Container check_output_path(const std::string& in_path, const std::string& out_path) {
  std::error_code ec;
  if (fs::exists(out_path, ec) && fs::equivalent(in_path, out_path, ec))
    throw Error(ExitCode::Usage,
                "the output '" + out_path + "' is the input file; retail never modifies its input");
  const Container container = container_for_path(out_path);
  fs::path dir = fs::path(out_path).parent_path();
  if (!dir.empty() && !fs::is_directory(dir, ec))
    throw Error(ExitCode::OutputFailed,
                "the output folder '" + dir.string() + "' " +
                    (fs::exists(dir, ec) ? "is not a folder" : "does not exist"));
  if (fs::is_directory(out_path, ec))
    throw Error(ExitCode::OutputFailed, "the output '" + out_path + "' is a folder");
  return container;
}

/// Everything run() writes differs from everything it read and from each other (files.h).
/// Sidecars written where the input's own are (OUT beside IN) are identical and skipped; a GLB
/// written as .gltf adds its .bin.
void check_run_paths(const Input& in, const std::string& out_path, const std::string& report,
                     const std::string& page, Container out_container) {
  std::vector<PathUse> reads = input_files(in.path, in.doc), writes;
  writes.push_back({out_path, "the output"});
  writes.push_back({report == "-" ? "" : report, "the report"});
  writes.push_back({page, "the page"});
  fs::path out_dir = fs::path(out_path).parent_path();
  for (std::size_t i = 0; i < in.doc.external.size(); ++i) {
    std::string target = (out_dir / in.doc.external[i].path).string();
    if (resolved_path(target) != resolved_path(reads[i + 1].path))
      writes.push_back({target, "the output's sidecar '" + in.doc.external[i].uri + "'"});
  }
  if (in.doc.container == Container::Glb && out_container == Container::Gltf)
    writes.push_back({(out_dir / bin_sidecar_name(out_path)).string(), "the output's .bin"});
  check_distinct_paths(reads, writes);
}

/// A `.vrm` name on a file without VRM metadata: said once, the file is still written (a GLB).
void warn_vrm_name(const Document& doc, const std::string& out_path,
                   std::vector<std::string>& warnings) {
  std::string ext = fs::path(out_path).extension().string();
  for (char& ch : ext) ch = char(std::tolower((unsigned char)ch));
  const Json& ext_json = doc.gltf.contains("extensions") ? doc.gltf["extensions"] : Json();
  const bool vrm =
      ext_json.is_object() && (ext_json.contains("VRM") || ext_json.contains("VRMC_vrm"));
  if (ext == ".vrm" && !vrm)
    warnings.push_back("the output '" + out_path +
                       "' is named .vrm but the input has no VRM metadata (no VRM or VRMC_vrm "
                       "extension): it is written as a plain GLB, not a VRM avatar");
}

/// The clip pass's share of `result` emptied for `characters` characters (before a pass).
void clear_clip_results(std::size_t characters, RunResult& result) {
  result.stretch.assign(characters, {});
  result.bakes.assign(characters, {});
  result.floors.assign(characters, NAN);
  result.rests.assign(characters, {});
  result.failures.clear();
  result.work.clear();
  result.chain_records.clear();
  result.chain_verdicts.clear();
  result.hair_colliders.clear();
}

/// The clip pass (clip_pass.h) on the planned rig `plans` of every character of `in`: fills
/// result's stretch, bakes, floors, rests, hair bakes, --fail-on failures and the stage line.
ClipPassResult measure_clips(Input& in, const std::vector<int>& clips, const RunParams& params,
                             const RigEdit& plans, bool hair, RunResult& result) {
  const auto t0 = Clock::now();
  ClipPassInput pin;
  pin.doc = &in.doc;
  pin.input_model = &in.model;
  pin.plan = &plans;
  pin.input_characters = &in.characters;
  pin.results = &result.characters;
  pin.hair = hair ? &result.hair : nullptr;
  pin.clips = clips;
  ClipPassParams pp;
  pp.bind = params.bind;
  pp.bake = params.bake_enabled && params.rerig.mode == Mode::Chain;
  pp.bake_params = params.bake;
  pp.stretch = params.stretch;
  pp.threads = params.threads;
  ClipPassResult pass = clip_pass(pin, pp);
  result.stretch = pass.stretch;
  result.bakes = pass.bakes;
  result.floors = pass.floors;
  result.rests = pass.rests;
  result.chain_records = pass.chains;
  for (auto& character : result.chain_records)
    for (ChainRecord& chain : character) std::vector<BakedClip>().swap(chain.keys);
  result.hair_colliders = pass.hair_colliders;
  result.warnings.insert(result.warnings.end(), pass.warnings.begin(), pass.warnings.end());
  for (const auto& rows : result.stretch)
    for (const auto& f : evaluate_fail_on(params.fail_on, rows)) result.failures.push_back(f);
  char split[96];
  std::snprintf(split, sizeof split, " (worker time: bake %.1f ms, stretch %.1f ms)", pass.bake_ms,
                pass.stretch_ms);
  result.stages.push_back({"clips", ms_since(t0),
                           std::to_string(clips.size()) + " clip(s): " +
                               std::to_string(pass.baked) + " baked, stretch of 3 rigs at " +
                               std::to_string(params.stretch.samples) + " samples" + split});
  result.work = {{"bake", pass.bake_ms, ""}, {"stretch", pass.stretch_ms, ""}};
  return pass;
}

/// Re-rigs every character of `in` (with the harm check's overrides) and runs the clip pass;
/// fills result.characters, stretch, bakes, floors, failures and the stage lines. The keys are
/// returned, not written.
ClipPassResult rerig_and_measure(Input& in, const std::vector<int>& clips, const RunParams& params,
                                 const std::vector<std::map<int, PieceOverride>>& overrides,
                                 const std::vector<TearProbe>& tears, RunResult& result) {
  auto t0 = Clock::now();
  std::size_t chains = 0, pieces = 0, hair_chains = 0;
  result.hair.clear();
  result.tear_ms = 0;
  RigEdit plans; // every character's plan, one after the other: what the clip pass reads
  plans.first_node = int(in.model.nodes.size());
  std::vector<HairResult> hair(in.characters.size()); // kept when --hair or any hair was found
  bool any_hair = !params.hair.hair.empty();
  for (std::size_t k = 0; k < in.characters.size(); ++k) {
    RerigParams rp = params.rerig;
    rp.weld.threads = rp.detect.threads = params.threads;
    rp.overrides = overrides[k];
    if (k < params.hair.left_found.size()) rp.hair_left = params.hair.left_found[k];
    // --hair geometry is never a tail piece (its selectors after the user's --not-tail ones).
    rp.not_tail.insert(rp.not_tail.end(), params.hair.hair.begin(), params.hair.hair.end());
    // Plan from the document as it is, then write the plan (new nodes numbered from those its
    // predecessors left); the hair chains are planned after the tail's, into one edit.
    CharacterPlan plan = plan_character(in.doc, in.model, in.characters[k], rp,
                                        k < tears.size() ? tears[k] : TearProbe{});
    const std::vector<std::pair<std::string, std::vector<bool>>>& found = plan.result.found_hair;
    any_hair = any_hair || !found.empty() || !rp.hair_left.empty();
    if ((!params.hair.hair.empty() || !found.empty()) && params.rerig.mode != Mode::Detect) {
      HairRigParams hp = params.hair;
      hp.weld.threads = params.threads;
      hp.judge = params.harm_check; // implausible clumps left as they were, as tails are
      HairPlan h = plan_hair(in.doc, in.model, in.characters[k], plan.edit, hp,
                             plan.result.piece_originals, found);
      plan.edit = merge_rig_edits(std::move(plan.edit), h.edit);
      hair_chains += h.result.chains.size();
      for (const auto& w : h.result.warnings) result.warnings.push_back(w);
      hair[k] = std::move(h.result);
    } else if (!params.hair.hair.empty()) {
      hair[k].matched.assign(params.hair.hair.size(), true); // detect: not planned
    }
    apply_rig_edit(in.doc, in.model, plan.edit);
    plans = merge_rig_edits(std::move(plans), plan.edit);
    result.characters.push_back(std::move(plan.result));
    const CharacterResult& r = result.characters.back();
    chains += r.chains.size();
    pieces += r.detection.pieces.size();
    for (const auto& w : r.warnings) result.warnings.push_back(w);
  }
  if (any_hair) result.hair = std::move(hair);
  char torn_ms[64] = "";
  if (result.tear_ms > 0)
    std::snprintf(torn_ms, sizeof torn_ms, " (tearing measured in %.1f ms)", result.tear_ms);
  result.stages.push_back(
      {"rerig", ms_since(t0),
       std::to_string(pieces) + " far pieces, " + std::to_string(chains) + " tail chain(s)" +
           torn_ms + (!any_hair ? "" : ", " + std::to_string(hair_chains) + " hair chain(s)")});
  clear_clip_results(in.characters.size(), result);
  if (chains + hair_chains == 0 || clips.empty()) return {};
  return measure_clips(in, clips, params, plans, hair_chains > 0, result);
}

/// A piece selector that named no piece: Error(Usage) listing the pieces there are.
[[noreturn]] void unknown_piece(const std::string& sel, const std::string& what,
                                const std::vector<CharacterResult>& characters) {
  std::string ids;
  for (std::size_t k = 0; k < characters.size(); ++k) {
    std::string mine;
    for (int id : characters[k].piece_ids) mine += (mine.empty() ? "" : ", ") + std::to_string(id);
    if (characters.size() > 1)
      mine = "character " + std::to_string(k) + ": " + (mine.empty() ? "none" : mine);
    ids += (ids.empty() ? "" : "; ") + mine;
  }
  throw Error(ExitCode::Usage, what + " '" + sel + "' names no piece detection found (pieces: " +
                                   (ids.empty() ? "none" : ids) +
                                   "; the report's characters[].pieces[].id)");
}

/// Every --hair selector must name geometry (or a piece) of some character (Error(Usage)).
void check_hair_selectors(const HairRigParams& p, const std::vector<HairResult>& hair,
                          const std::vector<CharacterResult>& characters) {
  for (std::size_t i = 0; i < p.hair.size(); ++i) {
    bool matched = false;
    for (const auto& h : hair) matched = matched || (i < h.matched.size() && h.matched[i]);
    int id = -1;
    if (!matched && parse_piece_selector(p.hair[i], id))
      unknown_piece(p.hair[i], "--hair", characters);
    require_selected(p.hair[i], "--hair", matched);
  }
}

/// Every --tail / --not-tail / --not-hair selector must name geometry of some character
/// (Error(Usage)).
void check_selectors(const RerigParams& p, const std::vector<CharacterResult>& characters) {
  const std::size_t n = p.tail.size() + p.not_tail.size();
  for (std::size_t i = 0; i < n; ++i) {
    bool matched = false;
    for (const auto& c : characters)
      matched = matched || (i < c.selector_matched.size() && c.selector_matched[i]);
    const bool tail = i < p.tail.size();
    const std::string& sel = tail ? p.tail[i] : p.not_tail[i - p.tail.size()];
    int id = -1;
    if (!matched && parse_piece_selector(sel, id))
      unknown_piece(sel, tail ? "--tail" : "--not-tail", characters);
    require_selected(sel, tail ? "--tail" : "--not-tail", matched);
  }
  for (std::size_t i = 0; i < p.not_hair.size(); ++i) { // --not-hair: the same rule
    bool matched = false;
    for (const auto& c : characters)
      matched = matched || (i < c.not_hair_matched.size() && c.not_hair_matched[i]);
    int id = -1;
    if (!matched && parse_piece_selector(p.not_hair[i], id))
      unknown_piece(p.not_hair[i], "--not-hair", characters);
    require_selected(p.not_hair[i], "--not-hair", matched);
  }
}

/// The record's header and character facts: the paths, the input's hash, the mode, the stretch
/// parameters and what the report states of each input character.
void record_facts(const Input& in, const std::string& out_path, const RunParams& params,
                  RunRecord& record) {
  record.input_path = in.path;
  record.input_sha256 = in.sha256;
  record.output_path = out_path;
  record.mode = params.rerig.mode == Mode::Chain   ? "chain"
                : params.rerig.mode == Mode::Rigid ? "rigid"
                                                   : "detect";
  record.stretch_params = params.stretch;
  record.harm = params.harm;
  for (const Character& c : in.characters) {
    CharacterFacts f;
    f.skins = c.skins;
    f.height = c.height;
    f.scale = c.scale;
    f.joints = c.joints;
    for (int j : c.joints) f.joint_names.push_back(in.model.nodes[std::size_t(j)].name);
    record.facts.push_back(std::move(f));
  }
}

} // namespace

MeasureResult measure_rig(const std::string& path, const BindParams& bind,
                          const StretchParams& stretch, const std::vector<std::string>& clip_names,
                          const std::string& region_bones, const std::vector<FailCheck>& fail_on,
                          int threads, bool page) {
  stretch.validate();
  if (page && !page_supported()) make_page({}); // says how to build with three.js
  std::regex pattern;
  try {
    pattern = std::regex(region_bones, std::regex::icase);
  } catch (const std::regex_error&) {
    throw Error(ExitCode::Usage,
                "--region-bones '" + region_bones + "' is not a valid regular expression");
  }
  MeasureResult r;
  Input in = load_input(path, bind, r.stages, true);
  r.inputs = input_files(path, in.doc);
  std::vector<int> clips = select_clips(in.model, clip_names);
  auto t0 = Clock::now();
  Json chars = Json::array();
  std::vector<std::vector<std::size_t>> regions; // per character: its tail region's vertex ids
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
    regions.emplace_back();
    for (std::size_t v = 0; v < tail.size(); ++v)
      if (tail[v]) regions.back().push_back(v);
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
  if (page) r.page = report_page(in, clips, stretch, threads, regions, region_bones, r.json);
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
  for (const auto& c : in.characters) {
    char h[48];
    std::snprintf(h, sizeof h, "; H %.4g m, ", c.height);
    summary += h + std::to_string(c.joints.size()) + " joints, roles from " + c.roles.source;
  }
  stats.push_back({"skeleton", ms_since(t0), summary});
  return in;
}

namespace {

/// Per character of the input: a probe of where it tears under the clips (tear_map.h) for the
/// planner's evidence, measuring each focus once (the harm check re-plans with the same one).
/// Empty probes when there is no clip to measure by.
std::vector<TearProbe> tear_probes(const Input& in, const std::vector<int>& clips,
                                   const RunParams& params, RunResult& result) {
  std::vector<TearProbe> out(in.characters.size());
  if (clips.empty() || params.rerig.mode == Mode::Detect) return out;
  struct Cache {
    std::vector<char> focus;
    TearEvidence tears;
    bool filled = false;
  };
  for (std::size_t k = 0; k < in.characters.size(); ++k) {
    auto cache = std::make_shared<Cache>();
    out[k] = [&in, &params, &result, clips, k, cache](const std::vector<char>& focus) {
      if (cache->filled && cache->focus == focus) return cache->tears;
      const auto t0 = Clock::now();
      const SkinSampler skin(in.doc, in.model, in.characters[k]);
      const std::vector<bool> marked(focus.begin(), focus.end());
      const TearMap map =
          measure_tears(in.doc, in.model, skin, clips, marked, params.stretch, params.threads);
      TearEvidence e;
      e.rest = map.rest_share();
      e.share.assign(map.samples.size(), NAN);
      for (std::size_t v = 0; v < e.share.size(); ++v)
        if (map.samples[v]) e.share[v] = map.share(v);
      *cache = {focus, e, true};
      result.tear_ms += ms_since(t0);
      return e;
    };
  }
  return out;
}

/// Re-rigs, bakes and measures; the harm check judges every grown piece against the input under
/// its own clips and, where one does harm, the job runs again in memory from the document as
/// read (edits rewound, builder.h) with that piece stepped down (harm_review). Leaves the
/// re-rigged document with its keys in `in`. Pre: `as_read` marks in.doc as read (builder.h;
/// may be empty when the harm check is off).
void rerig_with_harm_check(Input& in, const DocumentMark& as_read, const std::vector<int>& clips,
                           const RunParams& params, RunResult& result) {
  std::vector<std::map<int, PieceOverride>> overrides(in.characters.size());
  std::vector<std::map<int, PieceJudge>> verdicts(in.characters.size());
  const std::vector<TearProbe> tears = tear_probes(in, clips, params, result);
  const std::size_t stages_before = result.stages.size(), warnings_before = result.warnings.size();
  const bool judged = params.harm_check && params.rerig.mode == Mode::Chain;
  for (int attempt = 0;; ++attempt) {
    if (attempt > 0) {
      rewind_document(in.doc, as_read);
      result.stages.resize(stages_before);
      result.warnings.resize(warnings_before);
      result.characters.clear();
    }
    ClipPassResult pass = rerig_and_measure(in, clips, params, overrides, tears, result);
    if (attempt == 0) check_selectors(params.rerig, result.characters);
    if (attempt == 0) check_hair_selectors(params.hair, result.hair, result.characters);
    if (judged && attempt < 4 &&
        harm_review(pass.judge, result.characters, params.harm, overrides, verdicts))
      continue;
    if (judged) record_verdicts(verdicts, pass.judge, result);
    write_clip_pass(in.doc, pass);
    break;
  }
}

/// Writes OUT (converted to `out_container`), then its report and page: all of them or, on a
/// failure, none (OUT and the sidecars it created are removed, also on a signal).
void write_run(Input& in, const std::string& out_path, Container out_container,
               const RunParams& params, PageData& page, RunResult& result) {
  auto t0 = Clock::now();
  if (out_container != in.doc.container)
    in.doc = convert_container(std::move(in.doc), out_container, out_path);
  const Bytes out = serialize_document(in.doc);
  // The output's hash on a worker while the output is written (the task reads only `out`; the
  // future is waited for on every path, a throw included, before `out` goes away). The record
  // is complete with the write stage; the report is built from it after.
  std::future<std::string> out_sha256 =
      std::async(std::launch::async, [&] { return sha256_hex(out); });
  std::vector<std::string> sidecars; // created by this write: they go with OUT
  try {
    sidecars = write_document(in.doc, out_path, &out);
  } catch (...) {
    out_sha256.wait();
    throw;
  }
  RemoveOnSignal provisional(out_path); // until its report is written too
  std::vector<std::unique_ptr<RemoveOnSignal>> provisional_sidecars;
  for (const auto& p : sidecars)
    provisional_sidecars.push_back(std::make_unique<RemoveOnSignal>(p));
  result.stages.push_back(
      {"write", ms_since(t0), out_path + " (" + std::to_string(out.size()) + " bytes)"});
  bool report_written = false;
  try { // no partial result: the output goes with its report and page, built or written
    result.output_sha256 = out_sha256.get();
    result.report = make_report(result);
    if (result.report_path != "-") {
      std::string text = result.report.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
      RemoveOnSignal report_provisional(result.report_path); // until the page is written too
      write_file_atomic(result.report_path, Bytes(text.begin(), text.end()));
      report_written = true;
      if (!params.html_path.empty()) write_page(page, result.report, params.html_path, result);
    } else if (!params.html_path.empty()) {
      write_page(page, result.report, params.html_path, result);
    }
  } catch (...) {
    std::error_code ec;
    fs::remove(out_path, ec);
    for (const auto& p : sidecars) fs::remove(p, ec);
    if (report_written) fs::remove(result.report_path, ec);
    throw;
  }
}

/// --dry-run: the report of what write_run would write, written where asked (or returned for
/// stdout); nothing else is written.
void report_dry_run(Input& in, const std::string& out_path, Container out_container,
                    RunResult& result) {
  auto t0 = Clock::now();
  if (!out_path.empty() && out_container != in.doc.container)
    in.doc = convert_container(std::move(in.doc), out_container, out_path);
  const Bytes out = serialize_document(in.doc);
  result.output_sha256 = sha256_hex(out);
  result.dry_run = true;
  result.stages.push_back({"write", ms_since(t0),
                           "dry run: " + (out_path.empty() ? "nothing" : out_path + " not") +
                               " written (" + std::to_string(out.size()) + " bytes)"});
  result.report = make_report(result);
  if (result.report_path == "-") return;
  std::string text = result.report.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
  write_file_atomic(result.report_path, Bytes(text.begin(), text.end()));
}

/// Where run() writes the report: as asked, else beside OUT; a dry run's "" is stdout ("-").
std::string report_path_of(const std::string& out_path, const RunParams& params) {
  if (!params.report_path.empty()) return params.report_path;
  return params.dry_run ? "-" : default_report_path(out_path);
}

} // namespace

RunResult run(const std::string& in_path, const std::string& out_path, const RunParams& params) {
  params.validate();
  if (params.dry_run && !params.html_path.empty()) { // a dry run writes no page
    RunParams without_page = params;
    without_page.html_path.clear();
    RunResult r = run(in_path, out_path, without_page);
    r.notes.push_back("dry run: the page '" + params.html_path + "' is not written");
    return r;
  }
  RunResult result;
  Input in = load_input(in_path, params.bind, result.stages, true);
  const bool no_out = params.dry_run && out_path.empty();
  const Container out_container = no_out ? in.doc.container : check_output_path(in_path, out_path);
  if (!no_out) check_convertible(in.doc, out_container, out_path);
  const std::string report_path = report_path_of(out_path, params);
  if (params.dry_run)
    check_distinct_paths(input_files(in.path, in.doc),
                         {{report_path == "-" ? "" : report_path, "the report"}});
  else
    check_run_paths(in, out_path, report_path, params.html_path, out_container);
  warn_vrm_name(in.doc, out_path, result.warnings);
  if (!params.html_path.empty()) check_page_path(params.html_path);
  for (const auto& c : in.characters) {
    require_roles(in.model, c);
    require_measurable(c);
    for (const auto& w : c.warnings) result.warnings.push_back(w);
    for (const auto& n : c.roles.notes) result.notes.push_back(n);
  }
  for (const auto& t : in.model.tolerated) result.warnings.push_back(t);
  if (in.characters.empty())
    result.warnings.push_back("no skin: nothing to re-rig, writing a faithful copy");

  std::vector<int> clips = select_clips(in.model, params.clips);
  // The input document as read, to re-plan from (harm check) and for the page's input rigs.
  const bool rewind = (params.harm_check && params.rerig.mode == Mode::Chain) ||
                      !params.html_path.empty() || !params.hair.hair.empty();
  const DocumentMark as_read = rewind ? mark_document(in.doc) : DocumentMark{};
  const RunResult before = result;
  rerig_with_harm_check(in, as_read, clips, params, result);
  find_left_torn(in, params, result);
  after_rerig_stages(in, clips, params, result);
  // Do no harm: a --hair clump whose head turn tears its skin is left as it was (the job again
  // without it, from the document as read).
  if (const std::vector<HairLeftIn> torn = torn_hair(result, params); !torn.empty()) {
    rewind_document(in.doc, as_read);
    result = before;
    const RunParams again = without_hair(params, torn);
    rerig_with_harm_check(in, as_read, clips, again, result);
    find_left_torn(in, again, result);
    after_rerig_stages(in, clips, again, result);
    record_hair_left(torn, in.characters.size(), result);
  }

  PageData page; // everything the page shows but the report, before anything is written
  if (!params.html_path.empty()) {
    const auto t0 = Clock::now();
    page = rerig_page(in, as_read, clips, params, result);
    result.page_ms = ms_since(t0);
  }
  record_facts(in, out_path, params, result);
  result.report_path = report_path;
  if (params.dry_run)
    report_dry_run(in, out_path, out_container, result);
  else
    write_run(in, out_path, out_container, params, page, result);
  return result;
}

} // namespace retail
