// Evidence: skin the input rigs wrongly, read from its own weights (detect.h's evidence_skin).
#include "detect/classify_internal.h"
#include "retail/detect/detect.h"
#include "retail/detect/graph.h"

#include <cstdio>
#include <map>

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

/// The joints the skin of welded `vertices` is weighted to, most first (at most 3), with their
/// shares of its weight (first originals). Ties: the lower joint index.
std::vector<std::pair<int, double>> weighted_to(const SkinWeights& sw,
                                                const std::vector<int>& first,
                                                const std::vector<int>& vertices) {
  std::map<int, double> sum;
  double total = 0;
  for (int w : vertices) {
    const int v = first[std::size_t(w)];
    if (v < 0 || std::size_t(v) >= sw.joint.size()) continue;
    for (int k = 0; k < SkinWeights::kMax; ++k)
      if (sw.joint[std::size_t(v)][std::size_t(k)] >= 0 &&
          sw.weight[std::size_t(v)][std::size_t(k)] > 0) {
        sum[sw.joint[std::size_t(v)][std::size_t(k)]] += sw.weight[std::size_t(v)][std::size_t(k)];
        total += sw.weight[std::size_t(v)][std::size_t(k)];
      }
  }
  std::vector<std::pair<int, double>> out(sum.begin(), sum.end());
  std::stable_sort(out.begin(), out.end(), [](auto& a, auto& b) { return a.second > b.second; });
  if (out.size() > 3) out.resize(3);
  for (auto& [j, w] : out) w = total > 0 ? w / total : 0;
  return out;
}

double joint_share(const SkinWeights& sw, const std::vector<int>& first,
                   const std::vector<bool>& joints, const std::vector<int>& vertices) {
  double on = 0, total = 0;
  for (int w : vertices) {
    const int v = first[std::size_t(w)];
    if (v < 0 || std::size_t(v) >= sw.joint.size()) continue;
    for (int k = 0; k < SkinWeights::kMax; ++k) {
      const int j = sw.joint[std::size_t(v)][std::size_t(k)];
      const double wt = sw.weight[std::size_t(v)][std::size_t(k)];
      if (j < 0 || !(wt > 0)) continue;
      total += wt;
      if (joints[std::size_t(j)]) on += wt;
    }
  }
  return total > 0 ? on / total : 0;
}

namespace {

/// Does a piece decided `d` (or selected) keep its skin from the evidence's pieces?
bool holds_its_skin(const Piece& p) {
  return !p.selected.empty() || p.decision == Decision::TailChain || p.decision == Decision::Worn ||
         p.decision == Decision::WornRigid || p.decision == Decision::Head ||
         p.decision == Decision::Hair;
}

/// Adds to `part` (sorted after) the single vertices it encloses: every neighbour in it, and
/// not held by a piece that keeps its skin.
void enclose(const WeldedMesh& m, const std::vector<bool>& open, const std::vector<int>& owner,
             const std::vector<Piece>& pieces, std::vector<int>& part) {
  std::vector<bool> in(m.size(), false);
  for (int v : part) in[std::size_t(v)] = true;
  for (std::size_t v = 0; v < m.size(); ++v) {
    if (in[v] || !(open[v] || owner[v] < 0 || !holds_its_skin(pieces[std::size_t(owner[v])])))
      continue;
    const int a = m.adjacency_start[v], b = m.adjacency_start[v + 1];
    bool enclosed = a < b;
    for (int e = a; e < b && enclosed; ++e) enclosed = in[std::size_t(m.adjacency[std::size_t(e)])];
    if (enclosed) part.push_back(int(v));
  }
  std::sort(part.begin(), part.end());
}

} // namespace

namespace {

/// The open evidence skin's connected parts of at least evidence_min_vertices, each with the
/// single vertices it encloses (sorted), in order of their lowest vertex.
std::vector<std::vector<int>> evidence_parts(const Classifier& x, const std::vector<char>& ev,
                                             const std::vector<bool>& excluded,
                                             const std::vector<Piece>& pieces) {
  const std::size_t n = x.m.size();
  std::vector<int> owner(n, -1);
  for (std::size_t i = 0; i < pieces.size(); ++i)
    for (int v : pieces[i].vertices) owner[std::size_t(v)] = int(i);
  std::vector<bool> open(n, false);
  for (std::size_t v = 0; v < n; ++v)
    open[v] = ev[v] == 1 && !(v < excluded.size() && excluded[v]) &&
              !(owner[v] >= 0 && holds_its_skin(pieces[std::size_t(owner[v])]));
  std::vector<std::vector<int>> parts;
  for (std::vector<int>& part : welded_components(x.m, open)) {
    if (int(part.size()) < x.params.evidence_min_vertices) continue;
    enclose(x.m, open, owner, pieces, part);
    parts.push_back(std::move(part));
  }
  return parts;
}

/// Mean tear share over `vertices` (unmeasured ones count 0); NaN when nothing was measured.
double tear_inside(const TearEvidence& tear, std::size_t n, const std::vector<int>& vertices) {
  if (tear.share.size() != n) return NAN;
  double inside = 0;
  for (int v : vertices)
    if (std::isfinite(tear.share[std::size_t(v)])) inside += tear.share[std::size_t(v)];
  return inside / double(std::max<std::size_t>(1, vertices.size()));
}

/// The evidence's gate, its weights half: a tail chain weighted at least stub_leg_weight to
/// the legs and less than evidence_own_bones to bones of its own.
bool weighted_as_missed(const DetectParams& params, const Piece& p) {
  return p.decision == Decision::TailChain && !(p.leg_weight < params.stub_leg_weight) &&
         p.own_bones < params.evidence_own_bones;
}

/// The evidence's gate: weighted_as_missed, and tearing evidence_tear_ratio times the rest's
/// share. On a pass, says so at the front of the piece's reason.
bool passes_gate(const DetectParams& params, double rest, Piece& p) {
  if (!weighted_as_missed(params, p) || !(p.tear >= params.evidence_tear_ratio * rest))
    return false;
  char buf[160];
  std::snprintf(buf, sizeof buf,
                "its skin is weighted %.0f%% to the legs and tears %.1f times as much as the "
                "rest under the clips (evidence); ",
                100 * p.leg_weight, p.tear / std::max(rest, 1e-12));
  p.reason = buf + p.reason;
  return true;
}

/// A piece the centroid rule left as body skin (a hips or leftover bone lies in it), not
/// selected, hanging where a tail does (the hips or a thigh), large enough to be an evidence
/// part.
bool bone_inside(const DetectParams& params, const Piece& p) {
  return p.decision == Decision::BodyLike && p.selected.empty() && !p.evidence &&
         (p.region == "hips" || p.region == "thigh") &&
         int(p.vertices.size()) >= params.evidence_min_vertices;
}

/// "a bone lies in it (centroid 0.32 of reach < 0.38): judged by its skin: ".
std::string bone_inside_reason(const Piece& p, const DetectParams& params) {
  char buf[120];
  std::snprintf(buf, sizeof buf,
                "a bone lies in it (centroid %.2f of reach < %.2f): judged by its skin: ",
                p.reach > 0 ? p.centroid_distance / p.reach : 0.0, params.centroid_ratio);
  return buf;
}

} // namespace

TearCache::TearCache(const TearProbe& probe, std::size_t vertices)
    : probe_(probe), focus_(vertices, 0) {}

const TearEvidence& TearCache::covering(const std::vector<char>& want) {
  bool covered = asked_;
  for (std::size_t v = 0; v < want.size() && v < focus_.size(); ++v)
    if (want[v] && !focus_[v]) focus_[v] = 1, covered = false;
  if (!covered && probe_) got_ = probe_(focus_);
  asked_ = true;
  return got_;
}

void judge_by_skin(const Classifier& x, const std::vector<char>& ev, TearCache& cache,
                   std::vector<Piece>& pieces) {
  const std::size_t n = x.m.size();
  const DetectParams& params = x.params;
  std::vector<std::pair<std::size_t, Piece>> judged; // (index, the piece judged by its skin)
  std::vector<char> want(n, 0);
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    if (!bone_inside(params, pieces[i])) continue;
    std::size_t marked = 0;
    for (int v : pieces[i].vertices) marked += ev[std::size_t(v)] == 1;
    if (!(double(marked) >= params.evidence_body_share * double(pieces[i].vertices.size())))
      continue;
    Piece p = pieces[i];
    p.evidence = true;
    classify_piece(x, p.id, p);
    if (!weighted_as_missed(params, p)) continue;
    for (int v : p.vertices) want[std::size_t(v)] = 1;
    judged.emplace_back(i, std::move(p));
  }
  if (judged.empty()) return;
  const TearEvidence& tear = cache.covering(want);
  for (auto& [i, p] : judged) {
    std::vector<int> other; // its skin without the evidence's mark
    for (int v : p.vertices)
      if (ev[std::size_t(v)] != 1) other.push_back(v);
    if (!other.empty() && !(tear_inside(tear, n, other) >= params.evidence_tear_ratio * tear.rest))
      continue;
    p.tear = tear_inside(tear, n, p.vertices);
    p.rest_tear = tear.rest;
    if (!passes_gate(params, tear.rest, p)) continue;
    p.reason = bone_inside_reason(p, params) + p.reason;
    pieces[i] = std::move(p);
  }
}

void evidence_pieces(const Classifier& x, const std::vector<char>& ev,
                     const std::vector<bool>& excluded, TearCache& cache,
                     std::vector<Piece>& pieces, std::vector<Piece>& left) {
  const std::size_t n = x.m.size();
  if (x.params.evidence_min_vertices <= 0) return;
  const std::vector<std::vector<int>> parts = evidence_parts(x, ev, excluded, pieces);
  if (parts.empty()) return;
  std::vector<char> focus(n, 0);
  for (const std::vector<int>& part : parts)
    for (int v : part) focus[std::size_t(v)] = 1;
  const TearEvidence& tear = cache.covering(focus);
  for (const std::vector<int>& part : parts) {
    Piece p;
    p.vertices = part;
    p.tip = part.front();
    p.evidence = true;
    classify_piece(x, int(pieces.size()), p);
    p.tear = tear_inside(tear, n, part);
    p.rest_tear = tear.rest;
    if (!passes_gate(x.params, tear.rest, p)) {
      left.push_back(std::move(p));
      continue;
    }
    std::vector<bool> taken(n, false);
    for (int v : part) taken[std::size_t(v)] = true;
    for (Piece& q : pieces)
      q.vertices.erase(std::remove_if(q.vertices.begin(), q.vertices.end(),
                                      [&](int v) { return taken[std::size_t(v)]; }),
                       q.vertices.end());
    pieces.push_back(std::move(p));
  }
}

void drop_ridden_evidence(const std::vector<Piece>& pieces, std::size_t n,
                          std::vector<Piece>& left) {
  std::vector<bool> held(n, false);
  for (const Piece& p : pieces)
    if (p.decision == Decision::TailChain)
      for (int v : p.vertices) held[std::size_t(v)] = true;
  left.erase(std::remove_if(left.begin(), left.end(),
                            [&](const Piece& p) {
                              return !p.vertices.empty() &&
                                     std::all_of(p.vertices.begin(), p.vertices.end(),
                                                 [&](int v) { return held[std::size_t(v)]; });
                            }),
             left.end());
}

std::vector<bool> region_joints(const std::vector<std::string>& region,
                                std::initializer_list<const char*> names) {
  std::vector<bool> out(region.size(), false);
  for (std::size_t j = 0; j < region.size(); ++j)
    for (const char* name : names) out[j] = out[j] || region[j] == name;
  return out;
}

std::vector<bool> own_bones(const Character& c) {
  const std::vector<int> side = limb_sides(c);
  const Roles& r = c.roles;
  std::vector<bool> out(c.joints.size(), false);
  for (std::size_t j = 0; j < c.joints.size(); ++j) {
    const int n = c.joints[j];
    const bool roled = n == r.hips || n == r.chest || n == r.neck || n == r.head ||
                       std::count(r.spine.begin(), r.spine.end(), n) ||
                       std::count(r.pelvis.begin(), r.pelvis.end(), n);
    out[j] = !roled && side[j] < 0;
  }
  return out;
}

std::vector<char> limbs_mixed(const WeldedMesh& m, const SkinWeights& sw, const Character& c,
                              double mix) {
  const std::vector<int> side = limb_sides(c);
  const std::vector<int> first = first_originals(m);
  std::vector<char> out(m.size(), 0);
  for (std::size_t w = 0; w < m.size(); ++w) {
    if (first[w] < 0 || std::size_t(first[w]) >= sw.joint.size()) continue;
    const std::size_t v = std::size_t(first[w]);
    double limb[2] = {0, 0};
    for (int k = 0; k < SkinWeights::kMax; ++k) {
      const int j = sw.joint[v][std::size_t(k)];
      const double wt = sw.weight[v][std::size_t(k)];
      if (j >= 0 && wt > 0 && side[std::size_t(j)] >= 0) limb[side[std::size_t(j)]] += wt;
    }
    out[w] = limb[0] + limb[1] >= 0.5 && std::min(limb[0], limb[1]) >= mix;
  }
  return out;
}

std::vector<char> evidence_skin(const WeldedMesh& m, const SkinWeights& sw, const Character& c,
                                const std::vector<Segment>& segments, const DistanceField& f,
                                const std::vector<std::string>& region,
                                const std::vector<char>& misweighted, const DetectParams& params) {
  const std::vector<int> side = limb_sides(c);
  const std::vector<bool> own = own_bones(c);
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
      if (own[std::size_t(j)]) extra += wt;
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
