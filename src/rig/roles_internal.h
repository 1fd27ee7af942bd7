// Roles from topology (roles_topology.cpp), shared with roles.cpp's resolver: the joint tree,
// the roles being resolved, and what the skin and the skeleton's shape say where names do not.
#pragma once

#include "retail/rig/skeleton.h"

#include <Eigen/Core>
#include <set>
#include <string>
#include <vector>

namespace retail::roles_detail {

/// Topology reads at most this many joints (its searches grow with their square): a character
/// with more and no names that give its legs is refused, saying so (docs/robustness.md).
constexpr std::size_t kMaxTopologyJoints = 512;

/// The character's joint tree in joint-index space.
struct Tree {
  const Character& c;
  std::vector<std::vector<int>> children;
  std::vector<int> depth, size;
  explicit Tree(const Character& ch)
      : c(ch), children(ch.joints.size()), depth(ch.joints.size(), 0), size(ch.joints.size(), 1) {
    for (std::size_t j = 0; j < c.joints.size(); ++j)
      if (c.parent[j] >= 0) children[std::size_t(c.parent[j])].push_back(int(j));
    for (std::size_t j = 0; j < c.joints.size(); ++j)
      for (int p = c.parent[j]; p >= 0; p = c.parent[std::size_t(p)]) {
        ++depth[j];
        ++size[std::size_t(p)];
      }
  }
  bool is_descendant(int j, int of) const {
    for (int p = c.parent[std::size_t(j)]; p >= 0; p = c.parent[std::size_t(p)])
      if (p == of) return true;
    return false;
  }
  /// Shallowest joint satisfying `pred` (ties: lowest node index); -1 if none.
  template <class Pred> int shallowest(Pred pred) const {
    int best = -1;
    for (std::size_t j = 0; j < c.joints.size(); ++j) {
      if (!pred(int(j))) continue;
      if (best < 0 || depth[j] < depth[std::size_t(best)] ||
          (depth[j] == depth[std::size_t(best)] && c.joints[j] < c.joints[std::size_t(best)]))
        best = int(j);
    }
    return best;
  }
  int heaviest_child(int j) const {
    int best = -1;
    for (int ch : children[std::size_t(j)])
      if (best < 0 || size[std::size_t(ch)] > size[std::size_t(best)]) best = ch;
    return best;
  }
  int lca(int a, int b) const {
    std::set<int> up;
    for (int p = a; p >= 0; p = c.parent[std::size_t(p)]) up.insert(p);
    for (int p = b; p >= 0; p = c.parent[std::size_t(p)])
      if (up.count(p)) return p;
    return -1;
  }
};

/// Joint-index roles while resolving (-1 unknown); converted to node indices at the end.
struct Work {
  int hips = -1, chest = -1, neck = -1, head = -1;
  int upper_leg[2] = {-1, -1}, lower_leg[2] = {-1, -1}, foot[2] = {-1, -1};
  int shoulder[2] = {-1, -1}, upper_arm[2] = {-1, -1}, lower_arm[2] = {-1, -1}, hand[2] = {-1, -1};
  std::set<std::string> sources;
};

/// What each joint's skin reaches at bind, per joint index (read only where names do not say).
struct SkinReach {
  std::vector<double> low;      ///< lowest world Y over the joint's subtree (joints and skin)
  std::vector<std::size_t> own; ///< vertices whose largest weight is on the joint
};

/// A pair of mirror-image child chains of `joint` (left: the one at larger X) reaching down to
/// `low` (the higher of the two chains' SkinReach::low).
struct LimbPair {
  int joint = -1, left = -1, right = -1;
  double low = 0;
};

/// SkinReach of every joint: a vertex counts for the joint its largest weight is on (ties between
/// its slots: the first); weights naming no joint of the character are skipped.
SkinReach skin_reach(const Document& doc, const Model& model, const Tree& t, const HeldSkins* held);

/// Every pair of mirror-image child chains that reaches down by at least a third of its joint's
/// height over the floor, by the joints and the skin they dominate, a foot driven from elsewhere
/// (an IK target: foot_target in roles_topology.cpp) included (arms held out or hanging,
/// ears and horns do not: docs/robustness.md), in joint then child order.
std::vector<LimbPair> reaching_pairs(const Tree& t, const SkinReach& reach);

/// Topology: of the reaching pairs, the one reaching lowest is the legs (ties within 5% H: the
/// shallower joint, i.e. the pelvis rather than a quadruped's chest; two pairs of one joint: the
/// one farther from the far end of the joint's longest other chain not named a tail
/// (`tail_named`, per joint), the head on a rig whose tail bones are named or absent; then the
/// first). Left is +X (glTF characters face +Z). Upper and lower leg and
/// foot down each chain; a foot off the chain is an IK target by position. Nothing is set when
/// there is no pair.
void legs_by_topology(const Tree& t, const SkinReach& reach, const std::vector<LimbPair>& pairs,
                      const std::vector<bool>& tail_named, Work& w);

/// The lowest-reaching pair outside the legs (a quadruped's front legs, a biped's hanging arms),
/// or nullptr when there is none or the legs are not found.
const LimbPair* front_pair(const Tree& t, const std::vector<LimbPair>& pairs, const Work& w);

/// The horizontal direction from the legs to the front pair: where the head lies; zero when there
/// is none.
Eigen::Vector3d towards_front(const Tree& t, const std::vector<LimbPair>& pairs, const Work& w);

/// The head when no name gives it (pre: w.head < 0, w.hips found): of the joints above the hips
/// outside every mirrored pair of branches (legs, arms, ears, horns), the one farthest towards
/// the front pair (towards_front), else the highest; its parent when it is a leaf dominating no
/// skin (an end marker, not right under the hips). Ties: the lowest joint index.
void head_by_topology(const Character& c, const Tree& t, const SkinReach& reach,
                      const Eigen::Vector3d& front, Work& w);

/// Arms where no name gives them (both upper arms -1): the front pair, upper and lower arm read
/// down each chain as the legs are (a quadruped's front legs are its arms, as names make them).
void arms_by_topology(const Tree& t, const std::vector<LimbPair>& pairs, Work& w);

} // namespace retail::roles_detail
