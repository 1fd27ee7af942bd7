#include "retail/rig/transform.h"

#include <algorithm>
#include <cmath>

namespace retail {

Eigen::Matrix4d local_matrix(const Node& node) {
  if (node.has_matrix) return Eigen::Map<const Eigen::Matrix4d>(node.matrix->data());
  Eigen::Quaterniond q(node.rotation[3], node.rotation[0], node.rotation[1], node.rotation[2]);
  if (q.norm() > 0)
    q.normalize();
  else
    q = Eigen::Quaterniond::Identity();
  Eigen::Matrix4d m = Eigen::Matrix4d::Identity();
  m.topLeftCorner<3, 3>() =
      q.toRotationMatrix() *
      Eigen::Vector3d(node.scale[0], node.scale[1], node.scale[2]).asDiagonal();
  m.topRightCorner<3, 1>() =
      Eigen::Vector3d(node.translation[0], node.translation[1], node.translation[2]);
  return m;
}

std::vector<Eigen::Matrix4d> world_matrices(const Model& model) {
  std::size_t n = model.nodes.size();
  std::vector<Eigen::Matrix4d> world(n, Eigen::Matrix4d::Identity());
  std::vector<char> done(n, 0);
  std::vector<int> order;
  for (std::size_t i = 0; i < n; ++i) {
    // Walk up to the first computed ancestor, then fill downwards.
    order.clear();
    int cur = int(i);
    while (cur >= 0 && !done[cur]) {
      order.push_back(cur);
      cur = model.nodes[cur].parent;
    }
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      int p = model.nodes[*it].parent;
      world[*it] =
          (p >= 0 ? world[p] : Eigen::Matrix4d::Identity()) * local_matrix(model.nodes[*it]);
      done[*it] = 1;
    }
  }
  return world;
}

double matrix_difference(const Eigen::Matrix4d& a, const Eigen::Matrix4d& b,
                         double translation_scale) {
  double lin = (a.topLeftCorner<3, 3>() - b.topLeftCorner<3, 3>()).cwiseAbs().maxCoeff() /
               std::max(1e-12, a.topLeftCorner<3, 3>().cwiseAbs().maxCoeff());
  double tr = (a.topRightCorner<3, 1>() - b.topRightCorner<3, 1>()).cwiseAbs().maxCoeff() /
              std::max(1e-12, translation_scale);
  return std::max(lin, tr);
}

} // namespace retail
