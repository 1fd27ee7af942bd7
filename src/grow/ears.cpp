// ears: the ears kind planned from detection's pieces (ears.h).
#include "retail/grow/ears.h"

#include "retail/base/error.h"

#include <algorithm>
#include <cmath>

namespace retail {

void EarsParams::validate() const {
  if (!(size_ratio_max >= 1) || !(mirror_tolerance_h >= 0) || !(side_min_h >= 0) ||
      !std::isfinite(above_head_h))
    throw Error(ExitCode::Usage, "ears: size ratio below 1 or a negative tolerance");
}

namespace {

struct Candidate {
  const Piece* piece = nullptr;
  Eigen::Vector3d centroid = Eigen::Vector3d::Zero();
};

double ratio(double a, double b) {
  const double lo = std::min(a, b), hi = std::max(a, b);
  return lo > 0 ? hi / lo : INFINITY;
}

} // namespace

std::vector<EarsPair> plan_ears(const Model& model, const WeldedMesh& mesh, const Character& c,
                                const std::vector<Piece>& pieces, const EarsParams& params) {
  params.validate();
  std::vector<EarsPair> out;
  const int head_joint = c.roles.head >= 0 ? c.joint_index(c.roles.head) : -1;
  if (!params.enabled || head_joint < 0 || !(c.height > 0)) return out;
  const Eigen::Vector3d head = c.bind_position(head_joint);
  std::vector<Candidate> cands;
  for (const Piece& p : pieces) {
    if (p.decision != Decision::Head || p.vertices.size() < params.min_vertices) continue;
    Candidate k{&p, Eigen::Vector3d::Zero()};
    for (int w : p.vertices) k.centroid += mesh.welded.row(w).transpose();
    k.centroid /= double(p.vertices.size());
    cands.push_back(k);
  }
  const double h = c.height;
  EarsPair best;
  double best_error = INFINITY;
  for (const Candidate& l : cands)
    for (const Candidate& r : cands) {
      if (l.piece == r.piece) continue;
      const double xl = l.centroid.x() - head.x(), xr = r.centroid.x() - head.x();
      if (!(xl >= params.side_min_h * h && -xr >= params.side_min_h * h)) continue;
      const double above = std::min(l.centroid.y(), r.centroid.y()) - head.y();
      if (above < params.above_head_h * h) continue;
      const double size =
          std::max(ratio(l.piece->area, r.piece->area), ratio(l.piece->length, r.piece->length));
      const double mirror =
          std::max(std::abs(l.centroid.y() - r.centroid.y()), std::abs(xl + xr)) / h;
      if (size > params.size_ratio_max || mirror > params.mirror_tolerance_h) continue;
      if (mirror >= best_error) continue;
      best_error = mirror;
      best = EarsPair{l.piece->id, r.piece->id, -1, "", size, mirror, above / h, {}};
      const int a = l.piece->attachment >= 0 ? l.piece->attachment : head_joint;
      best.bone = c.joints[std::size_t(a)];
      best.bone_name = model.nodes[std::size_t(best.bone)].name;
    }
  if (best.left < 0) return out;
  std::vector<bool> in(mesh.size(), false);
  for (const Piece& p : pieces)
    if (p.id == best.left || p.id == best.right)
      for (int w : p.vertices) in[std::size_t(w)] = true;
  for (std::size_t v = 0; v < mesh.weld_of.size(); ++v)
    if (in[std::size_t(mesh.weld_of[v])]) best.originals.push_back(v);
  out.push_back(std::move(best));
  return out;
}

std::string ears_note(const EarsPair& pair) {
  return "left rigid: pieces " + std::to_string(pair.left) + " and " + std::to_string(pair.right) +
         " ride " + pair.bone_name + " as their skin is weighted (not baked)";
}

} // namespace retail
