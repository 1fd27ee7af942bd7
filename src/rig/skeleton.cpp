// build_characters: skins grouped into characters, bind pose from IBMs, skin->world, H.
#include "retail/rig/skeleton.h"

#include "retail/base/error.h"
#include "retail/io/accessor.h"
#include "retail/rig/transform.h"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <numeric>
#include <set>

namespace retail {
namespace {

int find_root(int x, std::vector<int>& up) {
  while (up[x] != x) x = up[x] = up[up[x]];
  return x;
}

/// Groups skins that share at least one joint (union-find over skins).
std::vector<std::vector<int>> group_skins(const Model& model) {
  std::vector<int> up(model.skins.size());
  std::iota(up.begin(), up.end(), 0);
  std::map<int, int> owner;
  for (std::size_t s = 0; s < model.skins.size(); ++s)
    for (int j : model.skins[s].joints) {
      auto [it, fresh] = owner.emplace(j, int(s));
      if (!fresh) up[find_root(int(s), up)] = find_root(it->second, up);
    }
  std::map<int, std::vector<int>> groups;
  for (std::size_t s = 0; s < model.skins.size(); ++s)
    groups[find_root(int(s), up)].push_back(int(s));
  std::vector<std::vector<int>> out;
  for (auto& [_, g] : groups) {
    std::sort(g.begin(), g.end());
    out.push_back(g);
  }
  std::sort(out.begin(), out.end());
  return out;
}

bool is_ancestor(const Model& model, int a, int n) {
  for (int p = model.nodes[n].parent; p >= 0; p = model.nodes[p].parent)
    if (p == a) return true;
  return false;
}

/// The skin's root joint: `skeleton` when it is one of the joints, else the joint with the most
/// joint descendants among those with no joint ancestor (ties: first in the joint list).
int skin_root(const Model& model, const Skin& skin) {
  if (std::find(skin.joints.begin(), skin.joints.end(), skin.skeleton) != skin.joints.end())
    return skin.skeleton;
  int best = -1;
  std::size_t best_count = 0;
  for (int j : skin.joints) {
    bool top = std::none_of(skin.joints.begin(), skin.joints.end(),
                            [&](int o) { return is_ancestor(model, o, j); });
    if (!top) continue;
    std::size_t count = std::size_t(std::count_if(skin.joints.begin(), skin.joints.end(),
                                                  [&](int o) { return is_ancestor(model, j, o); }));
    if (best < 0 || count > best_count) {
      best = j;
      best_count = count;
    }
  }
  return best;
}

std::string axis_label(const Eigen::Vector3d& v) {
  Eigen::Index k;
  double m = v.cwiseAbs().maxCoeff(&k);
  if (m < 0.999 * v.norm()) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "(%.3f, %.3f, %.3f)", v.x() / v.norm(), v.y() / v.norm(),
                  v.z() / v.norm());
    return buf;
  }
  return std::string(v[k] > 0 ? "+" : "-") + "XYZ"[k];
}

/// `e` without the rotation of its polar decomposition (e = R P, P symmetric): R^T e. What is
/// left of a skin's bind once the root's animated frame (a rotation) is taken out of it, the
/// skin's own scale (quantized positions) kept.
Eigen::Matrix4d without_rotation(const Eigen::Matrix4d& e) {
  Eigen::JacobiSVD<Eigen::Matrix3d> svd(e.topLeftCorner<3, 3>(),
                                        Eigen::ComputeFullU | Eigen::ComputeFullV);
  Eigen::Matrix3d r = svd.matrixU() * svd.matrixV().transpose();
  if (r.determinant() < 0) return e; // a mirror: leave it as the skin has it
  Eigen::Matrix4d out = Eigen::Matrix4d::Identity();
  out.topLeftCorner<3, 3>() = r.transpose() * e.topLeftCorner<3, 3>();
  out.topRightCorner<3, 1>() = r.transpose() * e.topRightCorner<3, 1>();
  return out;
}

/// One warning for every skin whose skin-to-world (from its skeleton root) differs from the
/// mesh node drawing it: "skins[s]: ... mesh node 'X' ..." for one, the skins and their mesh
/// nodes listed once for several.
std::string differing_warning(const std::vector<std::pair<int, std::string>>& differing) {
  const std::string tail = "; using the skeleton root (glTF ignores skinned mesh node transforms)";
  if (differing.size() == 1)
    return "skins[" + std::to_string(differing[0].first) +
           "]: skin-to-world from the skeleton root differs from mesh node " + differing[0].second +
           tail;
  std::string list;
  for (const auto& [s, mesh] : differing)
    list += (list.empty() ? "" : ", ") + ("skins[" + std::to_string(s) + "] (" + mesh + ")");
  return std::to_string(differing.size()) + " skins: skin-to-world from the skeleton root " +
         "differs from the mesh node drawing each: " + list + tail;
}

/// Is `l` a rotation times a uniform scale (l l^T = s^2 I within 1e-3 relative)?
bool is_similarity(const Eigen::Matrix3d& l) {
  const Eigen::Matrix3d g = l * l.transpose();
  const double s2 = g.trace() / 3;
  return s2 > 0 && (g / s2 - Eigen::Matrix3d::Identity()).cwiseAbs().maxCoeff() <= 1e-3;
}

/// Cross-checks skin s's skin-to-world map `m` (from its root joint `root`) with the mesh nodes
/// drawing the skin (see the top): may replace `m` by a mesh node's transform or take the
/// root's animated rotation out; appends how to `how`, and (skin, mesh node) to `differing`
/// when they disagree otherwise.
void cross_check_mesh_nodes(const Model& model, const std::vector<Eigen::Matrix4d>& world, int s,
                            int root, Eigen::Matrix4d& m, std::string& how,
                            std::vector<std::pair<int, std::string>>& differing) {
  // Cross-check with the mesh nodes drawing this skin. When they disagree with the root but
  // equal the root's parent (skin space == armature space, the Blender/FBX2glTF convention),
  // the root joint's saved TRS is an animated frame: use the mesh node.
  double scale = std::max(1e-12, m.topLeftCorner<3, 3>().cwiseAbs().maxCoeff());
  int parent = model.nodes[root].parent;
  Eigen::Matrix4d armature = parent >= 0 ? world[parent] : Eigen::Matrix4d::Identity();
  for (std::size_t n = 0; n < model.nodes.size(); ++n) {
    if (model.nodes[n].skin != s || model.nodes[n].mesh < 0 ||
        matrix_difference(world[n], m, scale) <= 1e-4)
      continue;
    std::string mesh_name = model.nodes[n].name.empty() ? "nodes[" + std::to_string(n) + "]"
                                                        : "'" + model.nodes[n].name + "'";
    // Only a rigid difference is an animated frame: when the root's bind maps skin space
    // with a scale the mesh node lacks, the skin's own transforms carry it (quantized
    // positions, KHR_mesh_quantization: the dequantisation folded into the IBMs), as glTF's
    // skinning and three.js apply them.
    const Eigen::Matrix3d e = (world[n].inverse() * m).topLeftCorner<3, 3>();
    const bool rigid =
        (e * e.transpose() - Eigen::Matrix3d::Identity()).cwiseAbs().maxCoeff() <= 1e-3;
    if (!rigid && is_similarity(m.topLeftCorner<3, 3>())) {
      // The skin maps to world by rotation and uniform scale alone and the mesh node adds a
      // scale of its own (Blender's exporter under an armature object scaled 100: every
      // joint's world x IBM is the identity). glTF ignores the mesh node: so does retail.
      how += ", mapping skin space to world itself, unlike mesh node " + mesh_name +
             " (its own scale, ignored as glTF does)";
    } else if (!rigid) {
      // The root's animated frame (a rotation) taken out when the mesh node is the armature.
      if (matrix_difference(world[n], armature, scale) <= 1e-4)
        m = world[n] * without_rotation(world[n].inverse() * m);
      how += ", its inverse bind matrix scaling skin space (dequantisation) unlike mesh node " +
             mesh_name;
    } else if (matrix_difference(world[n], armature, scale) <= 1e-4) {
      m = world[n];
      how = "mesh node " + mesh_name +
            " (= the armature's transform; the root joint's saved pose is not its bind pose)";
    } else {
      how += ", differs from mesh node " + mesh_name;
      differing.push_back({s, mesh_name});
    }
    break;
  }
  if (how.rfind("skeleton root", 0) == 0 && how.find("differs") == std::string::npos &&
      how.find("unlike") == std::string::npos)
    how += ", agrees with the mesh nodes";
}

void add_bind(const Document& doc, const Model& model, const std::vector<Eigen::Matrix4d>& world,
              const HeldSkins* held, Character& c) {
  std::map<int, int> index;
  std::vector<std::pair<int, std::string>> differing; // (skin, mesh node) that disagree
  for (int s : c.skins) {
    const Skin& skin = model.skins[s];
    if (skin.inverse_bind_matrices < 0)
      fail_unsupported("skins[" + std::to_string(s) +
                       "]: no inverseBindMatrices (retail takes the bind pose from them; re-export "
                       "with bind matrices)");
    const std::vector<Eigen::Matrix4d>* held_ibm = nullptr; // a planned re-rig's, in memory
    if (held && held->ibms.count(s)) held_ibm = &held->ibms.at(s);
    AccessorData ibm;
    if (!held_ibm) ibm = read_accessor(doc, model, skin.inverse_bind_matrices);
    auto ibm_of = [&](std::size_t k) -> Eigen::Matrix4d {
      if (held_ibm) return (*held_ibm)[k];
      return Eigen::Matrix4d(Eigen::Map<const Eigen::Matrix4d>(ibm.row(Eigen::Index(k)).data()));
    };
    int root = skin_root(model, skin);
    std::size_t root_k =
        std::size_t(std::find(skin.joints.begin(), skin.joints.end(), root) - skin.joints.begin());
    Eigen::Matrix4d m = world[root] * ibm_of(root_k);
    std::string how =
        "skeleton root '" + model.nodes[root].name + "' (nodes[" + std::to_string(root) + "])";
    cross_check_mesh_nodes(model, world, s, root, m, how, differing);
    c.skin_to_world.push_back(m);
    c.mapping.push_back(how);
    for (std::size_t k = 0; k < skin.joints.size(); ++k) {
      int node = skin.joints[k];
      if (index.count(node)) continue;
      index[node] = int(c.joints.size());
      c.joints.push_back(node);
      c.bind_world.push_back(m * ibm_of(k).inverse());
    }
  }
  if (!differing.empty()) c.warnings.push_back(differing_warning(differing));
  c.parent.assign(c.joints.size(), -1);
  for (std::size_t j = 0; j < c.joints.size(); ++j)
    for (int p = model.nodes[c.joints[j]].parent; p >= 0; p = model.nodes[p].parent)
      if (index.count(p)) {
        c.parent[j] = index[p];
        break;
      }
}

void measure_height(const Document& doc, const Model& model, const BindParams& params,
                    Character& c) {
  double lo = INFINITY, hi = -INFINITY;
  Eigen::Vector3d box_lo = Eigen::Vector3d::Constant(INFINITY), box_hi = -box_lo;
  for (std::size_t n = 0; n < model.nodes.size(); ++n) {
    const Node& node = model.nodes[n];
    if (node.mesh < 0 || node.skin < 0) continue;
    auto it = std::find(c.skins.begin(), c.skins.end(), node.skin);
    if (it == c.skins.end()) continue;
    const Eigen::Matrix4d& m = c.skin_to_world[std::size_t(it - c.skins.begin())];
    for (std::size_t p = 0; p < model.meshes[node.mesh].primitives.size(); ++p) {
      const Primitive& prim = model.meshes[node.mesh].primitives[p];
      auto pos = prim.attributes.find("POSITION");
      if (pos == prim.attributes.end()) continue;
      AccessorData v = read_accessor(doc, model, pos->second);
      c.primitives.push_back({int(n), node.mesh, int(p), node.skin, std::size_t(v.rows())});
      Eigen::RowVector4d row_y = m.row(1);
      for (Eigen::Index i = 0; i < v.rows(); ++i) {
        double y = row_y(0) * v(i, 0) + row_y(1) * v(i, 1) + row_y(2) * v(i, 2) + row_y(3);
        lo = std::min(lo, y);
        hi = std::max(hi, y);
      }
      for (Eigen::Index i = 0; i < v.rows(); ++i) {
        const Eigen::Vector3d w = (m * Eigen::Vector4d(v(i, 0), v(i, 1), v(i, 2), 1.0)).head<3>();
        box_lo = box_lo.cwiseMin(w);
        box_hi = box_hi.cwiseMax(w);
      }
    }
  }
  if (!(hi > lo)) {
    for (std::size_t j = 0; j < c.joints.size(); ++j) {
      lo = std::min(lo, c.bind_position(int(j)).y());
      hi = std::max(hi, c.bind_position(int(j)).y());
    }
    c.warnings.push_back("no skinned vertices: H measured from the joints");
  }
  if (!(hi > lo))
    fail_unsupported("skins[" + std::to_string(c.skins[0]) +
                     "]: the character has no height (H = 0)");
  c.min_y = lo;
  c.max_y = hi;
  c.height = hi - lo;
  c.extent = box_hi.x() >= box_lo.x() ? (box_hi - box_lo).maxCoeff() : c.height;
  c.scale = params.units_auto ? c.height / params.reference_height_m : 1.0;
  const Eigen::Matrix4d& m = c.skin_to_world[0];
  c.skin_units = m.topLeftCorner<3, 3>().col(0).norm();
  c.skin_up = axis_label(m.topLeftCorner<3, 3>().inverse() * Eigen::Vector3d::UnitY());
}

} // namespace

void require_measurable(const Character& c) {
  if (c.extent <= kMaxExtentH * c.height) return;
  char text[160];
  std::snprintf(text, sizeof text,
                "]: the skinned vertices span %.4g m, %.4g times H = %.4g m (the limit is %.0f: a "
                "vertex far from the rest; docs/robustness.md)",
                c.extent, c.extent / c.height, c.height, kMaxExtentH);
  fail_unsupported("skins[" + std::to_string(c.skins.front()) + text);
}

int Character::joint_index(int node) const {
  auto it = std::find(joints.begin(), joints.end(), node);
  return it == joints.end() ? -1 : int(it - joints.begin());
}

void BindParams::validate() const {
  if (!(reference_height_m > 0 && std::isfinite(reference_height_m)))
    throw Error(ExitCode::Usage, "--reference-height must be a finite number > 0 (got " +
                                     std::to_string(reference_height_m) + ")");
}

std::vector<Character> build_characters(const Document& doc, const Model& model,
                                        const BindParams& params, const HeldSkins* held) {
  params.validate();
  std::vector<Eigen::Matrix4d> world = world_matrices(model);
  std::vector<Character> out;
  std::set<int> drawn; // skins some mesh node is drawn with
  for (const Node& node : model.nodes)
    if (node.mesh >= 0 && node.skin >= 0) drawn.insert(node.skin);
  for (const auto& group : group_skins(model)) {
    if (std::none_of(group.begin(), group.end(), [&](int s) { return drawn.count(s) > 0; }))
      continue; // no mesh is drawn with these skins: nothing to re-rig or measure
    Character c;
    c.skins = group;
    add_bind(doc, model, world, held, c);
    measure_height(doc, model, params, c);
    c.roles = resolve_roles(doc, model, c, held);
    out.push_back(std::move(c));
  }
  return out;
}

} // namespace retail
