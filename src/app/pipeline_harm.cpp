// The harm check and the torn skin left as it was (pipeline_internal.h).
#include "app/pipeline_internal.h"

#include "retail/qa/harm.h"
#include "retail/qa/harm_ladder.h"

#include <cmath>
#include <cstdio>

namespace retail {

namespace {

/// The first clip in which the piece (rigid: as the rigid reference) is not harmless
/// (harm.h), or -1.
int first_harmful_clip(const PieceJudge& pj, const HarmParams& params, bool rigid = false) {
  const std::vector<EdgeFlips>& own = rigid ? pj.rigid_flips : pj.flips;
  const std::vector<EdgeFlips>& seam = rigid ? pj.rigid_seam_flips : pj.seam_flips;
  for (std::size_t c = 0; c < own.size() && c < seam.size() && c < pj.body_torn.size(); ++c)
    if (!harmless_clip(own[c], seam[c], pj.body_torn[c], params)) return int(c);
  return -1;
}

/// How many vertices the judged change tore more than it healed (PieceJudge::vertex_net > 0).
std::size_t harmed_vertices(const PieceJudge& pj) {
  std::size_t n = 0;
  for (const auto& vn : pj.vertex_net) n += vn.second > 0;
  return n;
}

/// Why clip c of `pj` is harmful: the tier that fails, with its figures.
std::string harm_figures(const PieceJudge& pj, std::size_t c, const HarmParams& params) {
  const std::size_t floor =
      noise_floor(pj.flips[c].edge_samples + pj.seam_flips[c].edge_samples, params);
  if (!piece_harmless(pj.flips[c], floor))
    return "on the piece, " + describe_flips(pj.flips[c], floor);
  const std::size_t allowance = seam_allowance(pj.seam_flips[c], pj.body_torn[c]);
  return "at its seam, " + describe_flips(pj.seam_flips[c], floor) +
         " (the body's baseline: " + std::to_string(allowance) + ")";
}

} // namespace

/// (harm_review: pipeline_internal.h)
bool harm_review(const std::vector<std::vector<PieceJudge>>& judge,
                 const std::vector<CharacterResult>& characters, const HarmParams& params,
                 std::vector<std::map<int, PieceOverride>>& overrides,
                 std::vector<std::map<int, PieceJudge>>& verdicts) {
  bool again = false;
  char buf[320];
  for (std::size_t k = 0; k < characters.size(); ++k) {
    const CharacterResult& cr = characters[k];
    for (std::size_t j = 0; j < cr.chains.size(); ++j) {
      const ChainResult& ch = cr.chains[j];
      PieceOverride& o = overrides[k][ch.piece];
      PieceJudge pj = k < judge.size() && j < judge[k].size() ? judge[k][j] : PieceJudge{};
      pj.piece = ch.piece;
      const int worse = first_harmful_clip(pj, params);
      std::string why, step;
      if (2 * ch.vertices > cr.source_vertices) {
        std::snprintf(buf, sizeof buf, "implausible for a tail (%zu of %zu vertices)", ch.vertices,
                      cr.source_vertices);
        why = buf;
        o.kind = PieceOverride::Kind::Leave;
        step = ladder_step_text(LadderStep::Leave, o, 0);
      } else if (!ch.rigid && !(ch.distance_after < ch.distance_before)) {
        std::snprintf(buf, sizeof buf,
                      "the weighted bone distance does not drop (%.4g m -> %.4g m)",
                      ch.distance_before, ch.distance_after);
        why = buf;
        o.kind = PieceOverride::Kind::Leave;
        step = ladder_step_text(LadderStep::Leave, o, 0);
      } else if (worse >= 0) {
        why = std::string(ch.rigid ? "rigid on the hips" : "the chain") + " in '" +
              pj.clips[std::size_t(worse)] + "': " + harm_figures(pj, std::size_t(worse), params);
        LadderInput in;
        in.rigid = ch.rigid;
        in.rigid_ok = !pj.rigid_flips.empty() && first_harmful_clip(pj, params, true) < 0;
        in.harmed = harmed_vertices(pj);
        in.vertices = ch.vertices;
        in.bones = ch.chain.bones;
        in.bend_less_ratio = params.bend_less_skin_ratio;
        in.hold = params.hold_step;
        in.vertex_net = pj.vertex_net;
        step = ladder_step_text(step_down(in, o), o, in.harmed);
      } else {
        continue;
      }
      o.reason = "harm check: " + why + ": " + step;
      pj.verdict = o.reason;
      verdicts[k][ch.piece] = pj;
      again = true;
    }
  }
  return again;
}

/// The final pass's judgement of every piece, and the earlier verdicts of pieces stepped down;
/// one warning per stepped piece.
void record_verdicts(const std::vector<std::map<int, PieceJudge>>& verdicts,
                     const std::vector<std::vector<PieceJudge>>& judge, RunResult& result) {
  result.judge.assign(result.characters.size(), {});
  for (std::size_t k = 0; k < result.characters.size(); ++k) {
    std::map<int, PieceJudge> all = verdicts[k];
    if (k < judge.size())
      for (PieceJudge pj : judge[k]) {
        auto it = verdicts[k].find(pj.piece);
        pj.verdict = it == verdicts[k].end() ? "kept" : it->second.verdict;
        all[pj.piece] = pj;
      }
    for (auto& [piece, pj] : all) {
      if (pj.verdict != "kept")
        result.warnings.push_back("piece " + std::to_string(piece) + ": " + pj.verdict);
      result.judge[k].push_back(pj);
    }
  }
}

namespace {

/// The names and shares of the joints a piece's skin is weighted to.
std::vector<std::pair<std::string, double>> bone_names(const Model& model, const Character& c,
                                                       const Piece& p) {
  std::vector<std::pair<std::string, double>> out;
  for (const auto& [j, share] : p.weighted_to)
    out.push_back({model.nodes[std::size_t(c.joints[std::size_t(j)])].name, share});
  return out;
}

/// "BackUpLeg.L 46%, BackUpLeg.R 30%, BackLowLeg.L 24%".
std::string bones_text(const std::vector<std::pair<std::string, double>>& bones) {
  std::string out;
  for (const auto& [name, share] : bones) {
    char buf[32];
    std::snprintf(buf, sizeof buf, " %.0f%%", 100 * share);
    out += (out.empty() ? "" : ", ") + name + buf;
  }
  return out;
}

/// The torn skin the harm check left (a tail piece left as it was), from its verdict's figures:
/// the piece's own edge-samples in the clip where the input tears them most.
void left_by_the_harm_check(const Model& model, const Character& c, const CharacterResult& cr,
                            const std::vector<PieceJudge>& judge, double percent,
                            std::vector<LeftTorn>& out) {
  for (const PieceJudge& pj : judge) {
    const Piece* piece = nullptr;
    for (const Piece& p : cr.detection.pieces)
      if (p.id == pj.piece && p.decision == Decision::TailRejected) piece = &p;
    if (!piece) continue;
    LeftTorn t;
    t.piece = piece->id;
    t.vertices = piece->vertices.size();
    t.bones = bone_names(model, c, *piece);
    t.reason = piece->reason;
    t.torn_percent = 0;
    for (std::size_t k = 0; k < pj.flips.size() && k < pj.clips.size(); ++k) {
      const EdgeFlips& f = pj.flips[k];
      const double share =
          f.edge_samples ? 100.0 * double(f.input_torn) / double(f.edge_samples) : 0;
      if (share > t.torn_percent) t.torn_percent = share, t.clip = pj.clips[k];
    }
    if (t.torn_percent >= percent) out.push_back(std::move(t));
  }
}

} // namespace

std::size_t find_left_torn(const Input& in, const RunParams& params, RunResult& result) {
  std::size_t vertices = 0;
  result.left_torn.assign(result.characters.size(), {});
  for (std::size_t k = 0; k < result.characters.size() && k < in.characters.size(); ++k) {
    const CharacterResult& cr = result.characters[k];
    std::vector<LeftTorn>& out = result.left_torn[k];
    if (k < result.judge.size())
      left_by_the_harm_check(in.model, in.characters[k], cr, result.judge[k],
                             params.left_torn_percent, out);
    for (const Piece& p : cr.detection.evidence_left) {
      // Skin the rigger moved wrongly where an appendage it has no bone for would hang: from the
      // hips or a thigh, across the midline, mostly on the legs and not on bones of its own (a
      // limb's or the head's skin, and an artist's blend, are theirs to answer for).
      const DetectParams& dp = params.rerig.detect;
      if ((p.region != "hips" && p.region != "thigh") || !p.crosses_midline ||
          p.leg_weight < dp.stub_leg_weight || !(p.own_bones < dp.evidence_own_bones))
        continue;
      const bool unknown = !std::isfinite(p.tear);
      if (unknown ? p.decision != Decision::TailChain
                  : !(100 * p.tear >= params.left_torn_percent &&
                      p.tear >= params.left_torn_ratio * p.rest_tear))
        continue;
      LeftTorn t;
      t.vertices = p.vertices.size();
      t.bones = bone_names(in.model, in.characters[k], p);
      t.torn_percent = unknown ? NAN : 100 * p.tear;
      t.reason = unknown ? "its weights look like a tail an auto-rigger missed, and there is no "
                           "clip to judge a re-rig by"
                         : std::string(decision_name(p.decision)) + ": " + p.reason;
      out.push_back(std::move(t));
    }
    for (const LeftTorn& t : out) {
      vertices += t.vertices;
      char buf[200];
      if (std::isfinite(t.torn_percent))
        std::snprintf(buf, sizeof buf, "tears %.1f%% of its edge-samples%s%s", t.torn_percent,
                      t.clip.empty() ? " under the clips" : " in '", t.clip.c_str());
      else
        std::snprintf(buf, sizeof buf, "cannot be judged");
      result.warnings.push_back("skin left torn as it was: " + std::to_string(t.vertices) +
                                " vertices weighted to " + bones_text(t.bones) + " " + buf +
                                (t.clip.empty() ? "" : "'") + " (" + t.reason + ")");
    }
  }
  for (const auto& f : evaluate_left_torn(params.fail_on, vertices)) result.failures.push_back(f);
  return vertices;
}

} // namespace retail
