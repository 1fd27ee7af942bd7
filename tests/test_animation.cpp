// Clip sampling by hand: STEP, LINEAR (slerp) and CUBICSPLINE (Hermite) keys; matrix nodes.
#include "retail/io/builder.h"
#include "retail/rig/animation.h"
#include "support.h"

#include <catch2/catch.hpp>
#include <cmath>

namespace test_animation {

using retail::Json;

TEST_CASE("animation: STEP - LINEAR slerp - CUBICSPLINE Hermite - matrix nodes - clamping",
          "[animation]") {
  retail::Document d;
  d.container = retail::Container::Glb;
  d.gltf = {{"asset", {{"version", "2.0"}}}};
  // Node 0 carries a matrix (translation 5, 0, 0) and no channel; nodes 1-3 are animated.
  d.gltf["nodes"] = Json::array(
      {{{"matrix", {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 5, 0, 0, 1}}, {"children", {1}}},
       {{"translation", {0, 0, 0}}},
       {{"name", "rot"}},
       {{"name", "cubic"}}});
  int times = retail::add_float_accessor(d, {0.0f, 1.0f}, "SCALAR", 0, true);
  int step = retail::add_float_accessor(d, {0, 0, 0, 2, 0, 0}, "VEC3", 0, false);
  // 0 -> 90 degrees about Z.
  float s = float(std::sqrt(0.5));
  int rot = retail::add_float_accessor(d, {0, 0, 0, 1, 0, 0, s, s}, "VEC4", 0, false);
  // Cubic: in-tangent, value, out-tangent per key; value 0 -> 1 in X, out-tangent 0, in-tangent 0.
  int cubic = retail::add_float_accessor(d, {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0},
                                         "VEC3", 0, false);
  Json samplers = {{{"input", times}, {"output", step}, {"interpolation", "STEP"}},
                   {{"input", times}, {"output", rot}, {"interpolation", "LINEAR"}},
                   {{"input", times}, {"output", cubic}, {"interpolation", "CUBICSPLINE"}}};
  Json channels = {{{"sampler", 0}, {"target", {{"node", 1}, {"path", "translation"}}}},
                   {{"sampler", 1}, {"target", {{"node", 2}, {"path", "rotation"}}}},
                   {{"sampler", 2}, {"target", {{"node", 3}, {"path", "translation"}}}}};
  d.gltf["animations"] = Json::array({{{"samplers", samplers}, {"channels", channels}}});
  d = test::reparse(d);
  retail::Model m = retail::parse_model(d);
  retail::ClipSampler clip(d, m, 0);
  CHECK(clip.duration() == 1.0);
  auto at = [&](double t) { return clip.locals(m, t); };
  CHECK(at(0.99)[1](0, 3) == 0.0); // STEP holds the first key until the second
  CHECK(at(1.0)[1](0, 3) == 2.0);
  Eigen::Matrix4d half = at(0.5)[2]; // slerp halfway: 45 degrees about Z
  CHECK(half(0, 0) == Approx(std::cos(M_PI / 4)).epsilon(1e-6));
  CHECK(half(1, 0) == Approx(std::sin(M_PI / 4)).epsilon(1e-6));
  // Hermite with zero tangents: 3u^2 - 2u^3; at u = 0.25: 0.15625.
  CHECK(at(0.25)[3](0, 3) == Approx(0.15625));
  CHECK(at(7.0)[3](0, 3) == Approx(1.0)); // past the end: the last key
  CHECK(at(-1.0)[3](0, 3) == Approx(0.0));
  auto world = retail::compose_world(m, at(1.0));
  CHECK(world[1](0, 3) == Approx(7.0)); // the matrix parent (5) plus the child's translation (2)
  // One node's world matrix along its ancestors only: exactly compose_world's.
  for (double t : {0.0, 0.3, 0.99, 1.0})
    for (int node = 0; node < 4; ++node) {
      CHECK(clip.local(m, node, t) == at(t)[std::size_t(node)]);
      CHECK(clip.world(m, node, t) == retail::compose_world(m, at(t))[std::size_t(node)]);
    }
  // Several nodes at once, sharing their ancestors (a child after its parent, a node twice, a
  // root): each exactly world()'s.
  const std::vector<int> nodes = {1, 0, 1, 3, 2};
  for (double t : {0.0, 0.3, 1.0}) {
    const std::vector<Eigen::Matrix4d> w = clip.worlds(m, nodes, t);
    REQUIRE(w.size() == nodes.size());
    for (std::size_t k = 0; k < nodes.size(); ++k) CHECK(w[k] == clip.world(m, nodes[k], t));
  }
  CHECK(clip.worlds(m, {}, 0.5).empty());
}

} // namespace test_animation
