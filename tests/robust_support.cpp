#include "robust_support.h"

#include "retail/rig_generator.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
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

} // namespace test
