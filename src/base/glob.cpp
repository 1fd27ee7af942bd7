// has_wildcard / glob_match (glob.h).
#include "retail/base/glob.h"

namespace retail {

bool has_wildcard(std::string_view pattern) {
  return pattern.find_first_of("*?") != std::string_view::npos;
}

bool glob_match(std::string_view pattern, std::string_view text) {
  // Greedy with one resume point: on a mismatch after a '*', the star takes one more byte. Every
  // earlier star's extent is then final (a later star can take what it would have), so no
  // deeper backtracking is needed.
  std::size_t p = 0, t = 0, star = std::string_view::npos, resume = 0;
  while (t < text.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star = p++, resume = t;
    } else if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == text[t])) {
      ++p, ++t;
    } else if (star != std::string_view::npos) {
      p = star + 1, t = ++resume;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

} // namespace retail
