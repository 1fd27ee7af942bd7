// detect_pieces: collar, attachment, appendage tests, decision and merging (SPEC §4).
#include "detect/classify_internal.h"
#include "detect/shells_internal.h"
#include "retail/base/error.h"
#include "retail/detect/detect.h"
#include "retail/detect/geodesic.h"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <tuple>

namespace retail {

namespace {

template <class... Args> std::string fmt(const char* format, Args... args) {
  char buf[256];
  std::snprintf(buf, sizeof buf, format, args...);
  return buf;
}

/// Nearest deforming joint to `centre`, preferring torso and thigh joints within `bias` × the
/// nearest distance; a thigh maps to the hips. Ties: lower joint index.
int attach(const Character& c, const std::vector<bool>& deforming,
           const std::vector<std::string>& region, const Eigen::Vector3d& centre, double bias) {
  int nearest = -1, torso = -1;
  double dn = INFINITY, dt = INFINITY;
  for (std::size_t j = 0; j < c.joints.size(); ++j) {
    if (!deforming[j]) continue;
    double d = (c.bind_position(int(j)) - centre).norm();
    if (d < dn) dn = d, nearest = int(j);
    bool is_torso = region[j] == "hips" || region[j] == "spine" || region[j] == "thigh";
    if (is_torso && d < dt) dt = d, torso = int(j);
  }
  int pick = torso >= 0 && dt <= bias * dn ? torso : nearest;
  if (pick >= 0 && region[std::size_t(pick)] == "thigh") pick = c.joint_index(c.roles.hips);
  return pick;
}

} // namespace

void box_of(const WeldedMesh& m, const std::vector<int>& ids, Eigen::Vector3d& lo,
            Eigen::Vector3d& hi) {
  lo = Eigen::Vector3d::Constant(INFINITY);
  hi = -lo;
  for (int v : ids) {
    lo = lo.cwiseMin(m.welded.row(v).transpose());
    hi = hi.cwiseMax(m.welded.row(v).transpose());
  }
}

/// Intersection volume / smaller box volume of the pieces' boxes along `a`'s principal axes, so
/// that a model turned any way overlaps as it did (flat boxes: by area of their largest face).
double box_overlap(const WeldedMesh& m, const Piece& a, const Piece& b) {
  if (a.vertices.empty() || b.vertices.empty()) return 0;
  Eigen::Vector3d mean = Eigen::Vector3d::Zero();
  for (int v : a.vertices) mean += m.welded.row(v).transpose();
  mean /= double(a.vertices.size());
  Eigen::Matrix3d cov = Eigen::Matrix3d::Zero();
  for (int v : a.vertices) {
    const Eigen::Vector3d d = m.welded.row(v).transpose() - mean;
    cov += d * d.transpose();
  }
  const Eigen::Matrix3d axes = Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d>(cov).eigenvectors();
  auto box = [&](const Piece& p, Eigen::Vector3d& lo, Eigen::Vector3d& hi) {
    lo = Eigen::Vector3d::Constant(INFINITY);
    hi = -lo;
    for (int v : p.vertices) {
      const Eigen::Vector3d q = axes.transpose() * (m.welded.row(v).transpose() - mean);
      lo = lo.cwiseMin(q);
      hi = hi.cwiseMax(q);
    }
  };
  Eigen::Vector3d la, ha, lb, hb;
  box(a, la, ha);
  box(b, lb, hb);
  Eigen::Vector3d li = la.cwiseMax(lb), hi = ha.cwiseMin(hb);
  if ((hi.array() < li.array()).any()) return 0;
  double eps = 1e-9 * std::max((ha - la).norm(), (hb - lb).norm());
  auto vol = [&](const Eigen::Vector3d& l, const Eigen::Vector3d& h) {
    return ((h - l).array() + eps).prod();
  };
  return vol(li, hi) / std::min(vol(la, ha), vol(lb, hb));
}

double border_reach(const Piece& p, const std::vector<int>& border) {
  if (border.empty() || !(p.length > 0) || p.geodesic.size() != p.vertices.size()) return 0;
  std::vector<std::pair<int, double>> g(p.vertices.size()); // (vertex, geodesic), by vertex
  for (std::size_t k = 0; k < g.size(); ++k) g[k] = {p.vertices[k], p.geodesic[k]};
  std::sort(g.begin(), g.end());
  double reach = 0;
  for (int v : border) {
    const auto it = std::lower_bound(g.begin(), g.end(), std::pair<int, double>(v, -INFINITY));
    if (it != g.end() && it->first == v) reach = std::max(reach, it->second);
  }
  return reach / p.length;
}

void measure(const WeldedMesh& m, const DistanceField& f, const std::vector<Segment>& segs,
             const std::vector<double>& areas, Piece& p) {
  std::tie(p.reach, p.centroid_distance) = reach_and_centroid(m, f, segs, p.vertices);
  p.elongation = elongation(welded_rows(m, p.vertices));
  p.geodesic = piece_geodesic(m, p, p.length);
  double area = 0;
  for (int v : p.vertices) area += areas[std::size_t(v)];
  p.slenderness = area > 0 ? M_PI * p.length * p.length / area : 0;
  p.area = area;
  std::vector<int> border;
  p.open_border = open_border(m, p.vertices, &border);
  p.border_reach = border_reach(p, border);
}

namespace {

/// Does the piece span the hips' position along the left-right axis (right thigh -> left)?
bool crosses_midline(const WeldedMesh& m, const Character& c, const Piece& p) {
  int l = c.joint_index(c.roles.upper_leg[0]), r = c.joint_index(c.roles.upper_leg[1]),
      h = c.joint_index(c.roles.hips);
  if (l < 0 || r < 0 || h < 0) return true; // no frame to judge by
  Eigen::Vector3d axis = c.bind_position(l) - c.bind_position(r);
  if (axis.norm() <= 0) return true;
  axis.normalize();
  double mid = 0.5 * (c.bind_position(l) + c.bind_position(r)).dot(axis), lo = INFINITY,
         hi = -INFINITY;
  for (int v : p.vertices) {
    double x = m.welded.row(v).dot(axis.transpose());
    lo = std::min(lo, x);
    hi = std::max(hi, x);
  }
  return lo <= mid && mid <= hi;
}

/// open_border^2 / (4 pi area): 0 for a closed shell, 0.5 for a hemispherical cap, 1 for a flat
/// disc, more for a strip or a sheet open all round.
double closure(const Piece& p) {
  return p.area > 0 ? p.open_border * p.open_border / (4 * M_PI * p.area) : INFINITY;
}

/// A short closed protrusion an auto-rigger weighted to the legs, across the hips' midline.
bool is_stub(const DetectParams& params, const Piece& p) {
  return (p.region == "hips" || p.region == "thigh") && p.crosses_midline &&
         closure(p) <= params.stub_closure && p.leg_weight >= params.stub_leg_weight;
}

/// Mean of `share` (leg_share) over the piece's vertices that have one.
double leg_weight(const std::vector<double>& share, const Piece& p) {
  double sum = 0;
  std::size_t n = 0;
  for (int v : p.vertices)
    if (!std::isnan(share[std::size_t(v)])) sum += share[std::size_t(v)], ++n;
  return n ? sum / double(n) : 0;
}

/// Open like a tube (DetectParams::tube_border_reach): a border shorter than the piece, or
/// one within the root share of it (unless that share is 0: off).
bool tube_open(const DetectParams& params, const Piece& p) {
  return p.open_border < p.length ||
         (params.tube_border_reach > 0 && p.border_reach <= params.tube_border_reach);
}

/// Why a piece is broad: its elongation, and either its slenderness below the minimum or, when
/// slender enough, an open border as long as the piece and reaching along it (a sheet).
std::string broad_reason(const DetectParams& params, const Piece& p) {
  if (params.slenderness_min > 0 && p.slenderness >= params.slenderness_min)
    return fmt("broad (elongation %.2f < %.2f; slenderness %.2f, but its open border %.3g is no "
               "shorter than the piece, %.3g, and reaches %.2f of its length > %.2f): garment "
               "or body, left alone",
               p.elongation, params.elongation_min, p.slenderness, p.open_border, p.length,
               p.border_reach, params.tube_border_reach);
  return fmt("broad (elongation %.2f < %.2f, slenderness %.2f < %.2f): garment or body, "
             "left alone",
             p.elongation, params.elongation_min, p.slenderness, params.slenderness_min);
}

void decide(const DetectParams& params, double height, Piece& p) {
  double ratio = p.reach > 0 ? p.centroid_distance / p.reach : 0;
  if (p.vertices.size() < 3) {
    p.decision = Decision::Small;
    p.reason = "fewer than 3 vertices";
  } else if (p.region == "head" || p.region == "neck") {
    p.decision = Decision::Head;
    p.reason = "hangs from the head or neck (ears, hair): left alone";
  } else if (!p.evidence && ratio < params.centroid_ratio) {
    // An evidence part is judged by how its skin is weighted (evidence_pieces' gate), not by
    // its distance to bones: the leftover or hips bone lying along it is what put it there.
    p.decision = Decision::BodyLike;
    p.reason = fmt("centroid lies near a bone (%.2f of reach < %.2f): body skin, left alone", ratio,
                   params.centroid_ratio);
  } else if (!p.evidence && p.elongation < params.elongation_min &&
             !(params.slenderness_min > 0 && p.slenderness >= params.slenderness_min &&
               tube_open(params, p)) &&
             !is_stub(params, p)) {
    p.decision = Decision::Broad;
    p.reason = broad_reason(params, p);
  } else if (carries_head_skin(params, p)) {
    p.decision = Decision::BodyLike;
    p.reason = fmt("carries the head's skin (%.0f%% of its weight on the head and neck > %.0f%%): "
                   "the body, not a tail, left alone",
                   100 * p.head_skin, 100 * params.tail_head_skin_max);
  } else if ((p.region == "hips" || p.region == "thigh") && !p.crosses_midline) {
    p.decision = Decision::Limb;
    p.reason = "hangs from the hips but lies to one side of the body's midline (a tail crosses "
               "it): left alone";
  } else if ((p.region == "hips" || p.region == "thigh") &&
             p.length < params.min_tail_length_h * height) {
    p.decision = Decision::Small;
    p.reason = fmt("too short for a tail (L = %.3f H < %.2f H): left alone", p.length / height,
                   params.min_tail_length_h);
  } else if ((p.region == "hips" || p.region == "thigh") &&
             int(p.vertices.size()) < params.min_tail_vertices) {
    p.decision = Decision::Small;
    p.reason = fmt("too little skin for a chain (%d welded vertices < %d): left alone",
                   int(p.vertices.size()), params.min_tail_vertices);
  } else if ((p.region == "hips" || p.region == "thigh") &&
             !(p.own_bones < params.rigged_own_bones)) {
    // An auto-rigger has no bone for the tail it missed: skin already weighted to bones of its
    // own (an artist's tail, or its tip beyond the skeleton's reach) is rigged on purpose.
    p.decision = Decision::Rigged;
    p.reason =
        fmt("on bones of its own (%.0f%% of its weight >= %.0f%%): rigged already, left alone",
            100 * p.own_bones, 100 * params.evidence_own_bones);
  } else if ((p.region == "hips" || p.region == "thigh") && p.elongation < params.elongation_min &&
             !(p.slenderness >= params.slenderness_min && tube_open(params, p))) {
    p.decision = Decision::TailChain;
    p.reason = fmt("a closed stub (border^2 / 4 pi area %.2f <= %.2f) weighted %.0f%% to the legs, "
                   "sticks out (centroid %.2f of reach), hangs from the hips: tail chain",
                   closure(p), params.stub_closure, 100 * p.leg_weight, ratio);
  } else if (p.region == "hips" || p.region == "thigh") {
    p.decision = Decision::TailChain;
    p.reason = fmt("long (elongation %.2f, slenderness %.2f), sticks out (centroid %.2f of reach), "
                   "hangs from the hips: tail chain",
                   p.elongation, p.slenderness, ratio);
  } else if (p.region == "spine") {
    p.decision = params.rigid_worn ? Decision::WornRigid : Decision::Worn;
    p.reason = params.rigid_worn
                   ? "long, hangs from the spine: worn, rigid on its bone (--rigid-worn)"
                   : "long, hangs from the spine: worn (sheath, quiver, strap), left alone";
  } else {
    p.decision = Decision::Limb;
    p.reason = "hangs from a limb or a helper bone: left alone";
  }
}

} // namespace

void DetectParams::validate() const {
  distance.validate();
  if (threads < 0) throw Error(ExitCode::Usage, "detection threads must not be negative");
  if (!(centroid_ratio >= 0) || !(elongation_min >= 1) || !(attach_bias >= 1) ||
      !(merge_overlap >= 0) || !(junction_slope > 0) || !(junction_growth >= 0) ||
      !(junction_window_h > 0) || !(level_step_h > 0) || !(min_protrusion_h >= 0) ||
      !(slenderness_min >= 0) || !(tube_border_reach >= 0) || !(misweight_ratio >= 1) ||
      !(misweight_slack_h >= 0) || !(base_zone_radii >= 0) || !(base_collar_reach >= 0) ||
      !(shell_fraction > 0 && shell_fraction <= 1) || !(small_shell >= 0 && small_shell <= 1) ||
      !(small_shell_far > 0 && small_shell_far <= 1) || !(grown_shell_fraction > 0) ||
      !(stub_closure >= 0) || !(leg_midline_radii >= 0) || !(base_mixed_mirror_h >= 0) ||
      !(peel_fraction >= 0 && peel_fraction <= 1) || min_tail_vertices < 0 ||
      !(stub_leg_weight >= 0 && stub_leg_weight <= 1) ||
      !(evidence_mix >= 0 && evidence_mix <= 0.5) || evidence_min_vertices < 0 ||
      !(evidence_tear_ratio >= 0) || !std::isfinite(evidence_tear_ratio) ||
      !(evidence_own_bones >= 0 && evidence_own_bones <= 1) || !(evidence_body_share >= 0) ||
      !std::isfinite(evidence_body_share) || !(rigged_own_bones > 0 && rigged_own_bones <= 1) ||
      !(hair_length_heads >= 0) || !(hair_drop_heads >= 0) ||
      !(hair_head_weight >= 0 && hair_head_weight <= 1) || !std::isfinite(hair_length_heads) ||
      !std::isfinite(hair_drop_heads) || std::isnan(hair_shell_rise_heads) ||
      !(tail_head_skin_max >= 0) || !std::isfinite(tail_head_skin_max))
    throw Error(ExitCode::Usage, "detection parameters out of range");
}

const char* decision_name(Decision d) {
  switch (d) {
  case Decision::TailChain:
    return "tail_chain";
  case Decision::TailRigid:
    return "tail_rigid";
  case Decision::TailRejected:
    return "tail_rejected";
  case Decision::Worn:
    return "worn";
  case Decision::WornRigid:
    return "worn_rigid";
  case Decision::Hair:
    return "hair";
  case Decision::HairRejected:
    return "hair_rejected";
  case Decision::Head:
    return "head";
  case Decision::Limb:
    return "limb";
  case Decision::Broad:
    return "broad";
  case Decision::Rigged:
    return "rigged";
  case Decision::BodyLike:
    return "body";
  case Decision::Small:
    return "small";
  }
  return "?";
}

std::vector<double> piece_geodesic(const WeldedMesh& m, const Piece& piece, double& length) {
  std::vector<double> d = geodesic_within(m, piece.collar, piece.vertices);
  std::vector<double> g;
  g.reserve(piece.vertices.size());
  for (int v : piece.vertices)
    g.push_back(std::isfinite(d[std::size_t(v)]) ? d[std::size_t(v)] : 0.0);
  std::vector<double> sorted = g;
  std::sort(sorted.begin(), sorted.end());
  length = sorted.empty()
               ? 0
               : sorted[std::min(sorted.size() - 1,
                                 std::size_t(std::ceil(0.99 * double(sorted.size()))) - 1)];
  return g;
}

double elongation(const Eigen::MatrixX3d& points) {
  if (points.rows() < 3) return 0;
  Eigen::RowVector3d mean = points.colwise().mean();
  Eigen::MatrixX3d centred = points.rowwise() - mean;
  Eigen::Matrix3d cov = centred.transpose() * centred / double(points.rows());
  Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d> eig(cov);
  double l1 = eig.eigenvalues()(2), l2 = eig.eigenvalues()(1);
  return l2 > 0 ? std::sqrt(l1 / l2) : INFINITY;
}

std::vector<std::string> joint_regions(const Character& c) {
  const Roles& r = c.roles;
  auto role_region = [&](int node) -> std::string {
    if (node < 0) return "";
    if (node == r.hips) return "hips";
    if (node == r.head) return "head";
    if (node == r.neck) return "neck";
    if (std::count(r.pelvis.begin(), r.pelvis.end(), node)) return "hips";
    if (node == r.chest || std::count(r.spine.begin(), r.spine.end(), node)) return "spine";
    for (int s = 0; s < 2; ++s) {
      if (node == r.upper_leg[s]) return "thigh";
      if (node == r.lower_leg[s] || node == r.foot[s]) return "leg";
      if (node == r.shoulder[s] || node == r.upper_arm[s] || node == r.lower_arm[s] ||
          node == r.hand[s])
        return "arm";
    }
    return "";
  };
  std::vector<std::string> out(c.joints.size(), "other");
  for (std::size_t j = 0; j < c.joints.size(); ++j)
    for (int k = int(j); k >= 0; k = c.parent[std::size_t(k)]) {
      std::string reg = role_region(c.joints[std::size_t(k)]);
      if (reg.empty()) continue;
      // Below a thigh is the leg; anything else inherits its ancestor's region.
      out[j] = (reg == "thigh" && k != int(j)) ? "leg" : reg;
      break;
    }
  return out;
}

namespace {

/// Takes the user's selection into the pieces: --tail vertices and --not-tail vertices leave
/// every detected piece; each --tail selection becomes a piece of its own, appended.
void apply_selection(const PieceSelection& sel, std::size_t welded, std::vector<Piece>& pieces) {
  std::vector<bool> out(welded, false);
  for (std::size_t w = 0; w < welded && w < sel.excluded.size(); ++w) out[w] = sel.excluded[w];
  for (const auto& t : sel.tail)
    for (int w : t) out[std::size_t(w)] = true;
  std::vector<Piece> kept;
  for (Piece& p : pieces) {
    std::vector<int> v;
    for (int w : p.vertices)
      if (!out[std::size_t(w)]) v.push_back(w);
    if (v.empty()) continue;
    if (v.size() != p.vertices.size()) p.tip = v[0];
    p.vertices = std::move(v);
    kept.push_back(std::move(p));
  }
  pieces = std::move(kept);
  std::vector<bool> taken(welded, false);
  for (std::size_t i = 0; i < sel.tail.size(); ++i) {
    Piece p;
    for (int w : sel.tail[i])
      if (!taken[std::size_t(w)]) p.vertices.push_back(w), taken[std::size_t(w)] = true;
    if (p.vertices.empty()) continue;
    p.tip = p.vertices[0];
    p.selected = sel.tail_names[i];
    pieces.push_back(std::move(p));
  }
}

std::vector<Segment> torso_of(const Detection& det, const std::vector<std::string>& region) {
  std::vector<Segment> torso;
  for (const auto& s : det.segments)
    if (region[std::size_t(s.joint)] == "hips") torso.push_back(s);
  if (!torso.empty()) return torso;
  for (const auto& s : det.segments) // no pelvis bone deforms: the spine's too
    if (region[std::size_t(s.joint)] == "spine") torso.push_back(s);
  return torso;
}

} // namespace

/// A piece's collar, attachment, measures and decision, as piece `id` (a --tail piece is a tail
/// chain whatever the tests say).
bool carries_head_skin(const DetectParams& params, const Piece& p) {
  return (p.region == "hips" || p.region == "thigh") && p.head_skin > params.tail_head_skin_max;
}

void merge_piece(Piece& into, Piece& p, const std::string& why) {
  into.merged.push_back(p.id);
  into.vertices.insert(into.vertices.end(), p.vertices.begin(), p.vertices.end());
  p.vertices.clear();
  p.decision = Decision::Small;
  p.reason = "merged into piece " + std::to_string(into.id) + " (" + why + ")";
}

void classify_piece(const Classifier& x, int id, Piece& p) {
  p.id = id;
  p.collar =
      collar_of(x.m, x.torso, x.det.field, p, p.collar_from_shell, x.params.base_collar_reach);
  Eigen::Vector3d centre = welded_rows(x.m, p.collar).colwise().mean().transpose();
  p.attachment = attach(x.c, x.deforming, x.region, centre, x.params.attach_bias);
  p.region = p.attachment >= 0 ? x.region[std::size_t(p.attachment)] : "other";
  measure(x.m, x.det.field, x.det.segments, x.areas, p);
  p.crosses_midline = crosses_midline(x.m, x.c, p);
  p.leg_weight = leg_weight(x.legs, p);
  p.weighted_to = weighted_to(x.sw, x.first, p.vertices);
  p.own_bones = joint_share(x.sw, x.first, x.own, p.vertices);
  p.head_skin = joint_share(x.sw, x.first, x.head_neck, p.vertices);
  // A thick root can lie nearer the spine joint on the hips than the hips joint; skin there
  // that the rig weighted to the legs or the hips hangs from the hips (a strap or sheath on the
  // back is weighted to the spine, and hangs from higher up).
  if (p.region == "spine" && p.attachment >= 0 && p.attachment == low_spine_joint(x.c) &&
      p.leg_weight + joint_share(x.sw, x.first, x.hips, p.vertices) >= x.params.stub_leg_weight)
    p.region = "hips";
  decide(x.params, x.c.height, p);
  judge_hair(x, p);
  if (!p.selected.empty()) {
    p.reason = "selected with --tail '" + p.selected +
               "': tail chain (detection alone: " + decision_name(p.decision) + ", " + p.reason +
               ")";
    p.decision = Decision::TailChain;
  }
}

namespace {

/// What a piece's base grows over (BaseCues), read from the input's weights and the skeleton.
BaseCues base_cues(const WeldedMesh& m, const SkinWeights& sw, const Character& c,
                   const Detection& det, const std::vector<std::string>& region,
                   const std::vector<double>& legs, const DetectParams& params) {
  BaseCues cues;
  cues.misweighted = misweighted_skin(m, sw, c, det.segments, det.field, params);
  if (params.leg_midline_radii > 0) cues.leg_midline = leg_midline_distance(m, legs, c);
  const std::vector<char> shin = nearest_in_region(det.field, det.segments, region, "leg");
  const std::vector<char> mixed = limbs_mixed(m, sw, c, params.evidence_mix);
  if (params.base_mixed_mirror_h > 0)
    cues.limbs_mixed =
        mixed_base_skin(m, legs, mixed, c, params.base_mixed_mirror_h * c.height, params.threads);
  for (std::size_t v = 0; v < cues.leg_midline.size(); ++v)
    if (shin[v] && !(params.base_mixed_shin && mixed[v])) cues.leg_midline[v] = INFINITY;
  cues.beyond_end.assign(m.size(), 0);
  for (std::size_t v = 0; v < m.size(); ++v) {
    const int sg = det.field.segment.empty() ? -1 : det.field.segment[v];
    cues.beyond_end[v] =
        det.field.far[v] && sg >= 0 && (det.field.t[v] <= 1e-9 || det.field.t[v] >= 1 - 1e-9);
  }
  return cues;
}

/// Ids in order, then each piece classified (classify_piece).
void classify_pieces(const Classifier& x, std::vector<Piece>& pieces) {
  for (std::size_t i = 0; i < pieces.size(); ++i) classify_piece(x, int(i), pieces[i]);
}

} // namespace

Detection detect_pieces(const Model&, const Character& c, const WeldedMesh& m,
                        const SkinWeights& sw, const DetectParams& params,
                        const PieceSelection& selection, const TearProbe& tear) {
  params.validate();
  Detection det;
  // What deforms is judged by the skeleton as well as the weights: a solver can leave a pelvis
  // bone with no vertex at all, and the tail being repaired must not seem to hang elsewhere.
  const std::vector<bool> deforming = deforming_joints(c, sw);
  det.segments = bone_segments(c, deforming, params.distance);
  det.field = skeleton_distance(m.welded, det.segments, params.distance.far_fraction_h * c.height,
                                params.threads);
  std::vector<std::string> region = joint_regions(c);
  const std::vector<double> legs = leg_share(m, sw, region);
  const BaseCues cues = base_cues(m, sw, c, det, region, legs, params);
  const Classifier x{m,
                     sw,
                     c,
                     det,
                     params,
                     deforming,
                     region,
                     legs,
                     vertex_areas(m),
                     torso_of(det, region),
                     own_bones(c),
                     region_joints(region, {"head", "neck"}),
                     region_joints(region, {"hips"}),
                     head_frame(m, c, det, region),
                     first_originals(m)};
  // The rest's share is measured apart for the two questions (it depends on what is asked).
  TearCache body_tears(tear, m.size()), part_tears(tear, m.size());
  const std::vector<char> ev =
      evidence_skin(m, sw, c, det.segments, det.field, region, cues.misweighted, params);
  std::vector<Piece> pieces = isolate_pieces(m, det.field, c.height, params, cues);
  take_grown_shells(m, det.field, det.segments, params, pieces);
  apply_selection(selection, m.size(), pieces);
  classify_pieces(x, pieces);
  judge_by_skin(x, ev, body_tears, pieces);
  // A piece that is not a tail grows no base: mis-weighted skin between a tail and a body piece
  // (the alpaca's rump beside its tail) is the tail's to take. Isolated again without their
  // growth, once, when such a piece grew one and a tail could take it.
  std::vector<char> no_base = bases_not_for_tails(m.size(), pieces);
  if (!no_base.empty()) {
    pieces = isolate_pieces(m, det.field, c.height, params, cues, no_base);
    take_grown_shells(m, det.field, det.segments, params, pieces);
    apply_selection(selection, m.size(), pieces);
    classify_pieces(x, pieces);
    judge_by_skin(x, ev, body_tears, pieces);
  }
  evidence_pieces(x, ev, selection.excluded, part_tears, pieces, det.evidence_left);
  // Overlapping shells of one tail (fur over skin) on the same attachment become one piece.
  for (std::size_t a = 0; a < pieces.size(); ++a) {
    if (pieces[a].decision != Decision::TailChain) continue;
    for (std::size_t b = a + 1; b < pieces.size(); ++b) {
      Piece& pb = pieces[b];
      if (pb.decision != Decision::TailChain || pb.attachment != pieces[a].attachment ||
          !pb.selected.empty() || !pieces[a].selected.empty() ||
          box_overlap(m, pieces[a], pb) <= params.merge_overlap)
        continue;
      Piece& pa = pieces[a];
      merge_piece(pa, pb, "overlapping shell on the same attachment");
      std::sort(pa.vertices.begin(), pa.vertices.end());
      pa.collar.insert(pa.collar.end(), pb.collar.begin(), pb.collar.end());
      std::sort(pa.collar.begin(), pa.collar.end());
      pa.collar.erase(std::unique(pa.collar.begin(), pa.collar.end()), pa.collar.end());
      measure(m, det.field, det.segments, x.areas, pa);
    }
  }
  hair_takes_its_shell(x, pieces);
  hair_shells(x, selection.excluded, pieces);
  ride_along(m, det.field, det.segments, x.areas, params, selection.excluded, pieces);
  drop_ridden_evidence(pieces, m.size(), det.evidence_left);
  det.pieces = std::move(pieces);
  return det;
}

} // namespace retail
