// Order statistics: percentiles by selection and by histogram (order_stats.h).
#include "retail/qa/order_stats.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace retail {

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

/// Order statistics `ranks` (ascending, each < v.size()) of v, whose values lie in [lo, hi], by
/// a histogram: one pass counts values into equal bins over [lo, hi] (about 16 values a bin,
/// 2^8 to 2^16 bins; the bin index is monotonic in the value, so rank k lies in the bin where
/// the running count passes k), one pass gathers the few bins holding the wanted ranks, and a
/// selection inside each finds the exact value.
std::vector<double> order_statistics(const std::vector<double>& v,
                                     const std::vector<std::size_t>& ranks, double lo, double hi) {
  std::vector<double> out(ranks.size(), lo);
  if (!(hi > lo)) return out;
  std::size_t bins = 1 << 8;
  while (bins < (1 << 16) && bins * 16 < v.size()) bins *= 2;
  const double scale = double(bins) / (hi - lo);
  if (!(scale < 1e300)) { // a range too narrow to scale (denormal): select on a copy
    std::vector<double> w = v;
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
  for (double x : v) ++count[bin(x)];
  // The bin of each wanted rank, its rank inside that bin, and a slot per distinct such bin.
  std::vector<int> slot_of_bin(bins, -1), slot(ranks.size());
  std::vector<std::size_t> within(ranks.size());
  std::vector<std::vector<double>> gathered;
  std::size_t below = 0, r = 0;
  for (std::size_t b = 0; b < bins && r < ranks.size(); ++b) {
    for (; r < ranks.size() && ranks[r] < below + count[b]; ++r) {
      if (slot_of_bin[b] < 0) {
        slot_of_bin[b] = int(gathered.size());
        gathered.emplace_back().reserve(count[b]);
      }
      slot[r] = slot_of_bin[b];
      within[r] = ranks[r] - below;
    }
    below += count[b];
  }
  // Only values in or next to the wanted bins can be wanted: the value range of the first to
  // last wanted bin, widened by a bin on each side against rounding, rejects the rest before
  // their bin is looked up.
  std::size_t first = 0, last = bins - 1; // every rank found a bin: both exist
  while (slot_of_bin[first] < 0) ++first;
  while (slot_of_bin[last] < 0) --last;
  const double near_lo = lo + (double(first) - 1) / scale,
               near_hi = lo + (double(last) + 2) / scale;
  for (double x : v) {
    if (!(x >= near_lo && x <= near_hi)) continue;
    int k = slot_of_bin[bin(x)];
    if (k >= 0) gathered[std::size_t(k)].push_back(x);
  }
  // Each bin's wanted values: by selection when the bin is small, else by the same histogram
  // over the bin's own, narrower range (at most 1/256 of this one, so a few levels at most).
  // Heavy tails need it: a torn edge at ratio^2 1e5 puts nearly every other value in bin 0.
  for (std::size_t k = 0; k < gathered.size(); ++k) {
    std::vector<double>& g = gathered[k];
    std::vector<std::size_t> mine; // this bin's wanted ranks (ascending, as `ranks`)
    for (std::size_t i = 0; i < ranks.size(); ++i)
      if (std::size_t(slot[i]) == k) mine.push_back(within[i]);
    mine.erase(std::unique(mine.begin(), mine.end()), mine.end());
    std::vector<double> got;
    if (g.size() > (std::size_t(1) << 14)) {
      const auto [glo, ghi] = std::minmax_element(g.begin(), g.end());
      if (*ghi - *glo < hi - lo) got = order_statistics(g, mine, *glo, *ghi);
    }
    if (got.empty()) got = select_ranks(g, mine);
    for (std::size_t i = 0; i < ranks.size(); ++i)
      if (std::size_t(slot[i]) == k)
        out[i] =
            got[std::size_t(std::lower_bound(mine.begin(), mine.end(), within[i]) - mine.begin())];
  }
  return out;
}

} // namespace

namespace {

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
  } else {
    if (!(lo <= hi)) { // not given: one pass to find them
      const auto [lo_it, hi_it] = std::minmax_element(v.begin(), v.end());
      lo = *lo_it, hi = *hi_it;
    }
    stats = order_statistics(v, ranks, lo, hi);
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
