// Capsules fitted to the body skin for the hair chains (hair_capsules.h).
#include "retail/motion/hair_capsules.h"

#include "retail/base/error.h"
#include "retail/motion/body_capsules.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace retail {

void HairCapsuleParams::validate() const {
  if (!(radius_share > 0 && radius_share <= 2))
    throw Error(ExitCode::Usage, "hair capsule radius share out of range");
  if (!(clear_share > 0 && clear_share <= 1))
    throw Error(ExitCode::Usage, "hair capsule clear share out of range");
  if (!(min_radius_share >= 0 && min_radius_share <= 1))
    throw Error(ExitCode::Usage, "hair capsule min radius share out of range");
  if (coverage_samples < 2) throw Error(ExitCode::Usage, "hair capsule coverage samples < 2");
}

namespace {

/// A bone to fit: its name, the node it rides (whose skin sizes it) and its axis at bind.
struct BoneAxis {
  std::string bone;
  int node = -1;
  Eigen::Vector3d a, b;
  bool limb = false; ///< a shoulder or an upper arm
};

double point_distance(const Eigen::Vector3d& p, const WorldCapsule& c) {
  return segment_distance(p, p, c.a, c.b);
}

/// The bones with roles, in a fixed order; the head's axis from its joint through its skin.
std::vector<BoneAxis> bone_axes(const Character& c, const TrunkSkin& skin) {
  const Roles& r = c.roles;
  std::vector<BoneAxis> out;
  auto at = [&](int node, Eigen::Vector3d& p) {
    const int j = node >= 0 ? c.joint_index(node) : -1;
    if (j >= 0) p = c.bind_position(j);
    return j >= 0;
  };
  auto add = [&](const std::string& bone, int from, int to, bool limb = false) {
    BoneAxis x{bone, from, {}, {}, limb};
    if (at(from, x.a) && at(to, x.b) && (x.b - x.a).norm() > 0) out.push_back(x);
  };
  add("neck", r.neck, r.head);
  Eigen::Vector3d head;
  if (at(r.head, head)) {
    Eigen::Vector3d sum = Eigen::Vector3d::Zero();
    std::size_t n = 0;
    for (std::size_t v = 0; v < skin.body_positions.size(); ++v)
      if (skin.body_node[v] == r.head) sum += skin.body_positions[v], ++n;
    if (n > 0) out.push_back({"head", r.head, head, head + 2 * (sum / double(n) - head), false});
  }
  const int chest = r.chest >= 0 ? r.chest : r.spine.empty() ? -1 : r.spine.back();
  add("chest", chest, r.neck >= 0 ? r.neck : r.head);
  const char* side[2] = {"left ", "right "};
  for (int s = 0; s < 2; ++s) {
    add(std::string(side[s]) + "shoulder", r.shoulder[s], r.upper_arm[s], true);
    add(std::string(side[s]) + "upper arm", r.upper_arm[s], r.lower_arm[s], true);
  }
  return out;
}

/// The largest radius keeping `axis` clear_share of the way off every chain point but the root
/// (`on_anchor`: a capsule the roots ride with, the root link's length around each root
/// excluded); infinity when no point counts.
double chain_clearance(const WorldCapsule& axis, const std::vector<HairChainResult>& chains,
                       bool on_anchor, const HairCapsuleParams& params) {
  double best = std::numeric_limits<double>::infinity();
  constexpr int kPoints = 9;
  for (const HairChainResult& ch : chains) {
    const std::vector<Eigen::Vector3d>& j = ch.chain.joints;
    if (j.size() < 2) continue;
    const double root_length = on_anchor ? (j[1] - j[0]).norm() : 0.0;
    for (std::size_t i = 0; i + 1 < j.size(); ++i) {
      const double r = i < ch.chain.radius.size() ? ch.chain.radius[i] : 0.0;
      for (int k = 0; k < kPoints; ++k) {
        const Eigen::Vector3d p = j[i] + (double(k) / (kPoints - 1)) * (j[i + 1] - j[i]);
        if ((p - j[0]).norm() <= root_length) continue;
        best = std::min(best, params.clear_share * std::max(0.0, point_distance(p, axis) - r));
      }
    }
  }
  return best;
}

/// Whether every one of params.coverage_samples points along the axis lies in a collider.
bool covered_by(const WorldCapsule& axis, const std::vector<WorldCapsule>& colliders,
                const HairCapsuleParams& params) {
  for (int k = 0; k < params.coverage_samples; ++k) {
    const Eigen::Vector3d p =
        axis.a + (double(k) / (params.coverage_samples - 1)) * (axis.b - axis.a);
    bool in = false;
    for (const WorldCapsule& c : colliders) in = in || point_distance(p, c) <= c.radius_m;
    if (!in) return false;
  }
  return true;
}

} // namespace

std::vector<BodyCapsule> fit_body_capsules(const Character& c, const TrunkSkin& skin,
                                           const std::vector<WorldCapsule>& file_colliders,
                                           const std::vector<HairChainResult>& chains,
                                           const HairCapsuleParams& params) {
  params.validate();
  std::vector<BodyCapsule> out;
  for (const BoneAxis& x : bone_axes(c, skin)) {
    std::size_t n = 0;
    const double median = median_distance(skin.body_positions, skin.body_node, x.node, x.a, x.b, n);
    if (n < params.min_vertices || n == 0) continue;
    BodyCapsule b;
    b.bone = x.bone;
    b.node = x.node;
    b.vertices = n;
    b.capsule = {x.a, x.b, params.radius_share * median};
    b.fitted_radius_m = b.capsule.radius_m;
    b.covered = covered_by(b.capsule, file_colliders, params);
    b.capsule.radius_m = std::min(
        b.fitted_radius_m, chain_clearance(b.capsule, chains, x.node == c.roles.head, params));
    b.dropped = !(b.capsule.radius_m >= params.min_radius_share * b.fitted_radius_m) ||
                !(b.capsule.radius_m > 0);
    b.limb = x.limb;
    b.added = !b.covered && !b.dropped && (!b.limb || params.limbs);
    out.push_back(b);
  }
  return out;
}

} // namespace retail
