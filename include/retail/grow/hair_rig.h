// retail — planning a hair chain for a selected clump (docs/hair.md).
//
// `--hair SELECTOR` names geometry (selector.h: `M/P`, a mesh name or a material name). Per
// selector and character, the clump's old weights are erased and it is re-rigged onto the head:
//   attachment band  the clump's welded vertices nearest the head bone (the lowest
//                    attach_fraction of them by distance to the head's bone segments)
//   geodesic g       multi-source Dijkstra from the band over the clump's welded edges; L = P99(g)
//   joints           grow_chain (chain.h) with exactly N bones: J_0 the band's centroid, J_i the
//                    centroid of |g − iL/N| <= L/(2N), smoothed
//   bones            Hair_<n>_1 .. Hair_<n>_N and a weightless Hair_<n>_End under the head, each
//                    sharing the head's bind rotation (local transforms are pure translations)
//   weights          SPEC §6 along the chain (hair_chain_weight), "prev" of the root segment the
//                    head; the pinned band g <= pin_fraction × L carries weight 1 on the head and
//                    the head's share fades to 0 over the root segment's first part
//   unreached        clump vertices not connected to the band: weight 1 on the head (reported)
// Everything else keeps its stored weights. The plan is a RigEdit (rig_edit.h) numbered after
// `prior` (the tail's plan for the character) and merged with it by merge_rig_edits: nothing
// touches the document here.
#pragma once

#include "retail/base/document.h"
#include "retail/base/model.h"
#include "retail/detect/weld.h"
#include "retail/grow/chain.h"
#include "retail/grow/rig_edit.h"
#include "retail/rig/skeleton.h"

#include <Eigen/Core>
#include <cmath>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace retail {

struct HairRigParams {
  std::vector<std::string> hair; ///< --hair selectors, one chain each (per character it names)
  int joints = 6;                ///< N, --hair-joints (1..32)
  double attach_fraction = 0.05; ///< attachment band: this share of the clump nearest the head
  double pin_fraction = 0.05;    ///< pinned band: g <= this × L, weight 1 on the head
  int smoothing_passes = 2;      ///< as ChainParams
  /// Stiffness and damping per chain from the clump (hair_stiffness; docs/hair.md "Stiffness and
  /// damping from the clump"): k = stiffness_ref × (a / aspect_ref), a = the chain's mean skin
  /// radius / L, clamped to [stiffness_ref / 4, 4 stiffness_ref]; c = 2 damping_ratio √k. The
  /// reference is the generated ponytail's (a = 0.079).
  double stiffness_ref_per_s2 = 790;
  double aspect_ref = 0.079;
  double damping_ratio = 0.35;
  double stiffness_per_s2 = NAN; ///< --hair-stiffness: every chain's k (NaN: from the clump)
  double damping_per_s = NAN;    ///< --hair-damping: every chain's c (NaN: 2 damping_ratio √k)
  bool judge = true; ///< do no harm: implausible clumps left as they were (the run's harm check)
  /// Per character: found hair (piece id) the head-turn harm check left, and why (the driver's;
  /// RerigParams::hair_left).
  std::vector<std::map<int, std::string>> left_found;
  /// Per character: clumps ("piece:N" or the --hair selector) whose head turn tore their skin at
  /// their own k, and the factor (> 0) k is multiplied by in the driver's next try (harm.h's
  /// stiffer rung; c follows as 2 damping_ratio √k unless --hair-damping). Not applied when
  /// stiffness_per_s2 is set (the user's k stands).
  std::vector<std::map<std::string, double>> stiffened;
  /// The character plan_hair plans: its entry of `stiffened` (the driver copies it in).
  std::map<std::string, double> stiffen;
  WeldParams weld;
  void validate() const; ///< Failure: Error(Usage) naming the option
};

/// One selected clump rebuilt as a chain.
struct HairChainResult {
  std::string selector; ///< the --hair selector, or "piece:N" for hair found from the model
  bool found = false;   ///< found from the model (rerig.h's found_hair), not named by --hair
  std::vector<std::string> bones; ///< Hair_<n>_1 .. Hair_<n>_N, Hair_<n>_End
  std::vector<int> nodes;         ///< their node indices (as the edit numbers them)
  Chain chain;                    ///< joints (world, bind), length L, skin radius per joint
  double stiffness_per_s2 = NAN;  ///< k for the solver (hair_stiffness)
  double damping_per_s = NAN;     ///< c for the solver
  double stiffness_scale = 1;     ///< k x this: the harm check's stiffer try (1: from the clump)
  std::size_t vertices = 0;       ///< original vertices re-weighted (the clump)
  std::size_t band_vertices = 0;  ///< of them, in the attachment band (geodesic sources)
  std::size_t pinned = 0;         ///< of them, weight 1 on the head (pinned band + unreached)
  std::size_t unreached = 0;      ///< of them, not connected to the attachment band
  std::vector<std::size_t> original_vertices; ///< ascending (character primitives concatenated)
  std::vector<std::size_t> pinned_vertices;   ///< ascending
};

/// The body's trunk skin at bind, for the torso capsule the bake may add (hair_measure.h's
/// TorsoSkin, as plain data): vertices with some weight on hips, spine or chest.
struct TrunkSkin {
  std::vector<Eigen::Vector3d> positions;          ///< world, bind
  std::vector<double> trunk_weight;                ///< per position: summed trunk weight
  Eigen::Vector3d hips = Eigen::Vector3d::Zero();  ///< hips joint, world
  Eigen::Vector3d neck = Eigen::Vector3d::UnitY(); ///< neck joint (head if none), world
  int carrier = -1; ///< node the capsule rides: the chest, else the top spine joint, else hips
  /// The skin outside every clump whose dominant joint is the neck, head, chest, spine,
  /// shoulders or upper arms, for the body capsules (hair_capsules.h).
  std::vector<Eigen::Vector3d> body_positions; ///< world, bind
  std::vector<int> body_node;                  ///< per body position: its dominant joint node
};

/// A selected clump left as it was (do no harm, as a tail the harm check leaves).
struct HairLeft {
  std::string selector;     ///< the --hair selector, or "piece:N" for found hair
  bool found = false;       ///< found from the model (HairChainResult::found)
  std::size_t vertices = 0; ///< the clump's welded vertices
  std::string reason;       ///< "implausible for a hair clump (N of M vertices)", ...
};

/// What the plan found and decided for one character (kept in the run record).
struct HairResult {
  std::vector<HairChainResult> chains;
  std::vector<HairLeft> left; ///< selected clumps not rebuilt, with why (also in `warnings`)
  TrunkSkin trunk;            ///< filled when there is a chain
  std::vector<bool> matched;  ///< per selector: did it name any of this character's geometry
  std::vector<std::string> warnings;
};

struct HairPlan {
  HairResult result;
  RigEdit edit; ///< numbered after `prior`; merge_rig_edits(prior, edit) before applying
};

/// Influences of one clump vertex at geodesic g: bone 0 the head, 1..N Hair_b. SPEC §6
/// (chain_weight) beyond the root segment; within it, s = N g / L, s_p = N pin / L: the head 1
/// for s <= s_p, then fading linearly to 0 at e = min(s_p + 1/2, 3/4), the rest on bone 1
/// (and SPEC's w_next on bone 2 past f = 3/4). Sums to 1; continuous in g. Pre: length > 0.
ChainWeight hair_chain_weight(double g, double length, int bones, double pin);

/// The solver's k (s⁻²) and c (s⁻¹) for a clump of length `length` and mean skin radius
/// `radius` (the same units; HairRigParams: the formula, or the fixed overrides). A clump without
/// length or radius takes the reference k.
std::pair<double, double> hair_stiffness(const HairRigParams& params, double length, double radius);

/// Plans the hair chains of one character (see the top). Reads doc; changes nothing.
/// Do no harm (params.judge): a clump holding more than half the character's welded vertices, or
/// that would bring the clumps rebuilt so far past half, is implausible for hair (a body, every
/// mesh, every material): it is left as it was, in `left` and `warnings` with its counts. Pre:
/// model = parse_model(doc); character from build_characters with roles resolved (a head); prior:
/// the edit already planned for this character (its first_node the document's node count).
/// `pieces`: what a piece selector (`piece:N`, selector.h) names, per original vertex, as
/// plan_character resolved it (CharacterResult::piece_originals); a piece selector not in it
/// names nothing.
/// Deterministic. Failure: Error(Usage) for bad params; Error(Unsupported) when a selector names
/// geometry but the character has no head role.
/// `found`: hair detection found (CharacterResult::found_hair: "piece:N" and its original
/// vertices), each planned as one more clump after the selectors' (found = true; its messages say
/// "hair piece:N" instead of "--hair SEL").
HairPlan plan_hair(const Document& doc, const Model& model, const Character& character,
                   const RigEdit& prior, const HairRigParams& params,
                   const std::map<std::string, std::vector<bool>>& pieces = {},
                   const std::vector<std::pair<std::string, std::vector<bool>>>& found = {});

} // namespace retail
