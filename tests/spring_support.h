// The spring tests' rigs and poses (test_spring.cpp, test_spring_contact.cpp).
#pragma once

#include "retail/motion/spring.h"

#include <Eigen/Geometry>

namespace test {

/// A straight tail of `links` links hanging back and down from hips at the origin (1.8 m model).
inline retail::SpringRig straight_tail(int links, double total = 0.8) {
  retail::SpringRig rig;
  rig.root_offset = Eigen::Vector3d(0, 0, -0.1);
  for (int i = 0; i < links; ++i) {
    rig.length.push_back(total / links);
    rig.authored.push_back(Eigen::Vector3d(0, -0.6, -0.8).normalized());
  }
  rig.floor_y = -0.95;
  return rig;
}

inline retail::AnchorPose hips_at(double x, double y = 0, double yaw = 0) {
  retail::AnchorPose h;
  h.rotation = Eigen::Quaterniond(Eigen::AngleAxisd(yaw, Eigen::Vector3d::UnitY()));
  h.world.setIdentity();
  h.world.topLeftCorner<3, 3>() = h.rotation.toRotationMatrix();
  h.world.topRightCorner<3, 1>() = Eigen::Vector3d(x, y, 0);
  return h;
}

} // namespace test
