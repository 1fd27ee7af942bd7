// retail — validation: a document's typed view (model.h), checked.
//
// parse_model() checks everything retail relies on before any stage runs (tinygltf checks none
// of it): every index in range, accessors inside their buffer views, views inside buffers, the
// node hierarchy a forest, skins with enough inverse bind matrices, legal JOINTS/WEIGHTS types,
// finite floats. A failure throws Error(InvalidInput) whose message names the JSON path, e.g.
// `accessors[7] (WEIGHTS_0 of meshes[0].primitives[1]): needs 1920 bytes, bufferViews[3] has 960`.
// Features retail does not decode (Draco, meshopt) throw Error(Unsupported) naming the feature.
// Problems real files have and retail tolerates are listed in Model::tolerated.
#pragma once

#include "retail/base/document.h"
#include "retail/base/model.h"

namespace retail {

/// Validates `doc` and builds the typed view. See the file comment for what is checked.
/// Failure: Error(InvalidInput) or Error(Unsupported), message naming the JSON path.
Model parse_model(const Document& doc);

} // namespace retail
