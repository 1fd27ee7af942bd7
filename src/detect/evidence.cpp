// Evidence: skin the input rigs wrongly, read from its own weights (detect.h's evidence_skin).
#include "retail/detect/detect.h"

#include <algorithm>
#include <cmath>

namespace retail {
namespace {

/// Is joint `a` an ancestor of joint `d` (or `d` itself)?
bool above(const Character& c, int a, int d) {
  for (int k = d; k >= 0; k = c.parent[std::size_t(k)])
    if (k == a) return true;
  return false;
}

/// Per character joint: 0 left, 1 right, -1 neither. A limb's joints: a leg or arm role at or
/// above it, or a joint without a role between the hips and one side's limb tops alone (a hind
/// leg's "shoulder" above its thigh, a clavicle): every roled joint below it is of that side.
std::vector<int> limb_sides(const Character& c) {
  const Roles& r = c.roles;
  std::vector<int> side(c.joints.size(), -1), roled_side(c.joints.size(), -2); // -2: no role
  for (std::size_t j = 0; j < c.joints.size(); ++j) {
    const int n = c.joints[j];
    if (n == r.hips || n == r.chest || n == r.neck || n == r.head ||
        std::count(r.spine.begin(), r.spine.end(), n) ||
        std::count(r.pelvis.begin(), r.pelvis.end(), n))
      roled_side[j] = -1;
    for (int s = 0; s < 2; ++s)
      if (n == r.upper_leg[s] || n == r.lower_leg[s] || n == r.foot[s] || n == r.shoulder[s] ||
          n == r.upper_arm[s] || n == r.lower_arm[s] || n == r.hand[s])
        roled_side[j] = s;
  }
  for (std::size_t j = 0; j < c.joints.size(); ++j)
    for (int k = int(j); k >= 0 && side[j] < 0; k = c.parent[std::size_t(k)])
      if (roled_side[std::size_t(k)] >= 0) side[j] = roled_side[std::size_t(k)];
  for (std::size_t j = 0; j < c.joints.size(); ++j) {
    if (side[j] >= 0 || roled_side[j] != -2) continue;
    int below = -2; // the one side of every roled joint below j, -1 when mixed or a torso's
    for (std::size_t d = 0; d < c.joints.size() && below != -1; ++d)
      if (d != j && roled_side[d] != -2 && above(c, int(j), int(d)))
        below = below == -2 || below == roled_side[d] ? roled_side[d] : -1;
    if (below >= 0) side[j] = below;
  }
  return side;
}

} // namespace

std::vector<char> evidence_skin(const WeldedMesh& m, const SkinWeights& sw, const Character& c,
                                const std::vector<Segment>& segments, const DistanceField& f,
                                const std::vector<std::string>& region,
                                const std::vector<char>& misweighted, const DetectParams& params) {
  const std::vector<int> side = limb_sides(c);
  std::vector<bool> roled(c.joints.size(), false); // the template's joints an auto-rigger places
  const Roles& r = c.roles;
  for (int n : {r.hips, r.chest, r.neck, r.head})
    if (c.joint_index(n) >= 0) roled[std::size_t(c.joint_index(n))] = true;
  for (int n : r.spine)
    if (c.joint_index(n) >= 0) roled[std::size_t(c.joint_index(n))] = true;
  for (int n : r.pelvis)
    if (c.joint_index(n) >= 0) roled[std::size_t(c.joint_index(n))] = true;
  const std::vector<int> first = first_originals(m);
  std::vector<char> out(m.size(), 0);
  for (std::size_t w = 0; w < m.size(); ++w) {
    if (w < misweighted.size() && misweighted[w]) {
      out[w] = 1;
      continue;
    }
    if (first[w] < 0 || std::size_t(first[w]) >= sw.joint.size()) continue;
    const std::size_t v = std::size_t(first[w]);
    double limb[2] = {0, 0}, legs = 0, extra = 0;
    for (int k = 0; k < SkinWeights::kMax; ++k) {
      const int j = sw.joint[v][std::size_t(k)];
      const double wt = sw.weight[v][std::size_t(k)];
      if (j < 0 || !(wt > 0)) continue;
      if (side[std::size_t(j)] >= 0) limb[side[std::size_t(j)]] += wt;
      if (region[std::size_t(j)] == "thigh" || region[std::size_t(j)] == "leg") legs += wt;
      if (!roled[std::size_t(j)] && side[std::size_t(j)] < 0) extra += wt;
    }
    if (extra >= 0.5) { // mostly on bones of its own (a tail's, an ear's): rigged on purpose
      out[w] = 2;
      continue;
    }
    // Mostly on the limbs, and on both sides' at once: no limb's skin is.
    const bool mixed =
        limb[0] + limb[1] >= 0.5 && std::min(limb[0], limb[1]) >= params.evidence_mix;
    const int sg = f.segment.empty() ? -1 : f.segment[w];
    const std::string near = sg >= 0 && std::size_t(sg) < segments.size()
                                 ? region[std::size_t(segments[std::size_t(sg)].joint)]
                                 : "";
    const bool off_leg = legs >= 0.5 && (near == "hips" || near == "spine");
    out[w] = mixed || off_leg;
  }
  return out;
}

} // namespace retail
