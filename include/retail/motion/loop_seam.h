// retail — closing a baked loop's seam (docs/spring.md, "Loop seams").
//
// A looping clip is baked after its warm-up has settled the chain's state at the clip start,
// but a chain pinned against its skin limit can settle into a cycle that repeats only every
// other loop: its first and last keys then differ however long it warms up. Played as a loop,
// that difference is a pop at the seam. Spreading it over the loop removes the pop and moves
// no key by more than the seam itself.
#pragma once

#include <vector>

namespace retail {

/// Spreads each track's seam over its loop so that its last key equals its first: with e the
/// shortest rotation taking the first key to the last (q_last = e q_first), key k becomes
/// slerp(I, e^-1, s_k) q_k, s_k = (t_k - t_0) / (t_last - t_0).
/// `times`: #K ascending key times (seconds). `values`: per track, 4 #K floats, quaternions
/// x y z w per key, unit. Returns the largest seam spread over the tracks, degrees (0 when every
/// track already closed). Tracks whose size is not 4 #K, and every track when #K < 2 or the
/// times do not span a positive interval, are left alone. Pure, deterministic; stores floats.
double spread_loop_seam(const std::vector<float>& times, std::vector<std::vector<float>>& values);

} // namespace retail
