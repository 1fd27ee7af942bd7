// resolve_roles: bone roles from VRM metadata, then names, then topology (SPEC §1).
//
// Names are split into tokens (`mixamorig:LeftUpLeg` -> left|up|leg, `BackUpperLeg.L` ->
// back|upper|leg|l, `Bip01 L Thigh` -> l|thigh); side tokens (l/left, r/right), quadruped
// qualifiers (front/fore, back/hind/rear), rig noise (b_, J_Bip_C_, DEF-, _Armature, digits) and
// helper words (IK, pole, target, twist, end) are separated from the base word that names the
// bone. Hips are always where the two leg chains meet (their lowest common ancestor): on
// Quaternius rigs the bone *named* Hips is a spine bone below that joint. Tie-breaks: the
// shallowest candidate, then the lowest node index.
#include "retail/base/error.h"
#include "retail/rig/skeleton.h"
#include "roles_internal.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstring>
#include <map>
#include <optional>
#include <set>

namespace retail {
namespace {

using roles_detail::LimbPair;
using roles_detail::SkinReach;
using roles_detail::Tree;
using roles_detail::Work;

enum class Cls {
  None,
  Hips,
  UpperLeg,
  Leg,
  LowerLeg,
  Foot,
  Spine,
  Chest,
  Neck,
  Head,
  Shoulder,
  UpperArm,
  LowerArm,
  Hand,
  Tail
};

struct NameInfo {
  int side = -1; ///< 0 left, 1 right, -1 none
  int qual = 0;  ///< 1 front, 2 back/hind
  bool helper = false;
  Cls cls = Cls::None;
};

/// Japanese (MMD) and Chinese bone words as the English tokens classify reads, longer words
/// first (足首 before 足, 手腕 before 腕, 大腿 before 腿). Japanese: 左/右 sides, 下半身 the lower
/// body the legs hang from, 上半身 the spine, 足/ひざ/足首 leg, knee, ankle, 肩/腕/ひじ/手首
/// shoulder, arm, elbow, wrist, 捩 a twist helper, 尻尾 a tail, full-width ＩＫ an IK helper.
/// Chinese where it differs: 大腿/小腿/脚 thigh, shin, foot, 骨盆 pelvis, 脊柱 spine, 胸 chest,
/// 颈 neck, 头 head, 上臂/前臂/手腕/手 upper arm, forearm, wrist, hand, 尾巴 a tail. Where the
/// two disagree (足: a Japanese leg, a Chinese foot) MMD's reading is taken.
std::string english_words(std::string name) {
  static const std::pair<const char*, const char*> words[] = {
      {"下半身", " hips "},   {"上半身", " spine "}, {"つま先", " toe "},   {"しっぽ", " tail "},
      {"足首", " ankle "},    {"手首", " wrist "},   {"尻尾", " tail "},    {"ひざ", " knee "},
      {"ひじ", " elbow "},    {"ＩＫ", " ik "},      {"手腕", " wrist "},   {"脚踝", " ankle "},
      {"脚腕", " ankle "},    {"大腿", " thigh "},   {"小腿", " shin "},    {"上臂", " upperarm "},
      {"大臂", " upperarm "}, {"前臂", " forearm "}, {"小臂", " forearm "}, {"骨盆", " pelvis "},
      {"髋部", " hips "},     {"脊柱", " spine "},   {"脊椎", " spine "},   {"胸部", " chest "},
      {"脖子", " neck "},     {"颈部", " neck "},    {"头部", " head "},    {"尾巴", " tail "},
      {"尾骨", " tail "},     {"膝盖", " knee "},    {"手肘", " elbow "},   {"捩", " twist "},
      {"足", " leg "},        {"腕", " arm "},       {"肩", " shoulder "},  {"首", " neck "},
      {"頭", " head "},       {"膝", " knee "},      {"肘", " elbow "},     {"脚", " foot "},
      {"腿", " leg "},        {"胸", " chest "},     {"颈", " neck "},      {"頸", " neck "},
      {"头", " head "},       {"手", " hand "},      {"左", " left "},      {"右", " right "}};
  for (const auto& [word, en] : words)
    for (std::size_t at = name.find(word); at != std::string::npos; at = name.find(word, at))
      name.replace(at, std::strlen(word), en);
  return name;
}

std::vector<std::string> tokenize(std::string name) {
  auto colon = name.rfind(':');
  if (colon != std::string::npos) name = name.substr(colon + 1);
  std::vector<std::string> out;
  std::string cur;
  auto flush = [&] {
    if (!cur.empty()) out.push_back(cur);
    cur.clear();
  };
  for (std::size_t i = 0; i < name.size(); ++i) {
    unsigned char ch = (unsigned char)name[i];
    if (!std::isalnum(ch)) {
      flush();
      continue;
    }
    if (!cur.empty()) {
      unsigned char prev = (unsigned char)name[i - 1];
      bool camel = std::islower(prev) && std::isupper(ch);
      bool digit_edge = bool(std::isdigit(prev)) != bool(std::isdigit(ch));
      if (camel || digit_edge) flush();
    }
    cur.push_back(char(std::tolower(ch)));
  }
  flush();
  return out;
}

/// The class the tokens naming a part spell, first found of: the tokens joined in order
/// ("upper" "leg": upperleg); two tokens the other way round ("leg" "upper", as some riggers
/// order them); the tokens without Daz's and others' modifiers (upper, lower, bend, mid, main:
/// "abdomen" "lower" is the spine, "thigh" "bend" the thigh). None when none is a class.
Cls class_of(const std::vector<std::string>& tokens) {
  static const std::map<std::string, Cls> classes = {
      {"hips", Cls::Hips},         {"hip", Cls::Hips},          {"pelvis", Cls::Hips},
      {"upleg", Cls::UpperLeg},    {"upperleg", Cls::UpperLeg}, {"thigh", Cls::UpperLeg},
      {"leg", Cls::Leg},           {"lowerleg", Cls::LowerLeg}, {"lowleg", Cls::LowerLeg},
      {"shin", Cls::LowerLeg},     {"calf", Cls::LowerLeg},     {"knee", Cls::LowerLeg},
      {"foot", Cls::Foot},         {"ankle", Cls::Foot},        {"spine", Cls::Spine},
      {"abdomen", Cls::Spine},     {"tummy", Cls::Spine},       {"torso", Cls::Spine},
      {"waist", Cls::Spine},       {"chest", Cls::Chest},       {"upperchest", Cls::Chest},
      {"neck", Cls::Neck},         {"head", Cls::Head},         {"shoulder", Cls::Shoulder},
      {"clavicle", Cls::Shoulder}, {"collar", Cls::Shoulder},   {"upperarm", Cls::UpperArm},
      {"arm", Cls::UpperArm},      {"uparm", Cls::UpperArm},    {"shldr", Cls::UpperArm},
      {"forearm", Cls::LowerArm},  {"lowerarm", Cls::LowerArm}, {"lowarm", Cls::LowerArm},
      {"elbow", Cls::LowerArm},    {"hand", Cls::Hand},         {"fist", Cls::Hand},
      {"wrist", Cls::Hand},        {"tail", Cls::Tail}};
  auto find = [&](const std::vector<std::string>& t) {
    std::string joined;
    for (const std::string& x : t) joined += x;
    auto it = classes.find(joined);
    return it == classes.end() ? Cls::None : it->second;
  };
  Cls c = find(tokens);
  if (c == Cls::None && tokens.size() == 2) c = find({tokens[1], tokens[0]});
  if (c != Cls::None) return c;
  static const std::set<std::string> modifiers = {"upper", "lower", "bend", "mid", "main"};
  std::vector<std::string> kept;
  for (const std::string& t : tokens)
    if (!modifiers.count(t)) kept.push_back(t);
  return kept.size() < tokens.size() && !kept.empty() ? find(kept) : Cls::None;
}

NameInfo classify(const std::string& name) {
  static const std::set<std::string> noise = {"mixamorig", "b",  "j",    "bip", "def",  "armature",
                                              "jnt",       "bn", "bone", "c",   "cc",   "base",
                                              "org",       "sk", "rig",  "jt",  "joint"};
  static const std::set<std::string> helper = {
      "ik",  "pole", "target", "pt",  "ctrl",   "control", "helper", "twist", "end",
      "nub", "roll", "ff",     "ffb", "socket", "weapon",  "prop",   "mch"};
  NameInfo info;
  std::vector<std::string> rest; // the tokens naming the part, in order
  for (const std::string& t : tokenize(english_words(name))) {
    if (std::isdigit((unsigned char)t[0]) || noise.count(t)) continue;
    if (helper.count(t))
      info.helper = true;
    else if (t == "l" || t == "left")
      info.side = 0;
    else if (t == "r" || t == "right")
      info.side = 1;
    else if (t == "front" || t == "fore")
      info.qual = 1;
    else if (t == "back" || t == "hind" || t == "rear")
      info.qual = 2;
    else
      rest.push_back(t);
  }
  info.cls = class_of(rest);
  return info;
}

void apply_vrm(const Json& gltf, const Character& c, Work& w) {
  std::map<std::string, int> bones; // VRM bone name -> node
  std::string source;
  const Json* ext =
      gltf.contains("extensions") && gltf["extensions"].is_object() ? &gltf["extensions"] : nullptr;
  if (ext && ext->contains("VRMC_vrm") && (*ext)["VRMC_vrm"].is_object()) {
    const Json& h = (*ext)["VRMC_vrm"].value("humanoid", Json::object());
    if (h.contains("humanBones") && h["humanBones"].is_object())
      for (const auto& [k, v] : h["humanBones"].items())
        if (v.is_object() && v.contains("node") && v["node"].is_number_integer())
          bones[k] = v["node"].get<int>();
    source = "VRMC_vrm humanoid";
  } else if (ext && ext->contains("VRM") && (*ext)["VRM"].is_object()) {
    const Json& h = (*ext)["VRM"].value("humanoid", Json::object());
    if (h.contains("humanBones") && h["humanBones"].is_array())
      for (const auto& b : h["humanBones"])
        if (b.is_object() && b.contains("bone") && b["bone"].is_string() && b.contains("node") &&
            b["node"].is_number_integer())
          bones[b["bone"].get<std::string>()] = b["node"].get<int>();
    source = "VRM 0.x humanoid";
  }
  if (bones.empty()) return;
  auto get = [&](const char* name) {
    auto it = bones.find(name);
    return it == bones.end() ? -1 : c.joint_index(it->second);
  };
  w.hips = get("hips");
  w.chest = get("chest");
  w.neck = get("neck");
  w.head = get("head");
  const char* side[2] = {"left", "right"};
  for (int s = 0; s < 2; ++s) {
    std::string p = side[s];
    w.upper_leg[s] = get((p + "UpperLeg").c_str());
    w.lower_leg[s] = get((p + "LowerLeg").c_str());
    w.foot[s] = get((p + "Foot").c_str());
    w.shoulder[s] = get((p + "Shoulder").c_str());
    w.upper_arm[s] = get((p + "UpperArm").c_str());
    w.lower_arm[s] = get((p + "LowerArm").c_str());
    w.hand[s] = get((p + "Hand").c_str());
  }
  w.sources.insert(source);
}

bool is_leg_class(Cls c) {
  return c == Cls::UpperLeg || c == Cls::Leg || c == Cls::LowerLeg || c == Cls::Foot;
}

void legs_by_name(const Tree& t, const std::vector<NameInfo>& info, Work& w) {
  for (int s = 0; s < 2; ++s) {
    if (w.upper_leg[s] >= 0 && w.lower_leg[s] >= 0) continue;
    auto cand = [&](int j) {
      return info[j].side == s && !info[j].helper && info[j].qual != 1 && is_leg_class(info[j].cls);
    };
    bool hind = false;
    for (std::size_t j = 0; j < info.size(); ++j)
      hind = hind || (cand(int(j)) && info[j].qual == 2);
    auto leg = [&](int j, Cls cls) {
      return cand(j) && info[j].cls == cls && (!hind || info[j].qual == 2);
    };
    int upper = t.shallowest([&](int j) { return leg(j, Cls::UpperLeg); });
    if (upper < 0) upper = t.shallowest([&](int j) { return leg(j, Cls::Leg); });
    if (upper < 0) continue;
    int lower =
        t.shallowest([&](int j) { return leg(j, Cls::LowerLeg) && t.is_descendant(j, upper); });
    if (lower < 0)
      lower = t.shallowest([&](int j) { return leg(j, Cls::Leg) && t.is_descendant(j, upper); });
    if (lower < 0) lower = t.heaviest_child(upper);
    if (lower < 0) continue;
    int foot = t.shallowest([&](int j) { return leg(j, Cls::Foot) && t.is_descendant(j, lower); });
    if (foot < 0) foot = t.shallowest([&](int j) { return leg(j, Cls::Foot); });
    if (foot < 0) foot = t.heaviest_child(lower);
    w.upper_leg[s] = upper;
    w.lower_leg[s] = lower;
    if (w.foot[s] < 0) w.foot[s] = foot;
    w.sources.insert("names");
  }
}

void arms_by_name(const Tree& t, const std::vector<NameInfo>& info, Work& w) {
  for (int s = 0; s < 2; ++s) {
    auto named = [&](Cls cls, int under) {
      return t.shallowest([&](int j) {
        return info[j].side == s && !info[j].helper && info[j].cls == cls && info[j].qual != 2 &&
               (under < 0 || t.is_descendant(j, under));
      });
    };
    if (w.upper_arm[s] < 0) w.upper_arm[s] = named(Cls::UpperArm, -1);
    if (w.upper_arm[s] < 0) w.upper_arm[s] = named(Cls::UpperLeg, -1); // a quadruped's front leg
    if (w.upper_arm[s] < 0) continue;
    if (w.shoulder[s] < 0) {
      int p = t.c.parent[std::size_t(w.upper_arm[s])];
      if (p >= 0 && info[std::size_t(p)].cls == Cls::Shoulder) w.shoulder[s] = p;
    }
    if (w.lower_arm[s] < 0) w.lower_arm[s] = named(Cls::LowerArm, w.upper_arm[s]);
    if (w.lower_arm[s] < 0) w.lower_arm[s] = named(Cls::LowerLeg, w.upper_arm[s]);
    if (w.lower_arm[s] < 0) w.lower_arm[s] = t.heaviest_child(w.upper_arm[s]);
    if (w.hand[s] < 0 && w.lower_arm[s] >= 0) w.hand[s] = named(Cls::Hand, w.lower_arm[s]);
  }
}

/// True when both upper and both lower legs are found.
bool have_legs(const Work& w) {
  return w.upper_leg[0] >= 0 && w.upper_leg[1] >= 0 && w.lower_leg[0] >= 0 && w.lower_leg[1] >= 0;
}

/// Hips where the legs meet (when not from VRM and both legs are found): their lowest common
/// ancestor. A note in `notes` when a hips-named joint is elsewhere (taken as spine).
void hips_where_legs_meet(const Model& model, const Character& c, const Tree& t,
                          const std::vector<NameInfo>& info, Work& w,
                          std::vector<std::string>& notes) {
  if (w.hips >= 0 || !have_legs(w)) return;
  auto name = [&](int j) {
    return "'" + model.nodes[std::size_t(c.joints[std::size_t(j)])].name + "'";
  };
  w.hips = t.lca(w.upper_leg[0], w.upper_leg[1]);
  int named = t.shallowest(
      [&](int j) { return info[j].cls == Cls::Hips && !info[j].helper && info[j].side < 0; });
  if (named >= 0 && named != w.hips && w.hips >= 0)
    notes.push_back("hips = " + name(w.hips) + ", where both legs meet; the joint named " +
                    name(named) + " is not their common parent and is taken as spine");
}

/// The spine (joint indices strictly between hips and head, hips side first, up to the neck);
/// sets the neck and chest when not already found.
std::vector<int> neck_spine_chest(const Character& c, const Tree& t,
                                  const std::vector<NameInfo>& info, Work& w) {
  std::vector<int> path; // joints strictly between hips and head, hips side first
  if (w.hips >= 0 && w.head >= 0 && t.is_descendant(w.head, w.hips)) {
    for (int p = c.parent[std::size_t(w.head)]; p >= 0 && p != w.hips; p = c.parent[std::size_t(p)])
      path.push_back(p);
    std::reverse(path.begin(), path.end());
  }
  if (w.neck < 0) {
    auto it = std::find_if(path.begin(), path.end(),
                           [&](int j) { return info[std::size_t(j)].cls == Cls::Neck; });
    if (it != path.end())
      w.neck = *it;
    else if (path.size() >= 2)
      w.neck = path.back();
  }
  std::vector<int> spine;
  for (int j : path) {
    if (j == w.neck) break;
    spine.push_back(j);
  }
  if (w.chest < 0) {
    for (int j : spine)
      if (info[std::size_t(j)].cls == Cls::Chest) w.chest = j;
    if (w.chest < 0 && spine.size() >= 2) w.chest = spine.back();
  }
  return spine;
}

/// True when joint `j`, on no leg's or arm's chain, lies nearer the legs' sockets (the midpoint
/// of the hips' children the two upper legs hang from) than the hips joint does. Pre: the hips
/// found.
bool nearer_the_sockets(const Character& c, const Work& w, int j) {
  Eigen::Vector3d sockets = Eigen::Vector3d::Zero();
  for (int s = 0; s < 2; ++s) {
    int k = w.upper_leg[s];
    while (k >= 0 && c.parent[std::size_t(k)] != w.hips) k = c.parent[std::size_t(k)];
    if (k < 0) return false;
    sockets += c.bind_position(k) / 2;
  }
  for (int limb : {w.upper_leg[0], w.upper_leg[1], w.upper_arm[0], w.upper_arm[1]})
    for (int k = limb; k >= 0 && k != w.hips; k = c.parent[std::size_t(k)])
      if (k == j) return false; // a limb's own chain
  return (c.bind_position(j) - sockets).norm() < (c.bind_position(w.hips) - sockets).norm();
}

/// The pelvis as joint indices (empty without hips): the hips, then the hips-named joints next to
/// them; with no hips name anywhere, the joints hanging from the hips with joints below them
/// that lie nearer the legs' sockets (nearer_the_sockets): Quaternius' Body -> Hips. A leaf
/// there is a helper or a removed tail's stump.
std::vector<int> pelvis_joints(const Character& c, const std::vector<NameInfo>& info,
                               const Work& w) {
  std::vector<int> out;
  if (w.hips < 0) return out;
  out.push_back(w.hips);
  bool named = false;
  std::vector<bool> has_child(c.joints.size(), false);
  for (std::size_t j = 0; j < c.joints.size(); ++j) {
    named = named || (info[j].cls == Cls::Hips && !info[j].helper);
    if (c.parent[j] >= 0) has_child[std::size_t(c.parent[j])] = true;
    if (info[j].cls == Cls::Hips && !info[j].helper && int(j) != w.hips &&
        (c.parent[j] == w.hips || c.parent[std::size_t(w.hips)] == int(j)))
      out.push_back(int(j));
  }
  for (std::size_t j = 0; !named && j < c.joints.size(); ++j)
    if (c.parent[j] == w.hips && has_child[j] && nearer_the_sockets(c, w, int(j)))
      out.push_back(int(j));
  return out;
}

/// The roles as node indices from the joint indices in `w` and `spine`, the pelvis
/// (pelvis_joints), the sources joined, the required roles not found.
void roles_from_work(const Character& c, const std::vector<NameInfo>& info, const Work& w,
                     const std::vector<int>& spine, Roles& r) {
  auto node = [&](int j) { return j < 0 ? -1 : c.joints[std::size_t(j)]; };
  r.hips = node(w.hips);
  for (int j : pelvis_joints(c, info, w)) r.pelvis.push_back(node(j));
  for (int j : spine) r.spine.push_back(node(j));
  r.chest = node(w.chest);
  r.neck = node(w.neck);
  r.head = node(w.head);
  for (int s = 0; s < 2; ++s) {
    r.upper_leg[s] = node(w.upper_leg[s]);
    r.lower_leg[s] = node(w.lower_leg[s]);
    r.foot[s] = node(w.foot[s]);
    r.shoulder[s] = node(w.shoulder[s]);
    r.upper_arm[s] = node(w.upper_arm[s]);
    r.lower_arm[s] = node(w.lower_arm[s]);
    r.hand[s] = node(w.hand[s]);
  }
  for (const auto& s : w.sources) r.source += (r.source.empty() ? "" : " + ") + s;
  if (r.hips < 0) r.missing.push_back("hips");
  if (r.spine.empty()) r.missing.push_back("spine");
  if (r.head < 0) r.missing.push_back("head");
  const char* sides[2] = {"left", "right"};
  for (int s = 0; s < 2; ++s) {
    if (r.upper_leg[s] < 0) r.missing.push_back(std::string(sides[s]) + " upper leg");
    if (r.lower_leg[s] < 0) r.missing.push_back(std::string(sides[s]) + " lower leg");
  }
}

} // namespace

Roles resolve_roles(const Document& doc, const Model& model, const Character& c,
                    const HeldSkins* held) {
  Tree t(c);
  Work w;
  Roles r;
  std::vector<NameInfo> info;
  for (int node : c.joints) info.push_back(classify(model.nodes[std::size_t(node)].name));
  apply_vrm(doc.gltf, c, w);
  legs_by_name(t, info, w);
  std::optional<SkinReach> reach; // read from the skin only when topology is needed
  std::optional<std::vector<LimbPair>> pairs;
  auto limb_pairs = [&]() -> const std::vector<LimbPair>& {
    if (!reach) reach = roles_detail::skin_reach(doc, model, t, held);
    if (!pairs) pairs = roles_detail::reaching_pairs(t, *reach);
    return *pairs;
  };
  std::vector<bool> tail_named(c.joints.size()); // a hint topology reads where names give it
  for (std::size_t j = 0; j < c.joints.size(); ++j) tail_named[j] = info[j].cls == Cls::Tail;
  const bool topology = c.joints.size() <= roles_detail::kMaxTopologyJoints;
  if (!have_legs(w) && !topology)
    r.notes.push_back(std::to_string(c.joints.size()) + " joints, more than " +
                      std::to_string(roles_detail::kMaxTopologyJoints) +
                      " to read roles from the skeleton's shape: name them");
  if (!have_legs(w) && topology) {
    const std::vector<LimbPair>& found = limb_pairs(); // reads `reach` too
    roles_detail::legs_by_topology(t, *reach, found, tail_named, w);
  }
  hips_where_legs_meet(model, c, t, info, w, r.notes);
  if (w.head < 0)
    w.head = t.shallowest([&](int j) {
      return info[j].cls == Cls::Head && !info[j].helper &&
             (w.hips < 0 || t.is_descendant(j, w.hips));
    });
  if (w.head < 0 && w.hips >= 0 && topology) {
    const Eigen::Vector3d front = roles_detail::towards_front(t, limb_pairs(), w);
    roles_detail::head_by_topology(c, t, *reach, front, w);
  }
  const std::vector<int> spine = neck_spine_chest(c, t, info, w);
  arms_by_name(t, info, w);
  if (pairs) roles_detail::arms_by_topology(t, *pairs, w);
  roles_from_work(c, info, w, spine, r);
  return r;
}

void require_roles(const Model& model, const Character& c) {
  const Roles& r = c.roles;
  if (r.missing.empty()) return;
  std::string msg = "skins[" + std::to_string(c.skins[0]) + "]: cannot resolve ";
  for (std::size_t i = 0; i < r.missing.size(); ++i) msg += (i ? ", " : "") + r.missing[i];
  msg += "; found:";
  auto add = [&](const char* role, int n) {
    if (n >= 0) msg += std::string(" ") + role + "='" + model.nodes[std::size_t(n)].name + "'";
  };
  add("hips", r.hips);
  for (int n : r.spine) add("spine", n);
  add("head", r.head);
  add("leftUpperLeg", r.upper_leg[0]);
  add("rightUpperLeg", r.upper_leg[1]);
  add("leftLowerLeg", r.lower_leg[0]);
  add("rightLowerLeg", r.lower_leg[1]);
  if (msg.back() == ':') msg += " nothing";
  for (const std::string& note : r.notes) msg += "; " + note;
  fail_unsupported(msg);
}

std::set<int> trunk_joints(const Roles& r) {
  std::set<int> trunk(r.pelvis.begin(), r.pelvis.end());
  trunk.insert(r.spine.begin(), r.spine.end());
  if (r.hips >= 0) trunk.insert(r.hips);
  if (r.chest >= 0) trunk.insert(r.chest);
  return trunk;
}

int low_spine_joint(const Character& c) {
  return c.roles.spine.empty() ? -1 : c.joint_index(c.roles.spine.front());
}

int trunk_carrier(const Roles& r) {
  return r.chest >= 0 ? r.chest : !r.spine.empty() ? r.spine.back() : r.hips;
}

} // namespace retail
