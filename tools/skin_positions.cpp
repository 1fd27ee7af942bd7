// skin_positions IN OUT.bin [SAMPLES]: retail's own CPU skinning (the stretch code's SkinSampler)
// of every vertex of the file's first character at SAMPLES evenly spaced times per clip, for the
// three.js cross-check (tests/js/threejs_skinning.mjs). OUT.bin holds float32 x, y, z per vertex,
// clip after clip, time after time; OUT.bin.json says how to read it: the primitives (node, mesh,
// primitive, first vertex, count), the clips with their times (a file without clips: its saved
// pose once, under a null name), and H.
#include "retail/app/pipeline.h"
#include "retail/base/error.h"
#include "retail/qa/stretch.h"
#include "retail/rig/animation.h"

#include <cstdio>
#include <fstream>

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: skin_positions IN OUT.bin [SAMPLES]\n");
    return 1;
  }
  int samples = argc > 3 ? std::max(2, std::atoi(argv[3])) : 24;
  try {
    std::vector<retail::StageStat> st;
    retail::Input in = retail::load_input(argv[1], retail::BindParams{}, st);
    const retail::Character& c = in.characters.at(0);
    retail::SkinSampler skin(in.doc, in.model, c);
    retail::Json meta = {{"height", c.height}, {"vertices", skin.size()}, {"samples", samples}};
    for (const auto& s : skin.sources())
      meta["primitives"].push_back({{"node", s.where.node},
                                    {"mesh", s.where.mesh},
                                    {"primitive", s.where.primitive},
                                    {"first", s.first},
                                    {"count", s.count}});
    std::ofstream out(argv[2], std::ios::binary);
    std::vector<float> buffer;
    meta["clips"] = retail::Json::array();
    auto write = [&](const std::vector<Eigen::Vector3d>& p) {
      buffer.clear();
      for (const auto& v : p)
        buffer.insert(buffer.end(), {float(v.x()), float(v.y()), float(v.z())});
      out.write(reinterpret_cast<const char*>(buffer.data()),
                std::streamsize(buffer.size() * sizeof(float)));
    };
    if (in.model.animations.empty()) { // no clip: the saved pose, once (name null)
      write(skin.pose(retail::compose_world(in.model, retail::saved_locals(in.model))));
      meta["clips"].push_back({{"name", nullptr}, {"times", {0.0}}});
    }
    for (std::size_t a = 0; a < in.model.animations.size(); ++a) {
      retail::ClipSampler clip(in.doc, in.model, int(a));
      retail::Json times = retail::Json::array();
      for (int k = 0; k < samples; ++k) {
        double t = clip.duration() * k / (samples - 1);
        times.push_back(t);
        auto p = skin.pose(retail::compose_world(in.model, clip.locals(in.model, t)));
        buffer.clear();
        for (const auto& v : p)
          buffer.insert(buffer.end(), {float(v.x()), float(v.y()), float(v.z())});
        out.write(reinterpret_cast<const char*>(buffer.data()),
                  std::streamsize(buffer.size() * sizeof(float)));
      }
      meta["clips"].push_back({{"name", in.model.animations[a].name}, {"times", times}});
    }
    std::ofstream(std::string(argv[2]) + ".json") << meta.dump();
    return out ? 0 : 4;
  } catch (const retail::Error& e) {
    std::fprintf(stderr, "error: %s: %s\n", argv[1], e.what());
    return int(e.code());
  }
}
