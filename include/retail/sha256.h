// retail — SHA-256 (FIPS 180-4) of a byte buffer, as lowercase hex. For report hashes.
#pragma once

#include "retail/document.h"

#include <string>

namespace retail {

std::string sha256_hex(const Bytes& data);

} // namespace retail
