// Shared between rig_generator.cpp (skeleton, body, pieces, writing), rig_generator_tails.cpp
// (the tail in every class, spikes, the thick haunch) and rig_generator_anim.cpp (clips).
#pragma once

#include "retail/base/document.h"
#include "retail/rig_generator.h"

#include <Eigen/Geometry>
#include <cstdint>
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

using Weights = std::map<int, double>; ///< joint -> weight

/// Piece of every generated vertex (the truth's "pieces" names, in this order).
enum PieceKind {
  kBody,
  kTail,
  kEars,
  kCape,
  kSkirt,
  kSheath,
  kHair,
  kBraid,
  kLongHair,
  kShortHair,
  kHat,
  kCatEars,
  kHood,
  kScarf
};

/// One primitive under construction (world positions).
struct MeshBuild {
  std::vector<Eigen::Vector3d> pos;
  std::vector<Eigen::Vector2d> uv;
  std::vector<Weights> weights;
  std::vector<std::uint32_t> indices;
  std::vector<int> piece;
  int add(const Eigen::Vector3d& p, const Eigen::Vector2d& t, const Weights& w, int pc) {
    pos.push_back(p);
    uv.push_back(t);
    weights.push_back(w);
    piece.push_back(pc);
    return int(pos.size()) - 1;
  }
  void tri(int a, int b, int c) {
    indices.insert(indices.end(), {std::uint32_t(a), std::uint32_t(b), std::uint32_t(c)});
  }
};

/// Weight callback for tubes: ring parameter t in [0,1] along the centreline, ring index, position.
using WeightFn = Weights (*)(const Skeleton&, double t, int ring, int rings,
                             const Eigen::Vector3d& p, const void* ctx);

struct TubeSpec {
  std::vector<Eigen::Vector3d> centre;
  std::vector<double> radius;
  int segments = 12;
  bool seam = false; ///< duplicate the first vertex of every ring (UV seam)
  bool caps = true;
  int piece = kBody;
  double flatten = 1; ///< the ring's extent across its first frame axis x this (a flat tube)
};

/// Appends a tube (rings around `centre`, optional end caps). Frames are parallel-transported.
void add_tube(MeshBuild& m, const Skeleton& sk, const TubeSpec& spec, WeightFn weight,
              const void* ctx);

/// The humanoid's skeleton (world metres x `k`, facing +Z); with RigOptions::horizontal_body,
/// the horizontal body's: the same joint names plus a root "Body" carrying the legs and the
/// hips.
Skeleton make_skeleton(double k, const RigOptions& o);

/// The body of `sk` (tubes along its bones, chain-weighted), humanoid or horizontal.
void add_body(MeshBuild& m, const Skeleton& sk, double k, int segments, int per_bone,
              bool horizontal);

/// RigOptions::leftover_bone: appends the joint "Back" under the hips, `length` x `k` back into
/// the tail's root, and hands it part of the weight of the body skin of `m` around its bone.
void add_leftover_bone(Skeleton& sk, MeshBuild& m, double k, double length);

/// Thick base (RigOptions::thick_base): a barrel along Z around the hips, weighted like an
/// auto-rigger (nearest torso and thigh bones). Piece: body.
void add_haunch(MeshBuild& m, const Skeleton& sk, double k, int segments, int subdivision);

/// The tail of `o.tail` (not None) with its options: skin shell (and fur shell in `extra`),
/// spikes; returns its centreline (world). Carried and Hanging with default scales, no spikes
/// and no thick base are exactly the original generator's tails.
std::vector<Eigen::Vector3d> add_tail(MeshBuild& skin, MeshBuild& extra, const Skeleton& sk,
                                      const RigOptions& o, double k);

/// The head pieces RigOptions asks for (ponytail, braid, long hair, short hair, hat, cat ears, in
/// that order), each a mesh of its own: its name ("Ponytail", "Braid", "LongHair", "ShortHair",
/// "Hat", "CatEars") and geometry (world), weighted 1.0 to the head or, with
/// RigOptions::hair_split_weights, split by height across head, neck, Spine2 and a shoulder.
std::vector<std::pair<std::string, MeshBuild>> add_head_pieces(const Skeleton& sk,
                                                               const RigOptions& o, double k);

/// Writes the clips (Walk, HipSwing, Crouch, Idle; HeadTurn when `head_turn`) as LINEAR keys at
/// 30 fps.
void add_clips(Document& doc, const Skeleton& skeleton, double k, bool head_turn = false,
               bool leg_sweep = false);

/// VRM metadata (RigOptions::vrm, `version` 0 or 1): the humanoid map, a three-node spring tuft
/// under the head (not skin joints) respecting the head's collider group, and collider groups on
/// the head, the hips and the upper legs (VRM 0: one group per node, a capsule as two spheres;
/// VRM 1: groups "Head" and "Lower body", capsules on the legs). Appends nodes after the others.
void add_vrm_metadata(Document& doc, const Skeleton& skeleton, int version, double k);

} // namespace retail::gen
