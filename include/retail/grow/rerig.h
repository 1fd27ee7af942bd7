// retail — planning a re-rig (SPEC §1 output, §5, §6); writing it is rig_edit.h's.
//
// Per character: detect pieces; for each tail chain (mode chain) plan bones Tail_1..Tail_K and
// a weightless Tail_End under the hips, sharing the hips' bind rotation (each bone's local
// transform a pure translation); append them to every skin of the character with inverse
// bind matrices in that skin's space (existing joint indices unchanged); re-weight the piece's
// vertices with the chain formula and blend the body into the hips over the root band. Mode
// rigid: the piece's vertices get weight 1 on the hips. Mode detect: nothing changes. Worn
// pieces go rigid on their bone only with --rigid-worn.
#pragma once

#include "retail/base/document.h"
#include "retail/base/model.h"
#include "retail/detect/detect.h"
#include "retail/detect/weld.h"
#include "retail/grow/chain.h"
#include "retail/grow/ears.h"
#include "retail/grow/rig_edit.h"
#include "retail/grow/root_band.h"
#include "retail/rig/skeleton.h"

#include <map>
#include <string>
#include <vector>

namespace retail {

enum class Mode { Chain, Rigid, Detect };

/// What the harm check (pipeline.h) decided for one tail piece: how it is to be written.
struct PieceOverride {
  enum class Kind { Chain, Rigid, Leave } kind = Kind::Chain;
  double band_scale = 1; ///< Chain: the root band (and its seam blend) this many times as wide
  /// Chain: the root band also crosses skin the input moves with a lower leg or a foot
  /// (RootBandParams::lower_legs), whatever the params say.
  bool band_legs = false;
  /// Chain: at most this many links (0: as ChainParams says; the harm check's "one link fewer"
  /// step). Longer links widen everything sized in links: the weights' blends, the seam.
  int max_bones = 0;
  /// Chain: its spring bends no joint past the skin limit at this ratio (SpringParams::
  /// min_skin_ratio; the harm check's "bend less" step); NaN: the run's.
  double min_skin_ratio = NAN;
  /// Chain: an earlier attempt's net harm per vertex (PieceJudge::vertex_net, original ids):
  /// every welded vertex whose originals' nets add up above 0 is left as it was, out of the
  /// piece and out of its root band. Empty: none.
  std::vector<std::pair<std::size_t, long long>> peel;
  bool peel_tried = false; ///< the harm check has tried a peel (kept or not)
  /// the harm check has tried the root band twice as wide over the lower legs' skin too
  bool legs_wide_tried = false;
  /// Chain: its spring held at rest in each clip where it is harmful (harm.h's harmless_clip)
  /// when held it is harmless there (the harm check's "hold" step).
  bool hold_harmful = false;
  std::string reason; ///< why (written into the piece's reason)
};

/// Selectors (selector.h) may name a piece, `piece:N`: the piece detection numbers N (Piece::id)
/// under the same params with every selector but the piece selectors. plan_character runs that
/// detection first, then detects again with piece N's welded vertices selected; the second
/// detection numbers the pieces anew (a --tail piece is appended, a --not-tail piece's
/// vertices leave every piece).
struct RerigParams {
  Mode mode = Mode::Chain;
  std::map<int, PieceOverride> overrides; ///< by piece id (ids are deterministic)
  std::vector<std::string> tail;          ///< --tail selectors (selector.h): tail chains
  std::vector<std::string> not_tail;      ///< --not-tail selectors: never a piece
  /// --not-hair selectors: a piece detection found as hair (Decision::Hair) with a vertex they
  /// name is left alone (Decision::Head); piece:N names the piece this detection numbers N.
  std::vector<std::string> not_hair;
  /// Found hair the head-turn harm check left (by piece id; the driver's): HairRejected, with why.
  std::map<int, std::string> hair_left;
  WeldParams weld;
  DetectParams detect;
  EarsParams ears; ///< the ears kind (ears.h): reported, never re-weighted
  ChainParams chain;
  RootBandParams root_band;
  void validate() const; ///< Failure: Error(Usage)
};

struct ChainResult {
  int piece = -1;
  std::vector<std::string> bones; ///< Tail_1 .. Tail_K, Tail_End
  std::vector<int> nodes;         ///< their node indices (empty in rigid/detect mode)
  Chain chain;
  std::size_t vertices = 0;                   ///< original vertices re-weighted
  std::vector<std::size_t> original_vertices; ///< their ids (character primitives concatenated)
  double distance_before = 0;                 ///< mean weighted bone distance, world units
  double distance_after = 0;
  std::size_t band_vertices = 0; ///< body vertices blended into the tail's root (root_band.h)
  /// Original vertices of the piece and its surroundings left as they were because an earlier
  /// attempt tore them more than it healed (PieceOverride::peel); 0 without a peel.
  std::size_t peeled_vertices = 0;
  std::vector<std::size_t> band_originals; ///< their original ids, ascending
  bool rigid = false;                      ///< weight 1 on the hips (mode rigid, or the fallback)
  /// The spring's skin limit ratio for this chain (PieceOverride::min_skin_ratio); NaN: the
  /// run's.
  double min_skin_ratio = NAN;
  bool hold_harmful = false; ///< PieceOverride::hold_harmful
};

struct CharacterResult {
  std::size_t welded_vertices = 0, source_vertices = 0;
  Detection detection;
  std::vector<ChainResult> chains;
  std::vector<std::string> warnings;
  /// Per selector of RerigParams::tail, then ::not_tail: did it name any of this character's
  /// primitives (a piece selector: one of its pieces)?
  std::vector<bool> selector_matched;
  /// With a piece selector (piece:N): the ids of the pieces (with vertices) that detection found
  /// without the piece selectors, which they name; else empty.
  std::vector<int> piece_ids;
  /// Per piece selector that named a piece: per original vertex (the character's primitives
  /// concatenated), is it in that piece? (plan_hair reads it for --hair piece:N.)
  std::map<std::string, std::vector<bool>> piece_originals;
  /// Hair found from the model and kept (Decision::Hair; mode detect: none): its selector
  /// "piece:N" and per original vertex whether it is in the piece, for plan_hair (hair_rig.h).
  std::vector<std::pair<std::string, std::vector<bool>>> found_hair;
  std::vector<bool> not_hair_matched; ///< per --not-hair selector: did it name any geometry
  /// The ears kind (ears.h): a pair of head pieces left rigid on their bone, reported only.
  std::vector<EarsPair> ears;
};

/// A character's re-rig: what was found and decided, and the edit that writes it.
struct CharacterPlan {
  CharacterResult result; ///< chains name the node indices the edit's nodes will take
  RigEdit edit;
};

/// Plans the re-rig of one character; reads `doc`, changes nothing. Pre: model =
/// parse_model(doc); character from build_characters with roles resolved.
/// `prior`: what was planned for the characters before this one (empty, or planned for `doc`:
/// prior.first_node is doc's node count). The edit is planned after it, to be merged into it
/// (merge_rig_edits) and applied once: its nodes are numbered from doc's node count +
/// prior.nodes.size(), its chains' names differ from the document's and prior's, and its skin
/// indices count the joints prior appends to the same skin. The weights it reads are the
/// document's (a vertex two plans re-weight takes the later plan's: merge_rig_edits).
/// Deterministic. Failure: Error(Usage) for bad params; Error(InvalidInput) when prior was
/// planned for another node count.
/// `tear`: detect.h's TearProbe on original vertex ids (the character's primitives
/// concatenated) instead of welded ones; empty: no piece from the evidence alone.
CharacterPlan plan_character(const Document& doc, const Model& model, const Character& character,
                             const RerigParams& params, const TearProbe& tear = {},
                             const RigEdit& prior = RigEdit{});

/// plan_character, then apply_rig_edit into `doc`; returns the plan's result.
CharacterResult rerig_character(Document& doc, const Model& model, const Character& character,
                                const RerigParams& params);

} // namespace retail
