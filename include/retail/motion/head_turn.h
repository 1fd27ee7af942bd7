// retail — `retail report IN --head-turn`: the controlled head-turn sequence on a file's own
// spring chains, measured on the skinned mesh (docs/hair.md).
//
// The file's VRM springs (vrm_springs.h) become a HairRig (hair_solver.h); the head turns as in
// hair_measure.h (HeadTurnParams: head turns, then the head still; the body never moves); at
// every sample (HeadTurnParams::sample_hz) the chain joints are posed from the solver state and
// the character's skin is skinned (skin_sampler.h). Per chain:
//   hair vertices  vertices of the character's skinned primitives with a positive weight on one
//                  of the chain's joints (the nodes it lists, root included);
//   hair edges     unique triangle edges of a primitive (stretch.h's mesh_edges) with at least
//                  one end a hair vertex and a non-zero bind length: every edge whose length the
//                  chain's motion can change (an edge with no end on the chain moves rigidly with
//                  the head or not at all), the seams between the hair and the head included;
//   edge_max_p99   100 (Q0.99 over hair edges of m_e − 1), m_e = max over samples of the edge's
//                  skinned length / bind length (SPEC §9's per-edge-maximum form), and the worst
//                  edge (largest m_e);
//   penetration    over samples, sampled link points (points_per_link per link, the root joint
//                  excluded) and the chain's proxies: how much deeper than at rest the point lies
//                  inside the proxy (centreline, no hair radius); a point the file authors inside
//                  a proxy counts only what it sinks further. The rest overlap is reported apart;
//   quiet tip      the largest tip movement between consecutive samples in the final
//                  quiet_window_s;
//   tip curl       the angle between the last link and its rest direction carried by the anchor,
//                  after the settle (a lag that became a new rest shape).
// A torso capsule (hair_measure.h's fit on the character's trunk skin) is added to a chain whose
// colliders (sphere and capsule proxies at rest) leave the trunk's axis uncovered, unless the
// chain rests inside that capsule (then it is reported, not added).
// Pure: plain data in, a value out, single-threaded, deterministic; no logging, no I/O.
#pragma once

#include "retail/base/document.h"
#include "retail/base/model.h"
#include "retail/motion/hair_measure.h"
#include "retail/qa/stretch.h"
#include "retail/rig/skeleton.h"
#include "retail/rig/skinning.h"

#include <Eigen/Core>
#include <string>
#include <vector>

namespace retail {

struct HeadTurnReportParams {
  HeadTurnParams turn;       ///< the sequence (hair_measure.h)
  TorsoParams torso;         ///< the torso capsule fit
  VrmMapping mapping;        ///< VRM settings -> solver parameters
  bool torso_capsule = true; ///< add the torso capsule where a chain's colliders miss the trunk
  void validate() const;     ///< Failure: Error(Usage) naming the field
};

struct HeadTurnChainReport {
  std::string name;
  std::vector<int> nodes; ///< the chain's joint nodes, root first
  std::size_t links = 0;  ///< simulated links (a VRM 0 virtual end adds one)
  std::size_t hair_vertices = 0, hair_edges = 0;
  double edge_max_p99_percent = 0; ///< 0 when there are no hair edges
  WorstEdge worst;                 ///< ratio 1, ids -1 when there are no hair edges
  double penetration_m = 0;        ///< beyond the rest depth, world units
  double rest_overlap_m = 0;       ///< deepest sampled link point inside a proxy at rest
  double quiet_tip_movement_m = 0;
  double tip_curl_deg = 0;
  std::vector<Eigen::Vector3d> tips; ///< per sample: the chain's last joint, world
  std::size_t colliders = 0;         ///< proxies the chain respects (the torso capsule included)
  bool torso_capsule_added = false;
  double torso_covered_fraction = 0; ///< of the trunk axis, by the chain's own colliders
  /// The colliders miss the trunk but the chain rests (root or link) inside the fitted capsule
  /// (a ribbon on the chest): the capsule is not added, it could only push the chain off its rest.
  bool torso_rests_inside = false;
};

struct HeadTurnReport {
  std::string springs;     ///< VrmSprings::source ("" when the file has none)
  int head = -1;           ///< the head node turned (-1: no chains, nothing run)
  std::size_t samples = 0; ///< mesh samples taken (sample 0: rest)
  TorsoFit torso;          ///< the fitted capsule (fitted false: no trunk skin / roles)
  std::vector<HeadTurnChainReport> chains;
  std::vector<std::string> warnings;
};

/// 100 (Q0.99({m_e}) − 1) for per-edge largest ratios m_e, Q linear between closest ranks
/// (numpy's rule); 0 when there are none.
double edge_max_p99_percent(std::vector<double> max_ratios);

/// The largest distance between consecutive tips whose later sample time is >= from_s − 1e-9
/// (0 with fewer than two samples). Pre: tips and times_s the same size.
double quiet_tip_movement(const std::vector<Eigen::Vector3d>& tips,
                          const std::vector<double>& times_s, double from_s);

/// Chains to turn, whatever grew them (a file's VRM springs, retail's --hair chains): the
/// solver's rig, the node each of its anchor and proxy poses rides, and per chain its nodes.
struct HeadTurnChains {
  HairRig rig;                          ///< anchors and proxies numbered as the lists below
  std::vector<int> anchor_nodes;        ///< per anchor pose: its node (-1: the world origin)
  std::vector<int> proxy_nodes;         ///< per proxy pose: its node
  std::vector<std::vector<int>> joints; ///< per rig chain: its nodes, root first; k heads link k
  /// Per rig chain: where its last link ends in its last node's frame; read only when the chain
  /// has as many links as nodes (a VRM 0 virtual end), otherwise the next node ends each link.
  std::vector<Eigen::Vector3d> end_local;
};

/// Runs the head turn on `chains` (every pose at the model's saved pose; the head of
/// characters[character] turns) and measures it on the mesh, as head_turn_report does.
/// params.torso_capsule false: no capsule is added (chains whose colliders already hold one).
/// Pre: as head_turn_report; joints[c] has at least rig.chains[c].links.size() nodes.
/// Post: chains in the rig's order, named as its chains; springs "" and no warnings.
/// Failure: Error(Usage) for bad params or lists that do not fit the rig; Error(Unsupported)
/// when the character has no head role. `held`: a planned re-rig's skin data (skinning.h), for
/// a model and characters built with it (rig_edit.h's planned_rig); null: the document's.
HeadTurnReport head_turn_chains(const Document& doc, const Model& model,
                                const std::vector<Character>& characters, std::size_t character,
                                HeadTurnChains chains, const HeadTurnReportParams& params = {},
                                const HeldSkins* held = nullptr);

/// Runs the head turn on every spring chain of the file and measures it on the mesh.
/// Pre: model from parse_model(doc), characters from build_characters (roles resolved).
/// Post: chains in the springs' order; no chains: an empty report (head -1, samples 0). Springs
/// that cannot be used (usable_vrm_springs: malformed, past kMaxSpringWork) or simulated
/// (hair_rig_from_vrm) give an empty report whose warnings say why, as every command treats them.
/// Failure: Error(Usage) for bad params; Error(Unsupported) when the file has chains but no
/// character has a head role to turn.
HeadTurnReport head_turn_report(const Document& doc, const Model& model,
                                const std::vector<Character>& characters,
                                const HeadTurnReportParams& params = {});

/// One chain's figures as JSON, rounded to 6 decimals (distances in mm), keys in the order
/// links, hair_vertices, hair_edges, edge_max_p99_percent, worst_edge, penetration_mm,
/// rest_overlap_mm, quiet_tip_movement_mm, tip_curl_deg, colliders: the part `retail.headturn/1`
/// and the `--hair` report share (docs/report-schema.md).
Json head_turn_chain_json(const HeadTurnChainReport& chain);

/// The head-turn sequence's parameters as JSON, keys in the order turn_s, settle_s, solver_hz,
/// sample_hz, amplitude_deg, turn_period_s, quiet_window_s, points_per_link: the part
/// `retail.headturn/1`'s `sequence` and the `--hair` report's `head_turn` share.
Json head_turn_sequence_json(const HeadTurnParams& params);

/// `retail.headturn/1` (docs/hair.md): the report's figures, rounded to 6 decimals
/// (distances in mm), with the sequence's parameters. `file`, `sha256`: of the input.
Json head_turn_json(const HeadTurnReport& report, const Model& model,
                    const HeadTurnReportParams& params, const std::string& file,
                    const std::string& sha256);

/// The readable table (one line per chain) for stderr.
std::string format_head_turn_table(const HeadTurnReport& report);

} // namespace retail
