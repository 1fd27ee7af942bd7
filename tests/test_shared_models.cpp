// The shared real models (../shared/data), read in place: faithful copies, roles, and an
// independent reader (tinygltf) agreeing with ours. Skipped, and said so, without the folder.
#include "retail/app/pipeline.h"
#include "retail/base/files.h"
#include "retail/io/accessor.h"
#include "retail/io/io.h"
#include "retail/qa/stretch.h"
#include "retail/rig/animation.h"
#include "support.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <tiny_gltf.h>

namespace test_shared_models {

namespace fs = std::filesystem;
using retail::Json;

namespace {

bool keep_image_bytes(tinygltf::Image* image, const int, std::string*, std::string*, int, int,
                      const unsigned char* bytes, int size, void*) {
  image->image.assign(bytes, bytes + size); // never decode: we only need the file to load
  return true;
}

/// Bytes of buffer view `v` (validated documents only).
retail::Bytes view_bytes(const retail::Document& d, std::size_t v) {
  const Json& view = d.gltf["bufferViews"][v];
  const auto& buf = d.buffers[view["buffer"].get<std::size_t>()];
  std::size_t off = view.value("byteOffset", std::size_t(0)),
              len = view["byteLength"].get<std::size_t>();
  return retail::Bytes(buf.begin() + long(off), buf.begin() + long(off + len));
}

} // namespace

TEST_CASE("shared: models without a tail are copied faithfully - all deterministically",
          "[shared]") {
  std::string data = test::shared_data();
  if (data.empty()) return;
  auto files = test::model_files(data);
  REQUIRE_FALSE(files.empty());
  for (const auto& in : files) {
    INFO(in);
    std::string dir = test::temp_dir(), ext = fs::path(in).extension().string();
    std::string a = dir + "/a" + ext, b = dir + "/b" + ext;
    retail::RunParams params;
    retail::RunResult ra, rb;
    REQUIRE_NOTHROW(ra = retail::run(in, a, params));
    REQUIRE_NOTHROW(rb = retail::run(in, b, params));
    CHECK(retail::read_file(a) == retail::read_file(b));
    bool rerigged = false;
    for (const auto& c : ra.characters) rerigged = rerigged || !c.chains.empty();
    CHECK(rerigged == (in.find("auto-rigged") != std::string::npos));
    if (rerigged) continue; // tail files: tests/test_shared_tail.cpp
    retail::Document din = retail::read_document(in), dout = retail::read_document(a);
    CHECK(test::normalize_defaults(dout.gltf) == test::normalize_defaults(din.gltf));
    REQUIRE(dout.gltf.value("bufferViews", Json::array()).size() ==
            din.gltf.value("bufferViews", Json::array()).size());
    for (std::size_t v = 0; v < din.gltf.value("bufferViews", Json::array()).size(); ++v)
      CHECK(view_bytes(dout, v) == view_bytes(din, v)); // every accessor and embedded image
    REQUIRE(dout.external.size() == din.external.size());
    for (std::size_t e = 0; e < din.external.size(); ++e)
      CHECK(dout.external[e].bytes == din.external[e].bytes);
  }
}

TEST_CASE("shared: roles and H resolve on every skinned model", "[shared]") {
  std::string data = test::shared_data();
  if (data.empty()) return;
  int skinned = 0;
  for (const auto& in : test::model_files(data)) {
    INFO(in);
    std::vector<retail::StageStat> stats;
    retail::Input input = retail::load_input(in, retail::BindParams{}, stats);
    bool drawn_skinned = false; // a mesh drawn with a skin: a character to resolve
    for (const auto& n : input.doc.gltf.value("nodes", Json::array()))
      drawn_skinned = drawn_skinned || (n.contains("mesh") && n.contains("skin"));
    CHECK(input.characters.empty() == !drawn_skinned);
    for (const auto& c : input.characters) {
      ++skinned;
      const auto& r = c.roles;
      CHECK(r.missing.empty());
      CHECK(r.hips >= 0);
      CHECK(r.head >= 0);
      CHECK_FALSE(r.spine.empty());
      for (int s = 0; s < 2; ++s) {
        CHECK(r.upper_leg[s] >= 0);
        CHECK(r.lower_leg[s] >= 0);
        // Left is +X for glTF characters facing +Z; VRM 0.x avatars face -Z.
        double facing = r.source == "VRM 0.x humanoid" ? -1 : 1;
        if (r.upper_leg[0] >= 0 && r.upper_leg[1] >= 0)
          CHECK(facing * c.bind_position(c.joint_index(r.upper_leg[0])).x() >
                facing * c.bind_position(c.joint_index(r.upper_leg[1])).x());
      }
      CHECK(c.height > 0);
      // The legs hang below the hips and the head is above them in every bind pose here.
      CHECK(c.bind_position(c.joint_index(r.lower_leg[0])).y() <
            c.bind_position(c.joint_index(r.hips)).y());
      if (fs::path(in).filename() == "godette.vrm") CHECK(r.source == "VRM 0.x humanoid");
    }
  }
  CHECK(skinned > 0);
}

TEST_CASE("shared: tinygltf reads the same accessor values as retail", "[shared]") {
  std::string data = test::shared_data();
  if (data.empty()) return;
  for (const auto& in : test::model_files(data)) {
    INFO(in);
    tinygltf::TinyGLTF loader;
    loader.SetImageLoader(keep_image_bytes, nullptr);
    tinygltf::Model tm;
    std::string err, warn;
    bool ok = fs::path(in).extension() == ".gltf" ? loader.LoadASCIIFromFile(&tm, &err, &warn, in)
                                                  : loader.LoadBinaryFromFile(&tm, &err, &warn, in);
    REQUIRE(ok);
    retail::Document d = retail::read_document(in);
    retail::Model m = retail::parse_model(d);
    REQUIRE(tm.accessors.size() == m.accessors.size());
    CHECK(tm.nodes.size() == m.nodes.size());
    CHECK(tm.animations.size() == m.animations.size());
    for (std::size_t i = 0; i < m.accessors.size(); ++i) {
      const auto& ta = tm.accessors[i];
      if (ta.bufferView < 0 || ta.sparse.isSparse ||
          ta.componentType != TINYGLTF_COMPONENT_TYPE_FLOAT)
        continue;
      const auto& tv = tm.bufferViews[std::size_t(ta.bufferView)];
      const auto& tb = tm.buffers[std::size_t(tv.buffer)];
      int n = tinygltf::GetNumComponentsInType(std::uint32_t(ta.type));
      int stride = ta.ByteStride(tv);
      auto ours = retail::read_accessor(d, m, int(i));
      bool same = true;
      for (std::size_t e = 0; e < ta.count && same; ++e)
        for (int c = 0; c < n; ++c) {
          float f;
          std::memcpy(&f,
                      tb.data.data() + tv.byteOffset + ta.byteOffset + e * std::size_t(stride) +
                          std::size_t(c) * 4,
                      4);
          same = same && double(f) == ours(Eigen::Index(e), c);
        }
      CHECK(same);
    }
  }
}

TEST_CASE("shared: flat-shaded corners are skinned once - the copies pose to the same bits",
          "[shared]") {
  // The article's fox splits every corner (3752 vertices, 926 positions): the stretch skins
  // one vertex per distinct skinning input and copies it to the rest.
  std::string data = test::shared_data();
  if (data.empty()) return;
  retail::Document d = retail::read_document(data + "/auto-rigged/fox-tail-on-legs.glb");
  retail::Model m = retail::parse_model(d);
  std::vector<retail::Character> chars = retail::build_characters(d, m, {});
  REQUIRE(chars.size() == 1);
  retail::SkinSampler skin(d, m, chars[0]);
  std::vector<int> all(skin.size());
  for (std::size_t v = 0; v < all.size(); ++v) all[v] = int(v);
  const std::vector<int> rep = skin.representatives(all);
  std::size_t distinct = 0;
  for (std::size_t v = 0; v < rep.size(); ++v) distinct += rep[v] == int(v);
  CHECK(distinct * 3 < skin.size()); // most corners repeat an earlier one
  retail::ClipSampler clip(d, m, 0);
  auto world = retail::compose_world(m, clip.locals(m, 0.5 * clip.duration()));
  std::vector<Eigen::Vector3d> posed;
  skin.pose_into(world, nullptr, posed);
  for (std::size_t v = 0; v < rep.size(); ++v) CHECK(posed[v] == posed[std::size_t(rep[v])]);
}

} // namespace test_shared_models
