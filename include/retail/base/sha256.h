// retail — SHA-256 (FIPS 180-4) of a byte buffer, as lowercase hex. For report hashes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace retail {

/// SHA-256 of `data` as 64 lowercase hex digits. Uses the CPU's SHA extensions when it has them.
std::string sha256_hex(const std::vector<std::uint8_t>& data);

/// The same, always with the portable block function (the reference the tests compare with).
std::string sha256_hex_portable(const std::vector<std::uint8_t>& data);

/// Whether sha256_hex runs on the CPU's SHA extensions here.
bool sha256_uses_hardware();

} // namespace retail
