#include "retail/error.h"

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

} // namespace retail
