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

} // namespace retail
