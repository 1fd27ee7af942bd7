// SHA-256 after FIPS 180-4, written from the standard's description; on x86-64 CPUs with the
// SHA extensions the block function uses them (Intel SHA-NI: 2 rounds per instruction, ~8x the
// portable code), chosen once at run time.
#include "retail/base/sha256.h"

#include <array>
#include <cstdio>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define RETAIL_SHA_NI 1
#include <cpuid.h>
#include <immintrin.h>
#endif

namespace retail {
namespace {

constexpr std::array<std::uint32_t, 64> kRound = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

std::uint32_t rotr(std::uint32_t x, int n) {
  return (x >> n) | (x << (32 - n));
}

void block_portable(std::array<std::uint32_t, 8>& h, const std::uint8_t* p) {
  std::uint32_t w[64];
  for (int i = 0; i < 16; ++i)
    w[i] = std::uint32_t(p[4 * i]) << 24 | std::uint32_t(p[4 * i + 1]) << 16 |
           std::uint32_t(p[4 * i + 2]) << 8 | p[4 * i + 3];
  for (int i = 16; i < 64; ++i) {
    std::uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
    std::uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
    w[i] = w[i - 16] + s0 + w[i - 7] + s1;
  }
  std::uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7];
  for (int i = 0; i < 64; ++i) {
    std::uint32_t t1 = k + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) +
                       kRound[std::size_t(i)] + w[i];
    std::uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
    k = g, g = f, f = e, e = d + t1, d = c, c = b, b = a, a = t1 + t2;
  }
  h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e, h[5] += f, h[6] += g, h[7] += k;
}

#ifdef RETAIL_SHA_NI
/// The same block function with the SHA extensions. The state lives in two registers as the
/// instructions want it: ABEF (A in the highest lane) and CDGH. Each group of four rounds adds
/// four message words to their round constants; from round 16 on the words come from
/// sha256msg1 (W[i-16] + s0(W[i-15])), the W[i-7] words, and sha256msg2 (+ s1(W[i-2])).
__attribute__((target("sha,sse4.1,ssse3"))) void block_sha_ni(std::array<std::uint32_t, 8>& h,
                                                              const std::uint8_t* p) {
  const __m128i big_endian = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
  __m128i abcd = _mm_loadu_si128(reinterpret_cast<const __m128i*>(h.data()));
  __m128i efgh = _mm_loadu_si128(reinterpret_cast<const __m128i*>(h.data() + 4));
  abcd = _mm_shuffle_epi32(abcd, 0xB1);             // B A D C
  efgh = _mm_shuffle_epi32(efgh, 0x1B);             // H G F E
  __m128i abef = _mm_alignr_epi8(abcd, efgh, 8);    // F E B A
  __m128i cdgh = _mm_blend_epi16(efgh, abcd, 0xF0); // H G D C
  const __m128i abef0 = abef, cdgh0 = cdgh;
  __m128i w[4];
  for (int i = 0; i < 4; ++i)
    w[i] =
        _mm_shuffle_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * i)), big_endian);
  for (int g = 0; g < 16; ++g) { // rounds 4g .. 4g+3
    __m128i& cur = w[g & 3];     // held W[4g-16 ..] until replaced by W[4g ..]
    if (g >= 4) {
      __m128i t = _mm_sha256msg1_epu32(cur, w[(g + 1) & 3]);
      t = _mm_add_epi32(t, _mm_alignr_epi8(w[(g + 3) & 3], w[(g + 2) & 3], 4));
      cur = _mm_sha256msg2_epu32(t, w[(g + 3) & 3]);
    }
    __m128i k = _mm_add_epi32(
        cur, _mm_loadu_si128(reinterpret_cast<const __m128i*>(kRound.data() + 4 * g)));
    // Two rounds leave the new ABEF in `cdgh` and the old ABEF, now CDGH, in `abef`; two more
    // put them back where they were.
    cdgh = _mm_sha256rnds2_epu32(cdgh, abef, k);
    abef = _mm_sha256rnds2_epu32(abef, cdgh, _mm_shuffle_epi32(k, 0x0E));
  }
  abef = _mm_add_epi32(abef, abef0);
  cdgh = _mm_add_epi32(cdgh, cdgh0);
  __m128i abef_r = _mm_shuffle_epi32(abef, 0x1B); // A B E F
  __m128i cdgh_r = _mm_shuffle_epi32(cdgh, 0xB1); // G H C D
  _mm_storeu_si128(reinterpret_cast<__m128i*>(h.data()), _mm_blend_epi16(abef_r, cdgh_r, 0xF0));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(h.data() + 4), _mm_alignr_epi8(cdgh_r, abef_r, 8));
}

bool cpu_has_sha_ni() {
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return false;
  bool sse41 = c & (1u << 19), ssse3 = c & (1u << 9);
  if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return false;
  return sse41 && ssse3 && (b & (1u << 29));
}
#endif

using BlockFn = void (*)(std::array<std::uint32_t, 8>&, const std::uint8_t*);

BlockFn block_function(bool allow_hardware) {
#ifdef RETAIL_SHA_NI
  static const bool hardware = cpu_has_sha_ni();
  if (allow_hardware && hardware) return block_sha_ni;
#endif
  (void)allow_hardware;
  return block_portable;
}

std::string digest_hex(const std::vector<std::uint8_t>& data, BlockFn block) {
  std::array<std::uint32_t, 8> h = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                    0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  std::size_t full = data.size() / 64 * 64;
  for (std::size_t i = 0; i < full; i += 64) block(h, data.data() + i);
  std::vector<std::uint8_t> tail(data.begin() + long(full), data.end());
  tail.push_back(0x80);
  while (tail.size() % 64 != 56) tail.push_back(0);
  std::uint64_t bits = std::uint64_t(data.size()) * 8;
  for (int i = 7; i >= 0; --i) tail.push_back(std::uint8_t(bits >> (8 * i)));
  for (std::size_t i = 0; i < tail.size(); i += 64) block(h, tail.data() + i);
  std::string out;
  char buf[9];
  for (std::uint32_t v : h) {
    std::snprintf(buf, sizeof buf, "%08x", v);
    out += buf;
  }
  return out;
}

} // namespace

std::string sha256_hex(const std::vector<std::uint8_t>& data) {
  return digest_hex(data, block_function(true));
}

std::string sha256_hex_portable(const std::vector<std::uint8_t>& data) {
  return digest_hex(data, block_function(false));
}

bool sha256_uses_hardware() {
  return block_function(true) != block_function(false);
}

} // namespace retail
