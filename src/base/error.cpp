#include "retail/base/error.h"

namespace retail {

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
