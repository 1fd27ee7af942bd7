// retail — the harm check's rule, edge by edge (SPEC §13): does a change tear the skin it
// touches more than the input did, sample by sample?
//
// A change (a re-rigged piece: its chain and root band) is judged on every mesh edge it
// touches (at least one end re-weighted) under each clip, at every stretch sample: an
// edge-sample is newly torn when it is torn on the output rig and not on the input rig, healed
// when the reverse. Aggregate shares let healed edges hide newly torn ones; counting both does
// not. The touched edges fall in two tiers: the piece's own (both ends re-weighted as the
// piece), which the change alone moves, and its seam (an end in the root band, or one end
// outside the piece), where the re-rigged piece meets skin that keeps the input's weights.
// docs/detection.md section 5 states and justifies the noise floor and the seam's allowance.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace retail {

struct HarmParams {
  /// Newly torn edge-samples that count as noise in one clip: at most this share of the
  /// clip's judged edge-samples...
  double noise_share = 0.001;
  /// ...and never fewer than this many (a flip of a few samples on a small region).
  std::size_t noise_min_samples = 3;
  /// A hair chain (--hair or found) whose head-turn edge-max p99 exceeds this percent tears its
  /// skin far past the input's (the clump on the head as it was stretches by about 0%): twice
  /// the report's torn ratio of 1.5. Left as it was (docs/hair.md).
  double hair_torn_p99_percent = 100;
  /// Hair retail found itself (not named by --hair) is kept only when its head-turn edge-max
  /// p99 is within this percent as well, the seed article's target for rebuilt hair: a change
  /// nobody asked for must show it does no harm (docs/hair.md).
  double found_hair_torn_p99_percent = 8;
  /// The "stiffer" step for hair: a hair chain whose head turn tears past its limit is planned
  /// again with its k times each factor in turn (each > 1, ascending), and kept at the first
  /// within the limit; past the last it is left as it was. A long strand's root lags behind a
  /// turning head and stretches the skin there; a stiffer chain lags less (docs/hair.md "The
  /// stiffer step"). Empty: no such step.
  std::vector<double> hair_stiffer = {2};
  /// The "bend less" step: a tail chain every earlier step refused is planned as first, its
  /// spring's skin limit at this ratio (SpringParams::min_skin_ratio; docs/detection.md section
  /// 5). 0: no such step.
  double bend_less_skin_ratio = 0.9;
  /// The "hold" step: a tail chain every chain step refused is tried once more as the last
  /// step planned it, held at rest in each clip where its spring is harmful (where held it is
  /// harmless). The driver turns it off when nothing is baked or clips are never held
  /// (--no-bake, --no-hold).
  bool hold_step = true;
  void validate() const; ///< Failure: Error(Usage)
};

/// One clip's edge-samples of a change, input rig against output rig.
struct EdgeFlips {
  std::size_t edge_samples = 0; ///< judged edges x samples
  std::size_t input_torn = 0;   ///< torn on the input rig
  std::size_t output_torn = 0;  ///< torn on the output rig
  std::size_t newly_torn = 0;   ///< torn on the output, not on the input
  std::size_t healed = 0;       ///< torn on the input, not on the output
};

/// The most newly torn edge-samples that are noise for a clip of `edge_samples`:
/// max(noise_min_samples, floor(noise_share × edge_samples)).
std::size_t noise_floor(std::size_t edge_samples, const HarmParams& params);

/// Counts the flips between two torn masks of the same edge-samples (1 torn, 0 not; any
/// layout, the same in both). Pre: input.size() == output.size().
EdgeFlips count_flips(const std::vector<std::uint8_t>& input,
                      const std::vector<std::uint8_t>& output);

/// Per edge of two torn masks laid out as ClipStretch::tail_torn (sample-major: sample s of
/// edge k at s × edges + k): the edge's newly torn samples minus its healed ones, added into
/// `net` (size `edges`). Pre: input.size() == output.size(), a multiple of `edges`;
/// net.size() == edges. Failure: std::invalid_argument when the sizes disagree.
void add_edge_net_harm(const std::vector<std::uint8_t>& input,
                       const std::vector<std::uint8_t>& output, std::size_t edges,
                       std::vector<std::int32_t>& net);

/// Is the piece's own tier harmless in a clip? Newly torn within `floor` (the noise floor of the
/// whole change's edge-samples in that clip), and the output's torn count at most the input's
/// plus it: on the piece's own edges the change alone decides the motion, and healed samples
/// cannot pay for newly torn ones.
bool piece_harmless(const EdgeFlips& flips, std::size_t floor);

/// Is the seam tier harmless in a clip? Its torn count does not rise by more than `allowance`
/// plus the noise floor. At the seam the re-rigged piece meets skin that keeps the input's
/// weights, and a tear between the two motions can only move (from the input's torn base to
/// the fix's boundary): it may move, not grow beyond the body's own baseline.
bool seam_harmless(const EdgeFlips& flips, std::size_t allowance, std::size_t floor);

/// The seam's allowance in a clip: the share of the character's own body edge-samples torn
/// under that clip (`body_torn_percent`, SPEC §9's baseline) of the seam's edge-samples. Where
/// the re-rigged piece meets skin that keeps the input's weights, the seam may tear as much as
/// the body does elsewhere under the same motion, no more.
std::size_t seam_allowance(const EdgeFlips& seam, double body_torn_percent);

/// A piece's change in one clip: both tiers harmless, with the noise floor of all its judged
/// edge-samples (both tiers).
bool harmless_clip(const EdgeFlips& piece, const EdgeFlips& seam, double body_torn_percent,
                   const HarmParams& params);

/// One line for logs and reasons: "newly tears 12 of 7200 edge-samples (noise floor 7), heals
/// 810, torn 820 -> 22".
std::string describe_flips(const EdgeFlips& flips, std::size_t floor);

} // namespace retail
