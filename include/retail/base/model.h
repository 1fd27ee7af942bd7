// retail — a validated, typed, read-only view of a glTF document's structure (built and
// checked by parse_model, validate.h).
#pragma once

#include "retail/base/document.h"

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace retail {

enum ComponentType : int {
  kByte = 5120,
  kUnsignedByte = 5121,
  kShort = 5122,
  kUnsignedShort = 5123,
  kUnsignedInt = 5125,
  kFloat = 5126,
};

struct BufferView {
  int buffer = 0;
  std::uint64_t byte_offset = 0;
  std::uint64_t byte_length = 0;
  int byte_stride = 0; ///< 0: tightly packed
};

struct SparseInfo {
  std::uint64_t count = 0;
  int indices_view = -1;
  std::uint64_t indices_offset = 0;
  int indices_component = kUnsignedInt;
  int values_view = -1;
  std::uint64_t values_offset = 0;
};

struct Accessor {
  int buffer_view = -1; ///< -1: all zeros (plus sparse)
  std::uint64_t byte_offset = 0;
  int component_type = kFloat;
  bool normalized = false;
  std::uint64_t count = 0;
  int components = 1; ///< SCALAR 1, VEC2 2, VEC3 3, VEC4 4, MAT2 4, MAT3 9, MAT4 16
  std::string type;
  std::optional<SparseInfo> sparse;
  std::string usage; ///< e.g. "WEIGHTS_0 of meshes[0].primitives[1]" (for messages)
};

struct Primitive {
  int mode = 4;
  int indices = -1;
  std::map<std::string, int> attributes; ///< semantic -> accessor
  int target_count = 0;
};

struct Mesh {
  std::string name;
  std::vector<Primitive> primitives;
};

struct Node {
  std::string name;
  int parent = -1;
  std::vector<int> children;
  int mesh = -1;
  int skin = -1;
  bool has_matrix = false;
  /// Column-major, when has_matrix (held apart: most nodes have none, and files can hold
  /// hundreds of thousands of nodes).
  std::shared_ptr<const std::array<double, 16>> matrix;
  std::array<double, 3> translation{0, 0, 0};
  std::array<double, 4> rotation{0, 0, 0, 1}; ///< x y z w
  std::array<double, 3> scale{1, 1, 1};
};

struct Skin {
  std::string name;
  std::vector<int> joints;
  int inverse_bind_matrices = -1; ///< accessor, or -1 when absent
  int skeleton = -1;
};

struct AnimationChannel {
  int sampler = 0;
  int node = -1; ///< -1: no target node (e.g. KHR_animation_pointer)
  std::string path;
};

struct AnimationSampler {
  int input = -1;
  int output = -1;
  std::string interpolation = "LINEAR";
};

struct Animation {
  std::string name;
  std::vector<AnimationChannel> channels;
  std::vector<AnimationSampler> samplers;
};

struct Model {
  std::vector<BufferView> buffer_views;
  std::vector<Accessor> accessors;
  std::vector<Mesh> meshes;
  std::vector<Node> nodes;
  std::vector<Skin> skins;
  std::vector<Animation> animations;
  std::vector<int> scene_roots; ///< roots of the default scene (or of every root node if none)
  std::vector<std::string> tolerated; ///< input problems retail accepts, one line each
};

/// Byte size of one component of `component_type` (0 for an unknown type).
int component_size(int component_type);

/// Components of an accessor type: SCALAR 1, VEC2 2, VEC3 3, VEC4/MAT2 4, MAT3 9, MAT4 16;
/// 0 for anything else.
int type_components(const std::string& type);

} // namespace retail
