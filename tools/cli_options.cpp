// retail's option binders (cli_options.h): one per stage's params, one per command.
#include "cli_options.h"

#include "cli_help.h"

#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace {

/// A switch (`--x` or a pair `--x,!--no-x`) bound to `value`; its default, `value` as it is now,
/// is said in the help ("(default: on)") and kept for --print-config.
CLI::Option* add_switch(CLI::App& app, const std::string& names, bool& value,
                        const std::string& what, const char* group) {
  return app.add_flag(names, value, what + (value ? " (default: on)" : " (default: off)"))
      ->default_str(value ? "true" : "false")
      ->group(group);
}

/// The log level: per invocation, never from a config file.
void bind_log_level(CLI::App& app, Cli& cli, const char* group) {
  app.add_flag("-v,--verbose", cli.verbose, "more log detail on stderr")
      ->configurable(false)
      ->group(group);
  app.add_flag("-q,--quiet", cli.quiet, "only warnings and errors on stderr")
      ->configurable(false)
      ->group(group);
}

/// `retail IN OUT`'s own arguments, the mode (everyday) and where the results go (output).
void bind_run(CLI::App& app, Cli& cli) {
  app.add_option("IN", cli.in_path, "input .glb/.vrm/.gltf")->configurable(false);
  app.add_option("OUT", cli.out_path,
                 "output .glb/.vrm (GLB) or .gltf (+ OUT-stem.bin beside it); IN converts when "
                 "the container differs (docs/containers.md); optional with --dry-run")
      ->configurable(false);
  app.add_option("--mode", cli.mode,
                 "chain (bones along the tail), rigid (tail on the hips), detect (report only: "
                 "OUT is a faithful copy, converted if asked)")
      ->check(CLI::IsMember({"chain", "rigid", "detect"}))
      ->capture_default_str()
      ->group(kGroupEveryday);
  app.add_option("--report", cli.params.report_path,
                 "report path (default: OUT with .report.json; - for stdout)")
      ->group(kGroupOutput);
  app.add_option("--html", cli.params.html_path,
                 "also write a self-contained QA page: input, rigid reference and output side by "
                 "side with the heat map and the report (docs/html-page.md)")
      ->group(kGroupOutput);
}

/// What this invocation does beside the options: a dry run, a config file read or printed, the
/// log level (everyday; never read from a config file but --config itself).
void bind_invocation(CLI::App& app, Cli& cli) {
  app.add_flag("--dry-run", cli.params.dry_run,
               "plan, judge and report, but write nothing but the report: to --report PATH, else "
               "to stdout (no OUT, no sidecars, no page; docs/cli.md)")
      ->configurable(false)
      ->group(kGroupEveryday);
  app.set_config("--config", "",
                 "read options from this TOML file, named as on the command line without the "
                 "dashes (start from `retail --print-config`; the command line wins; docs/cli.md)")
      ->group(kGroupEveryday);
  app.allow_config_extras(CLI::config_extras_mode::error);
  app.add_flag("--print-config", cli.print_config,
               "print a config file for --config holding the options given (with --config: "
               "its too), every other option commented out at its default, and exit")
      ->configurable(false)
      ->group(kGroupEveryday);
  bind_log_level(app, cli, kGroupEveryday);
}

/// The options of `app` from the `first`-th on still in CLI11's default group go to `group`.
void group_rest(CLI::App& app, std::size_t first, const char* group) {
  std::vector<CLI::Option*> options = app.get_options();
  for (std::size_t i = first; i < options.size(); ++i)
    if (options[i]->get_group() == "Options") options[i]->group(group);
}

/// Detection's evidence and found-hair options (detect.h), into the caller's group.
void bind_detect_evidence(CLI::App& app, retail::DetectParams& dp) {
  app.add_option("--evidence-mix", dp.evidence_mix,
                 "evidence: skin weighted to limbs of both sides, the smaller side at least this")
      ->capture_default_str();
  app.add_option("--leg-weight", dp.stub_leg_weight,
                 "a stub or an evidence part is a tail only weighted at least this to the legs")
      ->capture_default_str();
  app.add_option("--evidence-tear-ratio", dp.evidence_tear_ratio,
                 "evidence: ...and tears under the input's clips this many times the character")
      ->capture_default_str();
  app.add_option("--evidence-own-bones", dp.evidence_own_bones,
                 "evidence: ...and is weighted less than this to bones of its own")
      ->capture_default_str();
  app.add_option("--evidence-body-share", dp.evidence_body_share,
                 "a piece left as body (a bone lies in it) is judged by its skin when this share "
                 "of it is evidence skin (above 1: never)")
      ->capture_default_str();
  app.add_option("--min-tail-vertices", dp.min_tail_vertices,
                 "a chain needs at least this many welded vertices")
      ->capture_default_str();
  app.add_option("--hair-length-heads", dp.hair_length_heads,
                 "found hair: a piece touching the head is hair only this many head sizes long")
      ->capture_default_str();
  app.add_option("--hair-drop-heads", dp.hair_drop_heads,
                 "found hair: ...hanging this many head sizes below the head joint (the jaw)")
      ->capture_default_str();
  app.add_option("--hair-head-weight", dp.hair_head_weight,
                 "found hair: ...weighted at least this to the head and neck")
      ->capture_default_str();
  app.add_option("--hair-shell-rise", dp.hair_shell_rise_heads,
                 "found hair lying close to the body (a whole shell): ...rising this many head "
                 "sizes above the head joint")
      ->capture_default_str();
}

/// Detection (detect.h) and the model's size (skeleton.h).
void bind_detect(CLI::App& app, Cli& cli) {
  const std::size_t first = app.get_options().size();
  retail::DetectParams& dp = cli.params.rerig.detect;
  add_switch(app, "--rigid-worn", dp.rigid_worn,
             "give worn pieces (sheath, quiver) weight 1 on their bone", kGroupDetection);
  app.add_option("--reference-height", cli.params.bind.reference_height_m,
                 "model height (m) at which metre-given defaults apply unscaled")
      ->capture_default_str();
  add_switch(app, "--units-fixed", cli.units_fixed,
             "do not scale metre-given defaults by H/1.8 (SPEC --units auto is the default)",
             kGroupDetection);
  app.add_option("--far", dp.distance.far_fraction_h, "far: skeleton distance above this x H")
      ->capture_default_str();
  app.add_option("--centroid-ratio", dp.centroid_ratio,
                 "appendage: centroid distance >= this x reach")
      ->capture_default_str();
  app.add_option("--elongation", dp.elongation_min, "long: elongation >= this")
      ->capture_default_str();
  app.add_option("--merge-overlap", dp.merge_overlap, "merge shells whose box overlap exceeds this")
      ->capture_default_str();
  app.add_option("--junction-slope", dp.junction_slope,
                 "isoline growth rate where a body begins (docs/detection.md)")
      ->capture_default_str();
  app.add_option("--min-tail-length", dp.min_tail_length_h, "shortest tail, x H")
      ->capture_default_str();
  app.add_option("--slenderness", dp.slenderness_min,
                 "also long: pi L^2 / area >= this (curled tails; 0: off, sheets pass it too)")
      ->capture_default_str();
  app.add_option("--tube-border-reach", dp.tube_border_reach,
                 "a slender piece is a tube when its open border is shorter than it or lies "
                 "within this share of its length from its root (0: by its length alone)")
      ->capture_default_str();
  app.add_option("--misweight-ratio", dp.misweight_ratio,
                 "mis-weighted skin: weighted bone distance > this x skeleton distance (+0.02 H)")
      ->capture_default_str();
  app.add_option("--base-zone", dp.base_zone_radii,
                 "a tail's base grows over mis-weighted skin up to this many neck radii")
      ->capture_default_str();
  app.add_option("--base-collar-reach", dp.base_collar_reach,
                 "a piece whose grown base reaches more than this many times as far from its cut "
                 "as its tip is collared where the base ends (0: always at the cut)")
      ->capture_default_str();
  app.add_option("--tail-head-skin", dp.tail_head_skin_max,
                 "a piece from the hips weighted more than this share to the head and neck is the "
                 "body, not a tail (above 1: never)")
      ->capture_default_str();
  app.add_option("--leg-midline", dp.leg_midline_radii,
                 "leg-weighted skin within this many neck radii of the midline is a tail's base")
      ->capture_default_str();
  app.add_flag("--base-mixed-shin", dp.base_mixed_shin,
               "a tail's base may grow over shin skin weighted to both legs (off: measured, "
               "docs/detection.md)");
  app.add_option(
         "--base-mixed-mirror", dp.base_mixed_mirror_h,
         "a tail's base grows over skin weighted to both legs (or its mirror within this x H; "
         "0: off)")
      ->capture_default_str();
  bind_detect_evidence(app, dp);
  group_rest(app, first, kGroupDetection);
}

/// The chain and its root band (chain.h, root_band.h), then what is a tail by hand and the harm
/// check (rerig.h, pipeline.h).
void bind_rerig(CLI::App& app, Cli& cli) {
  const std::size_t first = app.get_options().size();
  retail::RunParams& params = cli.params;
  retail::RerigParams& rp = params.rerig;
  app.add_option("--short-tail", rp.chain.short_tail_h,
                 "tails shorter than this x H may get 1-2 bones (0: at least --min-bones)")
      ->capture_default_str();
  app.add_option("--segment", rp.chain.segment_h, "chain segment length, x H")
      ->capture_default_str();
  app.add_option("--min-bones", rp.chain.min_bones, "fewest chain bones")->capture_default_str();
  app.add_option("--root-band", rp.root_band.width_radii,
                 "blend the body's weights into the tail's root over this many root radii "
                 "(0: off)")
      ->capture_default_str();
  app.add_option("--root-seam", rp.root_band.seam_links,
                 "blend the tail's own weights into its root band over this many first links "
                 "from the tail's skin, so the seam does not jump (0: off)")
      ->capture_default_str();
  app.add_option("--root-band-ring", rp.root_band.min_far_share,
                 "a root band whose far side has fewer vertices than this share of its near side "
                 "(it closes over a cap's pole) is grown twice as wide (0: never; "
                 "docs/detection.md section 6)")
      ->capture_default_str()
      ->group(kGroupAdvanced);
  add_switch(app, "--root-band-legs", rp.root_band.lower_legs,
             "let the root band also blend skin the input moves with a lower leg or a foot "
             "(docs/detection.md section 7, \"The root band over the rat's lower legs\")",
             kGroupAdvanced);
  app.add_option("--max-bones", rp.chain.max_bones, "most chain bones")->capture_default_str();
  add_switch(app, "--geodesic-weights", cli.geodesic_weights,
             "weight a tail by SPEC 6's surface distance from the collar, not by its position "
             "along the chain's axis (docs/detection.md section 6)",
             kGroupAdvanced);
  add_switch(app, "--harm-check,!--no-harm-check", params.harm_check,
             "judge every grown piece against the input under its own clips, edge-sample by "
             "edge-sample, before writing; one that newly tears more than the noise floor "
             "steps down (less skin, a wider root band, one link fewer, rigid) or is left as it "
             "was (--no-harm-check: write what detection grew)",
             kGroupAdvanced);
  app.add_option("--harm-noise", params.harm.noise_share,
                 "the harm check's noise floor: newly torn edge-samples allowed per clip, as a "
                 "share of those judged (at least 3; docs/detection.md section 5)")
      ->capture_default_str();
  app.add_option("--harm-skin-ratio", params.harm.bend_less_skin_ratio,
                 "the harm check's last chain step: the chain as first planned, no joint bending "
                 "past what keeps this ratio of a tail edge's length (0: no such step)")
      ->capture_default_str();
  app.add_option("--hair-torn-p99", params.harm.hair_torn_p99_percent,
                 "the harm check leaves a hair chain as it was when its head-turn edge-max p99 "
                 "exceeds this percent (docs/hair.md)")
      ->capture_default_str();
  app.add_option("--found-hair-torn-p99", params.harm.found_hair_torn_p99_percent,
                 "hair retail found itself is also left as it was when its head-turn edge-max "
                 "p99 exceeds this percent (the article's target; docs/hair.md)")
      ->capture_default_str();
  app.add_option("--hair-stiffer", params.harm.hair_stiffer,
                 "a hair chain whose head turn tears is tried again with its k times each of "
                 "these factors in turn (above 1, ascending; docs/hair.md)")
      ->capture_default_str()
      ->expected(1, 8);
  add_switch(app, "--hair-stiffer-try,!--no-hair-stiffer", cli.hair_stiffer,
             "try a hair chain whose head turn tears again with a stiffer k (--hair-stiffer) "
             "before leaving it as it was",
             kGroupAdvanced);
  group_rest(app, first, kGroupAdvanced);
}

/// What is a tail or hair by hand (everyday), the hair's chains and the VRM springs.
void bind_selection(CLI::App& app, retail::RunParams& params) {
  app.add_option("--tail", params.rerig.tail,
                 "treat this geometry as a tail chain whatever detection says (repeatable): "
                 "piece:N (the report's and the page's piece N), a mesh/primitive index like "
                 "0/2, a mesh name or a material name")
      ->group(kGroupEveryday);
  app.add_option("--not-tail", params.rerig.not_tail,
                 "never treat this geometry as part of a tail (repeatable; same syntax)")
      ->group(kGroupEveryday);
  app.add_option("--hair", params.hair.hair,
                 "rebuild this hair clump as a chain under the head (repeatable; same syntax): "
                 "its weights erased, a pinned band on the head, baked with the hair solver "
                 "(docs/hair.md)")
      ->allow_extra_args(false) // one value per --hair: `--hair H IN OUT` keeps IN and OUT
      ->group(kGroupEveryday);
  app.add_option("--not-hair", params.rerig.not_hair,
                 "never rebuild this geometry as hair found from the model (repeatable; same "
                 "syntax as --tail; --hair still rebuilds what it names)")
      ->group(kGroupEveryday);
  add_switch(app, "--find-hair,!--no-find-hair", params.rerig.detect.find_hair,
             "find long clumps hanging from the head that the rigger left on the head's bones "
             "and rebuild each as a hair chain (docs/hair.md)",
             kGroupHair);
  app.add_option("--hair-joints", params.hair.joints, "joints per hair chain (1..32)")
      ->capture_default_str()
      ->group(kGroupHair);
  app.add_option("--hair-stiffness-ref", params.hair.stiffness_ref_per_s2,
                 "hair chains' k in 1/s^2 for a clump whose mean skin radius is 0.079 of its "
                 "length; a clump's k scales with its radius over its length (docs/hair.md)")
      ->capture_default_str()
      ->group(kGroupHair);
  app.add_option("--hair-damping-ratio", params.hair.damping_ratio,
                 "hair chains' damping ratio: c = 2 x this x sqrt(k)")
      ->capture_default_str()
      ->group(kGroupHair);
  app.add_option("--hair-stiffness", params.hair.stiffness_per_s2,
                 "every hair chain's solver stiffness k in 1/s^2 (default: from the clump's "
                 "length and thickness, docs/hair.md)")
      ->group(kGroupHair);
  app.add_option("--hair-damping", params.hair.damping_per_s,
                 "every hair chain's solver damping c in 1/s (default: 2 x the damping ratio x "
                 "sqrt(k), docs/hair.md)")
      ->group(kGroupHair);
  add_switch(app, "--spring-bake,!--no-spring-bake", params.spring_bake,
             "re-simulate the input's own VRM spring chains (VRM 0.x bone groups / "
             "VRMC_springBone) and bake them into every selected clip; a clip's own track on a "
             "chain joint is kept (docs/hair.md)",
             kGroupHair);
  add_switch(app, "--vrm-springs,!--no-vrm-springs", params.vrm_springs,
             "on a VRM output, also append every grown chain (tails and --hair) to the file's "
             "own springs (VRM 0.x bone groups / VRMC_springBone), so VRM runtimes swing it "
             "live; existing entries are kept as they were (docs/hair.md)",
             kGroupOutput);
}

/// One --skin-try value, "SHARE:BEND" or "SHARE:BEND:RATIO" (finite numbers; the bake's
/// validate() bounds them). Failure: CLI::ValidationError naming the option.
retail::SkinTry parse_skin_try(const std::string& text) {
  std::vector<double> values;
  bool ok = true;
  for (std::size_t start = 0; ok && start <= text.size();) {
    const std::size_t colon = std::min(text.find(':', start), text.size());
    const std::string part = text.substr(start, colon - start);
    char* end = nullptr;
    const double v = std::strtod(part.c_str(), &end);
    ok = !part.empty() && *end == '\0' && std::isfinite(v);
    values.push_back(v);
    start = colon + 1;
  }
  if (!ok || values.size() < 2 || values.size() > 3)
    throw CLI::ValidationError("--skin-try", "expected SHARE:BEND or SHARE:BEND:RATIO (numbers), "
                                             "got '" +
                                                 text + "'");
  return {values[0], values[1], values.size() > 2 ? values[2] : 0.0};
}

/// " 0.75:1 1:1 0.75:1:0.9": the tries as --skin-try takes them.
std::string skin_tries_text(const std::vector<retail::SkinTry>& tries) {
  std::string out;
  for (const retail::SkinTry& t : tries) {
    char buf[64];
    std::snprintf(buf, sizeof buf, t.min_skin_ratio > 0 ? " %g:%g:%g" : " %g:%g", t.skin_share,
                  t.bend_scale, t.min_skin_ratio);
    out += buf;
  }
  return out;
}

/// The bake's advanced contact and seam rules: the leg colliders, held clips, loop seams.
void bind_bake_contacts(CLI::App& app, retail::RunParams& params) {
  auto& sp = params.bake.spring;
  app.add_option("--collider-share", sp.collider_skin_share,
                 "a joint turned out of a leg collider may bend this share of its skin limit")
      ->capture_default_str()
      ->group(kGroupAdvanced);
  app.add_option("--collider-skin", params.bake.collider_skin_share,
                 "a tail keeps this share of its skin radius out of the leg colliders too")
      ->capture_default_str()
      ->group(kGroupAdvanced);
  add_switch(app, "--colliders,!--no-colliders", params.bake.colliders,
             "turn tails out of capsules fitted to the legs' skin as the clip moves them "
             "(the depth is measured and reported either way; docs/spring.md)",
             kGroupAdvanced);
  add_switch(app, "--skin-tries,!--no-skin-tries", params.bake.try_skin,
             "where a tail's skin goes into the legs deeper than 1% of H in a clip, bake it "
             "there again keeping more of its skin out, and keep that where it tears no more "
             "(docs/spring.md \"Skin kept out of the legs\")",
             kGroupAdvanced);
  app.add_option_function<std::vector<std::string>>(
         "--skin-try",
         [&params](const std::vector<std::string>& tries) {
           params.bake.skin_tries.clear();
           for (const std::string& t : tries) params.bake.skin_tries.push_back(parse_skin_try(t));
         },
         "SHARE:BEND[:RATIO], repeatable: the skin tries in their order (each keeps SHARE of "
         "the tail's skin radius out of the leg colliders, lets a joint bend BEND times "
         "--collider-share and, with RATIO, no further than keeps that ratio of a tail edge's "
         "length; default" +
             skin_tries_text(retail::BakeParams{}.skin_tries) + ")")
      ->allow_extra_args(false) // one value per --skin-try: IN and OUT stay positional
      ->group(kGroupAdvanced);
  add_switch(app, "--hold,!--no-hold", params.bake.hold_harmful,
             "hold a tail at rest in a clip where its spring would tear skin and mend none, and "
             "in a clip it harms at the harm check's hold step (--no-hold: keep the spring's "
             "motion, no hold step; docs/spring.md \"Held clips\")",
             kGroupAdvanced);
  add_switch(app, "--spread-seam,!--keep-seam", params.bake.spread_seam,
             "spread a loop's seam still wider than --loop-tolerance over the loop "
             "(--keep-seam: leave it as recorded)",
             kGroupAdvanced);
}

/// The spring (spring.h) and the bake (bake.h).
void bind_bake(CLI::App& app, Cli& cli) {
  const std::size_t first = app.get_options().size();
  retail::RunParams& params = cli.params;
  add_switch(app, "--bake,!--no-bake", params.bake_enabled,
             "bake the spring into every selected clip (--no-bake: chain and weights only, the "
             "tail then follows the hips rigidly)",
             kGroupSpring);
  auto& sp = params.bake.spring;
  app.add_option("--fps", params.bake.fps, "baked keys per second")->capture_default_str();
  app.add_option("--no-loop", params.bake.no_loop,
                 "bake this clip (its full name) from rest without looping (repeatable)");
  app.add_option("--loop", params.bake.loop,
                 "bake this clip (its full name) as a loop even if its name reads one-shot "
                 "(repeatable)");
  app.add_option("--frequency", sp.root_frequency_hz, "spring frequency at the root, Hz")
      ->capture_default_str();
  app.add_option("--tip-frequency", sp.tip_frequency_hz, "spring frequency at the tip, Hz")
      ->capture_default_str();
  app.add_option("--damping", sp.damping_ratio, "damping ratio zeta")->capture_default_str();
  app.add_option("--gravity", sp.gravity_mps2, "gravity on the tail, m/s^2 (scaled to the model)")
      ->capture_default_str();
  add_switch(app, "--carry-always", cli.carry_always,
             "carry every tail's rest arc by --carry whatever it clears (SPEC §7's arc)",
             kGroupSpring);
  app.add_option("--carry", sp.carry_deg,
                 "the most the tail's rest arc is carried (lifted), degrees: a tail modelled "
                 "clear of the legs rests in its modelled shape, one that is not is lifted the "
                 "least that clears them, up to this (docs/spring.md)")
      ->capture_default_str();
  app.add_option("--rest-curve", sp.rest_curve, "0 centred arc .. 1 the modelled curl")
      ->capture_default_str();
  app.add_option("--coupling", sp.coupling_rate, "bend coupling rate k, 1/s")
      ->capture_default_str();
  app.add_option("--bend-limit", sp.bend_limit_deg, "elastic bend limit per joint, degrees")
      ->capture_default_str();
  app.add_option("--min-skin-ratio", sp.min_skin_ratio,
                 "skin limit: no joint bends so far that a tail edge keeps less than this "
                 "ratio of its length (0: off)")
      ->capture_default_str();
  app.add_option("--rest-skin-share", sp.rest_skin_share,
                 "the tail's rest arc bends no joint further from its modelled direction than "
                 "this share of its skin limit (0: SPEC's arc)")
      ->capture_default_str();
  app.add_option("--substep", sp.substep_s, "fixed solver substep, s")
      ->capture_default_str()
      ->group(kGroupAdvanced);
  app.add_option("--floor-clearance", sp.floor_clearance_m,
                 "tail thickness below its centreline at the floor (rho), m (scaled)")
      ->capture_default_str();
  app.add_option("--contact-damping", sp.contact_damping, "sliding damping on the floor, 1/s")
      ->capture_default_str();
  app.add_option("--loop-tolerance", params.bake.loop_tolerance_deg,
                 "warm-up ends when every bone's start state repeats within this, degrees")
      ->capture_default_str()
      ->group(kGroupAdvanced);
  bind_bake_contacts(app, params);
  app.add_option("--max-warmup", params.bake.max_warmup_cycles,
                 "most warm-up cycles before baking anyway (with a warning)")
      ->capture_default_str()
      ->group(kGroupAdvanced);
  app.add_option("--floor", params.bake.floor_y,
                 "floor height g0 (world Y, m; default: lowest body skin at bind)");
  add_switch(app, "--no-floor", cli.no_floor, "no floor contact", kGroupSpring);
  group_rest(app, first, kGroupSpring);
}

/// The clips and the checks (everyday), the stretch's samples and the worker threads.
void bind_measure(CLI::App& app, Cli& cli) {
  app.add_option("--clips", cli.clips,
                 "clips to bake, judge and measure, comma-separated: a full name, the part "
                 "after the last '|' ('Walk' for 'Armature|Walk'), or a pattern with * and ? "
                 "('*Walk*'; default: all; a clip left out gets no tail keys, the tail follows "
                 "the hips rigidly in it)")
      ->delimiter(',')
      ->group(kGroupEveryday);
  app.add_option("--fail-on", cli.fail_on,
                 "QA checks, e.g. torn>0 p99>body.p99 left_torn>0 chain_fail>0 (exit 6 when one "
                 "fails; docs/cli.md)")
      ->group(kGroupEveryday);
  app.add_option("--samples", cli.params.stretch.samples, "stretch samples per clip")
      ->capture_default_str()
      ->group(kGroupAdvanced);
  app.add_option("--threads", cli.params.threads,
                 "worker threads for the per-clip bake and stretch (0: one per core; the "
                 "output does not depend on it)")
      ->capture_default_str()
      ->group(kGroupAdvanced);
}

CLI::App* bind_info_command(CLI::App& app, Cli& cli) {
  auto* cmd = app.add_subcommand("info", "what retail sees: meshes, skins, roles, clips, H, scale");
  cmd->footer("Example:\n  retail info fox.glb --json > fox.info.json");
  cmd->add_option("IN", cli.info_in, "input file")->required();
  cmd->add_flag("--json", cli.info_json,
                "print retail.info/1 JSON on stdout (docs/info-schema.md)");
  bind_log_level(*cmd, cli, "Options");
  return cmd;
}

/// `retail report --head-turn` (head_turn.h).
void bind_head_turn(CLI::App& cmd, Cli& cli) {
  cmd.add_flag("--head-turn", cli.head_turn,
               "instead of the clips: the article's head turn (4 s of turns, 8 s to settle, "
               "120 Hz solver, mesh sampled at 30 Hz) on the file's VRM spring chains; "
               "--json writes retail.headturn/1 (docs/hair.md)");
  cmd.add_option("--head-turn-sample-hz", cli.head_turn_params.turn.sample_hz,
                 "--head-turn: mesh samples per second (a whole divisor of 120)")
      ->capture_default_str();
}

CLI::App* bind_report_command(CLI::App& app, Cli& cli) {
  auto* cmd =
      app.add_subcommand("report", "edge stretch of any rig under its clips; changes nothing");
  cmd->footer("Example:\n  retail report fox-rigged.glb --clips Walk --json stretch.json "
              "--fail-on 'torn>0'\n  retail report godette.vrm --head-turn --json headturn.json");
  cmd->add_option("IN", cli.report_in, "input file")->required();
  cmd->add_option("--json", cli.report_json, "write retail.stretch/1 JSON to PATH (- for stdout)");
  cmd->add_option("--html", cli.report_html,
                  "write a self-contained QA page: the rig with its heat map and the stretch "
                  "(docs/html-page.md)");
  cmd->add_option("--clips", cli.clips,
                  "clips to measure, comma-separated: a full name, the part after the last "
                  "'|', or a pattern with * and ? (default: all)")
      ->delimiter(',');
  cmd->add_option("--region-bones", cli.region_bones,
                  "tail region: largest weight on a bone matching this regex")
      ->capture_default_str();
  cmd->add_option("--samples", cli.params.stretch.samples, "samples per clip")
      ->capture_default_str();
  cmd->add_option("--fail-on", cli.fail_on, "QA checks on the tail region (exit 6 when one fails)");
  cmd->add_option("--threads", cli.params.threads, "worker threads (0: one per core)")
      ->capture_default_str();
  bind_head_turn(*cmd, cli);
  bind_log_level(*cmd, cli, "Options");
  return cmd;
}

CLI::App* bind_batch_command(CLI::App& app, Cli& cli) {
  auto* cmd = app.add_subcommand(
      "batch", "re-rig every .glb/.vrm/.gltf below IN_DIR into OUT_DIR (docs/batch.md); "
               "the options of `retail IN OUT` apply to every file");
  cmd->fallthrough();
  cmd->footer("Outputs keep their input's container (convert single files with retail IN OUT).\n"
              "Example:\n  retail batch assets/ rigged/ -j 4 --summary rigged/summary.jsonl "
              "--fail-on 'torn>0'\n\n" +
              pass_through_text(app));
  cmd->add_option("IN_DIR", cli.batch_in, "input folder (recursive)")->required();
  cmd->add_option("OUT_DIR", cli.batch_out, "output folder (mirrors IN_DIR)")->required();
  cmd->add_option("-j,--jobs", cli.batch.jobs, "worker threads (0: one per core)")
      ->capture_default_str();
  cmd->add_option("--shard", cli.shard, "take every N-th file from the I-th: I/N")
      ->capture_default_str();
  cmd->add_option("--summary", cli.batch.summary_path,
                  "one JSON line per file (- for stdout; docs/batch.md)");
  add_switch(*cmd, "--force", cli.batch.force, "re-rig even outputs newer than their input",
             "Options");
  cmd->add_flag("--html", cli.batch.html,
                "a QA page beside every output (OUT with .html) and OUT_DIR/index.html "
                "listing them (docs/html-page.md)");
  bind_log_level(*cmd, cli, "Options");
  return cmd;
}

/// Every floating-point option of `app` and its subcommands takes finite numbers only: "inf",
/// "nan" and 1e999 are refused naming the option (the params' validate() say the same).
void require_finite(CLI::App& app) {
  for (CLI::Option* o : app.get_options())
    if (o->get_type_name() == "FLOAT")
      o->check(CLI::Validator(
          [](std::string& text) -> std::string {
            char* end = nullptr;
            const double v = std::strtod(text.c_str(), &end);
            if (end != text.c_str() && !std::isfinite(v))
              return "must be a finite number, got '" + text + "'";
            return "";
          },
          "", "finite"));
  for (CLI::App* sub : app.get_subcommands({})) require_finite(*sub);
}

} // namespace

Subcommands bind_options(CLI::App& app, Cli& cli) {
  use_retail_help(app);
  bind_run(app, cli);
  bind_measure(app, cli);
  bind_selection(app, cli.params);
  bind_invocation(app, cli);
  bind_detect(app, cli);
  bind_rerig(app, cli);
  bind_bake(app, cli);
  Subcommands sub;
  sub.info = bind_info_command(app, cli);
  sub.report = bind_report_command(app, cli);
  sub.batch = bind_batch_command(app, cli);
  require_finite(app);
  return sub;
}

void finish_params(Cli& cli) {
  retail::RunParams& params = cli.params;
  params.bind.units_auto = !cli.units_fixed;
  params.clips = cli.clips;
  if (cli.no_floor) params.bake.spring.floor = false;
  if (cli.carry_always) params.bake.spring.carry_as_needed = false;
  if (cli.geodesic_weights)
    params.rerig.chain.coordinate = retail::ChainParams::Coordinate::Geodesic;
  if (!cli.hair_stiffer) params.harm.hair_stiffer.clear();
  if (params.dry_run && params.report_path.empty()) params.report_path = "-";
  for (const auto& f : cli.fail_on) params.fail_on.push_back(retail::parse_fail_on(f));
  params.rerig.mode = cli.mode == "rigid"    ? retail::Mode::Rigid
                      : cli.mode == "detect" ? retail::Mode::Detect
                                             : retail::Mode::Chain;
}
