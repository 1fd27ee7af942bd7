// retail — figures in messages: lengths with their unit and their share of the character.
#pragma once

#include <string>

namespace retail {

/// A length for a log line or warning: "0.463 m (4.0% of H)". `metres` in world units (glTF's
/// are metres), `height` the character height H in the same units; 3 significant digits, the
/// share with one decimal. Without a usable H (not finite or not positive) just "0.463 m".
std::string length_text(double metres, double height);

} // namespace retail
