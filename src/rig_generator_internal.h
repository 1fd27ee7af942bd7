// Shared between rig_generator.cpp (skeleton, mesh, weights) and rig_generator_anim.cpp (clips).
#pragma once

#include "retail/document.h"

#include <Eigen/Geometry>
#include <map>
#include <string>
#include <vector>

namespace retail::gen {

struct Joint {
  std::string name; ///< bare Mixamo name ("Hips")
  int parent = -1;
  Eigen::Vector3d world; ///< bind position, world metres
  int node = -1;         ///< glTF node index once written
};

/// The generated skeleton and how armature space maps to world: world = R * (s * arm).
struct Skeleton {
  std::vector<Joint> joints;
  Eigen::Matrix3d rotation = Eigen::Matrix3d::Identity(); ///< R
  double node_scale = 1;                                  ///< s
  int find(const std::string& name) const {
    for (std::size_t i = 0; i < joints.size(); ++i)
      if (joints[i].name == name) return int(i);
    return -1;
  }
  Eigen::Vector3d to_armature(const Eigen::Vector3d& world) const {
    return rotation.transpose() * world / node_scale;
  }
};

/// Writes the clips (Walk, HipSwing, Crouch, Idle) as LINEAR keys at 30 fps.
void add_clips(Document& doc, const Skeleton& skeleton, double k);

} // namespace retail::gen
