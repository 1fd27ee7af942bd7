// retail — sampling clips: local transforms of every node at a time (glTF 2.0 §3.11).
#pragma once

#include "retail/base/document.h"
#include "retail/base/model.h"

#include <Eigen/Geometry>
#include <string>
#include <vector>

namespace retail {

/// A LINEAR rotation track clip `clip` will hold once written with float accessors: keys held
/// in memory (a bake's, before they are written), for ClipSampler::add_rotation_track.
struct RotationTrack {
  int clip = -1;
  int node = -1;
  std::vector<float> times; ///< seconds, ascending
  std::vector<float> xyzw;  ///< 4 per key
};

/// One clip's channels with their keys read once, for sampling at many times.
/// TRS channels only (morph weights and pointer channels are ignored). Interpolation: STEP,
/// LINEAR (slerp for rotations, shortest arc) and CUBICSPLINE (Hermite, rotations normalised).
/// Times outside the keys clamp to the first/last key.
class ClipSampler {
public:
  /// Pre: model from parse_model(doc); `animation` a valid index.
  ClipSampler(const Document& doc, const Model& model, int animation);

  double duration() const { return duration_; }

  /// Adds a LINEAR rotation track on `node` as the clip would hold it once written with float
  /// accessors: `times` (seconds, ascending) as the sampler's input, `xyzw` (4 per key) as its
  /// output, after the tracks read from the file (so it wins over an earlier rotation track of
  /// the same node, as a later channel does). The bake measures its keys before writing them.
  /// Pre: node is an index of the model given at construction; xyzw.size() == 4 times.size().
  /// Failure: std::invalid_argument when either does not hold (a caller's bug, not file data).
  void add_rotation_track(int node, const std::vector<float>& times,
                          const std::vector<float>& xyzw);

  /// Local matrices of all nodes at time t: animated channels replace the saved T, R or S.
  std::vector<Eigen::Matrix4d> locals(const Model& model, double t) const;

  /// Local matrix of one node at time t, without sampling the others: its channels replace the
  /// saved T, R or S (a later channel of the same path wins); a matrix node without channels
  /// keeps its matrix. locals() is this for every node.
  Eigen::Matrix4d local(const Model& model, int node, double t) const;

  /// World matrix of one node at time t: compose_world(model, locals(model, t))[node], the same
  /// products in the same order, computed along its ancestors only.
  Eigen::Matrix4d world(const Model& model, int node, double t) const;

  /// world() of each of `nodes` (in their order) at time t, each ancestor's local matrix sampled
  /// once for them all: the same products in the same order, so the same bits as world().
  std::vector<Eigen::Matrix4d> worlds(const Model& model, const std::vector<int>& nodes,
                                      double t) const;

private:
  struct Track {
    int node = -1;
    int path = 0;          ///< 0 translation, 1 rotation, 2 scale
    int interpolation = 1; ///< 0 STEP, 1 LINEAR, 2 CUBICSPLINE
    std::vector<double> times;
    std::vector<Eigen::Vector4d> values; ///< per key (CUBICSPLINE: in-tangent, value, out-tangent)
  };
  Eigen::Vector4d sample(const Track& track, double t) const;
  std::vector<Track> tracks_;
  std::vector<std::vector<int>> node_tracks_; ///< per node: its tracks, in track order
  double duration_ = 0;
};

/// Duration of animation `index` in seconds: the largest input time of all its samplers (morph
/// and pointer channels too), as `retail info` reports it and the clip pass orders its work by.
/// ClipSampler::duration() is the part of it its TRS tracks span (what the bake and the stretch
/// sample). Pre: `model` from parse_model(doc).
double clip_duration(const Document& doc, const Model& model, int index);

/// Saved local matrices (no clip).
std::vector<Eigen::Matrix4d> saved_locals(const Model& model);

/// A clip's name without the armature prefix Blender writes before it: the part after its last
/// '|' ("CharacterArmature|Walk" -> "Walk"); the whole name when it has none.
std::string clip_base_name(const std::string& name);

/// World matrices from local ones along the hierarchy.
std::vector<Eigen::Matrix4d> compose_world(const Model& model,
                                           const std::vector<Eigen::Matrix4d>& locals);

} // namespace retail
