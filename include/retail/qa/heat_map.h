// retail — the edge-stretch heat map (docs/html-page.md): per vertex, the worst ratio of its
// edges over a clip, the figure the QA page colours the skin by.
//
// The same edges and ratios as the stretch (stretch.h, SPEC §9): every triangle edge of the
// character's skinned primitives, ratio = skinned length / bind length (world space, CPU skinning
// in double) at `samples` evenly spaced times t_i = duration * i / (samples - 1). Unlike the
// stretch no region is split off and no edge is sampled away: every vertex gets its worst edge.
// "Worst" is the ratio farthest from 1 on a log scale (a stretch r against a squash 1/r).
#pragma once

#include "retail/base/document.h"
#include "retail/base/model.h"
#include "retail/qa/skin_sampler.h"
#include "retail/rig/animation.h"
#include "retail/rig/mesh.h"
#include "retail/rig/skeleton.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace retail {

/// One character's heat map: its primitives (where each one's vertices are in the concatenated
/// list) and per clip the worst ratio of every vertex (1 for a vertex on no edge of positive
/// bind length).
struct CharacterHeat {
  std::vector<SourcePrimitive> sources;
  std::vector<std::vector<double>> worst; ///< [clip][vertex], clips as asked
};

/// The worst ratio of each vertex's edges over clip `clip` of `model` (edges: mesh_edges, vertex
/// ids of `skin`). Pre: `samples` >= 2; model from parse_model(doc), `clip` a valid index.
/// Post: size() == skin.size(); every value > 0 or +inf (a pose beyond double range).
/// `tracks`: rotation tracks added to the clip as it is sampled (those of clip `clip`, in
/// order, after the file's: animation.h's RotationTrack; null: none).
std::vector<double> worst_vertex_ratios(const Document& doc, const Model& model,
                                        const SkinSampler& skin,
                                        const std::vector<std::pair<int, int>>& edges, int clip,
                                        int samples,
                                        const std::vector<RotationTrack>* tracks = nullptr);

/// The heat map of every character of `doc` under each of `clips`, clips on up to `threads`
/// workers (parallel.h; the values do not depend on it). Pre: model from parse_model(doc),
/// characters from build_characters; with `held` (a planned re-rig's skin data, skinning.h),
/// model and characters those of that rig (rig_edit.h's planned_rig); with `tracks`, each clip
/// sampled with its tracks added (the keys a bake will write, worst_vertex_ratios). Failure:
/// Error(Usage) when samples < 2; std::invalid_argument for a track on no node of `model`.
std::vector<CharacterHeat> heat_map(const Document& doc, const Model& model,
                                    const std::vector<Character>& characters,
                                    const std::vector<int>& clips, int samples, int threads,
                                    const HeldSkins* held = nullptr,
                                    const std::vector<RotationTrack>* tracks = nullptr);

/// A ratio as one byte for the page: round(128 + 64 log2 r), clamped to 0..255 (1.0 is 128, a
/// step is 2^(1/64), about 1.1%; 4 and above read 255, 1/4 and below 0). NaN reads 128.
std::uint8_t heat_code(double ratio);

/// The ratio a code stands for: 2^((code - 128) / 64).
double heat_ratio(std::uint8_t code);

} // namespace retail
