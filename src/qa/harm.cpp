// The harm check's rule, edge by edge (harm.h).
#include "retail/qa/harm.h"

#include "retail/base/error.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

namespace retail {

void HarmParams::validate() const {
  if (!(noise_share >= 0 && noise_share < 1))
    throw Error(ExitCode::Usage, "--harm-noise must lie in [0, 1)");
  if (!(hair_torn_p99_percent >= 0) || !std::isfinite(hair_torn_p99_percent))
    throw Error(ExitCode::Usage, "--hair-torn-p99 must be a non-negative number");
  if (!(found_hair_torn_p99_percent >= 0) || !std::isfinite(found_hair_torn_p99_percent))
    throw Error(ExitCode::Usage, "--found-hair-torn-p99 must be a non-negative number");
  for (std::size_t i = 0; i < hair_stiffer.size(); ++i)
    if (!(hair_stiffer[i] > 1) || !std::isfinite(hair_stiffer[i]) ||
        (i > 0 && !(hair_stiffer[i] > hair_stiffer[i - 1])))
      throw Error(ExitCode::Usage, "--hair-stiffer factors must be finite, above 1, ascending");
  if (!(bend_less_skin_ratio >= 0 && bend_less_skin_ratio < 1))
    throw Error(ExitCode::Usage, "--harm-skin-ratio must lie in [0, 1)");
}

std::size_t noise_floor(std::size_t edge_samples, const HarmParams& params) {
  const double share = std::floor(params.noise_share * double(edge_samples));
  return std::max(params.noise_min_samples, std::size_t(share));
}

EdgeFlips count_flips(const std::vector<std::uint8_t>& input,
                      const std::vector<std::uint8_t>& output) {
  if (input.size() != output.size())
    throw std::invalid_argument("count_flips: masks of different sizes");
  EdgeFlips f;
  const std::size_t n = input.size();
  f.edge_samples = n;
  // Eight samples a word: each byte becomes 1 when nonzero (its bits folded into its lowest),
  // and the eight 0/1 bytes are summed by one multiplication into the top byte.
  constexpr std::uint64_t kLow = 0x0101010101010101ULL;
  auto ones = [](std::uint64_t w) {
    w |= w >> 4, w |= w >> 2, w |= w >> 1;
    return w & kLow;
  };
  auto sum = [](std::uint64_t w) { return std::size_t((w * kLow) >> 56); };
  std::size_t both = 0, i = 0;
  for (; i + 8 <= n; i += 8) {
    std::uint64_t a, b;
    std::memcpy(&a, input.data() + i, 8);
    std::memcpy(&b, output.data() + i, 8);
    a = ones(a), b = ones(b);
    f.input_torn += sum(a), f.output_torn += sum(b), both += sum(a & b);
  }
  for (; i < n; ++i) {
    const bool a = input[i] != 0, b = output[i] != 0;
    f.input_torn += a, f.output_torn += b, both += a && b;
  }
  f.newly_torn = f.output_torn - both;
  f.healed = f.input_torn - both;
  return f;
}

void add_edge_net_harm(const std::vector<std::uint8_t>& input,
                       const std::vector<std::uint8_t>& output, std::size_t edges,
                       std::vector<std::int32_t>& net) {
  if (input.size() != output.size() || net.size() != edges ||
      (edges ? input.size() % edges : input.size()) != 0)
    throw std::invalid_argument("add_edge_net_harm: masks and edges disagree");
  for (std::size_t at = 0; at < input.size(); at += edges)
    for (std::size_t k = 0; k < edges; ++k)
      net[k] += std::int32_t(output[at + k] != 0) - std::int32_t(input[at + k] != 0);
}

bool piece_harmless(const EdgeFlips& flips, std::size_t floor) {
  return flips.newly_torn <= floor && flips.output_torn <= flips.input_torn + floor;
}

bool seam_harmless(const EdgeFlips& flips, std::size_t allowance, std::size_t floor) {
  return flips.output_torn <= flips.input_torn + allowance + floor;
}

std::size_t seam_allowance(const EdgeFlips& seam, double body_torn_percent) {
  if (!(body_torn_percent > 0)) return 0;
  return std::size_t(
      std::floor(std::min(body_torn_percent, 100.0) / 100.0 * double(seam.edge_samples)));
}

bool harmless_clip(const EdgeFlips& piece, const EdgeFlips& seam, double body_torn_percent,
                   const HarmParams& params) {
  const std::size_t floor = noise_floor(piece.edge_samples + seam.edge_samples, params);
  return piece_harmless(piece, floor) &&
         seam_harmless(seam, seam_allowance(seam, body_torn_percent), floor);
}

std::string describe_flips(const EdgeFlips& flips, std::size_t floor) {
  return "newly tears " + std::to_string(flips.newly_torn) + " of " +
         std::to_string(flips.edge_samples) + " edge-samples (noise floor " +
         std::to_string(floor) + "), heals " + std::to_string(flips.healed) + ", torn " +
         std::to_string(flips.input_torn) + " -> " + std::to_string(flips.output_torn);
}

} // namespace retail
