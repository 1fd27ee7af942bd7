// Roles from names (Mixamo, Blender .L/.R, Unreal _l/_r), VRM metadata and topology.
#include "retail/base/error.h"
#include "retail/io/io.h"
#include "support.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <map>
#include <set>

namespace test_roles {

using retail::Json;

namespace {

retail::Document renamed(const std::map<std::string, std::string>& names, bool prefix = true) {
  retail::RigOptions o;
  o.mixamo_prefix = prefix;
  retail::Document d = test::make_rig(o).doc;
  for (auto& n : d.gltf["nodes"]) {
    std::string name = n.value("name", "");
    if (prefix && name.rfind("mixamorig:", 0) == 0) name = name.substr(10);
    auto it = names.find(name);
    if (it != names.end()) n["name"] = it->second;
  }
  return d;
}

std::string name_of(const retail::Document& d, int node) {
  return node < 0 ? "<none>" : d.gltf["nodes"][std::size_t(node)]["name"].get<std::string>();
}

void check_humanoid(const retail::Document& d, const std::map<std::string, std::string>& expect) {
  auto chars = test::characters_of(d);
  REQUIRE(chars.size() == 1);
  const retail::Roles& r = chars[0].roles;
  CHECK(r.missing.empty());
  CHECK(name_of(d, r.hips) == expect.at("hips"));
  CHECK(name_of(d, r.head) == expect.at("head"));
  CHECK(name_of(d, r.neck) == expect.at("neck"));
  CHECK(name_of(d, r.upper_leg[0]) == expect.at("leftUpperLeg"));
  CHECK(name_of(d, r.upper_leg[1]) == expect.at("rightUpperLeg"));
  CHECK(name_of(d, r.lower_leg[0]) == expect.at("leftLowerLeg"));
  CHECK(name_of(d, r.lower_leg[1]) == expect.at("rightLowerLeg"));
  CHECK(name_of(d, r.foot[0]) == expect.at("leftFoot"));
  CHECK(r.spine.size() == 3);
  if (expect.count("leftUpperArm")) CHECK(name_of(d, r.upper_arm[0]) == expect.at("leftUpperArm"));
  if (expect.count("source")) CHECK(r.source == expect.at("source"));
}

} // namespace

TEST_CASE("roles: Mixamo names with and without the mixamorig: prefix", "[roles]") {
  for (bool prefix : {true, false}) {
    retail::RigOptions o;
    o.mixamo_prefix = prefix;
    retail::Document d = test::make_rig(o).doc;
    std::string p = prefix ? "mixamorig:" : "";
    check_humanoid(d, {{"hips", p + "Hips"},
                       {"head", p + "Head"},
                       {"neck", p + "Neck"},
                       {"leftUpperLeg", p + "LeftUpLeg"},
                       {"rightUpperLeg", p + "RightUpLeg"},
                       {"leftLowerLeg", p + "LeftLeg"},
                       {"rightLowerLeg", p + "RightLeg"},
                       {"leftFoot", p + "LeftFoot"},
                       {"leftUpperArm", p + "LeftArm"},
                       {"source", "names"}});
  }
}

TEST_CASE("roles: Blender .L/.R and Unreal _l/_r names", "[roles]") {
  std::map<std::string, std::string> blender = {
      {"Hips", "DEF-hips"},         {"Spine", "Spine"},         {"Spine1", "Chest"},
      {"Spine2", "UpperChest"},     {"Neck", "Neck"},           {"Head", "Head"},
      {"LeftUpLeg", "UpperLeg.L"},  {"LeftLeg", "LowerLeg.L"},  {"LeftFoot", "Foot.L"},
      {"RightUpLeg", "UpperLeg.R"}, {"RightLeg", "LowerLeg.R"}, {"RightFoot", "Foot.R"},
      {"LeftArm", "UpperArm.L"},    {"RightArm", "UpperArm.R"}};
  check_humanoid(renamed(blender), {{"hips", "DEF-hips"},
                                    {"head", "Head"},
                                    {"neck", "Neck"},
                                    {"leftUpperLeg", "UpperLeg.L"},
                                    {"rightUpperLeg", "UpperLeg.R"},
                                    {"leftLowerLeg", "LowerLeg.L"},
                                    {"rightLowerLeg", "LowerLeg.R"},
                                    {"leftFoot", "Foot.L"},
                                    {"leftUpperArm", "UpperArm.L"}});
  std::map<std::string, std::string> unreal = {{"Hips", "pelvis"},
                                               {"Spine", "spine_01"},
                                               {"Spine1", "spine_02"},
                                               {"Spine2", "spine_03"},
                                               {"Neck", "neck_01"},
                                               {"Head", "head"},
                                               {"LeftUpLeg", "thigh_l"},
                                               {"LeftLeg", "calf_l"},
                                               {"LeftFoot", "foot_l"},
                                               {"RightUpLeg", "thigh_r"},
                                               {"RightLeg", "calf_r"},
                                               {"RightFoot", "foot_r"},
                                               {"LeftShoulder", "clavicle_l"},
                                               {"LeftArm", "upperarm_l"},
                                               {"LeftForeArm", "lowerarm_l"},
                                               {"LeftHand", "hand_l"}};
  check_humanoid(renamed(unreal), {{"hips", "pelvis"},
                                   {"head", "head"},
                                   {"neck", "neck_01"},
                                   {"leftUpperLeg", "thigh_l"},
                                   {"rightUpperLeg", "thigh_r"},
                                   {"leftLowerLeg", "calf_l"},
                                   {"rightLowerLeg", "calf_r"},
                                   {"leftFoot", "foot_l"},
                                   {"leftUpperArm", "upperarm_l"}});
}

TEST_CASE("roles: Daz, MMD (Japanese), Chinese and part-first names", "[roles]") {
  // Daz Genesis: a modifier after the part (ThighBend, abdomenLower, neckLower), Shldr for the
  // upper arm; MMD: Japanese words (左足 left leg, ひざ knee, 足首 ankle, 下半身 lower body, 腕
  // arm); Chinese (骨盆 pelvis, 大腿/小腿/脚 thigh, shin, foot, 上臂 upper arm); others: the part
  // before its place (Leg_Upper_L). Each resolves by names to the joints so renamed, as a
  // Mixamo-named rig does; before, each fell back to topology (no arm roles) or failed.
  // The generator's joints, in the order each convention below renames them.
  const std::vector<std::string> joints = {
      "Hips",    "Spine",    "Spine1",     "Spine2",   "Neck",      "Head",    "LeftUpLeg",
      "LeftLeg", "LeftFoot", "RightUpLeg", "RightLeg", "RightFoot", "LeftArm", "RightArm"};
  const std::vector<std::vector<std::string>> conventions = {
      {"hip", "abdomenLower", "abdomenUpper", "chestUpper", "neckLower", "head", "lThighBend",
       "lShin", "lFoot", "rThighBend", "rShin", "rFoot", "lShldrBend", "rShldrBend"},
      {"下半身", "上半身", "上半身2", "上半身3", "首", "頭", "左足", "左ひざ", "左足首", "右足",
       "右ひざ", "右足首", "左腕", "右腕"},
      {"Pelvis", "Spine_1", "Spine_2", "Chest_Upper", "Neck", "Head", "Leg_Upper_L", "Leg_Lower_L",
       "Foot_L", "Leg_Upper_R", "Leg_Lower_R", "Foot_R", "Arm_Upper_L", "Arm_Upper_R"},
      {"骨盆", "脊柱1", "脊柱2", "胸部", "颈", "头", "左大腿", "左小腿", "左脚", "右大腿", "右小腿",
       "右脚", "左上臂", "右上臂"}};
  // The role each generator joint holds (check_humanoid's keys).
  const std::map<std::string, std::string> role_of = {{"Hips", "hips"},
                                                      {"Head", "head"},
                                                      {"Neck", "neck"},
                                                      {"LeftUpLeg", "leftUpperLeg"},
                                                      {"RightUpLeg", "rightUpperLeg"},
                                                      {"LeftLeg", "leftLowerLeg"},
                                                      {"RightLeg", "rightLowerLeg"},
                                                      {"LeftFoot", "leftFoot"},
                                                      {"LeftArm", "leftUpperArm"}};
  for (const auto& names : conventions) {
    REQUIRE(names.size() == joints.size());
    std::map<std::string, std::string> rename, expect = {{"source", "names"}};
    for (std::size_t k = 0; k < joints.size(); ++k) {
      rename[joints[k]] = names[k];
      if (role_of.count(joints[k])) expect[role_of.at(joints[k])] = names[k];
    }
    INFO("hips named " << names[0]);
    check_humanoid(renamed(rename), expect);
  }
}

TEST_CASE("roles: hips are where the legs meet - not the joint named Hips", "[roles]") {
  // Quaternius layout: Body holds the legs, the joint named Hips starts the spine.
  retail::Document d = renamed({{"Hips", "Body"}, {"Spine", "Hips"}}, false);
  auto c = test::characters_of(d)[0];
  CHECK(name_of(d, c.roles.hips) == "Body");
  CHECK(name_of(d, c.roles.spine.at(0)) == "Hips");
  REQUIRE(c.roles.notes.size() == 1);
  CHECK(c.roles.notes[0].find("'Hips'") != std::string::npos);
}

TEST_CASE("roles: topology when names say nothing", "[roles]") {
  retail::RigOptions o;
  retail::Document d = test::make_rig(o).doc;
  int k = 0;
  for (auto& n : d.gltf["nodes"])
    if (n.value("name", "").rfind("mixamorig:", 0) == 0) n["name"] = "Bone_" + std::to_string(k++);
  auto c = test::characters_of(d)[0];
  const auto& r = c.roles;
  CHECK(r.missing.empty());
  CHECK(r.source == "topology");
  // Generator order: Hips 0, Spine 1..., Head 5, HeadTop 6; LeftUpLeg 15, LeftLeg 16,
  // RightUpLeg 19.
  CHECK(name_of(d, r.hips) == "Bone_0");
  CHECK(name_of(d, r.head) == "Bone_5");
  CHECK(name_of(d, r.upper_leg[0]) == "Bone_15");
  CHECK(name_of(d, r.lower_leg[0]) == "Bone_16");
  CHECK(name_of(d, r.upper_leg[1]) == "Bone_19");
  CHECK(r.spine.size() == 3);
  CHECK(r.pelvis == std::vector<int>{r.hips}); // the spine rises from the hips: no pelvis bone
}

TEST_CASE("roles: topology on a horizontal body whose feet are IK targets under the root",
          "[roles]") {
  // The generator's horizontal body: the legs hang from 'Body' above and ahead of the joint named
  // Hips, which lies between the leg sockets (a pelvis bone), and the arms hang down. Feet moved
  // under the armature root as IK targets are (Quaternius rigs), every joint renamed.
  retail::RigOptions o;
  o.horizontal_body = true;
  retail::Document d = test::make_rig(o).doc;
  Json& nodes = d.gltf["nodes"];
  auto find = [&](const std::string& name) {
    for (std::size_t i = 0; i < nodes.size(); ++i)
      if (nodes[i].value("name", "") == "mixamorig:" + name) return int(i);
    return -1;
  };
  for (const char* side : {"Left", "Right"}) {
    const int leg = find(std::string(side) + "Leg"), foot = find(std::string(side) + "Foot");
    REQUIRE((leg >= 0 && foot >= 0));
    nodes[std::size_t(leg)].erase("children");
    nodes[0]["children"].push_back(foot); // the saved pose moves; the bind (IBMs) does not
  }
  const int body = find("Body"), hips = find("Hips"), head = find("Head"),
            left_up = find("LeftUpLeg"), left_leg = find("LeftLeg");
  for (const auto& j : d.gltf["skins"][0]["joints"])
    nodes[j.get<std::size_t>()]["name"] = "joint_" + j.dump();
  const retail::Roles r = test::characters_of(d)[0].roles;
  CHECK(r.missing.empty());
  CHECK(r.source == "topology");
  CHECK(r.hips == body);
  CHECK(r.head == head); // not the end marker above it, nor a hand
  CHECK(r.upper_leg[0] == left_up);
  CHECK(r.lower_leg[0] == left_leg); // the chain ends at the knee
  CHECK(std::set<int>(r.pelvis.begin(), r.pelvis.end()) == std::set<int>{body, hips});
}

TEST_CASE("roles: VRM 0.x and VRM 1 humanoid metadata win over names", "[roles]") {
  for (int version : {0, 1}) {
    retail::RigOptions o;
    retail::Document d = test::make_rig(o).doc;
    std::map<std::string, int> nodes;
    int k = 0;
    for (std::size_t i = 0; i < d.gltf["nodes"].size(); ++i) {
      std::string name = d.gltf["nodes"][i].value("name", "");
      if (name.rfind("mixamorig:", 0) != 0) continue;
      nodes[name.substr(10)] = int(i);
      d.gltf["nodes"][i]["name"] = "J" + std::to_string(k++);
    }
    std::map<std::string, std::string> vrm = {{"hips", "Hips"},
                                              {"spine", "Spine"},
                                              {"chest", "Spine2"},
                                              {"neck", "Neck"},
                                              {"head", "Head"},
                                              {"leftUpperLeg", "LeftUpLeg"},
                                              {"leftLowerLeg", "LeftLeg"},
                                              {"leftFoot", "LeftFoot"},
                                              {"rightUpperLeg", "RightUpLeg"},
                                              {"rightLowerLeg", "RightLeg"},
                                              {"rightFoot", "RightFoot"},
                                              {"leftUpperArm", "LeftArm"}};
    if (version == 0) {
      Json bones = Json::array();
      for (const auto& [bone, joint] : vrm)
        bones.push_back({{"bone", bone}, {"node", nodes[joint]}});
      d.gltf["extensions"]["VRM"]["humanoid"]["humanBones"] = bones;
    } else {
      Json bones = Json::object();
      for (const auto& [bone, joint] : vrm) bones[bone] = {{"node", nodes[joint]}};
      d.gltf["extensions"]["VRMC_vrm"]["humanoid"]["humanBones"] = bones;
    }
    auto c = test::characters_of(d)[0];
    CHECK(c.roles.source == (version == 0 ? "VRM 0.x humanoid" : "VRMC_vrm humanoid"));
    CHECK(c.roles.hips == nodes["Hips"]);
    CHECK(c.roles.chest == nodes["Spine2"]);
    CHECK(c.roles.upper_leg[1] == nodes["RightUpLeg"]);
    CHECK(c.roles.missing.empty());
  }
}

TEST_CASE("roles: a missing role is a clear error listing what was found", "[roles]") {
  retail::Document d = test::make_rig().doc;
  // Every vertex on the hips, then only the spine and head joints in the skin.
  retail::Model m0 = retail::parse_model(d);
  const auto& ja = m0.accessors[std::size_t(
      d.gltf["meshes"][0]["primitives"][0]["attributes"]["JOINTS_0"].get<int>())];
  const Json& view = d.gltf["bufferViews"][std::size_t(ja.buffer_view)];
  std::fill_n(d.buffers[0].begin() + long(view.value("byteOffset", 0)), ja.count * 4, 0);
  Json joints = d.gltf["skins"][0]["joints"];
  d.gltf["skins"][0]["joints"] = Json(std::vector<int>(joints.begin(), joints.begin() + 7));
  retail::Model m = retail::parse_model(d);
  auto chars = retail::build_characters(d, m, retail::BindParams{});
  REQUIRE(chars.size() == 1);
  try {
    retail::require_roles(m, chars[0]);
    FAIL("roles resolved without legs");
  } catch (const retail::Error& e) {
    CHECK(e.code() == retail::ExitCode::Unsupported);
    std::string msg = e.what();
    CHECK(msg.find("cannot resolve hips, spine, left upper leg, left lower leg, right upper leg, "
                   "right lower leg") != std::string::npos);
    CHECK(msg.find("head='mixamorig:Head'") != std::string::npos);
  }
}

TEST_CASE("roles: with every joint renamed, topology finds what the names say - shared models",
          "[roles][shared]") {
  // Invariance over the corpus: the legs, feet, hips, pelvis and head read from the skeleton's
  // shape and the skin must be the ones the joints' names give. Where the legs and the front legs
  // hang from one joint, the hind pair is the one away from the joint's longest other chain (the
  // neck): an artist's tail, once its name is gone, is longer; those files are said and skipped.
  const std::string data = test::shared_data();
  if (data.empty()) return;
  int compared = 0;
  for (const char* dir : {"/data", "/animals", "/real-rigger"}) {
    if (!std::filesystem::is_directory(data + "/.." + dir)) continue;
    for (const auto& in : test::model_files(data + "/.." + dir)) {
      INFO(in);
      retail::Document d = retail::read_document(in);
      const auto named = test::characters_of(d);
      bool tail_bones = false; // an artist's tail, which renaming hides
      for (const auto& skin : d.gltf.value("skins", Json::array()))
        for (const auto& j : skin["joints"]) {
          std::string name = d.gltf["nodes"][j.get<std::size_t>()].value("name", "");
          std::transform(name.begin(), name.end(), name.begin(),
                         [](unsigned char ch) { return char(std::tolower(ch)); });
          tail_bones = tail_bones || name.find("tail") != std::string::npos;
        }
      for (const auto& skin : d.gltf.value("skins", Json::array()))
        for (const auto& j : skin["joints"])
          d.gltf["nodes"][j.get<std::size_t>()]["name"] = "joint_" + j.dump();
      const auto anon = test::characters_of(d);
      REQUIRE(anon.size() == named.size());
      for (std::size_t k = 0; k < named.size(); ++k) {
        const retail::Roles &a = named[k].roles, &b = anon[k].roles;
        if (!a.missing.empty() || a.source.find("VRM") != std::string::npos) continue;
        const retail::Character& c = named[k];
        auto meet = [&](int l, int r) {
          int x = c.joint_index(l), y = c.joint_index(r);
          std::set<int> up;
          for (; x >= 0; x = c.parent[std::size_t(x)]) up.insert(x);
          for (; y >= 0; y = c.parent[std::size_t(y)])
            if (up.count(y)) return y;
          return -1;
        };
        if (tail_bones && a.upper_arm[0] >= 0 && a.upper_arm[1] >= 0 &&
            meet(a.upper_arm[0], a.upper_arm[1]) == meet(a.upper_leg[0], a.upper_leg[1])) {
          WARN(in << ": legs and front legs hang from one joint beside tail bones; not compared");
          continue;
        }
        ++compared;
        CHECK(b.source == "topology");
        CHECK(name_of(d, b.hips) == name_of(d, a.hips));
        CHECK(name_of(d, b.head) == name_of(d, a.head));
        CHECK(std::set<int>(b.pelvis.begin(), b.pelvis.end()) ==
              std::set<int>(a.pelvis.begin(), a.pelvis.end()));
        for (int s = 0; s < 2; ++s) {
          CHECK(name_of(d, b.upper_leg[s]) == name_of(d, a.upper_leg[s]));
          CHECK(name_of(d, b.lower_leg[s]) == name_of(d, a.lower_leg[s]));
          CHECK(name_of(d, b.foot[s]) == name_of(d, a.foot[s]));
        }
      }
    }
  }
  CHECK(compared > 0);
}

TEST_CASE("roles: unnamed joints past topology's limit are refused, saying so", "[roles]") {
  // Topology's searches grow with the square of the joints: past its limit a character whose
  // names give no legs gets no roles and a note asking for names (require_roles' error carries
  // it), rather than a search without bound.
  retail::Document d = test::make_rig(retail::RigOptions{}).doc;
  Json& skin = d.gltf["skins"][0];
  const Json& ibm = d.gltf["accessors"][skin["inverseBindMatrices"].get<std::size_t>()];
  const Json& view = d.gltf["bufferViews"][ibm["bufferView"].get<std::size_t>()];
  const std::size_t buffer = view["buffer"].get<std::size_t>(),
                    at = view.value("byteOffset", std::size_t(0)) +
                         ibm.value("byteOffset", std::size_t(0));
  retail::Bytes& bytes = d.buffers[buffer];
  retail::Bytes data(bytes.begin() + long(at),
                     bytes.begin() + long(at + 64 * ibm["count"].get<std::size_t>()));
  const float identity[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
  const int root = skin["joints"][0].get<int>();
  while (skin["joints"].size() <= 600) { // joints hanging from the first, each at its origin
    d.gltf["nodes"].push_back(Json{{"name", "x"}});
    const int node = int(d.gltf["nodes"].size()) - 1;
    d.gltf["nodes"][std::size_t(root)]["children"].push_back(node);
    skin["joints"].push_back(node);
    const auto* p = reinterpret_cast<const unsigned char*>(identity);
    data.insert(data.end(), p, p + sizeof identity);
  }
  while (bytes.size() % 4) bytes.push_back(0);
  const std::size_t offset = bytes.size();
  bytes.insert(bytes.end(), data.begin(), data.end());
  d.gltf["buffers"][buffer]["byteLength"] = bytes.size();
  d.gltf["bufferViews"].push_back(
      Json{{"buffer", buffer}, {"byteOffset", offset}, {"byteLength", data.size()}});
  d.gltf["accessors"].push_back(Json{{"bufferView", d.gltf["bufferViews"].size() - 1},
                                     {"componentType", 5126},
                                     {"count", skin["joints"].size()},
                                     {"type", "MAT4"}});
  skin["inverseBindMatrices"] = d.gltf["accessors"].size() - 1;
  for (const auto& j : skin["joints"]) d.gltf["nodes"][j.get<std::size_t>()]["name"] = "joint";
  const auto chars = test::characters_of(d);
  REQUIRE(chars.size() == 1);
  const retail::Roles& r = chars[0].roles;
  CHECK_FALSE(r.missing.empty());
  bool said = false;
  for (const auto& note : r.notes) said = said || note.find("name them") != std::string::npos;
  CHECK(said);
}

} // namespace test_roles
