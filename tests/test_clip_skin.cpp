// The skin kept out of the legs (src/motion/clip_skin.cpp): a generated thick thin tail that the
// LegSweep clip carries across a thigh goes 2% H and more into it with the spring as configured;
// the clip pass measures that (ClipBake::skin_depth, tail_eval's measure agrees), bakes the
// clip again with a skin try, and keeps the try that holds the skin within 1% H without tearing
// the tail more. With --no-skin-tries the depth stays, and a warning names the clip.
#include "retail/app/pipeline.h"
#include "retail/rig_generator.h"
#include "support.h"
#include "tail_eval.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <string>

namespace test_clip_skin {

namespace {

/// A generated thin tail at 1.6 times its radius with the LegSweep clip, and its truth.
std::string thick_thin_tail_dir() {
  retail::RigOptions o;
  o.tail = retail::TailStyle::Thin;
  o.tail_radius_scale = 1.6;
  o.leg_sweep = true;
  return test::generated_rig_dir(o);
}

struct SweepRun {
  retail::ClipBake bake;  ///< the report's bake of the clip
  test::TailClipRow eval; ///< tail_eval's row of the clip
  double height = 0;      ///< H
  std::vector<std::string> warnings;
};

/// retail on dir/in.glb with `params` into dir/`name`.glb, and clip `clip` of its report and of
/// tail_eval's measure against the generator's truth.
SweepRun run_clip(const std::string& dir, const retail::RunParams& params, const std::string& name,
                  const std::string& clip) {
  const std::string out = dir + "/" + name + ".glb";
  const retail::RunResult r = retail::run(dir + "/in.glb", out, params);
  SweepRun s;
  for (const auto& bakes : r.bakes)
    for (const auto& cb : bakes)
      if (cb.name == clip) s.bake = cb;
  const test::TailEval e =
      test::evaluate_tail(test::generated_tail(dir + "/in.truth.json"), dir + "/in.glb", out, "");
  for (const auto& row : e.clips)
    if (row.clip == clip) s.eval = row;
  s.height = r.report.at("characters").at(0).at("height").get<double>();
  s.warnings = r.warnings;
  return s;
}

SweepRun run_sweep(const std::string& dir, bool tries) {
  retail::RunParams params;
  params.bake.try_skin = tries;
  return run_clip(dir, params, tries ? "tries" : "none", "LegSweep");
}

bool warns_about(const std::vector<std::string>& warnings, const std::string& text) {
  for (const auto& w : warnings)
    if (w.find(text) != std::string::npos) return true;
  return false;
}

} // namespace

TEST_CASE("skin tries: a thick tail carried across a thigh is kept out of it", "[spring]") {
  const std::string dir = thick_thin_tail_dir();
  const SweepRun none = run_sweep(dir, false), tries = run_sweep(dir, true);
  const double none_h = 100 * none.bake.skin_depth / none.height,
               tries_h = 100 * tries.bake.skin_depth / tries.height;
  INFO("skin % H into the legs in LegSweep: reported "
       << none_h << " -> " << tries_h << ", tail_eval " << none.eval.output_skin_leg_depth << " -> "
       << tries.eval.output_skin_leg_depth);
  // As configured, the spring carries the skin past the bound: measured, reported and warned.
  CHECK(none_h > 2.0);
  CHECK(none.eval.output_skin_leg_depth > 2.0);
  CHECK(none.bake.skin_try == 0);
  CHECK(warns_about(none.warnings, "skin tries are off"));
  // A try holds it within 1% H, by retail's measure and tail_eval's, tearing the tail no more.
  CHECK(tries.bake.skin_try > 0);
  CHECK(tries_h <= 1.0);
  CHECK(tries.eval.output_skin_leg_depth <= 1.0);
  CHECK(tries.eval.output_torn <= none.eval.output_torn + 1e-9);
  CHECK(tries.eval.newly_torn <= none.eval.newly_torn);
  // ...and no deeper below the floor than the spring, or than the floor warning's 0.1% H.
  CHECK(tries.bake.floor_penetration <= std::max(none.bake.floor_penetration, 1e-3 * tries.height));
  CHECK_FALSE(warns_about(tries.warnings, "skin enters the legs"));
}

// A hanging tail from a thick haunch swings into a thigh in HipSwing: keeping more of its skin
// out of the capsule alone newly tears it there (or swings it wider), bending less as well keeps
// it out and tears no more.
TEST_CASE("skin tries: one that also bends less keeps a hanging tail out of the thigh",
          "[spring]") {
  retail::RigOptions o;
  o.tail = retail::TailStyle::Hanging;
  o.thick_base = true;
  const std::string dir = test::generated_rig_dir(o);
  const retail::RunParams defaults;
  std::vector<retail::SkinTry> shares_only; // the default tries that do not bend less
  for (const retail::SkinTry& t : defaults.bake.skin_tries)
    if (t.min_skin_ratio == 0) shares_only.push_back(t);
  REQUIRE(shares_only.size() < defaults.bake.skin_tries.size());
  auto hip_swing = [&](const std::vector<retail::SkinTry>& tries, const std::string& name) {
    retail::RunParams params;
    params.bake.skin_tries = tries;
    return run_clip(dir, params, name, "HipSwing");
  };
  const SweepRun shares = hip_swing(shares_only, "shares"),
                 all = hip_swing(defaults.bake.skin_tries, "all");
  INFO("skin % H into the legs in HipSwing: shares only "
       << shares.eval.output_skin_leg_depth << " (try " << shares.bake.skin_try
       << "), with bending less " << all.eval.output_skin_leg_depth << " (try " << all.bake.skin_try
       << ")");
  CHECK(shares.bake.skin_try == 0);
  CHECK(100 * shares.bake.skin_depth / shares.height > 1.0);
  REQUIRE(all.bake.skin_try > 0);
  CHECK(defaults.bake.skin_tries[std::size_t(all.bake.skin_try - 1)].min_skin_ratio > 0);
  CHECK(100 * all.bake.skin_depth / all.height <= 1.0);
  CHECK(all.eval.output_skin_leg_depth <= 1.0);
  CHECK(all.eval.output_torn <= shares.eval.output_torn + 1e-9);
  CHECK(all.eval.newly_torn <= shares.eval.newly_torn);
  CHECK(all.bake.tip_swing_deg <= shares.bake.tip_swing_deg + 15);
  CHECK(all.bake.floor_penetration <= std::max(shares.bake.floor_penetration, 1e-3 * all.height));
}

TEST_CASE("skin depth: retail's measure agrees with tail_eval's, also where the tail rests "
          "against the legs",
          "[spring]") {
  // A horizontal body's thin tail lies close to the thighs at bind: the tube round its links
  // overlaps them there, so only the skin itself shows how deep the clips carry it in.
  retail::RigOptions o;
  o.horizontal_body = true;
  o.tail = retail::TailStyle::Thin;
  const std::string dir = test::generated_rig_dir(o);
  retail::RunParams params;
  params.bake.try_skin = false;
  const retail::RunResult r = retail::run(dir + "/in.glb", dir + "/out.glb", params);
  const double height = r.report.at("characters").at(0).at("height").get<double>();
  const test::TailEval e = test::evaluate_tail(test::generated_tail(dir + "/in.truth.json"),
                                               dir + "/in.glb", dir + "/out.glb", "");
  REQUIRE(e.recall > 0.99);
  double deepest = 0;
  for (const auto& row : e.clips)
    for (const auto& bakes : r.bakes)
      for (const auto& cb : bakes)
        if (cb.name == row.clip) {
          INFO(row.clip << ": retail " << 100 * cb.skin_depth / height << "% H, tail_eval "
                        << row.output_skin_leg_depth);
          CHECK(100 * cb.skin_depth / height == Approx(row.output_skin_leg_depth).margin(0.1));
          deepest = std::max(deepest, row.output_skin_leg_depth);
        }
  CHECK(deepest > 2.0); // the clips do carry it in: the agreement is not two zeros
}

} // namespace test_clip_skin
