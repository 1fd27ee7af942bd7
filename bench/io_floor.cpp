// The I/O floor of issue 7's speed targets: a plain tinygltf load + save of the same file, no
// processing. bench/io_floor IN OUT [RUNS] prints the median wall milliseconds of RUNS runs.
#include <tiny_gltf.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: io_floor IN OUT [RUNS]\n");
    return 1;
  }
  int runs = argc > 3 ? std::max(1, std::atoi(argv[3])) : 5;
  std::string in = argv[1], out = argv[2];
  bool binary = in.size() > 4 && in.substr(in.size() - 5) != ".gltf";
  std::vector<double> ms;
  for (int r = 0; r < runs; ++r) {
    auto start = std::chrono::steady_clock::now();
    tinygltf::Model model;
    tinygltf::TinyGLTF io;
    std::string err, warn;
    bool ok = binary ? io.LoadBinaryFromFile(&model, &err, &warn, in)
                     : io.LoadASCIIFromFile(&model, &err, &warn, in);
    if (!ok) {
      std::fprintf(stderr, "io_floor: %s: %s\n", in.c_str(), err.c_str());
      return 2;
    }
    if (!io.WriteGltfSceneToFile(&model, out, true, true, false, binary)) {
      std::fprintf(stderr, "io_floor: cannot write %s\n", out.c_str());
      return 4;
    }
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                     .count());
  }
  std::sort(ms.begin(), ms.end());
  std::printf("%.1f\n", ms[ms.size() / 2]);
  return 0;
}
