// Issue 16, class 8: quantized files (KHR_mesh_quantization as gltf-transform's quantize()
// writes it: normalized integer positions, the dequantisation folded into the inverse bind
// matrices) are measured through the skin's own transforms, so H, the thresholds scaled by it
// and the stretch figures are those of the plain file. Generated rigs in several variants
// (metres, a centimetre armature, a rotated armature, an animated root frame) and encodings.
// The shared models and three.js: tests/js/quantized_parity.mjs (clients).
#include "retail/app/pipeline.h"
#include "retail/io/io.h"
#include "robust_support.h"

#include <catch2/catch.hpp>
#include <cmath>

namespace test_robust_quantized {

using retail::Json;

namespace {

struct Figures {
  double height = 0;
  std::size_t chains = 0;
  Json clips; ///< the report's stretch clips of the first character
};

Figures figures_of(const retail::Document& doc) {
  std::string dir = test::temp_dir(), in = dir + "/in.glb", out;
  retail::write_document(doc, in);
  REQUIRE(test::run_retail_with("", {in, dir + "/out.glb", "--report", "-", "-q", "--threads", "2"},
                                &out, nullptr) == 0);
  Json r = Json::parse(out);
  Figures f;
  f.height = r["characters"][0]["height"].get<double>();
  f.chains = r["characters"][0]["chains"].size();
  f.clips = r["characters"][0]["stretch"]["clips"];
  return f;
}

double relative(double a, double b) {
  return std::abs(a - b) / std::max(std::abs(a), 1e-12);
}

} // namespace

TEST_CASE("robust: quantized positions give the plain file's H and stretch figures", "[robust]") {
  struct Variant {
    std::string name;
    retail::RigOptions options;
    bool animated_root = false;
  };
  std::vector<Variant> variants(4);
  variants[0].name = "metres";
  variants[1].name = "centimetre armature";
  variants[1].options.centimetres = true;
  variants[2].name = "rotated armature";
  variants[2].options.rotated = true;
  variants[3].name = "root saved off its bind pose";
  variants[3].options.centimetres = true;
  variants[3].animated_root = true;
  for (Variant& v : variants) {
    v.options.tube_segments = 6;
    retail::Document plain = test::make_rig(v.options).doc;
    if (v.animated_root) { // as Quaternius' fox: the root joint saved 0.4 deg and 1.7 cm off
      int root = plain.gltf["skins"][0]["joints"][0].get<int>();
      Json& n = plain.gltf["nodes"][std::size_t(root)];
      const double half = 0.4 * M_PI / 360;
      n["rotation"] = {std::sin(half), 0.0, 0.0, std::cos(half)};
      Json t = n.value("translation", Json::array({0.0, 0.0, 0.0}));
      t[1] = t[1].get<double>() + 1.7;
      n["translation"] = t;
    }
    // One plain run per variant, each encoding against it (a plain loop, not sections: Catch2
    // re-runs a test case once per section, and the plain runs with it).
    const Figures base = figures_of(plain);
    for (int type : {5122, 5123, 5120}) {
      INFO(v.name << ", component type " << type);
      const Figures q = figures_of(test::quantize_positions(plain, type));
      const bool coarse = type == 5120; // 8 bits: 1/127 of the extent
      CHECK(relative(base.height, q.height) < (coarse ? 0.01 : 0.001));
      if (coarse) continue; // the geometry itself moves by up to 0.4% of the extent
      CHECK(q.chains == base.chains);
      REQUIRE(q.clips.size() == base.clips.size());
      for (std::size_t c = 0; c < base.clips.size(); ++c)
        for (const char* rig : {"original", "rigid", "result"})
          for (const char* stat : {"p95", "p99"}) {
            if (!base.clips[c].contains(rig)) continue;
            INFO(base.clips[c]["name"] << " " << rig << " " << stat);
            CHECK(relative(base.clips[c][rig][stat].get<double>(),
                           q.clips[c][rig][stat].get<double>()) < 0.01);
          }
    }
  }
}

} // namespace test_robust_quantized
