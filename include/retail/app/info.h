// retail — `retail info`: what the tool sees in a file (docs/info-schema.md).
#pragma once

#include "retail/base/document.h"
#include "retail/base/model.h"
#include "retail/rig/skeleton.h"

#include <string>
#include <vector>

namespace retail {

/// Builds the `retail.info/1` JSON object: meshes, primitives (vertices, triangles), skins,
/// characters (H, scale, up axis, skin-to-world mapping, joints with roles), clips with
/// durations, and tolerated input problems. Pure: reads only its arguments.
Json make_info(const std::string& file, const Document& doc, const Model& model,
               const std::vector<Character>& characters);

/// Renders the info JSON as readable text (at most 100 columns wide).
std::string format_info(const Json& info);

} // namespace retail
