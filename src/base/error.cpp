#include "retail/base/error.h"

#include <cstdint>

namespace retail {

void fail_usage(const std::string& message) {
  throw Error(ExitCode::Usage, message);
}
void fail_invalid(const std::string& message) {
  throw Error(ExitCode::InvalidInput, message);
}
void fail_unsupported(const std::string& message) {
  throw Error(ExitCode::Unsupported, message);
}
void fail_output(const std::string& message) {
  throw Error(ExitCode::OutputFailed, message);
}

std::string printable(const std::string& text) {
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (unsigned char c : text) {
    if (c >= 0x20 && c < 0x7f) {
      out.push_back(char(c));
    } else {
      out += "\\x";
      out.push_back(hex[c >> 4]);
      out.push_back(hex[c & 15]);
    }
  }
  return out;
}

namespace {

/// Length of the valid UTF-8 sequence at text[i] (0 when invalid or a C1 control).
std::size_t utf8_length(const std::string& text, std::size_t i) {
  auto byte = [&](std::size_t k) { return k < text.size() ? (unsigned char)text[k] : 0; };
  unsigned char c = byte(i);
  std::size_t n = c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 && c < 0xE0 ? 2 : 0;
  if (n == 0 || (c == 0xC2 && byte(i + 1) < 0xA0)) return 0; // invalid lead, or C1 control
  for (std::size_t k = 1; k < n; ++k)
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
  if ((c == 0xE0 && byte(i + 1) < 0xA0) || (c == 0xF0 && byte(i + 1) < 0x90) ||
      (c == 0xF4 && byte(i + 1) > 0x8F) || (c == 0xED && byte(i + 1) > 0x9F))
    return 0; // overlong, past U+10FFFF, or a surrogate
  return n;
}

/// Is the valid UTF-8 sequence of `n` bytes at text[i] a character that reorders or breaks
/// lines on a terminal: a bidirectional control (U+061C, U+200E, U+200F, U+202A..U+202E,
/// U+2066..U+2069) or the line and paragraph separators (U+2028, U+2029)?
bool layout_control(const std::string& text, std::size_t i, std::size_t n) {
  auto byte = [&](std::size_t k) { return std::uint32_t((unsigned char)text[i + k]); };
  std::uint32_t cp = 0;
  if (n == 2) cp = (byte(0) & 0x1F) << 6 | (byte(1) & 0x3F);
  if (n == 3) cp = (byte(0) & 0x0F) << 12 | (byte(1) & 0x3F) << 6 | (byte(2) & 0x3F);
  return cp == 0x061C || cp == 0x200E || cp == 0x200F || (cp >= 0x202A && cp <= 0x202E) ||
         (cp >= 0x2066 && cp <= 0x2069) || cp == 0x2028 || cp == 0x2029;
}

} // namespace

std::string terminal_safe(const std::string& text, bool keep_newlines) {
  static const char* hex = "0123456789abcdef";
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    unsigned char c = (unsigned char)text[i];
    if ((c >= 0x20 && c < 0x7f) || (c == '\n' && keep_newlines)) {
      out.push_back(char(c));
      ++i;
      continue;
    }
    std::size_t n = c >= 0x80 ? utf8_length(text, i) : 0;
    if (n > 0 && layout_control(text, i, n)) {
      for (std::size_t k = 0; k < n; ++k, ++i) {
        const unsigned char b = (unsigned char)text[i];
        out += "\\x";
        out.push_back(hex[b >> 4]);
        out.push_back(hex[b & 15]);
      }
      continue;
    }
    if (n > 0) {
      out.append(text, i, n);
      i += n;
      continue;
    }
    out += "\\x";
    out.push_back(hex[c >> 4]);
    out.push_back(hex[c & 15]);
    ++i;
  }
  return out;
}

} // namespace retail
