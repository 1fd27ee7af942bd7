// libFuzzer target: reading + validation + the skeleton + `retail info` on arbitrary bytes, the
// import of the file's VRM springs (VRM 0 secondaryAnimation and VRMC_springBone) and, on small
// rigs (under 256 KB with resolvable roles), the re-rig, the spring bake and the stretch of every
// clip, then serialising the result: one-pose, negative, huge and odd key times reach the bake
// (seeds from fuzz/odd_clips.py). With RETAIL_FUZZ_BASE set to a folder, every input is read as
// a file in it, so buffer and image URIs of a .gltf (or a GLB) are resolved against real files
// (fuzz/run.sh makes the folder: sidecars, a sub-folder, links leading out and looping, a FIFO).
// Every input must end in a result or a retail::Error; anything else (a crash, a sanitizer
// report, another exception) is a bug. Build and run: fuzz/run.sh (docs/robustness.md).
#include "retail/app/info.h"
#include "retail/base/document.h"
#include "retail/base/error.h"
#include "retail/base/model.h"
#include "retail/grow/rerig.h"
#include "retail/grow/rig_edit.h"
#include "retail/io/io.h"
#include "retail/io/validate.h"
#include "retail/motion/clip_pass.h"
#include "retail/rig/skeleton.h"
#include "retail/vrm/vrm_springs.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

namespace {

/// The driver's stages after reading (pipeline.cpp's rerig_and_measure), on one thread, without
/// files: each character planned and its edit applied, the clip pass on the merged plan. The
/// bake runs one warm-up cycle at a coarse substep so a unit stays fast.
void rerig_and_bake(retail::Document& doc, const retail::Model& model,
                    const std::vector<retail::Character>& characters) {
  std::vector<retail::CharacterResult> results;
  std::size_t chains = 0;
  retail::RigEdit plans; // what the clip pass reads, numbered from the input's nodes
  plans.first_node = int(model.nodes.size());
  for (const auto& c : characters) {
    retail::require_roles(model, c);
    retail::require_measurable(c);
    retail::CharacterPlan plan = retail::plan_character(doc, model, c, retail::RerigParams{});
    retail::apply_rig_edit(doc, model, plan.edit);
    plans = retail::merge_rig_edits(std::move(plans), plan.edit);
    results.push_back(std::move(plan.result));
    chains += results.back().chains.size();
  }
  if (chains == 0 || model.animations.empty()) return;
  retail::ClipPassInput in;
  in.doc = &doc;
  in.input_model = &model;
  in.plan = &plans;
  in.input_characters = &characters;
  in.results = &results;
  for (std::size_t i = 0; i < model.animations.size(); ++i) in.clips.push_back(int(i));
  retail::ClipPassParams params;
  params.threads = 1;
  params.stretch.samples = 4;
  params.bake_params.max_warmup_cycles = 1;
  params.bake_params.spring.substep_s = 1.0 / 30;
  retail::ClipPassResult pass = retail::clip_pass(in, params);
  retail::write_clip_pass(doc, pass);
  (void)retail::serialize_document(doc);
}

/// The folder URIs resolve against (RETAIL_FUZZ_BASE), or "" (every sidecar URI refused).
const std::string& base_dir() {
  static const std::string dir = [] {
    const char* env = std::getenv("RETAIL_FUZZ_BASE");
    return std::string(env ? env : "");
  }();
  return dir;
}

/// The springs as every command reads them: the import, then its bounded work.
void import_springs(const retail::Document& doc, const retail::Model& model) {
  const retail::VrmSprings springs = retail::usable_vrm_springs(doc, model);
  if (springs.unusable.empty() && retail::spring_work(springs) > retail::kMaxSpringWork)
    __builtin_trap(); // usable springs past the limit: the limit is not applied
  try {
    (void)retail::read_vrm_springs(doc, model);
  } catch (const retail::Error&) {
    if (springs.unusable.empty()) __builtin_trap(); // the two readers must agree
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    retail::Bytes bytes(data, data + size);
    retail::Document doc = retail::parse_document(bytes, base_dir());
    retail::Model model = retail::parse_model(doc);
    import_springs(doc, model);
    std::vector<retail::Character> characters = retail::build_characters(doc, model, {});
    retail::Json info = retail::make_info("fuzz.glb", doc, model, characters);
    (void)retail::format_info(info);
    if (size < (256u << 10)) rerig_and_bake(doc, model, characters);
  } catch (const retail::Error&) {
    // a clear, classified rejection: what malformed input must get
  }
  return 0;
}
