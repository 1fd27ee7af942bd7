#include "support.h"

#include "retail/app/pipeline.h"
#include "retail/detect/distance.h"
#include "retail/io/accessor.h"
#include "retail/io/io.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace test {

std::string temp_dir() {
  static std::atomic<int> counter{0};
  fs::path p = fs::temp_directory_path() /
               ("retail-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
  fs::remove_all(p);
  fs::create_directories(p);
  return p.string();
}

retail::Document reparse(const retail::Document& doc) {
  return retail::parse_document(retail::serialize_document(doc), "");
}

retail::GeneratedRig make_rig(const retail::RigOptions& options) {
  retail::GeneratedRig rig = retail::generate_rig(options);
  rig.doc = reparse(rig.doc);
  return rig;
}

void write_bytes(const std::string& path, const retail::Bytes& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
}

std::string generated_rig_dir(const retail::RigOptions& options) {
  const std::string dir = temp_dir();
  const retail::GeneratedRig rig = retail::generate_rig(options);
  write_bytes(dir + "/in.glb", retail::serialize_document(rig.doc));
  const std::string truth = rig.truth.dump();
  write_bytes(dir + "/in.truth.json", retail::Bytes(truth.begin(), truth.end()));
  return dir;
}

namespace {
std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}
std::string quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}
} // namespace

int run_retail(const std::vector<std::string>& args, std::string* out, std::string* err) {
  std::string dir = temp_dir();
  std::string cmd = quote(RETAIL_BIN);
  for (const auto& a : args) cmd += " " + quote(a);
  cmd += " >" + quote(dir + "/stdout") + " 2>" + quote(dir + "/stderr") + " </dev/null";
  int status = std::system(cmd.c_str());
  if (out) *out = slurp(dir + "/stdout");
  if (err) *err = slurp(dir + "/stderr");
  fs::remove_all(dir);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

std::string shared_data() {
  static bool said = false;
  std::string dir = RETAIL_SHARED_DATA;
  if (fs::is_directory(dir)) return dir;
  if (!said) std::cerr << "SKIPPED: shared-model tests, " << dir << " does not exist\n";
  said = true;
  return "";
}

std::vector<std::string> model_files(const std::string& dir) {
  std::vector<std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    std::string ext = e.path().extension().string();
    if (ext == ".glb" || ext == ".vrm" || ext == ".gltf") files.push_back(e.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::vector<retail::Character> characters_of(const retail::Document& doc) {
  retail::Model m = retail::parse_model(doc);
  return retail::build_characters(doc, m, retail::BindParams{});
}

retail::Json normalize_defaults(retail::Json j) {
  using retail::Json;
  auto drop = [](Json& o, const char* key, const Json& value) {
    if (o.is_object() && o.contains(key) && o[key] == value) o.erase(key);
  };
  if (j.contains("asset")) j["asset"].erase("generator");
  if (j.contains("accessors"))
    for (auto& a : j["accessors"]) {
      drop(a, "byteOffset", 0);
      drop(a, "normalized", false);
    }
  if (j.contains("bufferViews"))
    for (auto& v : j["bufferViews"]) drop(v, "byteOffset", 0);
  if (j.contains("meshes"))
    for (auto& m : j["meshes"])
      for (auto& p : m["primitives"]) drop(p, "mode", 4);
  if (j.contains("nodes"))
    for (auto& n : j["nodes"]) {
      drop(n, "translation", Json::array({0, 0, 0}));
      drop(n, "rotation", Json::array({0, 0, 0, 1}));
      drop(n, "scale", Json::array({1, 1, 1}));
      drop(n, "children", Json::array());
    }
  if (j.contains("animations"))
    for (auto& a : j["animations"])
      for (auto& s : a["samplers"]) drop(s, "interpolation", "LINEAR");
  return j;
}

std::vector<bool> largest_weight_on(const std::string& path, const std::regex& pattern) {
  std::vector<retail::StageStat> st;
  retail::Input in = retail::load_input(path, retail::BindParams{}, st);
  const auto& c = in.characters.at(0);
  retail::WeldedMesh m = retail::weld_character(in.doc, in.model, c, retail::WeldParams{});
  retail::SkinWeights sw = retail::read_skin_weights(in.doc, in.model, c, m);
  std::vector<bool> out(sw.joint.size(), false);
  for (std::size_t v = 0; v < out.size(); ++v) {
    int best = -1;
    double bw = 0;
    for (int k = 0; k < retail::SkinWeights::kMax; ++k)
      if (sw.weight[v][std::size_t(k)] > bw)
        bw = sw.weight[v][std::size_t(k)], best = sw.joint[v][std::size_t(k)];
    if (best >= 0)
      out[v] =
          std::regex_search(in.model.nodes[std::size_t(c.joints[std::size_t(best)])].name, pattern);
  }
  return out;
}

std::vector<std::map<int, double>> mesh0_influences(const retail::Document& d,
                                                    const retail::Model& m) {
  std::vector<std::map<int, double>> out;
  for (const auto& prim : m.meshes[0].primitives) {
    auto j = retail::read_accessor_uint(d, m, prim.attributes.at("JOINTS_0"));
    auto w = retail::read_accessor(d, m, prim.attributes.at("WEIGHTS_0"));
    for (Eigen::Index v = 0; v < w.rows(); ++v) {
      std::map<int, double> inf;
      for (int k = 0; k < 4; ++k)
        if (w(v, k) > 0) inf[m.skins[0].joints[j[std::size_t(v) * 4 + std::size_t(k)]]] += w(v, k);
      out.push_back(inf);
    }
  }
  return out;
}

} // namespace test
