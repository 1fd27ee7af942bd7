// Which way a character faces, for the tail spring's forward plane (bake_internal.h).
#include "motion/bake_internal.h"

#include <cmath>

namespace retail::bake_detail {
namespace {

/// A head this far (x H, horizontally) from the hips says which way the body faces (a horizontal
/// body's does; an upright one's stands above its hips). docs/spring.md, "Which way is forward".
constexpr double kFacingHead = 0.1;
/// Toes this far (x H, both feet's summed) from the feet say it, where the head did not.
constexpr double kFacingToes = 0.05;

/// How far ahead along `forward` (world, horizontal unit) the character's body says it faces, x H,
/// by the first decisive cue (kFacingHead, kFacingToes): the head's offset from the hips (a
/// horizontal body's head leads it); else its toes' from its feet (the feet's child joints:
/// toes point forward); else minus the offsets of the tail's bind joints below its root
/// (`joints`, world, root first: a tail hangs behind). 0 when none says anything.
double facing_ahead(const Character& c, const std::vector<Eigen::Vector3d>& joints,
                    const Eigen::Vector3d& forward) {
  auto along = [&](Eigen::Vector3d d) { // horizontal, x H
    d.y() = 0;
    return d.dot(forward) / c.height;
  };
  const int hips = c.joint_index(c.roles.hips), head = c.joint_index(c.roles.head);
  if (hips >= 0 && head >= 0) {
    const double h = along(c.bind_position(head) - c.bind_position(hips));
    if (std::abs(h) >= kFacingHead) return h;
  }
  double toes = 0;
  for (int side = 0; side < 2; ++side) {
    const int foot = c.joint_index(c.roles.foot[side]);
    for (std::size_t j = 0; foot >= 0 && j < c.joints.size(); ++j)
      if (c.parent[j] == foot) toes += along(c.bind_position(int(j)) - c.bind_position(foot));
  }
  if (std::abs(toes) >= kFacingToes) return toes;
  double tail = 0;
  for (std::size_t i = 1; i < joints.size(); ++i)
    if (joints[i].y() < joints[0].y()) tail -= along(joints[i] - joints[0]);
  return tail;
}

} // namespace

// Turned round where facing_ahead < 0: read as named, the forward plane (SPEC §7) would hold the
// tail in front of it, between the legs.
Eigen::Vector3d character_left(const Character& c, const std::vector<Eigen::Vector3d>& joints) {
  const int l = c.joint_index(c.roles.upper_leg[0]), r = c.joint_index(c.roles.upper_leg[1]);
  if (l < 0 || r < 0 || !((c.bind_position(l) - c.bind_position(r)).norm() > 0))
    return Eigen::Vector3d::UnitX();
  const Eigen::Vector3d left = (c.bind_position(l) - c.bind_position(r)).normalized();
  const Eigen::Vector3d forward = left.cross(Eigen::Vector3d::UnitY());
  return facing_ahead(c, joints, forward) < 0 ? Eigen::Vector3d(-left) : left;
}

} // namespace retail::bake_detail
