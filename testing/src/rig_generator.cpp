// generate_rig: skeleton, tube meshes, auto-rigger-style weights and ground truth
// (rig_generator.h).
#include "retail/rig_generator.h"

#include "retail/base/error.h"
#include "retail/io/builder.h"
#include "rig_generator_internal.h"

#include <array>
#include <cmath>

namespace retail {

using Eigen::Vector3d;
using gen::MeshBuild;
using gen::Skeleton;
using gen::TubeSpec;
using gen::WeightFn;
using gen::Weights;

namespace {
const char* kPieceNames[] = {"body",   "tail",     "ears",  "cape",      "skirt",
                             "sheath", "hair",     "braid", "long_hair", "short_hair",
                             "hat",    "cat_ears", "hood",  "scarf"};
/// The truth lists "hair" only for a rig with a ponytail, the later names only for a rig with
/// one of the later head pieces (the hood and scarf names only with one of those).
constexpr int kClassicPieces = 6, kHeadPieces = 12, kAllPieces = 14;
} // namespace

void gen::add_tube(MeshBuild& m, const Skeleton& sk, const TubeSpec& spec, WeightFn weight,
                   const void* ctx) {
  const auto& c = spec.centre;
  int n = int(c.size()), segs = spec.segments, per_ring = segs + (spec.seam ? 1 : 0);
  Vector3d t0 = (c[1] - c[0]).normalized();
  Vector3d ref = std::abs(t0.x()) < 0.9 ? Vector3d::UnitX() : Vector3d::UnitZ();
  Vector3d normal = (ref - ref.dot(t0) * t0).normalized();
  std::vector<int> first(static_cast<std::size_t>(n));
  for (int k = 0; k < n; ++k) {
    Vector3d tan =
        (c[std::size_t(std::min(k + 1, n - 1))] - c[std::size_t(std::max(k - 1, 0))]).normalized();
    normal = (normal - normal.dot(tan) * tan).normalized();
    Vector3d bin = tan.cross(normal);
    double t = double(k) / double(n - 1);
    first[std::size_t(k)] = int(m.pos.size());
    for (int s = 0; s < per_ring; ++s) {
      double a = 2 * M_PI * double(s % segs) / double(segs);
      Vector3d p =
          c[std::size_t(k)] +
          spec.radius[std::size_t(k)] * (std::cos(a) * normal + spec.flatten * std::sin(a) * bin);
      m.add(p, {double(s) / segs, t}, weight(sk, t, k, n, p, ctx), spec.piece);
    }
  }
  for (int k = 0; k + 1 < n; ++k)
    for (int s = 0; s < segs; ++s) {
      int s1 = spec.seam ? s + 1 : (s + 1) % segs;
      int a = first[std::size_t(k)] + s, b = first[std::size_t(k)] + s1;
      int d = first[std::size_t(k + 1)] + s, e = first[std::size_t(k + 1)] + s1;
      m.tri(a, b, d);
      m.tri(b, e, d);
    }
  if (!spec.caps) return;
  for (int end = 0; end < 2; ++end) {
    int k = end ? n - 1 : 0;
    Vector3d p = c[std::size_t(k)];
    int centre =
        m.add(p, {0.5, end ? 1.0 : 0.0}, weight(sk, end ? 1.0 : 0.0, k, n, p, ctx), spec.piece);
    for (int s = 0; s < segs; ++s) {
      int a = first[std::size_t(k)] + s,
          b = first[std::size_t(k)] + (spec.seam ? s + 1 : (s + 1) % segs);
      if (end)
        m.tri(a, b, centre);
      else
        m.tri(b, a, centre);
    }
  }
}

namespace {

Weights fixed_weight(const Skeleton&, double, int, int, const Vector3d&, const void* ctx) {
  return *static_cast<const Weights*>(ctx);
}

struct BlendCtx {
  int top, bottom;
};

Weights blend_weight(const Skeleton&, double t, int, int, const Vector3d&, const void* ctx) {
  const auto* c = static_cast<const BlendCtx*>(ctx);
  return {{c->top, 1 - t}, {c->bottom, t}};
}

void add_pieces(MeshBuild& skin, MeshBuild& extra, const Skeleton& sk, const RigOptions& o,
                double k, std::vector<Vector3d>& centreline) {
  int segs = o.tube_segments;
  if (o.tail != TailStyle::None) centreline = gen::add_tail(skin, extra, sk, o, k);
  if (o.ears) {
    Weights head{{sk.find("Head"), 1.0}};
    for (double sx : {1.0, -1.0}) {
      TubeSpec spec;
      for (int i = 0; i <= 4; ++i) {
        double t = i / 4.0;
        spec.centre.push_back(Vector3d(sx * (0.05 + 0.11 * t), 1.70 + 0.22 * t, 0) * k);
        spec.radius.push_back((0.035 - 0.03 * t) * k);
      }
      spec.segments = std::max(3, segs / 2);
      spec.piece = gen::kEars;
      add_tube(skin, sk, spec, fixed_weight, &head);
    }
  }
  if (o.cape) { // a broad sheet behind the back, Spine2 at the top blending into Spine
    BlendCtx ctx{sk.find("Spine2"), sk.find("Spine")};
    int rows = 10, cols = 9, first = int(extra.pos.size());
    for (int r = 0; r < rows; ++r)
      for (int c = 0; c < cols; ++c) {
        double v = double(r) / (rows - 1), u = double(c) / (cols - 1);
        Vector3d p = Vector3d(-0.3 + 0.6 * u, 1.40 - 0.70 * v, -0.15 - 0.10 * v) * k;
        extra.add(p, {u, v}, blend_weight(sk, v, r, rows, p, &ctx), gen::kCape);
      }
    for (int r = 0; r + 1 < rows; ++r)
      for (int c = 0; c + 1 < cols; ++c) {
        int a = first + r * cols + c;
        extra.tri(a, a + cols, a + 1);
        extra.tri(a + 1, a + cols, a + cols + 1);
      }
  }
  if (o.skirt) { // an open cone around the hips, spread over hips and thighs
    Weights w{{sk.find("Hips"), 0.5}, {sk.find("LeftUpLeg"), 0.25}, {sk.find("RightUpLeg"), 0.25}};
    TubeSpec spec;
    for (int i = 0; i <= 6; ++i) {
      double t = i / 6.0;
      spec.centre.push_back(Vector3d(0, 0.95 - 0.40 * t, 0) * k);
      spec.radius.push_back((0.14 + 0.16 * t) * k);
    }
    spec.segments = 2 * segs;
    spec.caps = false;
    spec.piece = gen::kSkirt;
    add_tube(extra, sk, spec, fixed_weight, &w);
  }
  if (o.sheath) { // a long thin case slung diagonally across the back, on Spine1
    Weights w{{sk.find("Spine1"), 1.0}};
    TubeSpec spec;
    for (int i = 0; i <= 6; ++i) {
      double t = i / 6.0;
      spec.centre.push_back(Vector3d(0.12 - 0.28 * t, 1.35 - 0.57 * t, -0.19 - 0.03 * t) * k);
      spec.radius.push_back(0.03 * k);
    }
    spec.segments = std::max(3, segs / 2);
    spec.piece = gen::kSheath;
    add_tube(extra, sk, spec, fixed_weight, &w);
  }
}

} // namespace

const char* tail_style_name(TailStyle style) {
  switch (style) {
  case TailStyle::None:
    return "none";
  case TailStyle::Carried:
    return "carried";
  case TailStyle::Hanging:
    return "hanging";
  case TailStyle::Curled:
    return "curled";
  case TailStyle::Short:
    return "short";
  case TailStyle::Thin:
    return "thin";
  case TailStyle::Pressed:
    return "pressed";
  case TailStyle::Rolled:
    return "rolled";
  }
  return "none";
}

void RigOptions::validate() const {
  if (!(height_m > 0)) throw Error(ExitCode::Usage, "height must be positive");
  if (tail_spikes < 0 || tail_spikes > 64)
    throw Error(ExitCode::Usage, "tail spikes must be 0..64");
  if (!(tail_length_scale > 0 && tail_length_scale <= 10) ||
      !(tail_radius_scale > 0 && tail_radius_scale <= 10))
    throw Error(ExitCode::Usage, "tail length and radius scales must be in (0, 10]");
  if (!(tail_curl_deg >= 30 && tail_curl_deg <= 540))
    throw Error(ExitCode::Usage, "tail curl must be 30..540 degrees");
  if (tube_segments < 3) throw Error(ExitCode::Usage, "tube segments must be at least 3");
  if (ring_subdivision < 1 || ring_subdivision > 1000)
    throw Error(ExitCode::Usage, "ring subdivision must be 1..1000");
  if (vrm < -1 || vrm > 1) throw Error(ExitCode::Usage, "vrm must be -1 (none), 0 or 1");
  if (leftover_bone < 0 || leftover_bone > 0.6)
    throw Error(ExitCode::Usage, "a leftover bone's length must be 0..0.6");
  if (hips_ahead < 0 || hips_ahead > 0.8 || hips_above < 0 || hips_above > 0.8)
    throw Error(ExitCode::Usage, "hips offsets must be 0..0.8");
  if (!(hair_length_scale > 0 && hair_length_scale <= 4) ||
      !(hair_radius_scale > 0 && hair_radius_scale <= 4))
    throw Error(ExitCode::Usage, "hair length and radius scales must be in (0, 4]");
  if (hair_strands != 0 && (hair_strands < 3 || hair_strands > 24))
    throw Error(ExitCode::Usage, "hair strands must be 0 or 3..24");
  const bool head =
      ponytail || braid || long_hair || short_hair || hat || cat_ears || hood || scarf;
  if (horizontal_body && (ears || cape || skirt || sheath || head || vrm >= 0 || thick_base))
    throw Error(ExitCode::Usage, "a horizontal body takes no ears, cape, skirt, sheath, head "
                                 "pieces, vrm or thick base");
}

void write_skeleton_nodes(Document& doc, Skeleton& sk, const RigOptions& o);
Json write_primitive(Document& doc, const MeshBuild& m, const Skeleton& sk, int material);

namespace {

/// The ground truth (rig_generator.h's GeneratedRig::truth) of the pieces built.
Json make_truth(const RigOptions& o, const MeshBuild& skin, const MeshBuild& extra,
                const std::vector<std::pair<std::string, MeshBuild>>& head_pieces,
                const std::vector<Vector3d>& centreline) {
  const bool later = o.braid || o.long_hair || o.short_hair || o.hat || o.cat_ears,
             latest = o.hood || o.scarf;
  Json truth = Json::object();
  truth["schema"] = "retail.truth/1";
  truth["height_m"] = o.height_m;
  truth["pieces"] = Json::array();
  const int names = latest       ? kAllPieces
                    : later      ? kHeadPieces
                    : o.ponytail ? kClassicPieces + 1
                                 : kClassicPieces;
  for (int p = 0; p < names; ++p) truth["pieces"].push_back(kPieceNames[p]);
  truth["membership"] = Json::array({skin.piece});
  if (!extra.pos.empty()) truth["membership"].push_back(extra.piece);
  for (const auto& hp : head_pieces) truth["membership"].push_back(hp.second.piece);
  Json line = Json::array();
  for (const auto& p : centreline) line.push_back({p.x(), p.y(), p.z()});
  truth["tail_centreline"] = line;
  truth["tail_shells"] = o.tail == TailStyle::None ? 0 : o.tail_two_shells ? 2 : 1;
  truth["options"] = {{"mixamo_prefix", o.mixamo_prefix},
                      {"centimetres", o.centimetres},
                      {"rotated", o.rotated},
                      {"tail", tail_style_name(o.tail)},
                      {"ears", o.ears},
                      {"cape", o.cape},
                      {"skirt", o.skirt},
                      {"sheath", o.sheath}};
  // The tail-class options only when set (the original styles' truth is unchanged).
  Json& opt = truth["options"];
  if (o.tail_spikes) opt["tail_spikes"] = o.tail_spikes;
  if (o.thick_base) opt["thick_base"] = true;
  if (o.ponytail) opt["ponytail"] = true;
  for (const auto& [on, name] :
       {std::pair{o.braid, "braid"}, std::pair{o.long_hair, "long_hair"},
        std::pair{o.short_hair, "short_hair"}, std::pair{o.hat, "hat"},
        std::pair{o.cat_ears, "cat_ears"}, std::pair{o.hood, "hood"}, std::pair{o.scarf, "scarf"},
        std::pair{o.hair_close, "hair_close"}})
    if (on) opt[name] = true;
  if (o.hair_split_weights) opt["hair_split_weights"] = true;
  if (o.hair_strands) opt["hair_strands"] = o.hair_strands;
  if (o.hair_length_scale != 1) opt["hair_length_scale"] = o.hair_length_scale;
  if (o.hair_radius_scale != 1) opt["hair_radius_scale"] = o.hair_radius_scale;
  if (o.vrm >= 0) opt["vrm"] = o.vrm;
  if (o.tail_length_scale != 1) opt["tail_length_scale"] = o.tail_length_scale;
  if (o.tail_radius_scale != 1) opt["tail_radius_scale"] = o.tail_radius_scale;
  if (o.tail == TailStyle::Curled) opt["tail_curl_deg"] = o.tail_curl_deg;
  if (o.leftover_bone > 0) opt["leftover_bone"] = o.leftover_bone;
  if (o.horizontal_body) opt["horizontal_body"] = {o.hips_ahead, o.hips_above}; // the hips offsets
  return truth;
}

} // namespace

GeneratedRig generate_rig(const RigOptions& o) {
  o.validate();
  double k =
      o.height_m / 1.8; // the skeleton is authored for a 1.8 m figure (H is measured on the mesh)
  Skeleton sk = gen::make_skeleton(k, o);
  if (o.rotated) sk.rotation = Eigen::AngleAxisd(-M_PI / 2, Vector3d::UnitX()).toRotationMatrix();
  if (o.centimetres) sk.node_scale = 0.01;
  MeshBuild skin, extra;
  gen::add_body(skin, sk, k, o.tube_segments, 4 * o.ring_subdivision, o.horizontal_body);
  if (o.thick_base) gen::add_haunch(skin, sk, k, o.tube_segments, o.ring_subdivision);
  if (o.leftover_bone > 0) gen::add_leftover_bone(sk, skin, k, o.leftover_bone);
  std::vector<Vector3d> centreline;
  add_pieces(skin, extra, sk, o, k, centreline);
  const auto head_pieces = gen::add_head_pieces(sk, o, k);

  GeneratedRig rig;
  Document& doc = rig.doc;
  doc.container = Container::Glb;
  doc.gltf = {{"asset", {{"version", "2.0"}, {"generator", "retail make_test_rig"}}}};
  doc.gltf["scene"] = 0;
  doc.gltf["materials"] = Json::array(
      {{{"name", "Skin"}, {"pbrMetallicRoughness", {{"baseColorFactor", {0.8, 0.55, 0.3, 1.0}}}}},
       {{"name", "Fur and cloth"},
        {"pbrMetallicRoughness", {{"baseColorFactor", {0.9, 0.9, 0.85, 1.0}}}}}});
  write_skeleton_nodes(doc, sk, o);
  Json prims = Json::array({write_primitive(doc, skin, sk, 0)});
  if (!extra.pos.empty()) prims.push_back(write_primitive(doc, extra, sk, 1));
  doc.gltf["meshes"] = Json::array({{{"name", "Character"}, {"primitives", prims}}});
  if (!head_pieces.empty())
    doc.gltf["materials"].push_back(
        {{"name", "Hair"}, {"pbrMetallicRoughness", {{"baseColorFactor", {0.3, 0.2, 0.1, 1.0}}}}});
  for (const auto& [name, m] : head_pieces) {
    const int mesh = int(doc.gltf["meshes"].size());
    doc.gltf["meshes"].push_back(
        {{"name", name}, {"primitives", Json::array({write_primitive(doc, m, sk, 2)})}});
    Json node = {{"name", name}, {"mesh", mesh}, {"skin", 0}};
    if (o.rotated) node["rotation"] = doc.gltf["nodes"].back()["rotation"];
    if (o.centimetres) node["scale"] = doc.gltf["nodes"].back()["scale"];
    doc.gltf["scenes"][0]["nodes"].push_back(append_to_array(doc.gltf, "nodes", node));
  }
  if (o.clips) gen::add_clips(doc, sk, k, !head_pieces.empty(), o.leg_sweep);
  if (o.vrm >= 0) gen::add_vrm_metadata(doc, sk, o.vrm, k);

  rig.truth = make_truth(o, skin, extra, head_pieces, centreline);
  return rig;
}

void write_skeleton_nodes(Document& doc, Skeleton& sk, const RigOptions& o) {
  Json nodes = Json::array();
  Eigen::Quaterniond rq(sk.rotation);
  Json arm_rot = {rq.x(), rq.y(), rq.z(), rq.w()};
  auto armature_trs = [&](Json& n) {
    if (o.rotated) n["rotation"] = arm_rot;
    if (o.centimetres) n["scale"] = {sk.node_scale, sk.node_scale, sk.node_scale};
  };
  Json armature = {{"name", "Armature"}};
  armature_trs(armature);
  nodes.push_back(armature);
  std::string prefix = o.mixamo_prefix ? "mixamorig:" : "";
  for (std::size_t i = 0; i < sk.joints.size(); ++i) {
    gen::Joint& j = sk.joints[i];
    j.node = int(nodes.size());
    Vector3d local =
        sk.to_armature(j.world) -
        (j.parent >= 0 ? sk.to_armature(sk.joints[std::size_t(j.parent)].world) : Vector3d::Zero());
    nodes.push_back(
        {{"name", prefix + j.name}, {"translation", {local.x(), local.y(), local.z()}}});
  }
  for (const auto& j : sk.joints) {
    Json& parent =
        j.parent >= 0 ? nodes[std::size_t(sk.joints[std::size_t(j.parent)].node)] : nodes[0];
    if (!parent.contains("children")) parent["children"] = Json::array();
    parent["children"].push_back(j.node);
  }
  Json mesh_node = {{"name", "Character"}, {"mesh", 0}, {"skin", 0}};
  armature_trs(mesh_node);
  nodes.push_back(mesh_node);
  doc.gltf["nodes"] = nodes;
  doc.gltf["scenes"] = Json::array({{{"name", "Scene"}, {"nodes", {0, int(nodes.size()) - 1}}}});
  std::vector<float> ibm;
  Json joints = Json::array();
  for (const auto& j : sk.joints) {
    Vector3d p = sk.to_armature(j.world);
    float m[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, float(-p.x()), float(-p.y()), float(-p.z()),
                   1};
    ibm.insert(ibm.end(), m, m + 16);
    joints.push_back(j.node);
  }
  int acc = add_float_accessor(doc, ibm, "MAT4", 0, false);
  doc.gltf["skins"] = Json::array({{{"name", "Armature"},
                                    {"joints", joints},
                                    {"inverseBindMatrices", acc},
                                    {"skeleton", sk.joints[0].node}}});
}

Json write_primitive(Document& doc, const MeshBuild& m, const Skeleton& sk, int material) {
  std::vector<float> pos, uv;
  std::vector<std::uint32_t> joints, weights;
  for (std::size_t i = 0; i < m.pos.size(); ++i) {
    Vector3d p = sk.to_armature(m.pos[i]);
    pos.insert(pos.end(), {float(p.x()), float(p.y()), float(p.z())});
    uv.insert(uv.end(), {float(m.uv[i].x()), float(m.uv[i].y())});
    // Up to 4 influences, largest first (ties: lower joint), quantised to bytes summing to 255.
    std::vector<std::pair<double, int>> w;
    for (const auto& [jn, wt] : m.weights[i])
      if (wt > 0) w.push_back({-wt, jn});
    std::sort(w.begin(), w.end());
    w.resize(std::min<std::size_t>(4, w.size()));
    double sum = 0;
    for (auto& e : w) sum -= e.first;
    int left = 255;
    for (std::size_t k = 0; k < 4; ++k) {
      if (k < w.size()) {
        int q = k + 1 == w.size() ? left : int(std::lround(-w[k].first / sum * 255));
        q = std::min(q, left);
        left -= q;
        joints.push_back(std::uint32_t(w[k].second));
        weights.push_back(std::uint32_t(q));
      } else {
        joints.push_back(0);
        weights.push_back(0);
      }
    }
  }
  Json attrs = Json::object();
  attrs["POSITION"] = add_float_accessor(doc, pos, "VEC3", 34962, true);
  attrs["TEXCOORD_0"] = add_float_accessor(doc, uv, "VEC2", 34962, false);
  attrs["JOINTS_0"] = add_uint_accessor(doc, joints, 5121, "VEC4", 34962, false);
  attrs["WEIGHTS_0"] = add_uint_accessor(doc, weights, 5121, "VEC4", 34962, true);
  int ind =
      add_uint_accessor(doc, m.indices, m.pos.size() > 65535 ? 5125 : 5123, "SCALAR", 34963, false);
  return {{"attributes", attrs}, {"indices", ind}, {"material", material}};
}

} // namespace retail
