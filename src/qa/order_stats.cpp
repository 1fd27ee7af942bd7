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
