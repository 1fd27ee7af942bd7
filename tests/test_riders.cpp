// Riders (detect/riders.cpp): shells sunk into a tail ride with it, read the same way whichever
// way round the file winds its triangles.
#include "retail/detect/detect.h"
#include "support.h"

#include <catch2/catch.hpp>

namespace test_riders {

namespace {

/// Detection of the generated character, its welded triangles wound as generated or reversed.
retail::Detection detect(const retail::RigOptions& o, bool reversed) {
  const retail::GeneratedRig rig = test::make_rig(o);
  const retail::Model model = retail::parse_model(rig.doc);
  const retail::Character c = retail::build_characters(rig.doc, model, {})[0];
  retail::WeldedMesh m = retail::weld_character(rig.doc, model, c, {});
  if (reversed)
    for (auto& f : m.faces) std::swap(f[1], f[2]);
  const retail::SkinWeights sw = retail::read_skin_weights(rig.doc, model, c, m);
  return retail::detect_pieces(model, c, m, sw, retail::DetectParams{});
}

} // namespace

TEST_CASE("riders: spikes by a short tail's root ride with it, wound either way round",
          "[detect]") {
  // Twelve spikes on a short tail by the hips of a horizontal body: the rump skin nearer to the
  // root's spikes lies inside the tail, which the riders read from the tail's surface normals. A
  // file wound inside out (or mirrored by its node) turns every normal round: each connected part
  // is read outward by the sign of the volume it encloses.
  retail::RigOptions o;
  o.tail = retail::TailStyle::Short;
  o.horizontal_body = true;
  o.tail_spikes = 12;
  for (bool reversed : {false, true}) {
    INFO("triangles reversed: " << reversed);
    const retail::Detection d = detect(o, reversed);
    int chains = 0, riding = 0;
    for (const auto& p : d.pieces)
      if (p.decision == retail::Decision::TailChain) ++chains, riding += p.riding_shells;
    CHECK(chains == 1);
    CHECK(riding == 12);
  }
}

} // namespace test_riders
