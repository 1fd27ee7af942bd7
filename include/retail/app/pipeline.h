// retail — the driver: a list of stages from input file to output file.
//
// Stages are pure functions; the driver times them and hands their stats to the caller, which
// logs one line per stage. Nothing here prints.
#pragma once

#include "retail/base/document.h"
#include "retail/base/error.h"
#include "retail/base/files.h"
#include "retail/base/model.h"
#include "retail/grow/hair_rig.h"
#include "retail/grow/rerig.h"
#include "retail/motion/bake.h"
#include "retail/qa/qa.h"
#include "retail/qa/stretch.h"
#include "retail/record/run_record.h"
#include "retail/rig/skeleton.h"

#include <string>
#include <vector>

namespace retail {

/// A read and validated input: the document, its typed view and its characters.
struct Input {
  std::string path;
  std::string sha256; ///< of the bytes read (when load_input was asked to hash them)
  Document doc;
  Model model;
  std::vector<Character> characters;
};

/// read -> validate -> bind skeleton (characters, H, roles). Roles are not required here.
/// `hash_input`: also fill Input::sha256 from the bytes read (the file is read once).
/// Failure: Error (InvalidInput / Unsupported) with a message naming the JSON path.
Input load_input(const std::string& path, const BindParams& bind, std::vector<StageStat>& stats,
                 bool hash_input = false);

struct RunParams {
  BindParams bind;
  RerigParams rerig;
  HairRigParams hair;      ///< --hair clumps rebuilt as chains under the head (none by default)
  std::string report_path; ///< "" = default (OUT with .report.json), "-" = stdout (returned)
  /// The QA page (--html PAGE, docs/html-page.md): "" none. Written after OUT and its report,
  /// atomically; when it cannot be, OUT and the report are removed too.
  std::string html_path;
  StretchParams stretch;
  BakeParams bake;
  bool bake_enabled = true; ///< the spring bake into the selected clips (--no-bake: off)
  /// The harm check (SPEC §13; --no-harm-check: off): a grown piece that would tear more than the
  /// input in any clip steps down (wider root band, rigid, left as it was) before anything is
  /// written.
  bool harm_check = true;
  HarmParams harm; ///< the harm check's noise floor (harm.h)
  /// Never silent (pipeline_harm.cpp): torn skin left as it was is reported when it tears at
  /// least this percent of its edge-samples (and, for the evidence's parts, at least
  /// left_torn_ratio times as much as the rest of the character).
  double left_torn_percent = 5;
  double left_torn_ratio = 3;
  /// On a VRM output, every grown chain is also appended to the file's own spring metadata
  /// (vrm_spring_export.h; --no-vrm-springs: off).
  bool vrm_springs = true;
  /// The input's own VRM spring chains re-simulated and baked into its clips (spring_bake.h;
  /// mode chain with the bake on; --no-spring-bake: off, they then follow their parents rigidly).
  bool spring_bake = true;
  /// --dry-run: plan, judge and report as a run would, but write nothing but the report (to
  /// report_path; "-", or "" here, returns it): no OUT, no sidecar, no page. OUT may be "" (the
  /// output keeps IN's container). The report's output.sha256 is of the bytes a run would write.
  bool dry_run = false;
  std::vector<std::string> clips; ///< clip names to bake and measure (empty: all)
  std::vector<FailCheck> fail_on; ///< checks on the result's tail; failures listed in RunResult
  /// Worker threads for the per-clip work of the bake and the stretch (0: one per core). The
  /// output and report do not depend on it (parallel.h).
  int threads = 0;
  /// Failure: Error(Usage).
  void validate() const {
    bind.validate();
    rerig.validate();
    hair.validate();
    stretch.validate();
    bake.validate();
    harm.validate();
    if (!(left_torn_percent >= 0 && left_torn_percent <= 100) || !(left_torn_ratio >= 0))
      throw Error(ExitCode::Usage, "--left-torn thresholds out of range");
    if (threads < 0) throw Error(ExitCode::Usage, "--threads must not be negative");
  }
};

/// The run's record (run_record.h: what the report is built from) and what the caller logs.
struct RunResult : RunRecord {
  std::vector<std::string> notes; ///< how ambiguities were settled (logged at info level)
  Json report;                    ///< retail.report/1, built from the record once complete
  std::string report_path;        ///< where it was written ("-": not written, the caller prints it)
  double page_ms = 0;             ///< --html: building and writing the page (not in the report)
  double tear_ms = 0; ///< of the rerig stages: measuring the evidence's tearing (tear_map.h)
  std::size_t page_bytes = 0; ///< --html: the page's size
};

/// `retail IN OUT`: load, validate, bind skeleton, then per character detect / chain / weights
/// (mode), write OUT atomically and the report. Nothing found: OUT is a faithful copy. OUT's
/// extension picks its container (container.h): IN converts when it differs.
/// Failure: Error with the exit-code class (Usage when OUT is IN or not .glb/.vrm/.gltf;
/// Unsupported when the conversion would lose data; OutputFailed when OUT or the report cannot
/// be written, in which case neither is left, nor a sidecar this run created).
RunResult run(const std::string& in_path, const std::string& out_path, const RunParams& params);

/// Indices of the clips named in `names` (all clips when empty), in the order named, each once.
/// A name without wildcards matches a clip's full name, or else the part after its last '|'
/// when exactly one clip has that part ("Walk" for "CharacterArmature|Walk", not for
/// "Armature|Velociraptor_Walk"). A name with '*' or '?' (glob.h) matches every clip whose
/// full name or part after the last '|' it matches ("*Walk" for "Armature|Velociraptor_Walk").
/// Failure: Error(Usage) naming a name that matches no clip (or, without wildcards, two) and
/// listing the file's clip names.
std::vector<int> select_clips(const Model& model, const std::vector<std::string>& names);

struct MeasureResult {
  std::vector<StageStat> stages;
  std::string page; ///< the QA page's HTML, when measure_rig was asked for it (else empty)
  std::vector<std::vector<StretchRow>> stretch; ///< per character
  std::vector<std::size_t> region_vertices;     ///< per character
  std::vector<std::string> failures;
  std::vector<PathUse> inputs; ///< the files read (the input and its sidecars; files.h)
  Json json;                   ///< retail.stretch/1
};

/// `retail report IN`: the edge stretch of any rig under its clips; changes nothing. The tail
/// region: vertices whose largest weight is on a bone whose name matches `region_bones`.
/// Clips are measured on up to `threads` worker threads (0: one per core). `page`: also build
/// the QA page (the rig with its heat map and the stretch; Error(Unsupported) when built
/// without three.js).
MeasureResult measure_rig(const std::string& path, const BindParams& bind,
                          const StretchParams& stretch, const std::vector<std::string>& clips,
                          const std::string& region_bones, const std::vector<FailCheck>& fail_on,
                          int threads = 0, bool page = false);

} // namespace retail
