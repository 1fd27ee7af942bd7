// retail — order statistics: percentiles linear between closest ranks (numpy's default), by
// sorting, by selection, and in linear time by a histogram pass (docs/performance.md).
#pragma once

#include <cmath>
#include <cstddef>
#include <vector>

namespace retail {

/// Percentiles qs (each in [0,1]) of `values`, linear between closest ranks, exactly as
/// percentile() gives them, in linear time without reordering: selection on a copy for small
/// inputs, a histogram pass and a selection inside the bins that hold the wanted ranks for large
/// ones. 1 for each q when `values` is empty. `lo`, `hi`: the values' minimum and maximum when
/// the caller knows them (saves a pass; NaN: found here).
std::vector<double> percentiles(const std::vector<double>& values, const std::vector<double>& qs,
                                double lo = NAN, double hi = NAN);

/// percentiles() of the square roots of `squares` (each >= 0), exactly: the square root is
/// monotonic, so the ranks are found on the squares and only the values around each q are
/// rooted. `lo`, `hi`: the squares' minimum and maximum when known.
std::vector<double> percentiles_of_sqrt(const std::vector<double>& squares,
                                        const std::vector<double>& qs, double lo = NAN,
                                        double hi = NAN);

/// The least double s with sqrt(s) > x (0 for x <= 0; NaN, which no r2 reaches, for x = inf):
/// the square root is monotonic, so for every double r2 >= 0, sqrt(r2) > x exactly when
/// r2 >= s. How the torn test (ratio above torn_above, below torn_below) is taken on squared
/// ratios without rooting each one.
double sqrt_above(double x);

/// Percentile q in [0,1] of `values` (sorted in place), linear between closest ranks.
double percentile(std::vector<double>& values, double q);

/// The same on values already sorted ascending.
double percentile_sorted(const std::vector<double>& sorted, double q);

/// The same by selection (linear time; reorders `values`).
double percentile_select(std::vector<double>& values, double q);

/// Percentile q of `count` ascending values, linear between the closest ranks (numpy's rule),
/// the value at rank k given by at(k). At a rank itself, or between equal values, the value as
/// it is (the same for finite values, and no inf - inf or 0 * inf from an infinite ratio).
template <class At> double between_ranks(std::size_t count, double q, At at) {
  const double h = (double(count) - 1) * q;
  const std::size_t r = std::size_t(std::floor(h));
  const double a = at(r), frac = h - double(r), b = r + 1 < count ? at(r + 1) : a;
  return frac == 0 || b == a ? a : a + frac * (b - a);
}

} // namespace retail
