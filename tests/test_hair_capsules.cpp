// Body capsules for the hair chains (include/retail/motion/hair_capsules.h; docs/hair.md "Body
// capsules"): fitted from the generated body's skin, cleared of the chains, covered by the file's
// own colliders, and, on the generated long hair's head turn, what keeps the side clumps out of
// the shoulders and upper arms.
#include "retail/app/pipeline.h"
#include "retail/base/document.h"
#include "retail/io/io.h"
#include "retail/motion/bake.h"
#include "retail/motion/clip_pass.h"
#include "retail/motion/hair_capsules.h"
#include "retail/motion/head_turn.h"
#include "retail/rig/skeleton.h"
#include "support.h"

#include <catch2/catch.hpp>
#include <map>

namespace test_hair_capsules {

using namespace retail;

namespace {

/// The generated long hair (three clumps, found without options) re-rigged, the output read back.
struct LongHair {
  RunResult result;
  Document out;
  Model model;
  std::vector<Character> characters;
};

const LongHair& long_hair() {
  static const LongHair r = [] {
    LongHair h;
    const std::string dir = test::temp_dir();
    RigOptions o;
    o.tail = TailStyle::None;
    o.long_hair = true;
    write_document(test::make_rig(o).doc, dir + "/in.glb");
    RunParams p;
    p.threads = 1;
    h.result = run(dir + "/in.glb", dir + "/out.glb", p);
    h.out = read_document(dir + "/out.glb");
    h.model = parse_model(h.out);
    h.characters = build_characters(h.out, h.model, BindParams{});
    return h;
  }();
  return r;
}

std::map<std::string, BodyCapsule> by_bone(const std::vector<BodyCapsule>& body) {
  std::map<std::string, BodyCapsule> out;
  for (const BodyCapsule& b : body) out[b.bone] = b;
  return out;
}

/// Every chain, and every chain cut after each of its links (the solver runs root to tip, so a
/// cut chain's tip is the full chain's joint: the tips give every joint's path), on the head turn
/// with `colliders`.
HeadTurnReport turned(const LongHair& h, const HairColliders& colliders) {
  const Character& c = h.characters[0];
  HeadTurnChains out;
  out.anchor_nodes = {c.roles.head};
  for (const auto& proxy : colliders.proxies) out.proxy_nodes.push_back(proxy.first);
  out.rig.anchor_count = 1;
  out.rig.proxy_count = out.proxy_nodes.size();
  out.rig.substep_s = 1.0 / 120;
  for (const HairChainResult& full : h.result.hair[0].chains)
    for (std::size_t links = 1; links + 1 <= full.nodes.size(); ++links) {
      HairChainResult cut = full;
      cut.nodes.resize(links + 1);
      cut.bones.resize(links + 1);
      ChainBake bake;
      hair_bake_rig(c, hair_chain_spec(c, cut, colliders), out.rig.substep_s, HairBakeParams{},
                    bake);
      out.rig.proxies = bake.hair_rig.proxies;
      out.rig.chains.push_back(std::move(bake.hair_rig.chains.front()));
      out.joints.push_back(cut.nodes);
      out.end_local.push_back(Eigen::Vector3d::Zero());
    }
  HeadTurnReportParams params;
  params.torso_capsule = false;
  return head_turn_chains(h.out, h.model, h.characters, 0, out, params);
}

/// The deepest any sampled tip lies inside one of the limb capsules (centreline depth, as the
/// head turn's penetration), beyond its depth at rest.
double limb_depth(const HeadTurnReport& r, const std::vector<BodyCapsule>& body) {
  double deepest = 0;
  for (const HeadTurnChainReport& c : r.chains)
    for (const BodyCapsule& b : body) {
      if (!b.limb) continue;
      auto depth = [&](const Eigen::Vector3d& p) {
        return b.capsule.radius_m - segment_distance(p, p, b.capsule.a, b.capsule.b);
      };
      const double at_rest = std::max(0.0, depth(c.tips.front()));
      for (const Eigen::Vector3d& t : c.tips) deepest = std::max(deepest, depth(t) - at_rest);
    }
  return deepest;
}

} // namespace

TEST_CASE("hair capsules: fitted from the generated body's skin, cleared of the hair",
          "[hair_capsules][hair]") {
  const LongHair& h = long_hair();
  REQUIRE(h.result.hair.size() == 1);
  REQUIRE(h.result.hair[0].chains.size() == 3);
  REQUIRE(h.result.hair_colliders.size() == 1);
  const HairColliders& col = h.result.hair_colliders[0];
  auto body = by_bone(col.body);
  for (const char* bone : {"neck", "head", "chest", "left shoulder", "right shoulder",
                           "left upper arm", "right upper arm"}) {
    INFO(bone);
    REQUIRE(body.count(bone));
    const BodyCapsule& b = body[bone];
    CHECK(b.vertices >= 8);
    CHECK(b.fitted_radius_m > 0.02); // inside a 1.8 m body's skin: 2 .. 11 cm
    CHECK(b.fitted_radius_m < 0.11);
    CHECK(b.capsule.radius_m <= b.fitted_radius_m);
    CHECK(!b.covered); // no VRM colliders in the file
    CHECK(b.limb == (std::string(bone).find("shoulder") != std::string::npos ||
                     std::string(bone).find("arm") != std::string::npos));
    CHECK(b.added == (!b.limb && !b.dropped));
  }
  // The neck, head and chest ride their bones, the neck and head shrunk to leave the clumps
  // room (the head's only beyond each root link: the roots ride the head with it).
  CHECK(body["neck"].added);
  CHECK(body["chest"].added);
  CHECK(body["head"].added);
  CHECK(body["neck"].capsule.radius_m < body["neck"].fitted_radius_m);
  CHECK(body["head"].capsule.radius_m < body["head"].fitted_radius_m);
  std::size_t added = 0;
  for (const BodyCapsule& b : col.body) {
    added += b.added;
    if (!b.added) continue;
    for (const HairChainResult& ch : h.result.hair[0].chains) {
      const auto& j = ch.chain.joints;
      const double root_link = b.bone == "head" ? (j[1] - j[0]).norm() : 0.0;
      for (std::size_t i = 1; i < j.size(); ++i) // every joint but the root clears it
        if ((j[i] - j[0]).norm() > root_link)
          CHECK(segment_distance(j[i], j[i], b.capsule.a, b.capsule.b) > b.capsule.radius_m);
    }
  }
  CHECK(col.proxies.size() == col.vrm + (col.torso_added ? 1 : 0) + added);
  // Deterministic.
  const HairColliders again = hair_colliders(h.out, h.model, h.characters[0],
                                             h.result.hair[0].trunk, h.result.hair[0].chains);
  REQUIRE(again.body.size() == col.body.size());
  for (std::size_t i = 0; i < col.body.size(); ++i) {
    CHECK(again.body[i].capsule.radius_m == col.body[i].capsule.radius_m);
    CHECK(again.body[i].capsule.a == col.body[i].capsule.a);
    CHECK(again.body[i].added == col.body[i].added);
  }
}

TEST_CASE("hair capsules: the file's own colliders covering a bone keep its capsule out",
          "[hair_capsules][hair]") {
  const LongHair& h = long_hair();
  const auto fitted = by_bone(h.result.hair_colliders[0].body);
  const BodyCapsule& neck = fitted.at("neck");
  // A file collider along the whole neck, larger than its capsule: the neck is covered.
  WorldCapsule file = neck.capsule;
  file.radius_m = 2 * neck.fitted_radius_m;
  const auto body = by_bone(
      fit_body_capsules(h.characters[0], h.result.hair[0].trunk, {file}, h.result.hair[0].chains));
  CHECK(body.at("neck").covered);
  CHECK(!body.at("neck").added);
  CHECK(body.at("chest").added == fitted.at("chest").added); // half covered: added
  HairCapsuleParams bad;
  bad.radius_share = 0;
  CHECK_THROWS(
      fit_body_capsules(h.characters[0], h.result.hair[0].trunk, {}, h.result.hair[0].chains, bad));
}

TEST_CASE("hair capsules: the long hair's side clumps swing into the shoulders on the head "
          "turn - the limb capsules keep them out",
          "[hair_capsules][hair]") {
  const LongHair& h = long_hair();
  const Character& c = h.characters[0];
  const HairResult& hair = h.result.hair[0];
  HairCapsuleParams limbs;
  limbs.limbs = true;
  const HairColliders with = hair_colliders(h.out, h.model, c, hair.trunk, hair.chains, limbs);
  const HairColliders without = hair_colliders(h.out, h.model, c, hair.trunk, hair.chains);
  REQUIRE(with.proxies.size() == without.proxies.size() + 4); // two shoulders, two upper arms
  const double H = 1.8;                                       // the generated body's height
  const HeadTurnReport off = turned(h, without), on = turned(h, with);
  const double depth_off = limb_depth(off, with.body), depth_on = limb_depth(on, with.body);
  double penetration_on = 0;
  for (const HeadTurnChainReport& t : on.chains)
    penetration_on = std::max(penetration_on, t.penetration_m);
  INFO("joint depth in the limb capsules: without " << depth_off * 1e3 << " mm, with "
                                                    << depth_on * 1e3 << " mm; penetration with "
                                                    << penetration_on * 1e3 << " mm");
  CHECK(depth_off > 1e-3 * H / 1.8); // without them the hair goes into the shoulder
  CHECK(depth_on <= 1e-3 * H / 1.8);
  CHECK(penetration_on <= 1e-3 * H / 1.8);
}

} // namespace test_hair_capsules
