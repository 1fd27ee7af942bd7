// The driver: load_input and run (see pipeline.h).
#include "retail/app/pipeline.h"

#include "app/pipeline_internal.h"
#include "retail/base/error.h"
#include "retail/base/files.h"
#include "retail/base/sha256.h"
#include "retail/io/container.h"
#include "retail/io/io.h"
#include "retail/io/validate.h"
#include "retail/motion/clip_pass.h"
#include "retail/record/html_page.h"
#include "retail/record/report.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <future>
#include <memory>
#include <regex>

namespace fs = std::filesystem;

namespace retail {
namespace {

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
  // Plan, judge, write once: nothing is written into in.doc until the re-rig is judged.
  const RunResult before = result;
  Judged judged = plan_and_judge(in, clips, params, result);
  hair_qa_stage(in, judged, params, result);
  // Do no harm: a hair clump whose head turn tears its skin is tried stiffer, then left as it
  // was (planned again without it).
  const HairTurns turns = judge_hair_turns(in, clips, params, before, judged, result);
  const std::vector<HairLeftIn>& torn = turns.torn;
  const RunParams& used = turns.used;
  PageData page; // everything the page shows but the report, before anything is written
  auto t0 = Clock::now();
  if (!params.html_path.empty()) page = page_before_rerig(in, clips, params);
  result.page_ms = ms_since(t0);
  find_left_torn(in, used, result);
  const VrmSpringPlan vrm = stages_after_rerig(in, judged, clips, used, result);
  if (!torn.empty()) record_hair_left(torn, in.characters.size(), result);
  const bool html = !params.html_path.empty(); // every key to be written, for the page
  const std::vector<RotationTrack> tracks =
      html ? written_tracks(judged, result.spring_bake) : std::vector<RotationTrack>{};
  apply_rerig(in, judged, vrm, params.threads, result); // the one write
  t0 = Clock::now();
  if (html) page_output_view(in, judged, tracks, clips, params, result, page);
  result.page_ms += ms_since(t0);
  record_facts(in, out_path, params, result);
  result.report_path = report_path;
  if (params.dry_run)
    report_dry_run(in, out_path, out_container, result);
  else
    write_run(in, out_path, out_container, params, page, result);
  return result;
}

} // namespace retail
