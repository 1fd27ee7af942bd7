// Hair found from the model (issue 31; docs/hair.md "Hair found from the model"): which pieces
// touching the head are long clumps a rigger left on the head's bones.
#include "detect/classify_internal.h"
#include "retail/detect/graph.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>

namespace retail {

namespace {

template <class... Args> std::string fmt(const char* format, Args... args) {
  char buf[320];
  std::snprintf(buf, sizeof buf, format, args...);
  return buf;
}

/// Least distance from the piece's vertices and collar to the head's bones.
double distance_to_head(const Classifier& x, const Piece& p) {
  double best = INFINITY;
  for (const auto* list : {&p.vertices, &p.collar})
    for (int v : *list) {
      const Eigen::Vector3d q = x.m.welded.row(v).transpose();
      for (const Segment& s : x.head.bones) best = std::min(best, segment_distance(q, s.a, s.b));
    }
  return best;
}

/// How far the head's skin but `p` rises above the head joint: the highest welded vertex nearest
/// a head bone that is not one of the piece's.
double head_size(const HeadFrame& h, const Piece& p) {
  for (const auto& [rise, v] : h.rise)
    if (!std::binary_search(p.vertices.begin(), p.vertices.end(), v)) return std::max(rise, 0.0);
  return 0;
}

} // namespace

/// Hair is looked for on upright characters: the hips -> head direction within this many degrees
/// of world up (the jaw and the drop are measured along world up). The shared humanoids lean
/// 0-8.2 degrees, the shared animals and dinosaurs 54-131: 30 lies between (docs/hair.md).
constexpr double kUprightDeg = 30;

HeadFrame head_frame(const WeldedMesh& m, const Character& c, const Detection& det,
                     const std::vector<std::string>& region) {
  HeadFrame h;
  const int head = c.joint_index(c.roles.head), hips = c.joint_index(c.roles.hips);
  if (head < 0 || hips < 0) return h;
  const Eigen::Vector3d up = c.bind_position(head) - c.bind_position(hips);
  if (!(up.norm() > 0) || up.normalized().y() < std::cos(kUprightDeg * M_PI / 180)) return h;
  h.head = head;
  h.head_y = c.bind_position(h.head).y();
  for (const Segment& s : det.segments)
    if (s.joint >= 0 && region[std::size_t(s.joint)] == "head") h.bones.push_back(s);
  const std::vector<char> near_head = nearest_in_region(det.field, det.segments, region, "head");
  for (std::size_t v = 0; v < near_head.size(); ++v)
    if (near_head[v]) h.rise.push_back({m.welded(Eigen::Index(v), 1) - h.head_y, int(v)});
  // Highest first; ties: the lower vertex.
  std::sort(h.rise.begin(), h.rise.end(), [](const auto& a, const auto& b) {
    return a.first > b.first || (a.first == b.first && a.second < b.second);
  });
  return h;
}

void judge_hair(const Classifier& x, Piece& p) {
  const DetectParams& prm = x.params;
  if (!prm.find_hair || x.head.head < 0 || x.head.bones.empty() || p.vertices.size() < 3 ||
      !p.selected.empty() || p.evidence || p.decision == Decision::TailChain)
    return;
  // From the hips and carrying the head's skin: the body (decide), not hair either.
  if (carries_head_skin(prm, p)) return;
  if (!(distance_to_head(x, p) <= x.det.field.threshold)) return; // does not touch the head
  p.head_weight = p.head_skin;
  const bool from_head = p.region == "head" || p.region == "neck";
  if (!from_head && p.head_weight < prm.hair_head_weight) return; // not the head's: as decided
  p.head_size = head_size(x.head, p);
  double lowest = INFINITY;
  for (int v : p.vertices) lowest = std::min(lowest, x.m.welded(v, 1));
  const double size = p.head_size > 0 ? p.head_size : INFINITY;
  p.hair_drop = (x.head.head_y - lowest) / size;
  p.hair_length = p.length / size;
  std::string why;
  if (p.own_bones >= prm.evidence_own_bones)
    why = fmt("on bones of its own (%.0f%% of its weight): left alone", 100 * p.own_bones);
  else if (p.head_weight < prm.hair_head_weight)
    why = fmt("weighted %.0f%% to the head and neck (< %.0f%%): not hair, left alone",
              100 * p.head_weight, 100 * prm.hair_head_weight);
  else if (p.hair_drop < prm.hair_drop_heads)
    why = fmt("does not hang below the jaw (lowest point %.2f head sizes below the head joint < "
              "%.2f: ears, horns, a hat, short hair): left alone",
              p.hair_drop, prm.hair_drop_heads);
  else if (p.hair_length < prm.hair_length_heads)
    why = fmt("short (L = %.2f head sizes < %.2f: short hair, a lock): left alone", p.hair_length,
              prm.hair_length_heads);
  if (why.empty()) {
    p.decision = Decision::Hair;
    p.reason = fmt("hair: touches the head, weighted %.0f%% to the head and neck and %.0f%% to "
                   "bones of its own, hangs %.2f head sizes below the head joint, L = %.2f head "
                   "sizes (head size %.3f): a chain under the head",
                   100 * p.head_weight, 100 * p.own_bones, p.hair_drop, p.hair_length, p.head_size);
  } else if (from_head) {
    p.decision = Decision::Head;
    p.reason = "hangs from the head or neck, " + why;
  }
}

void hair_takes_its_shell(const Classifier& x, std::vector<Piece>& pieces) {
  for (Piece& h : pieces) {
    if (h.decision != Decision::Hair || !h.separate_shell || h.vertices.empty()) continue;
    std::vector<bool> shell(x.m.size(), false); // the welded component h lies on
    flood_welded(x.m, {h.vertices[0]}, shell, [](int) { return true; });
    bool grew = false;
    for (Piece& q : pieces) {
      if (&q == &h || q.vertices.empty() || !q.selected.empty() ||
          q.decision == Decision::TailChain || q.decision == Decision::Hair ||
          q.decision == Decision::HairRejected ||
          !std::all_of(q.vertices.begin(), q.vertices.end(),
                       [&](int v) { return shell[std::size_t(v)]; }))
        continue;
      merge_piece(h, q, "the rest of its hair's shell");
      grew = true;
    }
    if (!grew) continue;
    std::sort(h.vertices.begin(), h.vertices.end());
    classify_piece(x, h.id, h);
  }
}

namespace {

/// Highest point of welded `ids` above the head joint, in head sizes (-inf when empty).
double rise_heads(const Classifier& x, const std::vector<int>& ids, double head_size) {
  double top = -INFINITY;
  for (int v : ids) top = std::max(top, x.m.welded(v, 1));
  return (top - x.head.head_y) / (head_size > 0 ? head_size : INFINITY);
}

/// The pieces on `shell` (ascending welded ids), or nullopt when one of them may not be taken
/// (a tail chain, hair, selected or from the evidence) or a vertex is --not-tail's.
std::optional<std::vector<int>> pieces_on(const std::vector<Piece>& pieces,
                                          const std::vector<int>& owner,
                                          const std::vector<bool>& excluded,
                                          const std::vector<int>& shell) {
  std::vector<int> on;
  for (int v : shell) {
    if (!excluded.empty() && excluded[std::size_t(v)]) return std::nullopt;
    const int o = owner[std::size_t(v)];
    if (o >= 0 && (on.empty() || on.back() != o)) on.push_back(o);
  }
  std::sort(on.begin(), on.end());
  on.erase(std::unique(on.begin(), on.end()), on.end());
  for (int o : on) {
    const Piece& q = pieces[std::size_t(o)];
    if (!q.selected.empty() || q.evidence || q.decision == Decision::TailChain ||
        q.decision == Decision::Hair || q.decision == Decision::HairRejected)
      return std::nullopt;
  }
  return on;
}

} // namespace

void hair_shells(const Classifier& x, const std::vector<bool>& excluded,
                 std::vector<Piece>& pieces) {
  const DetectParams& prm = x.params;
  const std::size_t n = x.m.size();
  if (!prm.find_hair || x.head.head < 0 || x.head.bones.empty() || x.head.rise.empty()) return;
  std::vector<int> owner(n, -1);
  for (std::size_t i = 0; i < pieces.size(); ++i)
    for (int v : pieces[i].vertices) owner[std::size_t(v)] = int(i);
  std::optional<Classifier> hx; // made for the first shell asked about (it copies per-vertex data)
  // The head's own skin lies nearest its bones (hair lies on it): the shell holding the welded
  // vertex nearest a head bone is the head's (or the body's), never hair. Ties: the lower id.
  int innermost = -1;
  for (const auto& [rise, v] : x.head.rise)
    if (innermost < 0 ||
        x.det.field.distance[std::size_t(v)] < x.det.field.distance[std::size_t(innermost)] ||
        (x.det.field.distance[std::size_t(v)] == x.det.field.distance[std::size_t(innermost)] &&
         v < innermost))
      innermost = v;
  std::vector<bool> reached(n, false);
  flood_welded(x.m, {innermost}, reached, [](int) { return true; });
  for (const auto& seed : x.head.rise) { // highest first (head_frame's order)
    if (reached[std::size_t(seed.second)]) continue;
    std::vector<int> shell = flood_welded(x.m, {seed.second}, reached, [](int) { return true; });
    shell.push_back(seed.second);
    if (shell.size() < 3 || 2 * shell.size() > n) continue;
    std::sort(shell.begin(), shell.end());
    const auto on = pieces_on(pieces, owner, excluded, shell);
    if (!on) continue;
    Piece p;
    p.vertices = shell;
    p.separate_shell = true;
    if (!hx) {
      hx.emplace(x);
      hx->torso = x.head.bones; // its collar: the shell's vertices nearest the head's bones
    }
    classify_piece(*hx, int(pieces.size()), p);
    if (p.decision != Decision::Hair) continue;
    p.hair_rise = rise_heads(x, shell, p.head_size);
    if (p.hair_rise < prm.hair_shell_rise_heads) continue; // not rooted on the scalp
    for (int o : *on) merge_piece(p, pieces[std::size_t(o)], "the rest of its hair's shell");
    p.vertices = std::move(shell);
    p.reason += fmt("; a shell lying close to the body, rising %.2f head sizes above the head "
                    "joint (its far skin alone is no hair)",
                    p.hair_rise);
    for (int v : p.vertices) owner[std::size_t(v)] = int(pieces.size());
    pieces.push_back(std::move(p));
  }
}

} // namespace retail
