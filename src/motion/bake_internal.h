// Private to the bake (src/motion/bake.cpp): what a clip run steps, the tail spring (with its
// limb colliders) or the hair solver, behind one interface.
#pragma once

#include "retail/motion/bake.h"
#include "retail/motion/hair_solver.h"
#include "retail/motion/spring.h"
#include "retail/rig/transform.h"

#include <Eigen/Geometry>
#include <algorithm>
#include <vector>

namespace retail::bake_detail {

/// Local X reversed: what turns a mirrored anchor's frame into a rotation (SpringRig::mirrored).
inline Eigen::Matrix3d mirror_x() {
  return Eigen::Vector3d(-1, 1, 1).asDiagonal();
}

/// True when a node's world transform `world` is a reflection (an armature mirrored by a node
/// above it): a chain hanging from it reads its frames with local X reversed.
inline bool is_reflection(const Eigen::Matrix4d& world) {
  return world.topLeftCorner<3, 3>().determinant() < 0;
}

/// The frame a chain reads at its anchor: the rotation part of `world`, with local X reversed
/// when `mirrored` (then a rotation, not the reflection rotation_of returns).
inline Eigen::Matrix3d anchor_axes(const Eigen::Matrix4d& world, bool mirrored) {
  return mirrored ? Eigen::Matrix3d(rotation_of(world) * mirror_x()) : rotation_of(world);
}

/// The character's left at bind (world, unit): right thigh -> left thigh by their roles, turned
/// round where the forward it gives (left x up) faces against the body: the first decisive of
/// the head's horizontal offset from the hips, the toes' from the feet, and the tail's bind joints
/// below its root (`joints`, world, root first), which hang behind it. A mirrored model, or one
/// whose joints are named from the viewer's side, has its "left" thigh on its right. As named
/// when the hips' bind frame is a mirror (docs/spring.md, "Which way is forward"); +X without
/// two distinct thighs. Never fails.
Eigen::Vector3d character_left(const Character& c, const std::vector<Eigen::Vector3d>& joints);

/// One substep's poses: the chain's anchor and the nodes its proxies ride (hair only).
struct SubstepPose {
  AnchorPose anchor;
  std::vector<Eigen::Matrix4d> proxies;
};

/// What a clip run drives: the tail spring or the hair solver, stepped from substep to substep.
class ChainStepper {
public:
  virtual ~ChainStepper() = default;
  /// The chain at rest at `pose`.
  virtual void reset(const SubstepPose& pose) = 0;
  /// One substep of dt seconds from `from` (the last step's end) to `to`.
  virtual void step(const SubstepPose& from, const SubstepPose& to, double dt) = 0;
  /// Per bone: its local rotation (the glTF value).
  virtual std::vector<Eigen::Quaterniond> locals() const = 0;
  /// The tip minus the root, world.
  virtual Eigen::Vector3d tip_offset() const = 0;
  /// The anchor's rotation as the stepper reads it (the frame tip offsets are measured in).
  virtual Eigen::Quaterniond frame(const AnchorPose& anchor) const { return anchor.rotation; }
  /// Whether the last step's state must be a key of its own (the keys at the key rate would
  /// cut through what the step went around: a tail turned out of a leg).
  virtual bool key_needed() const { return false; }
};

/// The tail spring (spring.h): steps read only the step's end.
/// Its limb colliders ride the proxy poses (two joints per capsule): with `collide` the spring
/// is turned out of them; either way, while `measure`, their depth and contact are counted.
class SpringStepper final : public ChainStepper {
public:
  SpringStepper(const SpringRig& rig, const SpringParams& params, bool collide)
      : spring(rig, params), collide_(collide), mirrored_(rig.mirrored) {}
  void reset(const SubstepPose& pose) override { spring.reset(anchor(pose.anchor)); }
  void step(const SubstepPose&, const SubstepPose& to, double dt) override {
    capsules_.clear();
    for (std::size_t k = 0; k + 1 < to.proxies.size(); k += 2)
      capsules_.push_back(
          {to.proxies[k].topRightCorner<3, 1>(), to.proxies[k + 1].topRightCorner<3, 1>(), 0.0});
    spring.step(anchor(to.anchor), dt, collide_ && !capsules_.empty() ? &capsules_ : nullptr);
    touched_ = collide_ && spring.collider_contact();
    if (!measure || capsules_.empty()) return;
    const auto [depth, skin_depth] = spring.collider_depths(capsules_);
    touched_ = touched_ || (collide_ && depth > 0);
    deepest = std::max(deepest, depth);
    skin_deepest = std::max(skin_deepest, skin_depth);
    ++steps;
    if (depth > 0 || spring.collider_contact()) ++touching;
  }
  std::vector<Eigen::Quaterniond> locals() const override {
    std::vector<Eigen::Quaterniond> out;
    for (std::size_t b = 0; b < spring.tips().size(); ++b)
      out.push_back(mirrored_ ? mirrored_local(spring.local_rotation(b))
                              : spring.local_rotation(b));
    return out;
  }
  Eigen::Vector3d tip_offset() const override { return spring.tips().back() - spring.head(0); }
  Eigen::Quaterniond frame(const AnchorPose& pose) const override { return anchor(pose).rotation; }
  bool key_needed() const override { return touched_; }
  SpringChain spring;
  bool measure = false;                ///< count the steps below
  double deepest = 0;                  ///< SpringChain::collider_depth, deepest while measured
  double skin_deepest = 0;             ///< the same with the links' skin as a tube round them
  std::size_t steps = 0, touching = 0; ///< substeps measured; of them, with a link touching

private:
  /// The pose as the spring reads it: a mirrored rig's rotation with local X reversed.
  AnchorPose anchor(const AnchorPose& pose) const {
    if (!mirrored_) return pose;
    AnchorPose out = pose;
    out.rotation = Eigen::Quaterniond(anchor_axes(pose.world, true)).normalized();
    return out;
  }
  bool collide_ = true;
  bool mirrored_ = false; ///< SpringRig::mirrored
  bool touched_ = false;  ///< the last step turned a link out of a collider (or left one in)
  std::vector<RestObstacle> capsules_; ///< this step's, world
};

/// The hair solver (hair_solver.h) on one chain; bones read back as the rotation taking their
/// bind direction onto their link, in the parent's current frame.
class HairStepper final : public ChainStepper {
public:
  explicit HairStepper(const ChainBake& chain) : chain_(chain), rig_(chain.hair_rig) {}
  void reset(const SubstepPose& pose) override {
    state_ = rest_state(rig_, poses(pose));
    anchor_ = frame(pose.anchor);
    root_ = joint_position(rig_, poses(pose), state_, 0, 0);
  }
  void step(const SubstepPose& from, const SubstepPose& to, double dt) override {
    rig_.substep_s = dt;
    retail::step(rig_, poses(from), poses(to), state_);
    anchor_ = frame(to.anchor);
    root_ = joint_position(rig_, poses(to), state_, 0, 0);
  }
  /// Read back in the anchor's frame (a mirrored chain's with local X reversed, as its bind
  /// directions are; each rotation is turned back by mirrored_local as it is written).
  std::vector<Eigen::Quaterniond> locals() const override {
    std::vector<Eigen::Quaterniond> out;
    Eigen::Quaterniond parent = anchor_;
    Eigen::Vector3d at = root_;
    for (std::size_t b = 0; b < chain_.bind_direction.size(); ++b) {
      const Eigen::Vector3d d = state_.chains[0].x[b] - at;
      Eigen::Quaterniond q;
      if (chain_.rest_rotation.empty()) {
        q = Eigen::Quaterniond::FromTwoVectors(chain_.bind_direction[b], parent.conjugate() * d)
                .normalized();
      } else { // the rest rotation, then the arc from its rest direction (parent frame) onto d
        const Eigen::Quaterniond rest =
            chain_.mirrored ? mirrored_local(chain_.rest_rotation[b]) : chain_.rest_rotation[b];
        q = (Eigen::Quaterniond::FromTwoVectors(rest * chain_.bind_direction[b],
                                                parent.conjugate() * d) *
             rest)
                .normalized();
      }
      out.push_back(chain_.mirrored ? mirrored_local(q) : q);
      parent = (parent * q).normalized();
      at = state_.chains[0].x[b];
    }
    return out;
  }
  Eigen::Vector3d tip_offset() const override { return state_.chains[0].x.back() - root_; }
  /// The anchor's rotation; a mirrored chain's with local X reversed (a rotation).
  Eigen::Quaterniond frame(const AnchorPose& pose) const override {
    if (!chain_.mirrored) return pose.rotation;
    return Eigen::Quaterniond(anchor_axes(pose.world, true)).normalized();
  }

private:
  static HairPoses poses(const SubstepPose& p) {
    HairPoses h;
    h.anchors.emplace_back(Eigen::Affine3d(p.anchor.world));
    for (const auto& m : p.proxies) h.proxies.emplace_back(Eigen::Affine3d(m));
    return h;
  }
  const ChainBake& chain_;
  HairRig rig_;
  HairState state_;
  Eigen::Quaterniond anchor_ = Eigen::Quaterniond::Identity();
  Eigen::Vector3d root_ = Eigen::Vector3d::Zero();
};

} // namespace retail::bake_detail
