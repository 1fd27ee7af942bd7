// parse_model's second part (src only): the stages after buffer views and accessors, in the
// order parse_model runs them. Each checks its part of `gltf` into `m` and throws as
// parse_model does (validate.h).
#pragma once

#include "retail/base/document.h"
#include "retail/base/model.h"

namespace retail {

void parse_meshes(const Json& gltf, Model& m);
void parse_nodes_and_skins(const Json& gltf, Model& m);
void parse_animations_and_scenes(const Json& gltf, Model& m);
/// The data itself: finite floats, indices and joints in range, weights, IBMs (reads accessors).
void check_data(const Document& doc, Model& m);

} // namespace retail
