// chain_record: per-chain records and their verdicts (chain_record.h).
#include "retail/motion/chain_record.h"

#include "retail/base/error.h"

namespace retail {

const char* chain_solver_name(ChainSolver solver) { // bake.h
  return solver == ChainSolver::Arc ? "arc" : "spring";
}

void ChainTargets::validate() const {
  auto positive = [](double v, const char* what) {
    if (!(v > 0) || !std::isfinite(v))
      throw Error(ExitCode::Usage, std::string("chain targets: ") + what + " must be above 0");
  };
  positive(hair_edge_p99_percent, "the hair edge p99");
  positive(penetration_mm, "the penetration");
  positive(reference_height_m, "the reference height");
  positive(loop_seam_deg, "the loop seam");
  positive(tail_skin_depth_percent_h, "the tail's skin depth");
}

namespace {

/// A check of `value` at most `limit`; NaN value: not measured.
ChainCheck at_most(const std::string& check, const std::string& clip, double value, double limit) {
  ChainCheck c{check, clip, value, limit, "not measured"};
  if (std::isfinite(value)) c.verdict = value <= limit ? "pass" : "fail";
  return c;
}

/// Penetration in world units as millimetres at the reference height (NaN stays NaN).
double mm_at_reference(double penetration, double height, const ChainTargets& t) {
  if (!std::isfinite(penetration) || !(height > 0)) return NAN;
  return 1000 * penetration * t.reference_height_m / height;
}

} // namespace

ChainVerdict judge_chain(const ChainRecord& r, double height, const ChainTargets& t) {
  ChainVerdict v;
  if (!r.baked) {
    v.verdict = r.note.substr(0, r.note.find(':'));
    return v;
  }
  if (r.kind == ChainKind::Hair) {
    v.checks.push_back(
        at_most("edge_p99_percent", "", r.head_turn_edge_p99_percent, t.hair_edge_p99_percent));
    v.checks.push_back(at_most("penetration_mm", "",
                               mm_at_reference(r.head_turn_penetration, height, t),
                               t.penetration_mm));
  }
  for (std::size_t i = 0; i < r.bakes.size(); ++i) {
    const ClipBake& b = r.bakes[i];
    const double pen = i < r.penetration.size() ? r.penetration[i] : NAN;
    v.checks.push_back(
        at_most("penetration_mm", b.name, mm_at_reference(pen, height, t), t.penetration_mm));
    if (r.kind == ChainKind::Tail && height > 0)
      v.checks.push_back(at_most("skin_depth_percent_h", b.name, 100 * b.skin_depth / height,
                                 t.tail_skin_depth_percent_h));
    // A one-shot clip has no warm-up to settle (it is baked from rest): not measured.
    ChainCheck settled{"settled", b.name, NAN, 1, "not measured"};
    if (!b.one_shot) {
      settled.value = b.converged ? 1.0 : 0.0;
      settled.verdict = b.converged ? "pass" : "fail";
    }
    v.checks.push_back(settled);
    if (!b.one_shot)
      v.checks.push_back(at_most("loop_seam_deg", b.name, b.loop_closure_deg, t.loop_seam_deg));
  }
  for (const ChainCheck& c : v.checks) v.failed += c.verdict == "fail";
  v.verdict = v.failed ? "fail" : "pass";
  return v;
}

ChainRecord ears_record(const EarsPair& pair) {
  ChainRecord r;
  r.kind = ChainKind::Ears;
  r.baked = false;
  r.label = "Ears";
  r.note = ears_note(pair);
  r.bones = {pair.bone_name};
  r.nodes = {pair.bone};
  return r;
}

std::size_t chains_failed(const std::vector<std::vector<ChainVerdict>>& verdicts) {
  std::size_t n = 0;
  for (const auto& character : verdicts)
    for (const ChainVerdict& v : character) n += v.verdict == "fail";
  return n;
}

} // namespace retail
