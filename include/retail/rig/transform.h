// retail — node transforms (glTF TRS / matrix) in double precision.
#pragma once

#include "retail/base/model.h"

#include <Eigen/Geometry>
#include <vector>

namespace retail {

/// Local transform of a node from its saved matrix or TRS (T * R * S), column-major 4x4.
Eigen::Matrix4d local_matrix(const Node& node);

/// World transforms of all nodes from their saved local transforms (the file's saved pose).
/// Pre: the hierarchy is a forest (validated). Output: one matrix per node.
std::vector<Eigen::Matrix4d> world_matrices(const Model& model);

/// Applies a 4x4 affine matrix to a point.
inline Eigen::Vector3d transform_point(const Eigen::Matrix4d& m, const Eigen::Vector3d& p) {
  return m.topLeftCorner<3, 3>() * p + m.topRightCorner<3, 1>();
}

/// The rotation part of an affine matrix with scale (no shear): its 3x3 block, each column
/// normalised.
inline Eigen::Matrix3d rotation_of(const Eigen::Matrix4d& m) {
  Eigen::Matrix3d r = m.topLeftCorner<3, 3>();
  for (int k = 0; k < 3; ++k) r.col(k).normalize();
  return r;
}

/// Mean length of the 3x3 block's columns: an affine matrix's scale, one number.
inline double mean_scale(const Eigen::Matrix4d& m) {
  const Eigen::Matrix3d l = m.topLeftCorner<3, 3>();
  return (l.col(0).norm() + l.col(1).norm() + l.col(2).norm()) / 3;
}

/// Largest absolute difference between two matrices, relative to `scale` for the translation
/// column: used to decide whether two skin-space mappings agree.
double matrix_difference(const Eigen::Matrix4d& a, const Eigen::Matrix4d& b,
                         double translation_scale);

} // namespace retail
