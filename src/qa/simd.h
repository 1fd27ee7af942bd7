// retail — what the SIMD kernels share (src only): the 4-wide double vector type and whether
// the CPU runs the AVX2 builds. Each kernel is one always-inline body compiled twice, for the
// default target and for AVX2, giving the same bits (elementwise IEEE operations, no FMA).
#pragma once

namespace retail::simd {

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define RETAIL_AVX2_KERNELS 1
/// The CPU runs the AVX2 builds of the kernels (asked once).
inline bool cpu_has_avx2() {
  static const bool avx2 = __builtin_cpu_supports("avx2");
  return avx2;
}
#endif

/// Four doubles as one vector value (GCC/Clang vector extension): elementwise IEEE arithmetic,
/// two SSE2 registers by default, one AVX register in the AVX2 builds.
typedef double Double4 __attribute__((vector_size(32)));

/// Four 64-bit integers: what a Double4 compare gives (-1 true, 0 false), and counters of it.
typedef long long Long4 __attribute__((vector_size(32)));

} // namespace retail::simd
