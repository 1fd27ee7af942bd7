#include "robust_support.h"

#include "retail/base/model.h"
#include "retail/io/accessor.h"
#include "retail/io/builder.h"
#include "retail/io/io.h"
#include "retail/rig_generator.h"

#include <Eigen/Dense>
#include <cmath>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <spawn.h>
#include <sstream>
#include <sys/resource.h>
#include <sys/wait.h>

namespace fs = std::filesystem;
using retail::Bytes;
using retail::Json;

namespace test {

retail::Document small_rig() {
  retail::RigOptions o;
  o.tube_segments = 6;
  return make_rig(o).doc;
}

std::vector<int> clip_inputs(const retail::Document& doc) {
  std::vector<int> out;
  for (const auto& a : doc.gltf.value("animations", Json::array()))
    for (const auto& s : a["samplers"]) {
      int i = s["input"].get<int>();
      if (std::find(out.begin(), out.end(), i) == out.end()) out.push_back(i);
    }
  return out;
}

void rewrite_times(retail::Document& doc, int accessor,
                   const std::function<std::vector<float>(std::vector<float>)>& change) {
  Json& a = doc.gltf["accessors"][std::size_t(accessor)];
  const Json& v = doc.gltf["bufferViews"][a["bufferView"].get<std::size_t>()];
  std::size_t at = v.value("byteOffset", std::size_t(0)) + a.value("byteOffset", std::size_t(0));
  Bytes& buf = doc.buffers[v["buffer"].get<std::size_t>()];
  std::vector<float> t(a["count"].get<std::size_t>());
  std::memcpy(t.data(), buf.data() + at, t.size() * 4);
  t = change(t);
  if (t.size() != a["count"].get<std::size_t>()) std::abort(); // the helper keeps the count
  std::memcpy(buf.data() + at, t.data(), t.size() * 4);
  a["min"] = {*std::min_element(t.begin(), t.end())};
  a["max"] = {*std::max_element(t.begin(), t.end())};
}

void rewrite_clip_times(retail::Document& doc, int animation,
                        const std::function<std::vector<float>(std::vector<float>)>& change) {
  std::vector<int> done;
  for (const auto& s : doc.gltf["animations"][std::size_t(animation)]["samplers"]) {
    int i = s["input"].get<int>();
    if (std::find(done.begin(), done.end(), i) != done.end()) continue;
    done.push_back(i);
    rewrite_times(doc, i, change);
  }
}

int animation_named(const retail::Document& doc, const std::string& name) {
  const Json& anims = doc.gltf["animations"];
  for (std::size_t i = 0; i < anims.size(); ++i)
    if (anims[i].value("name", std::string()) == name) return int(i);
  return -1;
}

Bytes with_json_text(const retail::Document& doc,
                     const std::function<std::string(std::string)>& edit) {
  Bytes glb = retail::serialize_document(doc);
  auto u32 = [&](std::size_t at) {
    return std::uint32_t(glb[at]) | std::uint32_t(glb[at + 1]) << 8 |
           std::uint32_t(glb[at + 2]) << 16 | std::uint32_t(glb[at + 3]) << 24;
  };
  std::size_t json_len = u32(12);
  std::string text(glb.begin() + 20, glb.begin() + 20 + long(json_len));
  Bytes rest(glb.begin() + 20 + long(json_len), glb.end());
  text = edit(text);
  while (text.size() % 4) text += ' ';
  Bytes out;
  auto put = [&](std::uint32_t v) {
    for (int i = 0; i < 4; ++i) out.push_back(std::uint8_t(v >> (8 * i)));
  };
  put(0x46546C67);
  put(2);
  put(std::uint32_t(12 + 8 + text.size() + rest.size()));
  put(std::uint32_t(text.size()));
  put(0x4E4F534A);
  out.insert(out.end(), text.begin(), text.end());
  out.insert(out.end(), rest.begin(), rest.end());
  return out;
}

retail::Document quantize_positions(const retail::Document& in, int component_type) {
  retail::Document doc = in;
  const retail::Model m = retail::parse_model(in);
  const bool is_signed = component_type != 5123;
  const double steps = component_type == 5120 ? 127 : component_type == 5122 ? 32767 : 65535;
  const int size = component_type == 5120 ? 1 : 2;
  for (const retail::Node& node : m.nodes) {
    if (node.mesh < 0 || node.skin < 0) continue;
    const retail::Mesh& mesh = m.meshes[std::size_t(node.mesh)];
    Eigen::Vector3d lo = Eigen::Vector3d::Constant(INFINITY), hi = -lo;
    for (const auto& p : mesh.primitives) {
      retail::AccessorData a = retail::read_accessor(in, m, p.attributes.at("POSITION"));
      for (Eigen::Index v = 0; v < a.rows(); ++v) {
        lo = lo.cwiseMin(Eigen::Vector3d(a(v, 0), a(v, 1), a(v, 2)));
        hi = hi.cwiseMax(Eigen::Vector3d(a(v, 0), a(v, 1), a(v, 2)));
      }
    }
    const double extent = (hi - lo).maxCoeff();
    const Eigen::Vector3d origin = is_signed ? Eigen::Vector3d((lo + hi) / 2) : lo;
    const double scale = is_signed ? extent / 2 : extent;
    Eigen::Matrix4d d = Eigen::Matrix4d::Identity(); // quantized -> skin space
    d.topLeftCorner<3, 3>() *= scale;
    d.topRightCorner<3, 1>() = origin;
    for (std::size_t pi = 0; pi < mesh.primitives.size(); ++pi) {
      int acc = mesh.primitives[pi].attributes.at("POSITION");
      retail::AccessorData a = retail::read_accessor(in, m, acc);
      const int stride = size == 1 ? 4 : 8; // vertex attributes aligned to 4 bytes
      Bytes bytes(std::size_t(a.rows()) * std::size_t(stride), 0);
      Json qmin = Json::array(), qmax = Json::array();
      std::vector<long> lo_q(3, 1L << 20), hi_q(3, -(1L << 20));
      for (Eigen::Index v = 0; v < a.rows(); ++v)
        for (int c = 0; c < 3; ++c) {
          double q = (a(v, c) - origin[c]) / scale;
          long n = std::lround(std::clamp(q, is_signed ? -1.0 : 0.0, 1.0) * steps);
          lo_q[std::size_t(c)] = std::min(lo_q[std::size_t(c)], n);
          hi_q[std::size_t(c)] = std::max(hi_q[std::size_t(c)], n);
          std::uint16_t bits = std::uint16_t(n & 0xFFFF);
          std::size_t at = std::size_t(v) * std::size_t(stride) + std::size_t(c * size);
          bytes[at] = std::uint8_t(bits & 0xFF);
          if (size == 2) bytes[at + 1] = std::uint8_t(bits >> 8);
        }
      for (int c = 0; c < 3; ++c)
        qmin.push_back(lo_q[std::size_t(c)]), qmax.push_back(hi_q[std::size_t(c)]);
      int view = retail::add_buffer_view(doc, bytes, 34962);
      doc.gltf["bufferViews"][std::size_t(view)]["byteStride"] = stride;
      int q = retail::append_to_array(doc.gltf, "accessors",
                                      {{"bufferView", view},
                                       {"componentType", component_type},
                                       {"normalized", true},
                                       {"count", a.rows()},
                                       {"type", "VEC3"},
                                       {"min", qmin},
                                       {"max", qmax}});
      doc.gltf["meshes"][std::size_t(node.mesh)]["primitives"][pi]["attributes"]["POSITION"] = q;
    }
    const retail::Skin& skin = m.skins[std::size_t(node.skin)];
    retail::AccessorData ibm = retail::read_accessor(in, m, skin.inverse_bind_matrices);
    std::vector<float> folded;
    for (Eigen::Index k = 0; k < ibm.rows(); ++k) {
      Eigen::Matrix4d b = Eigen::Map<const Eigen::Matrix4d>(ibm.row(k).data()) * d;
      for (int i = 0; i < 16; ++i) folded.push_back(float(b.data()[i]));
    }
    doc.gltf["skins"][std::size_t(node.skin)]["inverseBindMatrices"] =
        retail::add_float_accessor(doc, folded, "MAT4", 0, false);
  }
  for (const char* list : {"extensionsUsed", "extensionsRequired"})
    doc.gltf[list].push_back("KHR_mesh_quantization");
  return doc;
}

std::vector<std::string> files_in(const std::string& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (!it->is_directory()) out.push_back(it->path().lexically_relative(dir).string());
  std::sort(out.begin(), out.end());
  return out;
}

bool no_temp_files(const std::string& dir) {
  for (const auto& f : files_in(dir))
    if (f.find("retail-tmp") != std::string::npos) return false;
  return true;
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

int run_retail_with(const std::string& prefix, const std::vector<std::string>& args,
                    std::string* out, std::string* err) {
  std::string dir = temp_dir();
  std::string cmd = prefix + " " + quote(RETAIL_BIN);
  for (const auto& a : args) cmd += " " + quote(a);
  cmd += " >" + quote(dir + "/stdout") + " 2>" + quote(dir + "/stderr") + " </dev/null";
  int status = std::system(cmd.c_str());
  if (out) *out = slurp(dir + "/stdout");
  if (err) *err = slurp(dir + "/stderr");
  fs::remove_all(dir);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

long peak_kb(const std::vector<std::string>& args, int& code) {
  std::vector<std::string> all = {RETAIL_BIN};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t files;
  posix_spawn_file_actions_init(&files);
  posix_spawn_file_actions_addopen(&files, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid = -1;
  const int spawned = ::posix_spawn(&pid, RETAIL_BIN, &files, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&files);
  if (spawned != 0) return -1;
  int status = 0;
  struct rusage usage {};
  ::wait4(pid, &status, 0, &usage);
  code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return usage.ru_maxrss;
}

} // namespace test
