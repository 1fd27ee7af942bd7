// make_report: a run record as retail.report/1; the stretch tables as JSON.
#include "retail/record/report.h"

#include <cmath>
#include <filesystem>

namespace retail {
namespace {

double r6(double v) {
  return round6(v);
}

Json vec(const Eigen::Vector3d& p) {
  return Json::array({r6(p.x()), r6(p.y()), r6(p.z())});
}

Json piece_json(const CharacterFacts& c, const Piece& p) {
  Json j = Json::object();
  j["id"] = p.id;
  j["vertices"] = p.vertices.size();
  j["attachment"] = p.attachment < 0 ? Json(nullptr)
                                     : Json{{"node", c.joints[std::size_t(p.attachment)]},
                                            {"name", c.joint_names[std::size_t(p.attachment)]}};
  j["region"] = p.region;
  j["reach"] = r6(p.reach);
  j["centroid_distance"] = r6(p.centroid_distance);
  j["centroid_ratio"] = r6(p.reach > 0 ? p.centroid_distance / p.reach : 0);
  j["elongation"] = std::isfinite(p.elongation) ? Json(r6(p.elongation)) : Json(nullptr);
  j["length"] = r6(p.length);
  j["slenderness"] = std::isfinite(p.slenderness) ? Json(r6(p.slenderness)) : Json(nullptr);
  j["open_border"] = r6(p.open_border);
  j["border_reach"] = r6(p.border_reach);
  j["junction"] = p.junction >= 0 ? Json(r6(p.junction)) : Json(nullptr);
  j["base_added"] = p.base_added;
  j["crosses_midline"] = p.crosses_midline;
  j["separate_shell"] = p.separate_shell;
  j["collar_from_shell"] = p.collar_from_shell;
  j["merged"] = p.merged;
  if (p.riding_shells > 0) j["riding_shells"] = p.riding_shells;
  j["selected"] = p.selected.empty() ? Json(nullptr) : Json(p.selected);
  if (p.head_skin > 0) j["head_skin"] = r6(p.head_skin); // most pieces have none
  if (std::isfinite(p.head_weight)) // measured: the piece touches the head (docs/hair.md)
    j["hair_cues"] = {
        {"head_size", r6(p.head_size)},
        {"drop_heads", std::isfinite(p.hair_drop) ? Json(r6(p.hair_drop)) : Json()},
        {"length_heads", std::isfinite(p.hair_length) ? Json(r6(p.hair_length)) : Json()},
        {"head_weight", r6(p.head_weight)},
        {"own_bones", r6(p.own_bones)}};
  if (std::isfinite(p.hair_rise)) j["hair_cues"]["rise_heads"] = r6(p.hair_rise);
  j["decision"] = decision_name(p.decision);
  j["reason"] = p.reason;
  return j;
}

Json chain_json(const ChainResult& r) {
  Json j = Json::object();
  j["piece"] = r.piece;
  j["bones"] = r.bones;
  j["nodes"] = r.nodes;
  j["K"] = r.chain.bones;
  j["L"] = r6(r.chain.length);
  Json joints = Json::array();
  for (const auto& p : r.chain.joints) joints.push_back(vec(p));
  j["joints"] = joints;
  j["empty_bands"] = r.chain.empty_bands;
  Json radius = Json::array();
  for (double x : r.chain.radius) radius.push_back(r6(x));
  j["skin_radius"] = radius;
  j["root_radius"] = r6(r.chain.root_radius);
  j["root_band_vertices"] = r.band_vertices;
  if (r.peeled_vertices > 0) j["peeled_vertices"] = r.peeled_vertices;
  j["rigid"] = r.rigid;
  j["vertices"] = r.vertices;
  j["weighted_bone_distance"] = {
      {"before", r6(r.distance_before)},
      {"after", r6(r.distance_after)},
      {"ratio", r.distance_before > 0 ? r6(r.distance_after / r.distance_before) : 0.0}};
  return j;
}

/// A bake_json clip without the figures only a tail's spring has (the floor and the leg
/// colliders): what hair chains and the file's own springs report.
void erase_tail_figures(Json& clip) {
  for (const char* key :
       {"floor_penetration", "collider_depth", "collider_contact_share", "skin_depth", "skin_try"})
    clip.erase(key);
}

Json bake_json(const std::vector<ClipBake>& bakes, double floor) {
  Json clips = Json::array();
  for (const auto& b : bakes)
    clips.push_back({{"clip", b.clip},
                     {"name", b.name},
                     {"one_shot", b.one_shot},
                     {"warmup_cycles", b.warmup_cycles},
                     {"converged", b.converged},
                     {"loop_closure_deg", r6(b.loop_closure_deg)},
                     {"seam_spread_deg", r6(b.seam_spread_deg)},
                     {"tip_swing_deg", r6(b.tip_swing_deg)},
                     {"floor_penetration", r6(b.floor_penetration)},
                     {"collider_depth", r6(b.collider_depth)},
                     {"collider_contact_share", r6(b.collider_contact_share)},
                     {"skin_depth", r6(b.skin_depth)},
                     {"skin_try", b.skin_try},
                     {"keys", b.keys},
                     {"kept_authored", b.kept_authored},
                     {"held", b.held},
                     {"spring_newly_torn", b.spring_newly_torn}});
  return {{"floor_y", r6(floor)}, {"clips", clips}};
}

Json harm_json(const std::vector<PieceJudge>& judge, const HarmParams& harm) {
  Json checks = Json::array();
  for (const PieceJudge& pj : judge) {
    Json clips = Json::array();
    for (std::size_t i = 0; i < pj.clips.size(); ++i) {
      Json clip = {{"name", pj.clips[i]},
                   {"input_torn_percent", r6(pj.input_torn[i])},
                   {"output_torn_percent", r6(pj.output_torn[i])}};
      auto tier = [&](const EdgeFlips& f, std::size_t allowance) {
        return Json{{"edge_samples", f.edge_samples},
                    {"newly_torn", f.newly_torn},
                    {"healed", f.healed},
                    {"input_torn", f.input_torn},
                    {"output_torn", f.output_torn},
                    {"allowance", allowance}};
      };
      if (i < pj.flips.size() && i < pj.seam_flips.size() && i < pj.body_torn.size()) {
        clip["noise_floor"] =
            noise_floor(pj.flips[i].edge_samples + pj.seam_flips[i].edge_samples, harm);
        clip["body_torn_percent"] = r6(pj.body_torn[i]);
        clip["piece"] = tier(pj.flips[i], 0);
        clip["seam"] = tier(pj.seam_flips[i], seam_allowance(pj.seam_flips[i], pj.body_torn[i]));
      }
      if (i < pj.rigid_flips.size() && i < pj.rigid_seam_flips.size()) {
        clip["rigid_piece"] = tier(pj.rigid_flips[i], 0);
        clip["rigid_seam"] =
            tier(pj.rigid_seam_flips[i], seam_allowance(pj.rigid_seam_flips[i], pj.body_torn[i]));
      }
      clips.push_back(clip);
    }
    checks.push_back({{"piece", pj.piece}, {"verdict", pj.verdict}, {"clips", clips}});
  }
  return checks;
}

/// Torn skin left as it was (never silent): per entry the piece (null for a part of the
/// evidence), its welded vertices, the bones its skin is weighted to, its torn share and where.
Json left_torn_json(const std::vector<LeftTorn>& left) {
  Json out = Json::array();
  for (const LeftTorn& t : left) {
    Json bones = Json::array();
    for (const auto& [name, share] : t.bones)
      bones.push_back({{"name", name}, {"share", r6(share)}});
    out.push_back(
        {{"piece", t.piece >= 0 ? Json(t.piece) : Json(nullptr)},
         {"vertices", t.vertices},
         {"bones", bones},
         {"torn_percent", std::isfinite(t.torn_percent) ? Json(r6(t.torn_percent)) : Json(nullptr)},
         {"clip", t.clip.empty() ? Json(nullptr) : Json(t.clip)},
         {"reason", t.reason}});
  }
  return out;
}

/// The body capsules fitted for a character's hair chains (hair_capsules.h), added or not;
/// `vrm` what the VRM spring export wrote for the character (null: not run).
Json body_capsules_json(const std::vector<BodyCapsule>& body, const VrmSpringRecord* vrm) {
  Json out = Json::array();
  for (const BodyCapsule& b : body) {
    bool exported = false;
    if (vrm)
      for (const GrownCollider& c : vrm->colliders) exported = exported || c.name == b.bone;
    out.push_back({{"bone", b.bone},
                   {"node", b.node},
                   {"added", b.added},
                   {"exported", exported},
                   {"covered", b.covered},
                   {"dropped", b.dropped},
                   {"limb", b.limb},
                   {"a", vec(b.capsule.a)},
                   {"b", vec(b.capsule.b)},
                   {"radius", r6(b.capsule.radius_m)},
                   {"fitted_radius", r6(b.fitted_radius_m)},
                   {"vertices", b.vertices}});
  }
  return out;
}

/// The character's --hair chains: selector, vertices, bands, joints, bones, their bakes per clip
/// and the colliders they respect (docs/report-schema.md).
Json hair_json(const RunRecord& rec, std::size_t k) {
  const HairResult& h = rec.hair[k];
  std::vector<const ChainRecord*> baked; // the hair chains' records, in chain order
  if (k < rec.chain_records.size())
    for (const ChainRecord& r : rec.chain_records[k])
      if (r.kind == ChainKind::Hair) baked.push_back(&r);
  Json chains = Json::array();
  for (std::size_t i = 0; i < h.chains.size(); ++i) {
    const HairChainResult& c = h.chains[i];
    Json joints = Json::array();
    for (const auto& p : c.chain.joints) joints.push_back({r6(p.x()), r6(p.y()), r6(p.z())});
    Json radius = Json::array();
    for (double r : c.chain.radius) radius.push_back(r6(r));
    Json cj = {{"selector", c.selector},
               {"found", c.found},
               {"stiffness_per_s2", r6(c.stiffness_per_s2)},
               {"damping_per_s", r6(c.damping_per_s)},
               {"stiffness_scale", r6(c.stiffness_scale)},
               {"vertices", c.vertices},
               {"attachment_band_vertices", c.band_vertices},
               {"pinned_vertices", c.pinned},
               {"unreached_vertices", c.unreached},
               {"joints", c.chain.bones},
               {"length", r6(c.chain.length)},
               {"bones", c.bones},
               {"nodes", c.nodes},
               {"joint_positions", joints},
               {"skin_radius", radius}};
    if (k < rec.hair_head_turn.size() && i < rec.hair_head_turn[k].chains.size())
      cj["head_turn"] = head_turn_chain_json(rec.hair_head_turn[k].chains[i]);
    if (i < baked.size() && !baked[i]->bakes.empty()) {
      Json b = bake_json(baked[i]->bakes, 0.0);
      b.erase("floor_y");
      for (Json& clip : b["clips"]) erase_tail_figures(clip);
      cj["bake"] = b;
    }
    chains.push_back(cj);
  }
  Json left = Json::array();
  for (const HairLeft& l : h.left)
    left.push_back({{"selector", l.selector},
                    {"found", l.found},
                    {"vertices", l.vertices},
                    {"reason", l.reason}});
  Json out = {{"chains", chains}, {"left", left}};
  if (k < rec.hair_head_turn.size() && rec.hair_head_turn[k].samples > 0) {
    const HeadTurnParams& p = rec.hair_qa.turn;
    const HairBakeParams& solver = rec.hair_qa.solver;
    const TorsoFit& torso = rec.hair_head_turn[k].torso;
    Json capsule = nullptr;
    if (torso.fitted)
      capsule = {{"a", vec(torso.capsule.a)},
                 {"b", vec(torso.capsule.b)},
                 {"radius", r6(torso.capsule.radius_m)}};
    Json turn = head_turn_sequence_json(p);
    turn.update({{"samples", rec.hair_head_turn[k].samples},
                 {"head", rec.hair_head_turn[k].head},
                 {"gravity_mps2", solver.gravity_mps2},
                 {"radius_scale", solver.radius_scale},
                 {"torso_capsule", capsule}});
    out["head_turn"] = turn;
  }
  if (k < rec.hair_colliders.size()) {
    const HairColliders& c = rec.hair_colliders[k];
    out["colliders"] = {
        {"vrm", c.vrm},
        {"torso_capsule",
         {{"fitted", c.torso_fitted},
          {"added", c.torso_added},
          {"radius", r6(c.torso_radius)},
          {"node", c.torso_node},
          {"covered_fraction", r6(c.covered_fraction)}}},
        {"body_capsules",
         body_capsules_json(c.body, k < rec.vrm_springs.size() ? &rec.vrm_springs[k] : nullptr)}};
  }
  return out;
}

/// A check's figure: null when not measured.
Json figure(double v) {
  return std::isfinite(v) ? Json(r6(v)) : Json(nullptr);
}

/// Character k's grown chains, one entry each: kind, solver, bones, nodes, verdict and the
/// checks it rests on (docs/report-schema.md `chain_records`).
Json chain_records_json(const RunRecord& rec, std::size_t k) {
  Json out = Json::array();
  if (k >= rec.chain_records.size()) return out;
  for (std::size_t i = 0; i < rec.chain_records[k].size(); ++i) {
    const ChainRecord& r = rec.chain_records[k][i];
    Json checks = Json::array();
    Json verdict = nullptr;
    if (k < rec.chain_verdicts.size() && i < rec.chain_verdicts[k].size()) {
      const ChainVerdict& v = rec.chain_verdicts[k][i];
      verdict = v.verdict;
      for (const ChainCheck& c : v.checks)
        checks.push_back({{"check", c.check},
                          {"clip", c.clip.empty() ? Json(nullptr) : Json(c.clip)},
                          {"value", figure(c.value)},
                          {"limit", figure(c.limit)},
                          {"verdict", c.verdict}});
    }
    out.push_back({{"name", r.name()},
                   {"kind", chain_kind_name(r.kind)},
                   {"solver", r.baked ? Json(chain_solver_name(r.solver)) : Json(nullptr)},
                   {"bones", r.bones},
                   {"nodes", r.nodes},
                   {"baked", r.baked},
                   {"note", r.note.empty() ? Json(nullptr) : Json(r.note)},
                   {"verdict", verdict},
                   {"checks", checks}});
  }
  return out;
}

/// What the VRM spring export wrote for a character: "off", "not a VRM", or the target with
/// the chains appended (docs/report-schema.md).
Json vrm_springs_json(const VrmSpringRecord& v) {
  if (v.status != "written") return v.status;
  Json springs = Json::array();
  std::size_t joints = 0;
  for (const GrownSpring& s : v.springs) {
    joints += s.joints.size();
    springs.push_back(
        {{"name", s.name}, {"joints", s.joints}, {"collider_groups", s.collider_groups}});
  }
  Json colliders = Json::array();
  for (const GrownCollider& c : v.colliders)
    colliders.push_back({{"bone", c.name}, {"node", c.node}, {"radius", r6(c.radius_local)}});
  return {{"target", v.target},     {"count", v.springs.size()},
          {"joints", joints},       {"springs", springs},
          {"colliders", colliders}, {"collider_groups", v.collider_groups}};
}

Json spring_stretch_json(const SpringStretch& s) {
  return {{"p99", r6(s.p99)},
          {"max", r6(s.max)},
          {"torn_percent", r6(s.torn_percent)},
          {"edge_max_p99_percent", r6(s.edge_max_p99_percent)}};
}

/// The input's own VRM spring chains whose joints character k's skin holds (a chain no skin
/// holds: character 0's), baked or kept unbaked (docs/report-schema.md); null when none.
Json spring_bake_json(const SpringBakeResult& r, std::size_t k) {
  Json chains = Json::array();
  for (const SpringBakeChain& c : r.chains) {
    if (!(c.character == int(k) || (c.character < 0 && k == 0))) continue;
    Json bake = bake_json(c.clips, 0.0)["clips"];
    for (std::size_t i = 0; i < bake.size(); ++i) {
      erase_tail_figures(bake[i]);
      if (i < c.before.size() && i < c.after.size())
        bake[i]["stretch"] = {{"before", spring_stretch_json(c.before[i])},
                              {"after", spring_stretch_json(c.after[i])}};
    }
    chains.push_back({{"name", c.name},
                      {"path", c.path},
                      {"nodes", c.nodes},
                      {"joints", c.joints},
                      {"bones", c.bones},
                      {"anchor", c.anchor},
                      {"baked", c.baked},
                      {"reason", c.reason.empty() ? Json(nullptr) : Json(c.reason)},
                      {"region", {{"vertices", c.region_vertices}, {"edges", c.region_edges}}},
                      {"torso_capsule",
                       {{"added", c.torso_capsule},
                        {"covered_fraction", r6(c.torso_covered_fraction)},
                        {"rests_inside", c.torso_rests_inside}}},
                      {"clips", bake}});
  }
  if (chains.empty()) return nullptr;
  return {{"status", r.status}, {"springs", r.springs}, {"chains", chains}};
}

/// Character k of the record.
Json character_json(const RunRecord& rec, std::size_t k) {
  const CharacterFacts& c = rec.facts[k];
  Json cj = Json::object();
  cj["skins"] = c.skins;
  cj["height"] = r6(c.height);
  cj["scale"] = r6(c.scale);
  if (k < rec.characters.size()) {
    const CharacterResult& res = rec.characters[k];
    cj["far_threshold"] = r6(res.detection.field.threshold);
    cj["vertices"] = {{"source", res.source_vertices}, {"welded", res.welded_vertices}};
    Json pieces = Json::array();
    for (const Piece& p : res.detection.pieces)
      if (!p.vertices.empty() || !p.reason.empty()) pieces.push_back(piece_json(c, p));
    cj["pieces"] = pieces;
    Json chains = Json::array();
    for (const auto& r : res.chains) chains.push_back(chain_json(r));
    cj["chains"] = chains;
  }
  if (k < rec.bakes.size() && !rec.bakes[k].empty()) {
    cj["bake"] = bake_json(rec.bakes[k], k < rec.floors.size() ? rec.floors[k] : 0.0);
    Json rests = Json::array();
    for (const ChainRest& r : k < rec.rests.size() ? rec.rests[k] : std::vector<ChainRest>{})
      rests.push_back({{"chain", r.bone},
                       {"carry_deg", r6(r.carry_deg)},
                       {"clears_legs", r.clears},
                       {"colliders", r.colliders}});
    cj["bake"]["rests"] = rests;
  }
  if (k < rec.judge.size() && !rec.judge[k].empty())
    cj["harm_check"] = harm_json(rec.judge[k], rec.harm);
  if (k < rec.left_torn.size()) cj["left_torn"] = left_torn_json(rec.left_torn[k]);
  if (k < rec.stretch.size() && !rec.stretch[k].empty())
    cj["stretch"] = stretch_json(rec.stretch[k], rec.stretch_params);
  if (k < rec.hair.size()) cj["hair"] = hair_json(rec, k);
  if (k < rec.vrm_springs.size()) cj["vrm_springs"] = vrm_springs_json(rec.vrm_springs[k]);
  Json springs = spring_bake_json(rec.spring_bake, k);
  if (!springs.is_null()) cj["spring_bake"] = springs;
  cj["chain_records"] = chain_records_json(rec, k);
  return cj;
}

Json milliseconds(const std::vector<StageStat>& stages) { // stage -> ms, in order
  Json o = Json::object();
  for (const auto& s : stages) o[s.stage] = r6(s.ms);
  return o;
}

} // namespace

Json region_json(const RegionStretch& r) {
  Json j = {{"edges", r.edges},
            {"samples", r.samples},
            {"p95", r6(r.p95)},
            {"p99", r6(r.p99)},
            {"max", r6(r.max)},
            {"min", r6(r.min)},
            {"torn_percent", r6(r.torn_percent)},
            {"edge_max_p99_percent", r6(r.edge_max_p99_percent)}};
  j["worst_edge"] = r.worst.a < 0 ? Json(nullptr)
                                  : Json{{"primitive", r.worst.primitive},
                                         {"vertices", {r.worst.local_a, r.worst.local_b}},
                                         {"ratio", r6(r.worst.ratio)}};
  return j;
}

Json stretch_json(const std::vector<StretchRow>& rows, const StretchParams& params) {
  Json clips = Json::array();
  for (const auto& r : rows) {
    Json j = {{"clip", r.clip}, {"name", r.name}, {"duration_s", r6(r.duration)}};
    if (r.has_original) j["original"] = region_json(r.original);
    if (r.has_rigid) j["rigid"] = region_json(r.rigid);
    j["result"] = region_json(r.result);
    j["body"] = region_json(r.body);
    clips.push_back(j);
  }
  return {{"samples_per_clip", params.samples},
          {"torn_above", params.torn_above},
          {"torn_below", params.torn_below},
          {"clips", clips}};
}

std::string default_report_path(const std::string& out_path) {
  return std::filesystem::path(out_path).replace_extension(".report.json").string();
}

Json make_report(const RunRecord& rec) {
  Json j = Json::object();
  j["schema"] = "retail.report/1";
  j["tool"] = {{"name", "retail"}, {"version", RETAIL_VERSION}};
  j["input"] = {{"path", rec.input_path}, {"sha256", rec.input_sha256}};
  j["output"] = {{"path", rec.output_path}, {"sha256", rec.output_sha256}};
  if (rec.dry_run) j["output"]["dry_run"] = true;
  j["mode"] = rec.mode;
  Json chars = Json::array();
  for (std::size_t k = 0; k < rec.facts.size(); ++k) chars.push_back(character_json(rec, k));
  j["characters"] = chars;
  j["timings_ms"] = milliseconds(rec.stages);
  if (!rec.work.empty()) j["work_ms"] = milliseconds(rec.work);
  j["warnings"] = rec.warnings;
  j["failures"] = rec.failures;
  return j;
}

} // namespace retail
