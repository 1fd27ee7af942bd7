// retail — shell-style wildcards for names given on the command line (`--clips '*Walk*'`).
#pragma once

#include <string_view>

namespace retail {

/// Does `pattern` contain a wildcard ('*' or '?')? A name without one is matched exactly.
bool has_wildcard(std::string_view pattern);

/// Does `text` match `pattern` as a whole? '*' matches any run of bytes (also none), '?' exactly
/// one byte; every other byte matches itself (no classes, no escapes; case-sensitive). Bytes,
/// not characters: a '?' matches one byte of a multi-byte UTF-8 character. Linear in
/// |pattern| x |text| at worst (no backtracking blow-up).
bool glob_match(std::string_view pattern, std::string_view text);

} // namespace retail
