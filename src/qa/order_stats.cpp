// Order statistics: percentiles by selection and by histogram (order_stats.h).
#include "retail/qa/order_stats.h"

#include "qa/simd.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace retail {

using simd::Double4;
using simd::Long4;
#ifdef RETAIL_AVX2_KERNELS
using simd::cpu_has_avx2;
#endif

double percentile(std::vector<double>& v, double q) {
  std::sort(v.begin(), v.end());
  return percentile_sorted(v, q);
}

double percentile_select(std::vector<double>& v, double q) {
  if (v.empty()) return 1.0;
  double h = (double(v.size()) - 1) * q;
  std::size_t lo = std::size_t(std::floor(h));
  std::nth_element(v.begin(), v.begin() + long(lo), v.end());
  double a = v[lo];
  if (lo + 1 >= v.size()) return a;
  double b = *std::min_element(v.begin() + long(lo) + 1, v.end()); // the next order statistic
  return a + (h - double(lo)) * (b - a);
}

double percentile_sorted(const std::vector<double>& v, double q) {
  if (v.empty()) return 1.0;
  double h = (double(v.size()) - 1) * q;
  std::size_t lo = std::size_t(std::floor(h)), hi = std::min(v.size() - 1, lo + 1);
  return v[lo] + (h - double(lo)) * (v[hi] - v[lo]);
}

namespace {

/// The order statistics `ranks` (each < w.size()) of w by selection (reorders w).
std::vector<double> select_ranks(std::vector<double>& w, const std::vector<std::size_t>& ranks) {
  std::vector<double> out;
  for (std::size_t r : ranks) {
    std::nth_element(w.begin(), w.begin() + long(r), w.end());
    out.push_back(w[r]);
  }
  return out;
}

/// The values a selection reads: all of a vector, or only those in [lo, hi] (a bin of a wider
/// pass, read in place rather than copied).
struct Values {
  const std::vector<double>* all = nullptr;
  bool filtered = false;
  double lo = 0, hi = 0;
  std::size_t size = 0; ///< how many values there are
  template <class F> void each(F f) const {
    if (!filtered) {
      for (double x : *all) f(x);
      return;
    }
    for (double x : *all)
      if (x >= lo && x <= hi) f(x);
  }
  std::vector<double> copy() const {
    if (!filtered) return *all;
    std::vector<double> out;
    out.reserve(size);
    each([&](double x) { out.push_back(x); });
    return out;
  }
};

/// A bin holding more values than this is not copied: its values are read in place, by their
/// range, from the values it came from (the range holds exactly the bin's values, since the bin
/// index is monotonic in the value).
constexpr std::size_t kCopiedBin = std::size_t(1) << 20;

/// The bins holding the wanted `ranks` (ascending) of values counted into bins `count`: a
/// slot per distinct such bin (its bin and count), and per rank its slot and its rank inside
/// that bin.
struct WantedBins {
  std::vector<int> slot_of_bin, slot;
  std::vector<std::size_t> within, bin, count;
};

WantedBins wanted_bins(const std::vector<std::uint32_t>& count,
                       const std::vector<std::size_t>& ranks) {
  WantedBins w;
  w.slot_of_bin.assign(count.size(), -1);
  w.slot.resize(ranks.size());
  w.within.resize(ranks.size());
  std::size_t below = 0, r = 0;
  for (std::size_t b = 0; b < count.size() && r < ranks.size(); ++b) {
    for (; r < ranks.size() && ranks[r] < below + count[b]; ++r) {
      if (w.slot_of_bin[b] < 0) {
        w.slot_of_bin[b] = int(w.bin.size());
        w.bin.push_back(b);
        w.count.push_back(count[b]);
      }
      w.slot[r] = w.slot_of_bin[b];
      w.within[r] = ranks[r] - below;
    }
    below += count[b];
  }
  return w;
}

std::vector<double> order_statistics(const Values& v, const std::vector<std::size_t>& ranks,
                                     double lo, double hi);

/// The order statistics `mine` of one wanted bin's values `own`: copied into `g`, or read in
/// place (own.filtered, its range [own.lo, own.hi]). By selection when the bin is small, else by
/// the histogram over the bin's own range when narrower than `range` (at most 1/256 of it, so a
/// few levels at most). Heavy tails need it: a torn edge at ratio^2 1e5 puts nearly every other
/// value in bin 0.
std::vector<double> bin_statistics(const Values& own, std::vector<double>& g,
                                   const std::vector<std::size_t>& mine, double range) {
  if (own.size > (std::size_t(1) << 14)) {
    double glo = own.lo, ghi = own.hi;
    if (!own.filtered) {
      const auto [a, b] = std::minmax_element(g.begin(), g.end());
      glo = *a, ghi = *b;
    }
    if (ghi - glo < range) return order_statistics(own, mine, glo, ghi);
  }
  if (own.filtered) g = own.copy();
  return select_ranks(g, mine);
}

/// Order statistics `ranks` (ascending, each < v.size) of v, whose values lie in [lo, hi], by
/// a histogram: one pass counts values into equal bins over [lo, hi] (about 16 values a bin,
/// 2^8 to 2^16 bins; the bin index is monotonic in the value, so rank k lies in the bin where
/// the running count passes k), one pass gathers the few bins holding the wanted ranks (or, for
/// a bin too large to copy, finds its range), and a selection inside each finds the exact value.
std::vector<double> order_statistics(const Values& v, const std::vector<std::size_t>& ranks,
                                     double lo, double hi) {
  std::vector<double> out(ranks.size(), lo);
  if (!(hi > lo)) return out;
  std::size_t bins = 1 << 8;
  while (bins < (1 << 16) && bins * 16 < v.size) bins *= 2;
  const double scale = double(bins) / (hi - lo);
  if (!(scale < 1e300)) { // a range too narrow to scale (denormal): select on a copy
    std::vector<double> w = v.copy();
    return select_ranks(w, ranks);
  }
  // The scaled offset clamped to [0, bins - 1] before the conversion (a NaN, from a pose that
  // overflowed, goes to the last bin rather than into an undefined conversion), then converted
  // signed: one instruction, where the unsigned conversion branches.
  const double top = double(bins - 1);
  auto bin = [&](double x) {
    double t = (x - lo) * scale;
    t = t < top ? t : top;
    t = t > 0 ? t : 0;
    return std::size_t(std::int64_t(t));
  };
  std::vector<std::uint32_t> count(bins, 0);
  v.each([&](double x) { ++count[bin(x)]; });
  const WantedBins w = wanted_bins(count, ranks);
  const std::size_t slots = w.bin.size();
  std::vector<std::vector<double>> gathered(slots);
  std::vector<char> in_place(slots); // the last bin (where a NaN goes) is always copied
  for (std::size_t k = 0; k < slots; ++k) {
    in_place[k] = w.count[k] > kCopiedBin && w.bin[k] + 1 < bins;
    if (!in_place[k]) gathered[k].reserve(w.count[k]);
  }
  // Only values in or next to the wanted bins can be wanted: the value range of the first to
  // last wanted bin, widened by a bin on each side against rounding, rejects the rest before
  // their bin is looked up.
  const double near_lo = lo + (double(w.bin.front()) - 1) / scale,
               near_hi = lo + (double(w.bin.back()) + 2) / scale;
  std::vector<double> bin_lo(slots, INFINITY), bin_hi(slots, -INFINITY);
  v.each([&](double x) {
    if (!(x >= near_lo && x <= near_hi)) return;
    const int k = w.slot_of_bin[bin(x)];
    if (k < 0) return;
    const std::size_t i = std::size_t(k);
    if (!in_place[i]) return gathered[i].push_back(x);
    bin_lo[i] = std::min(bin_lo[i], x);
    bin_hi[i] = std::max(bin_hi[i], x);
  });
  for (std::size_t k = 0; k < slots; ++k) {
    std::vector<std::size_t> mine; // this bin's wanted ranks (ascending, as `ranks`)
    for (std::size_t i = 0; i < ranks.size(); ++i)
      if (std::size_t(w.slot[i]) == k) mine.push_back(w.within[i]);
    mine.erase(std::unique(mine.begin(), mine.end()), mine.end());
    std::vector<double>& g = gathered[k];
    const Values own = in_place[k] ? Values{v.all, true, bin_lo[k], bin_hi[k], w.count[k]}
                                   : Values{&g, false, 0, 0, g.size()};
    const std::vector<double> got = bin_statistics(own, g, mine, hi - lo);
    for (std::size_t i = 0; i < ranks.size(); ++i)
      if (std::size_t(w.slot[i]) == k)
        out[i] = got[std::size_t(std::lower_bound(mine.begin(), mine.end(), w.within[i]) -
                                 mine.begin())];
  }
  return out;
}

} // namespace

namespace {

/// From this many values on, the order statistics are first tried in one pass from sampled
/// brackets (bracketed_statistics), the histogram's two or more passes only when that fails: on
/// values beyond the caches the passes over memory are the cost.
constexpr std::size_t kBracketed = std::size_t(1) << 17;

/// One bracket of the sampled pass: the wanted ranks whose values are expected in [a, b].
struct Bracket {
  double a = -INFINITY, b = INFINITY;
  std::size_t below = 0, at_a = 0, at_b = 0; ///< values < a, == a, == b (b > a)
  std::vector<double> inside;                ///< the values strictly between a and b
  std::vector<std::size_t> ranks;            ///< ascending
};

/// splitmix64: the fixed, seedless hash that spreads the sample's positions (no randomness).
std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

/// Brackets for `ranks` (ascending, each < v.size()) from a sorted sample of v: per rank the
/// sample values 4.5 standard deviations of the sample's rank (plus 4) either side of where it
/// falls; overlapping brackets are merged. At most 2 (else none: the histogram serves).
std::vector<Bracket> sample_brackets(const std::vector<double>& v,
                                     const std::vector<std::size_t>& ranks) {
  const std::size_t n = v.size(), m = std::size_t(1) << 13, stride = n / m;
  std::vector<double> sample(m);
  for (std::size_t k = 0; k < m; ++k) sample[k] = v[k * stride + mix(k) % stride];
  std::sort(sample.begin(), sample.end());
  std::vector<Bracket> out;
  for (std::size_t r : ranks) {
    const double p = (double(r) + 0.5) / double(n), at = p * double(m);
    const double z = 4.5 * std::sqrt(double(m) * p * (1 - p)) + 4;
    const double lo = std::floor(at - z), hi = std::ceil(at + z);
    const double a = lo < 0 ? -INFINITY : sample[std::size_t(lo)];
    const double b = hi >= double(m) ? INFINITY : sample[std::size_t(hi)];
    if (!out.empty() && a <= out.back().b) {
      out.back().b = std::max(out.back().b, b);
    } else {
      out.emplace_back();
      out.back().a = a, out.back().b = b;
    }
    out.back().ranks.push_back(r);
  }
  if (out.size() > 2) out.clear();
  return out;
}

/// The sampled pass's bounds: up to two brackets [a, b] (an unused one: a = inf, b = -inf).
struct PassBounds {
  double a[2], b[2];
};

/// What the pass counts per bracket: values below a, equal to a, equal to b; and the values
/// that are numbers.
struct PassCounts {
  std::size_t below[2] = {0, 0}, at_a[2] = {0, 0}, at_b[2] = {0, 0}, numbers = 0;
};

/// The pass, four values at a time on Double4 (compares only: every build gives the same
/// counts): counts into `c`, and appends each value strictly inside a bracket to `inside[g]`
/// in order. False when more than `cap` values are inside (stopped there).
inline __attribute__((always_inline)) bool pass_body(const double* v, std::size_t n,
                                                     const PassBounds& pb, std::size_t cap,
                                                     PassCounts& c,
                                                     std::vector<double> (&inside)[2]) {
  const Double4 a0 = {pb.a[0], pb.a[0], pb.a[0], pb.a[0]},
                b0 = {pb.b[0], pb.b[0], pb.b[0], pb.b[0]},
                a1 = {pb.a[1], pb.a[1], pb.a[1], pb.a[1]},
                b1 = {pb.b[1], pb.b[1], pb.b[1], pb.b[1]};
  Long4 lt0 = {}, eqa0 = {}, eqb0 = {}, lt1 = {}, eqa1 = {}, eqb1 = {}, numbers = {};
  std::size_t kept = 0, i = 0;
  for (; i + 4 <= n; i += 4) {
    Double4 x;
    __builtin_memcpy(&x, v + i, sizeof x);
    numbers -= x == x; // a true compare is -1
    lt0 -= x < a0, eqa0 -= x == a0, eqb0 -= x == b0;
    lt1 -= x < a1, eqa1 -= x == a1, eqb1 -= x == b1;
    const Long4 in0 = (x > a0) & (x < b0), in1 = (x > a1) & (x < b1), in = in0 | in1;
    if (!(in[0] | in[1] | in[2] | in[3])) continue;
    for (int k = 0; k < 4; ++k)
      if (in[k]) inside[in0[k] ? 0 : 1].push_back(x[k]);
    if ((kept += std::size_t(-(in[0] + in[1] + in[2] + in[3]))) > cap) return false;
  }
  for (int k = 0; k < 4; ++k) {
    c.numbers += std::size_t(numbers[k]);
    c.below[0] += std::size_t(lt0[k]), c.at_a[0] += std::size_t(eqa0[k]);
    c.at_b[0] += std::size_t(eqb0[k]), c.below[1] += std::size_t(lt1[k]);
    c.at_a[1] += std::size_t(eqa1[k]), c.at_b[1] += std::size_t(eqb1[k]);
  }
  for (; i < n; ++i) {
    const double x = v[i];
    c.numbers += x == x;
    for (int g = 0; g < 2; ++g) {
      c.below[g] += x < pb.a[g], c.at_a[g] += x == pb.a[g], c.at_b[g] += x == pb.b[g];
      if (x > pb.a[g] && x < pb.b[g]) inside[g].push_back(x), ++kept;
    }
  }
  return kept <= cap;
}

bool pass_default(const double* v, std::size_t n, const PassBounds& pb, std::size_t cap,
                  PassCounts& c, std::vector<double> (&inside)[2]) {
  return pass_body(v, n, pb, cap, c, inside);
}

#ifdef RETAIL_AVX2_KERNELS
__attribute__((target("avx2"))) bool pass_avx2(const double* v, std::size_t n, const PassBounds& pb,
                                               std::size_t cap, PassCounts& c,
                                               std::vector<double> (&inside)[2]) {
  return pass_body(v, n, pb, cap, c, inside);
}
#endif

/// Order statistics `ranks` of v in one pass over it, exactly, when the sampled brackets hold
/// them: the pass counts the values below each bracket and at its two ends and keeps those
/// strictly inside (at most n / 16 in all), and a selection among those finds each rank. False
/// (nothing decided) when a rank falls outside its bracket, too many values fall inside, or v
/// holds a NaN: the histogram then serves.
bool bracketed_statistics(const std::vector<double>& v, const std::vector<std::size_t>& ranks,
                          std::vector<double>& out) {
  std::vector<Bracket> br = sample_brackets(v, ranks);
  if (br.empty()) return false;
  PassBounds pb;
  for (std::size_t g = 0; g < 2; ++g) {
    pb.a[g] = g < br.size() ? br[g].a : INFINITY;
    pb.b[g] = g < br.size() ? br[g].b : -INFINITY;
  }
  PassCounts c;
  std::vector<double> inside[2];
  const std::size_t cap = v.size() / 16;
#ifdef RETAIL_AVX2_KERNELS
  const bool held = cpu_has_avx2() ? pass_avx2(v.data(), v.size(), pb, cap, c, inside)
                                   : pass_default(v.data(), v.size(), pb, cap, c, inside);
#else
  const bool held = pass_default(v.data(), v.size(), pb, cap, c, inside);
#endif
  if (!held || c.numbers != v.size()) return false;
  for (std::size_t g = 0; g < br.size(); ++g) {
    br[g].below = c.below[g];
    br[g].at_a = c.at_a[g];
    br[g].at_b = br[g].a == br[g].b ? 0 : c.at_b[g];
    br[g].inside = std::move(inside[g]);
  }
  out.clear();
  for (Bracket& k : br)
    for (std::size_t r : k.ranks) {
      if (r < k.below) return false;
      std::size_t at = r - k.below;
      if (at < k.at_a) {
        out.push_back(k.a);
        continue;
      }
      at -= k.at_a;
      if (at < k.inside.size()) {
        std::nth_element(k.inside.begin(), k.inside.begin() + long(at), k.inside.end());
        out.push_back(k.inside[at]);
        continue;
      }
      at -= k.inside.size();
      if (at >= k.at_b || k.a == k.b) return false;
      out.push_back(k.b);
    }
  return true;
}

/// percentiles() of f(x) for x in v, f monotonic non-decreasing (identity or sqrt): f commutes
/// with order statistics, so the ranks are found on v and f is applied to the two around each q.
template <class F>
std::vector<double> percentiles_of(const std::vector<double>& v, const std::vector<double>& qs,
                                   double lo, double hi, F f) {
  std::vector<double> out(qs.size(), 1.0);
  if (v.empty()) return out;
  std::vector<std::size_t> ranks;
  for (double q : qs) {
    std::size_t r = std::size_t(std::floor((double(v.size()) - 1) * q));
    ranks.push_back(r);
    if (r + 1 < v.size()) ranks.push_back(r + 1);
  }
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  std::vector<double> stats;
  if (v.size() < (std::size_t(1) << 13)) { // small: plain selection on a copy
    std::vector<double> w = v;
    stats = select_ranks(w, ranks);
  } else if (v.size() < kBracketed || !bracketed_statistics(v, ranks, stats)) {
    if (!(lo <= hi)) { // not given: one pass to find them
      const auto [lo_it, hi_it] = std::minmax_element(v.begin(), v.end());
      lo = *lo_it, hi = *hi_it;
    }
    stats = order_statistics(Values{&v, false, 0, 0, v.size()}, ranks, lo, hi);
  }
  for (double& x : stats) x = f(x);
  auto at = [&](std::size_t r) {
    return stats[std::size_t(std::lower_bound(ranks.begin(), ranks.end(), r) - ranks.begin())];
  };
  for (std::size_t i = 0; i < qs.size(); ++i) out[i] = between_ranks(v.size(), qs[i], at);
  return out;
}

} // namespace

std::vector<double> percentiles(const std::vector<double>& v, const std::vector<double>& qs,
                                double lo, double hi) {
  return percentiles_of(v, qs, lo, hi, [](double x) { return x; });
}

std::vector<double> percentiles_of_sqrt(const std::vector<double>& squares,
                                        const std::vector<double>& qs, double lo, double hi) {
  return percentiles_of(squares, qs, lo, hi, [](double x) { return std::sqrt(x); });
}

double sqrt_above(double x) {
  if (!(x > 0)) return 0.0;        // every root >= 0 is above it
  if (!(x < INFINITY)) return NAN; // no root is above it: r2 >= NaN is always false
  double s = x * x;
  while (!(std::sqrt(s) > x)) s = std::nextafter(s, INFINITY);
  while (std::sqrt(std::nextafter(s, 0.0)) > x) s = std::nextafter(s, 0.0);
  return s;
}

} // namespace retail
