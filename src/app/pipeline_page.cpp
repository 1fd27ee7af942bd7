// The QA page's share of the driver (pipeline_internal.h): the page's rigs built and written.
#include "app/pipeline_internal.h"

#include "retail/base/error.h"
#include "retail/base/files.h"
#include "retail/grow/rerig.h"
#include "retail/grow/rig_edit.h"
#include "retail/io/validate.h"
#include "retail/rig/skeleton.h"

#include <chrono>
#include <filesystem>
#include <regex>

namespace retail {

namespace fs = std::filesystem;

/// The page with the run's report (its timings left out: the page is deterministic), written
/// atomically to `path`; the time it took is added to result.page_ms.
void write_page(PageData& page, const Json& report, const std::string& path, RunResult& result) {
  auto t0 = std::chrono::steady_clock::now();
  page.report = report;
  page.report.erase("timings_ms");
  page.report.erase("work_ms");
  const std::string text = make_page(page);
  write_file_atomic(path, std::string_view(text));
  result.page_ms +=
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  result.page_bytes = text.size();
}

/// --html PAGE: three.js is built in, PAGE's folder exists and PAGE is no folder.
/// Failure: Error(Unsupported) without three.js, Error(OutputFailed) for the path.
void check_page_path(const std::string& page) {
  if (!page_supported()) make_page({}); // throws the error that says how to build with it
  std::error_code ec;
  fs::path dir = fs::path(page).parent_path();
  if (!dir.empty() && !fs::is_directory(dir, ec))
    throw Error(ExitCode::OutputFailed,
                "the page's folder '" + dir.string() + "' " +
                    (fs::exists(dir, ec) ? "is not a folder" : "does not exist"));
  if (fs::is_directory(page, ec))
    throw Error(ExitCode::OutputFailed, "the page '" + page + "' is a folder");
}

PageData page_before_rerig(const Input& in, const std::vector<int>& clips,
                           const RunParams& params) {
  PageData page;
  page.kind = "rerig";
  page.title = fs::path(in.path).filename().string();
  page.torn_above = params.stretch.torn_above;
  page.torn_below = params.stretch.torn_below;
  const int samples = params.stretch.samples, threads = params.threads;
  page.clips = page_clips(in.doc, in.model, clips);
  page.views.push_back(make_view("input", "Input rig", in.doc, in.model, in.characters, clips,
                                 samples, threads, page.blobs));
  RerigParams rp = params.rerig; // the rigid reference: every character planned rigid
  rp.mode = Mode::Rigid;
  RigEdit plans;
  plans.first_node = int(in.model.nodes.size());
  for (const Character& c : in.characters)
    plans =
        merge_rig_edits(std::move(plans), plan_character(in.doc, in.model, c, rp, {}, plans).edit);
  const PlannedRig rig = planned_rig(in.doc, in.model, plans);
  Document rigid = in.doc; // the page's copy of the model to show; the heat map reads `rig`
  apply_rig_edit(rigid, in.model, plans);
  page.views.push_back(make_view("rigid", "Rigid reference (tail on the hips)", rigid, rig.model,
                                 build_characters(in.doc, rig.model, params.bind, &rig.held), clips,
                                 samples, threads, page.blobs, &rig.held));
  return page;
}

void page_output_view(const Input& in, const Judged& judged,
                      const std::vector<RotationTrack>& tracks, const std::vector<int>& clips,
                      const RunParams& params, const RunResult& result, PageData& page) {
  const PlannedRig& rig = *judged.rig;
  page.views.push_back(make_view("output", "Re-rigged output", in.doc, rig.model,
                                 build_characters(in.doc, rig.model, params.bind, &rig.held), clips,
                                 params.stretch.samples, params.threads, page.blobs, &rig.held,
                                 &tracks));
  auto show = [&](const auto& vertices, const std::vector<int>& nodes) { // every chain's
    page.tail.back().insert(page.tail.back().end(), vertices.begin(), vertices.end());
    page.views.back().chain_nodes.insert(page.views.back().chain_nodes.end(), nodes.begin(),
                                         nodes.end());
  };
  for (std::size_t k = 0; k < result.characters.size(); ++k) {
    page.tail.emplace_back();
    for (const ChainResult& ch : result.characters[k].chains) show(ch.original_vertices, ch.nodes);
    if (k < result.hair.size())
      for (const HairChainResult& ch : result.hair[k].chains) show(ch.original_vertices, ch.nodes);
  }
}

/// The QA page of `retail report IN --html`: the one rig with its heat map; "tail motion off"
/// holds the joints whose names match `region_bones` still; the tail box covers `regions`.
std::string report_page(const Input& in, const std::vector<int>& clips,
                        const StretchParams& stretch, int threads,
                        const std::vector<std::vector<std::size_t>>& regions,
                        const std::string& region_bones, const Json& report) {
  PageData page;
  page.kind = "report";
  page.title = fs::path(in.path).filename().string();
  page.torn_above = stretch.torn_above;
  page.torn_below = stretch.torn_below;
  page.clips = page_clips(in.doc, in.model, clips);
  page.views.push_back(make_view("rig", "Rig", in.doc, in.model, in.characters, clips,
                                 stretch.samples, threads, page.blobs));
  const std::regex pattern(region_bones, std::regex::icase);
  std::vector<bool> joint(in.model.nodes.size(), false);
  for (const Character& c : in.characters)
    for (int j : c.joints) joint[std::size_t(j)] = true;
  for (std::size_t i = 0; i < joint.size(); ++i)
    if (joint[i] && std::regex_search(in.model.nodes[i].name, pattern))
      page.views[0].chain_nodes.push_back(int(i));
  page.tail = regions;
  page.report = report;
  return make_page(page);
}

} // namespace retail
