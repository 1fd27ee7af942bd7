// read_vrm_springs: VRM 0.x secondaryAnimation and VRM 1 VRMC_springBone into one description
// (include/retail/vrm/vrm_springs.h; the rules are documented in docs/hair.md).
#include "retail/vrm/vrm_springs.h"

#include "retail/base/error.h"
#include "retail/rig/transform.h"

#include <cmath>
#include <map>
#include <set>

namespace retail {
namespace {

[[noreturn]] void bad(const std::string& path, const std::string& what) {
  fail_invalid(path + ": " + what);
}

const Json* member(const Json& obj, const char* key) {
  auto it = obj.find(key);
  return it == obj.end() ? nullptr : &*it;
}

const Json& object_at(const Json& j, const std::string& path) {
  if (!j.is_object()) bad(path, "must be an object");
  return j;
}

const Json& array_at(const Json& j, const std::string& path) {
  if (!j.is_array()) bad(path, "must be an array");
  return j;
}

double number_at(const Json& j, const std::string& path) {
  if (!j.is_number()) bad(path, "must be a number");
  double v = j.get<double>();
  if (!std::isfinite(v)) bad(path, "must be finite");
  return v;
}

double number_or(const Json& obj, const char* key, double fallback, const std::string& path) {
  const Json* m = member(obj, key);
  return m ? number_at(*m, path + "." + key) : fallback;
}

double non_negative(const Json& obj, const char* key, double fallback, const std::string& path) {
  double v = number_or(obj, key, fallback, path);
  if (v < 0) bad(path + "." + key, "must not be negative (" + std::to_string(v) + ")");
  return v;
}

int index_at(const Json& j, std::size_t count, const std::string& path, const char* what) {
  if (!j.is_number_integer() && !j.is_number_unsigned()) bad(path, "must be an integer index");
  long long v = j.is_number_unsigned()
                    ? (long long)std::min<std::uint64_t>(j.get<std::uint64_t>(), 1ull << 62)
                    : j.get<long long>();
  if (v < 0 || (unsigned long long)v >= count)
    bad(path, std::to_string(v) + " is not a valid " + what + " index (" + std::to_string(count) +
                  " " + what + "s)");
  return int(v);
}

Eigen::Vector3d vec3_array(const Json& j, const std::string& path) {
  if (!j.is_array() || j.size() != 3) bad(path, "must be an array of 3 numbers");
  return {number_at(j[0], path + "[0]"), number_at(j[1], path + "[1]"),
          number_at(j[2], path + "[2]")};
}

Eigen::Vector3d vec3_object(const Json& j, const std::string& path) {
  object_at(j, path);
  return {number_or(j, "x", 0, path), number_or(j, "y", 0, path), number_or(j, "z", 0, path)};
}

bool bool_or(const Json& obj, const char* key, const std::string& path) {
  const Json* m = member(obj, key);
  if (!m) return false;
  if (!m->is_boolean()) bad(path + "." + key, "must be true or false");
  return m->get<bool>();
}

double drag_at(const Json& obj, double fallback, const std::string& path) {
  double d = number_or(obj, "dragForce", fallback, path);
  if (d < 0 || d > 1) bad(path + ".dragForce", "must be within [0, 1] (" + std::to_string(d) + ")");
  return d;
}

bool is_below(const Model& m, int node, int ancestor) {
  for (int p = m.nodes[std::size_t(node)].parent; p >= 0; p = m.nodes[std::size_t(p)].parent)
    if (p == ancestor) return true;
  return false;
}

std::vector<bool> skin_joint_flags(const Model& m) {
  std::vector<bool> flags(m.nodes.size(), false);
  for (const Skin& s : m.skins)
    for (int j : s.joints)
      if (j >= 0 && std::size_t(j) < flags.size()) flags[std::size_t(j)] = true;
  return flags;
}

void count_joints(std::size_t& total, std::size_t add, const std::string& path) {
  total += add;
  if (total > kMaxSpringJoints)
    fail_unsupported(path + ": more than " + std::to_string(kMaxSpringJoints) +
                     " spring joints in all, the most retail simulates (docs/robustness.md)");
}

// ---- VRM 1 ------------------------------------------------------------------------------------

VrmJointSettings v1_settings(const Json& jj, const std::string& p) {
  VrmJointSettings s;
  s.hit_radius_m = non_negative(jj, "hitRadius", 0, p);
  s.stiffness = non_negative(jj, "stiffness", 1, p);
  s.gravity_power = non_negative(jj, "gravityPower", 0, p);
  if (const Json* g = member(jj, "gravityDir")) s.gravity_dir = vec3_array(*g, p + ".gravityDir");
  s.drag_force = drag_at(jj, 0.4, p);
  return s;
}

void v1_shape(const Json& shape, const std::string& p, VrmCollider& c, bool extended) {
  object_at(shape, p);
  if (const Json* s = member(shape, "sphere")) {
    std::string sp = p + ".sphere";
    object_at(*s, sp);
    c.shape = VrmColliderShape::Sphere;
    if (const Json* o = member(*s, "offset")) c.offset = vec3_array(*o, sp + ".offset");
    c.tail = c.offset;
    c.radius_m = non_negative(*s, "radius", 0, sp);
    if (extended) c.inside = bool_or(*s, "inside", sp);
  } else if (const Json* k = member(shape, "capsule")) {
    std::string kp = p + ".capsule";
    object_at(*k, kp);
    c.shape = VrmColliderShape::Capsule;
    if (const Json* o = member(*k, "offset")) c.offset = vec3_array(*o, kp + ".offset");
    c.tail = Eigen::Vector3d::Zero();
    if (const Json* t = member(*k, "tail")) c.tail = vec3_array(*t, kp + ".tail");
    c.radius_m = non_negative(*k, "radius", 0, kp);
    if (extended) c.inside = bool_or(*k, "inside", kp);
  } else if (const Json* pl = extended ? member(shape, "plane") : nullptr) {
    std::string pp = p + ".plane";
    object_at(*pl, pp);
    c.shape = VrmColliderShape::Plane;
    if (const Json* o = member(*pl, "offset")) c.offset = vec3_array(*o, pp + ".offset");
    c.tail = c.offset;
    if (const Json* n = member(*pl, "normal")) c.normal = vec3_array(*n, pp + ".normal");
    if (c.normal.norm() == 0) bad(pp + ".normal", "must not be zero");
    c.normal.normalize();
  } else {
    bad(p, extended ? "has no sphere, capsule or plane" : "has no sphere or capsule");
  }
}

VrmCollider v1_collider(const Json& cj, const std::string& p, const Model& m,
                        std::vector<std::string>& warnings) {
  object_at(cj, p);
  VrmCollider c;
  c.path = p;
  const Json* node = member(cj, "node");
  if (!node) bad(p + ".node", "is missing");
  c.node = index_at(*node, m.nodes.size(), p + ".node", "node");
  const Json* shape = member(cj, "shape");
  if (!shape) bad(p + ".shape", "is missing");
  v1_shape(*shape, p + ".shape", c, false);
  const Json* ext = member(cj, "extensions");
  const Json* ex =
      ext && ext->is_object() ? member(*ext, "VRMC_springBone_extended_collider") : nullptr;
  if (!ex) return c;
  std::string ep = p + ".extensions.VRMC_springBone_extended_collider";
  object_at(*ex, ep);
  const Json* ver = member(*ex, "specVersion");
  if (!ver || !ver->is_string() || ver->get<std::string>() != "1.0") {
    warnings.push_back(ep + ": unknown specVersion, the VRMC_springBone shape is used");
    return c;
  }
  const Json* es = member(*ex, "shape");
  if (!es) bad(ep + ".shape", "is missing");
  VrmCollider e; // the extended shape replaces the base one whole (absent fields: defaults)
  e.path = p;
  e.node = c.node;
  e.extended = true;
  v1_shape(*es, ep + ".shape", e, true);
  return e;
}

VrmSpringChain v1_spring(const Json& sj, const std::string& p, const VrmSprings& out,
                         const Model& m, const std::vector<bool>& skinned, std::size_t& total) {
  object_at(sj, p);
  VrmSpringChain ch;
  ch.path = p;
  if (const Json* n = member(sj, "name"); n && n->is_string()) ch.name = n->get<std::string>();
  const Json* joints = member(sj, "joints");
  if (!joints) bad(p + ".joints", "is missing");
  array_at(*joints, p + ".joints");
  count_joints(total, joints->size(), p + ".joints");
  for (std::size_t k = 0; k < joints->size(); ++k) {
    std::string jp = p + ".joints[" + std::to_string(k) + "]";
    const Json& jj = object_at((*joints)[k], jp);
    const Json* node = member(jj, "node");
    if (!node) bad(jp + ".node", "is missing");
    int n = index_at(*node, m.nodes.size(), jp + ".node", "node");
    if (k > 0 && !is_below(m, n, ch.joints.back()))
      bad(jp + ".node", "node " + std::to_string(n) + " is not below the joint before it (node " +
                            std::to_string(ch.joints.back()) + ")");
    ch.joints.push_back(n);
    ch.skinned.push_back(skinned[std::size_t(n)]);
    VrmJointSettings s = v1_settings(jj, jp);
    if (k + 1 < joints->size()) ch.links.push_back(s); // link k uses its head joint's settings
  }
  if (ch.joints.size() < 2) bad(p + ".joints", "needs at least 2 joints");
  ch.parent_node = m.nodes[std::size_t(ch.joints[0])].parent;
  if (const Json* g = member(sj, "colliderGroups")) {
    array_at(*g, p + ".colliderGroups");
    for (std::size_t k = 0; k < g->size(); ++k)
      ch.collider_groups.push_back(index_at((*g)[k], out.groups.size(),
                                            p + ".colliderGroups[" + std::to_string(k) + "]",
                                            "collider group"));
  }
  if (const Json* c = member(sj, "center"))
    ch.center = index_at(*c, m.nodes.size(), p + ".center", "node");
  return ch;
}

VrmSprings read_v1(const Json& ext, const Model& m) {
  const std::string p = "extensions.VRMC_springBone";
  object_at(ext, p);
  VrmSprings out;
  out.source = "VRMC_springBone";
  const Json* ver = member(ext, "specVersion");
  if (!ver || !ver->is_string()) bad(p + ".specVersion", "must be a string");
  if (ver->get<std::string>() != "1.0" && ver->get<std::string>() != "1.0-beta")
    out.warnings.push_back(p + ".specVersion: unknown version '" +
                           terminal_safe(ver->get<std::string>()) + "', read as 1.0");
  if (const Json* cs = member(ext, "colliders")) {
    array_at(*cs, p + ".colliders");
    for (std::size_t k = 0; k < cs->size(); ++k)
      out.colliders.push_back(
          v1_collider((*cs)[k], p + ".colliders[" + std::to_string(k) + "]", m, out.warnings));
  }
  if (const Json* gs = member(ext, "colliderGroups")) {
    array_at(*gs, p + ".colliderGroups");
    for (std::size_t k = 0; k < gs->size(); ++k) {
      std::string gp = p + ".colliderGroups[" + std::to_string(k) + "]";
      const Json& gj = object_at((*gs)[k], gp);
      VrmColliderGroup g;
      if (const Json* n = member(gj, "name"); n && n->is_string()) g.name = n->get<std::string>();
      const Json* list = member(gj, "colliders");
      if (!list) bad(gp + ".colliders", "is missing");
      array_at(*list, gp + ".colliders");
      for (std::size_t c = 0; c < list->size(); ++c)
        g.colliders.push_back(index_at((*list)[c], out.colliders.size(),
                                       gp + ".colliders[" + std::to_string(c) + "]", "collider"));
      out.groups.push_back(std::move(g));
    }
  }
  std::vector<bool> skinned = skin_joint_flags(m);
  std::size_t total = 0;
  if (const Json* ss = member(ext, "springs")) {
    array_at(*ss, p + ".springs");
    for (std::size_t k = 0; k < ss->size(); ++k)
      out.chains.push_back(
          v1_spring((*ss)[k], p + ".springs[" + std::to_string(k) + "]", out, m, skinned, total));
  }
  return out;
}

// ---- VRM 0.x ----------------------------------------------------------------------------------

/// The virtual end of a VRM 0 leaf: 0.07 world units along parent -> node, in node space.
Eigen::Vector3d virtual_end(const Model& m, const std::vector<Eigen::Matrix4d>& world, int node) {
  const Eigen::Matrix4d& w = world[std::size_t(node)];
  int parent = m.nodes[std::size_t(node)].parent;
  Eigen::Vector3d here = w.topRightCorner<3, 1>();
  Eigen::Vector3d dir =
      parent >= 0 ? Eigen::Vector3d(here - world[std::size_t(parent)].topRightCorner<3, 1>())
                  : Eigen::Vector3d::Zero();
  Eigen::Matrix3d lin = w.topLeftCorner<3, 3>();
  if (dir.norm() < 1e-12 || std::abs(lin.determinant()) < 1e-300)
    return Eigen::Vector3d(0, 0.07, 0); // no direction to continue: the node's own +Y
  return lin.inverse() * (0.07 * dir.normalized());
}

struct V0Group {
  std::string path;
  VrmJointSettings settings;
  std::vector<int> groups;
  int center = -1;
};

/// Expands the subtree under `root` into chains (first child continues, others branch).
void expand_root(const Model& m, const std::vector<Eigen::Matrix4d>& world,
                 const std::vector<bool>& skinned, const V0Group& g, int root, int parent_chain,
                 VrmSprings& out, std::size_t& total) {
  // (chain root, parent chain), in the order found: a chain, then the branches along it, each in
  // child order (breadth first over chains).
  std::vector<std::pair<int, int>> todo{{root, parent_chain}};
  for (std::size_t next = 0; next < todo.size(); ++next) {
    auto [start, parent] = todo[next];
    VrmSpringChain ch;
    ch.path = g.path;
    ch.parent_node = m.nodes[std::size_t(start)].parent;
    ch.parent_chain = parent;
    ch.collider_groups = g.groups;
    ch.center = g.center;
    int self = int(out.chains.size());
    for (int n = start;;) {
      count_joints(total, 1, g.path + ".bones");
      ch.joints.push_back(n);
      ch.skinned.push_back(skinned[std::size_t(n)]);
      ch.links.push_back(g.settings);
      const std::vector<int>& kids = m.nodes[std::size_t(n)].children;
      for (std::size_t k = 1; k < kids.size(); ++k) todo.push_back({kids[k], self});
      if (kids.empty()) break;
      n = kids[0];
    }
    ch.has_virtual_end = true;
    ch.virtual_end_local = virtual_end(m, world, ch.joints.back());
    out.chains.push_back(std::move(ch));
  }
}

VrmSprings read_v0(const Json& sa, const Model& m) {
  const std::string p = "extensions.VRM.secondaryAnimation";
  object_at(sa, p);
  VrmSprings out;
  out.source = "VRM 0.x secondaryAnimation";
  if (const Json* cgs = member(sa, "colliderGroups")) {
    array_at(*cgs, p + ".colliderGroups");
    for (std::size_t k = 0; k < cgs->size(); ++k) {
      std::string gp = p + ".colliderGroups[" + std::to_string(k) + "]";
      const Json& gj = object_at((*cgs)[k], gp);
      const Json* node = member(gj, "node");
      if (!node) bad(gp + ".node", "is missing");
      int n = index_at(*node, m.nodes.size(), gp + ".node", "node");
      VrmColliderGroup g;
      if (const Json* cs = member(gj, "colliders")) {
        array_at(*cs, gp + ".colliders");
        for (std::size_t c = 0; c < cs->size(); ++c) {
          std::string cp = gp + ".colliders[" + std::to_string(c) + "]";
          const Json& cj = object_at((*cs)[c], cp);
          VrmCollider col;
          col.path = cp;
          col.node = n;
          if (const Json* o = member(cj, "offset")) col.offset = vec3_object(*o, cp + ".offset");
          col.offset.z() = -col.offset.z(); // VRM 0 stores Unity's Z
          col.tail = col.offset;
          col.radius_m = non_negative(cj, "radius", 0, cp);
          g.colliders.push_back(int(out.colliders.size()));
          out.colliders.push_back(col);
        }
      }
      out.groups.push_back(std::move(g));
    }
  }
  std::vector<bool> skinned = skin_joint_flags(m);
  std::vector<Eigen::Matrix4d> world = world_matrices(m);
  std::size_t total = 0;
  const Json* bgs = member(sa, "boneGroups");
  if (!bgs) return out;
  array_at(*bgs, p + ".boneGroups");
  for (std::size_t k = 0; k < bgs->size(); ++k) {
    V0Group g;
    g.path = p + ".boneGroups[" + std::to_string(k) + "]";
    const Json& bj = object_at((*bgs)[k], g.path);
    g.settings.hit_radius_m = non_negative(bj, "hitRadius", 0, g.path);
    g.settings.stiffness = non_negative(bj, "stiffiness", 1, g.path); // sic: VRM 0 spelling
    g.settings.gravity_power = non_negative(bj, "gravityPower", 0, g.path);
    if (const Json* d = member(bj, "gravityDir"))
      g.settings.gravity_dir = vec3_object(*d, g.path + ".gravityDir");
    g.settings.drag_force = drag_at(bj, 0.4, g.path);
    if (const Json* c = member(bj, "center"); c && !(c->is_number_integer() && *c == -1))
      g.center = index_at(*c, m.nodes.size(), g.path + ".center", "node");
    if (const Json* cg = member(bj, "colliderGroups")) {
      array_at(*cg, g.path + ".colliderGroups");
      for (std::size_t c = 0; c < cg->size(); ++c)
        g.groups.push_back(index_at((*cg)[c], out.groups.size(),
                                    g.path + ".colliderGroups[" + std::to_string(c) + "]",
                                    "collider group"));
    }
    const Json* bones = member(bj, "bones");
    if (!bones) continue;
    array_at(*bones, g.path + ".bones");
    std::set<int> seen;
    for (std::size_t b = 0; b < bones->size(); ++b) {
      std::string bp = g.path + ".bones[" + std::to_string(b) + "]";
      int root = index_at((*bones)[b], m.nodes.size(), bp, "node");
      if (!seen.insert(root).second) bad(bp, "node " + std::to_string(root) + " is listed twice");
      expand_root(m, world, skinned, g, root, -1, out, total);
    }
  }
  return out;
}

/// The links and colliders of one chain as work per substep.
std::size_t chain_work(const VrmSprings& s, const VrmSpringChain& ch) {
  std::size_t colliders = 0;
  for (int g : ch.collider_groups) colliders += s.groups[std::size_t(g)].colliders.size();
  return ch.links_count() * (1 + colliders);
}

/// Error(Unsupported) naming the spring or bone group with the most work when the file's
/// springs ask more than kMaxSpringWork per substep.
void check_spring_work(const VrmSprings& s) {
  const std::size_t total = spring_work(s);
  if (total <= kMaxSpringWork) return;
  std::map<std::string, std::pair<std::size_t, std::size_t>> by_path; // work, links
  for (const VrmSpringChain& ch : s.chains) {
    auto& w = by_path[ch.path];
    w.first += chain_work(s, ch);
    w.second += ch.links_count();
  }
  auto worst = by_path.begin();
  for (auto it = by_path.begin(); it != by_path.end(); ++it)
    if (it->second.first > worst->second.first) worst = it;
  fail_unsupported(worst->first + ": " + std::to_string(worst->second.second) +
                   " spring links tested against their colliders ask " +
                   std::to_string(worst->second.first) + " of the file's " + std::to_string(total) +
                   " spring tests per substep, beyond the " + std::to_string(kMaxSpringWork) +
                   " retail simulates (docs/robustness.md)");
}

} // namespace

void VrmMapping::validate() const {
  if (!(reference_rate_hz > 0) || !std::isfinite(reference_rate_hz))
    throw Error(ExitCode::Usage, "VRM mapping: reference_rate_hz must be positive");
  if (!(max_damping_per_s > 0) || !std::isfinite(max_damping_per_s))
    throw Error(ExitCode::Usage, "VRM mapping: max_damping_per_s must be positive");
}

std::size_t spring_work(const VrmSprings& springs) {
  std::size_t total = 0;
  for (const VrmSpringChain& ch : springs.chains) total += chain_work(springs, ch);
  return total;
}

VrmSprings read_vrm_springs(const Document& doc, const Model& model) {
  const Json& root = doc.gltf;
  const Json* ext = root.is_object() ? member(root, "extensions") : nullptr;
  if (!ext || !ext->is_object()) return {};
  const Json* v1 = member(*ext, "VRMC_springBone");
  const Json* vrm = member(*ext, "VRM");
  const Json* v0 = vrm && vrm->is_object() ? member(*vrm, "secondaryAnimation") : nullptr;
  VrmSprings out;
  if (v1) {
    out = read_v1(*v1, model);
    if (v0) out.warnings.push_back("extensions.VRM.secondaryAnimation: not read (VRM 1 wins)");
  } else if (v0) {
    out = read_v0(*v0, model);
  }
  check_spring_work(out);
  return out;
}

VrmSprings usable_vrm_springs(const Document& doc, const Model& model) {
  try {
    return read_vrm_springs(doc, model);
  } catch (const Error& e) {
    VrmSprings none;
    none.unusable = e.what();
    return none;
  }
}

} // namespace retail
