// make_report: pieces, chains, timings and warnings as retail.report/1.
#include "retail/report.h"

#include "retail/pipeline.h"

#include <cmath>
#include <filesystem>

namespace retail {
double round6(double v) {
  return std::round(v * 1e6) / 1e6;
}

namespace {

double r6(double v) {
  return round6(v);
}

Json vec(const Eigen::Vector3d& p) {
  return Json::array({r6(p.x()), r6(p.y()), r6(p.z())});
}

Json piece_json(const Model& model, const Character& c, const Piece& p) {
  Json j = Json::object();
  j["id"] = p.id;
  j["vertices"] = p.vertices.size();
  j["attachment"] =
      p.attachment < 0
          ? Json(nullptr)
          : Json{{"node", c.joints[std::size_t(p.attachment)]},
                 {"name", model.nodes[std::size_t(c.joints[std::size_t(p.attachment)])].name}};
  j["region"] = p.region;
  j["reach"] = r6(p.reach);
  j["centroid_distance"] = r6(p.centroid_distance);
  j["centroid_ratio"] = r6(p.reach > 0 ? p.centroid_distance / p.reach : 0);
  j["elongation"] = std::isfinite(p.elongation) ? Json(r6(p.elongation)) : Json(nullptr);
  j["length"] = r6(p.length);
  j["slenderness"] = std::isfinite(p.slenderness) ? Json(r6(p.slenderness)) : Json(nullptr);
  j["open_border"] = r6(p.open_border);
  j["junction"] = p.junction >= 0 ? Json(r6(p.junction)) : Json(nullptr);
  j["base_added"] = p.base_added;
  j["crosses_midline"] = p.crosses_midline;
  j["separate_shell"] = p.separate_shell;
  j["collar_from_shell"] = p.collar_from_shell;
  j["merged"] = p.merged;
  j["selected"] = p.selected.empty() ? Json(nullptr) : Json(p.selected);
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
  j["root_band_vertices"] = r.band_vertices;
  j["rigid"] = r.rigid;
  j["vertices"] = r.vertices;
  j["weighted_bone_distance"] = {
      {"before", r6(r.distance_before)},
      {"after", r6(r.distance_after)},
      {"ratio", r.distance_before > 0 ? r6(r.distance_after / r.distance_before) : 0.0}};
  return j;
}

} // namespace

std::string default_report_path(const std::string& out_path) {
  return std::filesystem::path(out_path).replace_extension(".report.json").string();
}

Json make_report(const ReportInput& in) {
  Json j = Json::object();
  j["schema"] = "retail.report/1";
  j["tool"] = {{"name", "retail"}, {"version", RETAIL_VERSION}};
  j["input"] = {{"path", in.input_path}, {"sha256", in.input_sha256}};
  j["output"] = {{"path", in.output_path}, {"sha256", in.output_sha256}};
  j["mode"] = in.mode;
  Json chars = Json::array();
  for (std::size_t k = 0; k < in.characters->size(); ++k) {
    const Character& c = (*in.characters)[k];
    Json cj = Json::object();
    cj["skins"] = c.skins;
    cj["height"] = r6(c.height);
    cj["scale"] = r6(c.scale);
    if (k < in.results->size()) {
      const CharacterResult& res = (*in.results)[k];
      cj["far_threshold"] = r6(res.detection.field.threshold);
      cj["vertices"] = {{"source", res.source_vertices}, {"welded", res.welded_vertices}};
      Json pieces = Json::array();
      for (const Piece& p : res.detection.pieces)
        if (!p.vertices.empty() || !p.reason.empty()) pieces.push_back(piece_json(*in.model, c, p));
      cj["pieces"] = pieces;
      Json chains = Json::array();
      for (const auto& r : res.chains) chains.push_back(chain_json(r));
      cj["chains"] = chains;
    }
    if (in.bakes && k < in.bakes->size() && !(*in.bakes)[k].empty()) {
      Json clips = Json::array();
      for (const auto& b : (*in.bakes)[k])
        clips.push_back({{"clip", b.clip},
                         {"name", b.name},
                         {"one_shot", b.one_shot},
                         {"warmup_cycles", b.warmup_cycles},
                         {"converged", b.converged},
                         {"loop_closure_deg", r6(b.loop_closure_deg)},
                         {"tip_swing_deg", r6(b.tip_swing_deg)},
                         {"floor_penetration", r6(b.floor_penetration)},
                         {"keys", b.keys},
                         {"kept_authored", b.kept_authored}});
      cj["bake"] = {{"floor_y", k < in.floors.size() ? r6(in.floors[k]) : 0.0}, {"clips", clips}};
    }
    if (in.judge && k < in.judge->size() && !(*in.judge)[k].empty()) {
      Json checks = Json::array();
      for (const PieceJudge& pj : (*in.judge)[k]) {
        Json clips = Json::array();
        for (std::size_t i = 0; i < pj.clips.size(); ++i)
          clips.push_back({{"name", pj.clips[i]},
                           {"input_torn_percent", r6(pj.input_torn[i])},
                           {"output_torn_percent", r6(pj.output_torn[i])}});
        checks.push_back({{"piece", pj.piece}, {"verdict", pj.verdict}, {"clips", clips}});
      }
      cj["harm_check"] = checks;
    }
    if (in.stretch && k < in.stretch->size() && !(*in.stretch)[k].empty())
      cj["stretch"] = stretch_json((*in.stretch)[k], in.stretch_params);
    chars.push_back(cj);
  }
  j["characters"] = chars;
  auto milliseconds = [](const std::vector<StageStat>& stages) { // stage -> ms, in order
    Json o = Json::object();
    for (const auto& s : stages) o[s.stage] = r6(s.ms);
    return o;
  };
  j["timings_ms"] = milliseconds(*in.stages);
  if (in.work && !in.work->empty()) j["work_ms"] = milliseconds(*in.work);
  j["warnings"] = in.warnings;
  j["failures"] = in.failures;
  return j;
}

} // namespace retail
