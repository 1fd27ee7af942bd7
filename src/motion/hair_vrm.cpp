// VRM spring settings as hair-solver parameters, and a HairRig from imported VRM springs
// (include/retail/motion/hair_solver.h; the mapping is derived in docs/hair.md).
#include "retail/base/error.h"
#include "retail/motion/hair_solver.h"
#include "retail/rig/transform.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace retail {
namespace {

Eigen::Affine3d affine(const Eigen::Matrix4d& m) {
  Eigen::Affine3d a;
  a.matrix() = m;
  return a;
}

/// Index of `node` in `nodes`, appended when new.
int slot(std::vector<int>& nodes, std::map<int, int>& index, int node) {
  auto [it, added] = index.emplace(node, int(nodes.size()));
  if (added) nodes.push_back(node);
  return it->second;
}

HairProxy proxy_of(const VrmCollider& c, int pose) {
  HairProxy p;
  p.proxy = pose;
  p.head_local = c.offset;
  p.tail_local = c.shape == VrmColliderShape::Capsule ? c.tail : c.offset;
  p.radius_m = c.radius_m;
  p.inside = c.inside;
  p.plane = c.shape == VrmColliderShape::Plane;
  p.normal_local = c.normal;
  return p;
}

/// World rest positions of a chain's joints (and its virtual end).
std::vector<Eigen::Vector3d> rest_points(const VrmSpringChain& ch,
                                         const std::vector<Eigen::Matrix4d>& world) {
  std::vector<Eigen::Vector3d> pts;
  for (int j : ch.joints) pts.push_back(world[std::size_t(j)].topRightCorner<3, 1>());
  if (ch.has_virtual_end) {
    const Eigen::Matrix4d& w = world[std::size_t(ch.joints.back())];
    pts.push_back(w.topLeftCorner<3, 3>() * ch.virtual_end_local + w.topRightCorner<3, 1>());
  }
  return pts;
}

} // namespace

HairLink vrm_link_params(const VrmJointSettings& s, double length_m, double scale,
                         const VrmMapping& mapping) {
  mapping.validate();
  const double rate = mapping.reference_rate_hz; // 1 / Δ
  HairLink l;
  l.length_m = length_m;
  l.radius_m = s.hit_radius_m * scale;
  l.stiffness_per_s2 = length_m > 0 ? s.stiffness * rate / length_m : 0;
  l.damping_per_s = s.drag_force < 1
                        ? std::min(mapping.max_damping_per_s, -std::log1p(-s.drag_force) * rate)
                        : mapping.max_damping_per_s;
  double g = s.gravity_dir.norm();
  l.gravity_mps2 = g > 0 ? Eigen::Vector3d(s.gravity_dir / g * (s.gravity_power * rate))
                         : Eigen::Vector3d::Zero();
  return l;
}

HairRig hair_rig_from_vrm(const VrmSprings& springs, const Model& model,
                          const std::vector<Eigen::Matrix4d>& world, std::vector<int>* anchor_nodes,
                          std::vector<int>* proxy_nodes, const VrmMapping& mapping) {
  HairRig rig;
  std::vector<int> anchors, proxies;
  std::map<int, int> anchor_index, proxy_index, collider_proxy;
  for (const VrmSpringChain& ch : springs.chains) {
    HairChain out;
    out.name = ch.name.empty() ? model.nodes[std::size_t(ch.joints[0])].name : ch.name;
    out.anchor = slot(anchors, anchor_index, ch.parent_node);
    Eigen::Affine3d a = ch.parent_node >= 0 ? affine(world[std::size_t(ch.parent_node)])
                                            : Eigen::Affine3d::Identity();
    if (std::abs(a.linear().determinant()) < 1e-300)
      fail_invalid(ch.path + ": node " + std::to_string(ch.parent_node) + " has a singular pose");
    Eigen::Affine3d inv = a.inverse();
    std::vector<Eigen::Vector3d> pts = rest_points(ch, world);
    out.root_local = inv * pts[0];
    for (std::size_t i = 0; i + 1 < pts.size(); ++i) {
      Eigen::Vector3d d = pts[i + 1] - pts[i];
      if (!(d.norm() > 0))
        fail_invalid(ch.path + ": the link from node " + std::to_string(ch.joints[i]) +
                     " has zero length");
      double scale = mean_scale(world[std::size_t(ch.joints[i])]);
      HairLink l = vrm_link_params(ch.links[i], d.norm(), scale, mapping);
      l.rest_local = inv.linear() * d;
      if (!std::isfinite(l.stiffness_per_s2) || !std::isfinite(l.radius_m) ||
          !l.gravity_mps2.allFinite() || !l.rest_local.allFinite() || !out.root_local.allFinite())
        fail_invalid(ch.path + ": the link from node " + std::to_string(ch.joints[i]) +
                     " does not give finite solver parameters (length " + std::to_string(d.norm()) +
                     ")");
      out.links.push_back(l);
    }
    for (int g : ch.collider_groups)
      for (int c : springs.groups[std::size_t(g)].colliders) {
        auto [it, added] = collider_proxy.emplace(c, int(rig.proxies.size()));
        if (added) {
          const VrmCollider& col = springs.colliders[std::size_t(c)];
          rig.proxies.push_back(proxy_of(col, slot(proxies, proxy_index, col.node)));
        }
        if (std::find(out.colliders.begin(), out.colliders.end(), it->second) ==
            out.colliders.end())
          out.colliders.push_back(it->second);
      }
    rig.chains.push_back(std::move(out));
  }
  rig.anchor_count = anchors.size();
  rig.proxy_count = proxies.size();
  if (anchor_nodes) *anchor_nodes = anchors;
  if (proxy_nodes) *proxy_nodes = proxies;
  return rig;
}

} // namespace retail
