// Reference skinning for the tests (reference_skinning.h).
#include "retail/reference_skinning.h"

#include "retail/io/accessor.h"
#include "retail/rig/skinning.h"

namespace retail {

Eigen::MatrixX3d skin_primitive(const Document& doc, const Model& model, int mesh, int primitive,
                                int skin_index, const std::vector<Eigen::Matrix4d>& world) {
  const Primitive& p = model.meshes[std::size_t(mesh)].primitives[std::size_t(primitive)];
  const Skin& skin = model.skins[std::size_t(skin_index)];
  AccessorData pos = read_accessor(doc, model, p.attributes.at("POSITION"));
  AccessorData ibm = read_accessor(doc, model, skin.inverse_bind_matrices);
  std::vector<Eigen::Matrix4d> joint(skin.joints.size());
  for (std::size_t k = 0; k < skin.joints.size(); ++k)
    joint[k] = world[std::size_t(skin.joints[k])] *
               Eigen::Map<const Eigen::Matrix4d>(ibm.row(Eigen::Index(k)).data());
  Eigen::MatrixX3d out = Eigen::MatrixX3d::Zero(pos.rows(), 3);
  Eigen::VectorXd total = Eigen::VectorXd::Zero(pos.rows());
  for_each_influence(doc, model, p, [&](std::size_t v, int, std::uint32_t ji, double wv) {
    if (ji >= joint.size()) return;
    Eigen::Vector4d x(pos(Eigen::Index(v), 0), pos(Eigen::Index(v), 1), pos(Eigen::Index(v), 2),
                      1.0);
    out.row(Eigen::Index(v)) += wv * (joint[ji] * x).head<3>().transpose();
    total[Eigen::Index(v)] += wv;
  });
  for (Eigen::Index v = 0; v < pos.rows(); ++v)
    if (total[v] > 0) out.row(v) /= total[v];
  return out;
}

} // namespace retail
