// retail (test support) — reference linear blend skinning: one primitive at a time, joint by
// joint, the plain formula; the tests check the SIMD sampler (skin_sampler.h) against it.
#pragma once

#include "retail/base/document.h"
#include "retail/base/model.h"

#include <Eigen/Core>
#include <vector>

namespace retail {

/// Skinned positions of one primitive drawn with `skin`: p = sum_j w_j (W_j IBM_j) v with W_j
/// the joint's world matrix from `world` (the mesh node's own transform is ignored, as glTF
/// says). JOINTS_0/1 and WEIGHTS_0/1; weights normalised per vertex; morph targets ignored.
/// Returns #V by 3 in world units. Pre: model from parse_model(doc).
Eigen::MatrixX3d skin_primitive(const Document& doc, const Model& model, int mesh, int primitive,
                                int skin, const std::vector<Eigen::Matrix4d>& world);

} // namespace retail
