// length_text (units.h).
#include "retail/base/units.h"

#include <cmath>
#include <cstdio>

namespace retail {

std::string length_text(double metres, double height) {
  char buf[96];
  if (std::isfinite(height) && height > 0)
    std::snprintf(buf, sizeof buf, "%.3g m (%.1f%% of H)", metres, 100 * metres / height);
  else
    std::snprintf(buf, sizeof buf, "%.3g m", metres);
  return buf;
}

} // namespace retail
