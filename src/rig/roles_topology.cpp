// Roles from topology: which mirror-image pair of chains is the legs, and where the head is, read
// from the skeleton's shape and the skin each joint dominates (SPEC §1; docs/robustness.md).
#include "roles_internal.h"

#include "retail/io/accessor.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>

namespace retail::roles_detail {
namespace {

/// True when joints `a` and `b`, children of `parent`, mirror each other across the parent's
/// X (within 3% H; glTF characters face +Z, so left and right differ in X).
bool mirror_pair(const Character& c, int parent, int a, int b) {
  const double tol = 0.03 * c.height;
  const Eigen::Vector3d pj = c.bind_position(parent), pa = c.bind_position(a),
                        pb = c.bind_position(b);
  return std::abs((pa.x() - pj.x()) + (pb.x() - pj.x())) <= tol &&
         std::abs(pa.y() - pb.y()) <= tol && std::abs(pa.z() - pb.z()) <= tol &&
         std::abs(pa.x() - pb.x()) > tol;
}

/// True when joint `j` has a sibling it mirrors (mirror_pair): one of a pair of limbs or ears.
bool has_mirror_sibling(const Tree& t, int j) {
  const int p = t.c.parent[std::size_t(j)];
  if (p < 0) return false;
  for (int s : t.children[std::size_t(p)])
    if (s != j && mirror_pair(t.c, p, j, s)) return true;
  return false;
}

/// The upper leg, lower leg and foot (-1 when none) on the chain from `top` down its heaviest
/// children, each joint's height read as a share of the chain's (`top` over the floor, c.min_y):
/// toes on the ground (the first joint from the fourth on within 6%) make their parent the foot;
/// else a toeless foot is the first joint from the third on within a fifth; the two joints above
/// the foot are the lower and upper leg. Without either (a foot driven by an IK target elsewhere,
/// a hoof at the end of the chain) the chain's last joint is the lower leg.
std::array<int, 3> leg_on_chain(const Tree& t, int top) {
  const Character& c = t.c;
  std::vector<int> path;
  for (int k = top; k >= 0; k = t.heaviest_child(k)) path.push_back(k);
  const double floor = c.min_y, height = c.bind_position(top).y() - floor;
  auto share = [&](std::size_t i) { return (c.bind_position(path[i]).y() - floor) / height; };
  for (std::size_t i = 3; i < path.size(); ++i)
    if (share(i) <= 0.06) return {path[i - 3], path[i - 2], path[i - 1]};
  for (std::size_t i = 2; i < path.size(); ++i)
    if (share(i) <= 0.2) return {path[i - 2], path[i - 1], path[i]};
  if (path.size() < 2) return {top, -1, -1};
  return {path[path.size() - 2], path.back(), -1};
}

/// The joint driving the foot of a leg whose chain, hanging from `hips`, ends at `lower` (its
/// lower leg) where the foot is not on the chain (an IK target under the root, as Quaternius rigs
/// have): of the joints outside the hips' subtree, joined to it only through joints dominating
/// no skin (`reach`), lying below the lower leg, less than its height over the floor from it
/// horizontally and nearer it than any joint of the body (the hips' ancestors, such as a root
/// joint on the floor, left out; joints below a skinned joint count as body, so a target whose
/// own toe lies nearer is not taken), the nearest. -1 when none (or hips or lower is -1). Ties:
/// the lowest index. Cost: the joints times their depth, plus the joints squared.
int foot_target(const Tree& t, const SkinReach& reach, int hips, int lower) {
  const Character& c = t.c;
  const std::size_t n = c.joints.size();
  if (hips < 0 || lower < 0) return -1;
  std::vector<char> above(n, 0), off(n, 0); // hips or above them; off the body (memoised)
  for (int k = hips; k >= 0; k = c.parent[std::size_t(k)]) above[std::size_t(k)] = 1;
  std::vector<signed char> memo(n, -1);
  std::vector<int> path;
  for (std::size_t j = 0; j < n; ++j) { // off: no skinned joint between j and the hips' tree
    int k = int(j);
    path.clear();
    signed char value = 1;
    while (true) {
      if (above[std::size_t(k)] || memo[std::size_t(k)] >= 0) {
        value = above[std::size_t(k)] ? 0 : memo[std::size_t(k)];
        break;
      }
      path.push_back(k);
      const int p = c.parent[std::size_t(k)];
      if (p < 0) break; // a root outside the hips' tree
      if (above[std::size_t(p)]) break;
      if (reach.own[std::size_t(p)] > 0) {
        value = 0;
        break;
      }
      k = p;
    }
    for (int q : path) memo[std::size_t(q)] = value;
  }
  for (std::size_t j = 0; j < n; ++j)
    off[j] = memo[j] == 1 && !t.is_descendant(int(j), hips) && !above[j];
  const Eigen::Vector3d at = c.bind_position(lower);
  const double height = at.y() - c.min_y;
  auto nearest_on_body = [&](const Eigen::Vector3d& p) { // not above the hips; ties: lowest index
    int near = -1;
    double dn = INFINITY;
    for (std::size_t k = 0; k < n; ++k) {
      const double d = (c.bind_position(int(k)) - p).norm();
      if (d < dn && !off[k] && !above[k]) dn = d, near = int(k);
    }
    return near;
  };
  int best = -1;
  double best_d = INFINITY;
  for (std::size_t j = 0; j < n; ++j) {
    const Eigen::Vector3d p = c.bind_position(int(j));
    Eigen::Vector3d across = p - at;
    across.y() = 0;
    const double d = (p - at).norm();
    if (!off[j] || !(p.y() < at.y()) || !(across.norm() < height) || !(d < best_d) ||
        nearest_on_body(p) != lower)
      continue;
    best_d = d, best = int(j);
  }
  return best;
}

/// The deepest joint of the longest chain (in joints) hanging from `joint` outside the pairs in
/// `pairs` that hang from it, not counting joints named a tail or below one (`tail_named`, per
/// joint: retail's own grown chains, an artist's named tail), -1 when there is none (ties: the
/// first child, then the first deepest joint). On a rig whose tail bones are absent (what
/// auto-riggers make) or named, it is the head's end.
int far_end(const Tree& t, int joint, const std::vector<LimbPair>& pairs,
            const std::vector<bool>& tail_named) {
  auto in_tail = [&](int j) { // j or a joint above it, below `joint`, is named a tail
    for (int k = j; k >= 0 && k != joint; k = t.c.parent[std::size_t(k)])
      if (tail_named[std::size_t(k)]) return true;
    return false;
  };
  int best = -1;
  for (int ch : t.children[std::size_t(joint)]) {
    bool paired = false;
    for (const LimbPair& p : pairs)
      paired = paired || (p.joint == joint && (ch == p.left || ch == p.right));
    if (paired) continue;
    for (std::size_t j = 0; j < t.c.joints.size(); ++j)
      if ((int(j) == ch || t.is_descendant(int(j), ch)) && !in_tail(int(j)) &&
          (best < 0 || t.depth[j] > t.depth[std::size_t(best)]))
        best = int(j);
  }
  return best;
}

} // namespace

/// SkinReach of every joint: a vertex counts for the joint its largest weight is on (ties between
/// its slots: the first); weights naming no joint of the character are skipped.
SkinReach skin_reach(const Document& doc, const Model& model, const Tree& t,
                     const HeldSkins* held) {
  const Character& c = t.c;
  SkinReach r{std::vector<double>(c.joints.size()), std::vector<std::size_t>(c.joints.size(), 0)};
  for (std::size_t j = 0; j < c.joints.size(); ++j) r.low[j] = c.bind_position(int(j)).y();
  for (const SkinnedPrimitive& sp : c.primitives) {
    const auto s = std::find(c.skins.begin(), c.skins.end(), sp.skin);
    const Primitive& prim =
        model.meshes[std::size_t(sp.mesh)].primitives[std::size_t(sp.primitive)];
    const auto pos = prim.attributes.find("POSITION");
    if (s == c.skins.end() || pos == prim.attributes.end()) continue;
    const Eigen::RowVector4d row_y = c.skin_to_world[std::size_t(s - c.skins.begin())].row(1);
    const std::vector<int>& skin_joints = model.skins[std::size_t(sp.skin)].joints;
    std::vector<int> to_joint(skin_joints.size());
    for (std::size_t k = 0; k < skin_joints.size(); ++k)
      to_joint[k] = c.joint_index(skin_joints[k]);
    const AccessorData v = read_accessor(doc, model, pos->second);
    std::vector<double> best_w(std::size_t(v.rows()), 0);
    std::vector<int> best_j(std::size_t(v.rows()), -1);
    for_each_influence(doc, model, held, sp.mesh, sp.primitive,
                       [&](std::size_t i, int, std::uint32_t j, double weight) {
                         if (i < best_w.size() && j < to_joint.size() && weight > best_w[i]) {
                           best_w[i] = weight;
                           best_j[i] = to_joint[j];
                         }
                       });
    for (Eigen::Index i = 0; i < v.rows(); ++i) {
      const int j = best_j[std::size_t(i)];
      if (j < 0) continue;
      const double y = row_y(0) * v(i, 0) + row_y(1) * v(i, 1) + row_y(2) * v(i, 2) + row_y(3);
      r.low[std::size_t(j)] = std::min(r.low[std::size_t(j)], y);
      ++r.own[std::size_t(j)];
    }
  }
  const std::vector<double> own_low = r.low;
  for (std::size_t j = 0; j < c.joints.size(); ++j)
    for (int p = c.parent[j]; p >= 0; p = c.parent[std::size_t(p)])
      r.low[std::size_t(p)] = std::min(r.low[std::size_t(p)], own_low[j]);
  return r;
}

/// Every pair of mirror-image child chains that reaches down by at least a third of its joint's
/// height over the floor, by the joints and the skin they dominate (arms held out or hanging,
/// ears and horns do not: docs/robustness.md), in joint then child order.
std::vector<LimbPair> reaching_pairs(const Tree& t, const SkinReach& reach) {
  const Character& c = t.c;
  std::vector<LimbPair> out;
  std::vector<double> side(c.joints.size(), NAN); // per chain's top joint: how low it reaches
  for (std::size_t j = 0; j < c.joints.size(); ++j) {
    const auto& ch = t.children[j];
    const double height = c.bind_position(int(j)).y() - c.min_y;
    for (std::size_t x = 0; x < ch.size(); ++x)
      for (std::size_t y = x + 1; y < ch.size(); ++y) {
        if (!mirror_pair(c, int(j), ch[x], ch[y]) || t.children[std::size_t(ch[x])].empty())
          continue;
        auto side_low = [&](int top) { // the chain's, and its foot's where that is elsewhere
          double& low = side[std::size_t(top)]; // once per chain: a joint has one parent
          if (!std::isnan(low)) return low;
          const std::array<int, 3> leg = leg_on_chain(t, top);
          const int foot = leg[2] >= 0 ? -1 : foot_target(t, reach, int(j), leg[1]);
          low = std::min(reach.low[std::size_t(top)],
                         foot >= 0 ? reach.low[std::size_t(foot)] : double(INFINITY));
          return low;
        };
        const double low = std::max(side_low(ch[x]), side_low(ch[y]));
        if (low - c.min_y > 2.0 / 3.0 * height) continue;
        const bool x_left = c.bind_position(ch[x]).x() > c.bind_position(ch[y]).x();
        out.push_back({int(j), x_left ? ch[x] : ch[y], x_left ? ch[y] : ch[x], low});
      }
  }
  return out;
}

/// Topology: of the reaching pairs, the one reaching lowest is the legs (ties within 5% H: the
/// shallower joint, i.e. the pelvis rather than a quadruped's chest; then the first). Left is +X
/// (glTF characters face +Z). Nothing is set when there is no pair.
void legs_by_topology(const Tree& t, const SkinReach& reach, const std::vector<LimbPair>& pairs,
                      const std::vector<bool>& tail_named, Work& w) {
  const double tie = 0.05 * t.c.height;
  std::map<int, int> ends;             // far_end per joint, found once
  auto away = [&](const LimbPair& p) { // horizontally, from the far end of its joint's body
    auto it = ends.find(p.joint);
    if (it == ends.end()) it = ends.emplace(p.joint, far_end(t, p.joint, pairs, tail_named)).first;
    const int end = it->second;
    if (end < 0) return 0.0;
    Eigen::Vector3d d =
        (t.c.bind_position(p.left) + t.c.bind_position(p.right)) / 2 - t.c.bind_position(end);
    d.y() = 0;
    return d.norm();
  };
  int best = -1;
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    const LimbPair& p = pairs[i];
    const LimbPair* b = best < 0 ? nullptr : &pairs[std::size_t(best)];
    if (b && p.joint == b->joint && std::abs(p.low - b->low) < tie) {
      if (away(p) > away(*b)) best = int(i);
      continue;
    }
    if (!b || p.low < b->low - tie ||
        (p.low < b->low + tie && t.depth[std::size_t(p.joint)] < t.depth[std::size_t(b->joint)]))
      best = int(i);
  }
  if (best < 0) return;
  const int top[2] = {pairs[std::size_t(best)].left, pairs[std::size_t(best)].right};
  for (int s = 0; s < 2; ++s) {
    const std::array<int, 3> leg = leg_on_chain(t, top[s]);
    w.upper_leg[s] = leg[0];
    w.lower_leg[s] = leg[1];
    if (w.foot[s] < 0) w.foot[s] = leg[2];
    if (w.foot[s] < 0) w.foot[s] = foot_target(t, reach, pairs[std::size_t(best)].joint, leg[1]);
  }
  w.sources.insert("topology");
}

/// The horizontal direction from the legs to the lowest-reaching other pair outside them (a
/// quadruped's front legs, a biped's hanging arms): where the head lies; zero when there is none.
const LimbPair* front_pair(const Tree& t, const std::vector<LimbPair>& pairs, const Work& w) {
  if (w.upper_leg[0] < 0 || w.upper_leg[1] < 0) return nullptr;
  const LimbPair* front = nullptr;
  for (const LimbPair& p : pairs) {
    const bool in_legs = p.left == w.upper_leg[0] || t.is_descendant(p.left, w.upper_leg[0]) ||
                         p.left == w.upper_leg[1] || t.is_descendant(p.left, w.upper_leg[1]) ||
                         t.is_descendant(w.upper_leg[0], p.left);
    if (!in_legs && (!front || p.low < front->low)) front = &p;
  }
  return front;
}

Eigen::Vector3d towards_front(const Tree& t, const std::vector<LimbPair>& pairs, const Work& w) {
  const Character& c = t.c;
  const LimbPair* front = front_pair(t, pairs, w);
  if (!front) return Eigen::Vector3d::Zero();
  const Eigen::Vector3d legs = c.bind_position(w.upper_leg[0]) + c.bind_position(w.upper_leg[1]);
  Eigen::Vector3d d = c.bind_position(front->left) + c.bind_position(front->right) - legs;
  d.y() = 0;
  return d.norm() > 0.02 * c.height ? Eigen::Vector3d(d.normalized()) : Eigen::Vector3d::Zero();
}

void arms_by_topology(const Tree& t, const std::vector<LimbPair>& pairs, Work& w) {
  if (w.upper_arm[0] >= 0 || w.upper_arm[1] >= 0) return;
  const LimbPair* front = front_pair(t, pairs, w);
  if (!front) return;
  const int top[2] = {front->left, front->right};
  for (int s = 0; s < 2; ++s) {
    const std::array<int, 3> arm = leg_on_chain(t, top[s]);
    w.upper_arm[s] = arm[0];
    w.lower_arm[s] = arm[1];
  }
}

/// The head when no name gives it (pre: w.head < 0, w.hips found): of the joints above the hips
/// outside every mirrored pair of branches (legs, arms, ears, horns), the one farthest towards
/// the front pair (towards_front), else the highest; its parent when it is a leaf dominating no
/// skin (an end marker, not right under the hips). Ties: the lowest joint index.
void head_by_topology(const Character& c, const Tree& t, const SkinReach& reach,
                      const Eigen::Vector3d& front, Work& w) {
  auto in_pair = [&](int j) {
    for (int k = j; k >= 0 && k != w.hips; k = c.parent[std::size_t(k)])
      if (has_mirror_sibling(t, k)) return true;
    return false;
  };
  auto score = [&](int j) {
    return front.isZero() ? c.bind_position(j).y() : front.dot(c.bind_position(j));
  };
  int best = -1;
  for (std::size_t j = 0; j < c.joints.size(); ++j) {
    if (!t.is_descendant(int(j), w.hips) || in_pair(int(j))) continue;
    if (best < 0 || score(int(j)) > score(best)) best = int(j);
  }
  if (best >= 0 && t.children[std::size_t(best)].empty() && reach.own[std::size_t(best)] == 0 &&
      c.parent[std::size_t(best)] != w.hips)
    best = c.parent[std::size_t(best)];
  w.head = best;
  if (best >= 0) w.sources.insert("topology");
}

} // namespace retail::roles_detail
