// clip_pass: the bake and the stretch, one clip per work item (clip_pass.h).
#include "retail/motion/clip_pass.h"
#include "motion/clip_pass_internal.h"

#include "retail/base/parallel.h"
#include "retail/motion/body_capsules.h"
#include "retail/motion/hair_measure.h"
#include "retail/motion/skin_bend.h"
#include "retail/rig/animation.h"
#include "retail/rig/transform.h"
#include "retail/vrm/vrm_springs.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <map>
#include <memory>
#include <numeric>
#include <set>

namespace retail {

namespace {

/// A grown chain hanging from `anchor`: its nodes (bones, then the end), names and skin radii.
ChainSpec grown_chain_spec(int anchor, const std::vector<int>& nodes,
                           const std::vector<std::string>& names, const Chain& chain) {
  ChainSpec spec;
  spec.anchor = anchor;
  spec.bones.assign(nodes.begin(), nodes.end() - 1);
  spec.end = nodes.back();
  spec.names = names;
  spec.skin_radius = chain.radius;
  return spec;
}

} // namespace

ChainSpec tail_chain_spec(const Character& c, const ChainResult& chain) {
  ChainSpec spec = grown_chain_spec(c.roles.hips, chain.nodes, chain.bones, chain.chain);
  spec.min_skin_ratio = chain.min_skin_ratio;
  return spec;
}

HairColliders hair_colliders(const Document& doc, const Model& model, const Character& c,
                             const TrunkSkin& trunk, const std::vector<HairChainResult>& chains,
                             const HairCapsuleParams& params) {
  HairColliders out;
  const VrmSprings springs = usable_vrm_springs(doc, model);
  if (!springs.unusable.empty())
    out.warnings.push_back("--hair: the file's VRM colliders are not used: its spring metadata "
                           "cannot be used (" +
                           springs.unusable + ")");
  const std::vector<Eigen::Matrix4d> world = world_matrices(model);
  std::vector<WorldCapsule> placed; // at the saved pose, for the coverage test
  for (const VrmCollider& col : springs.colliders) {
    HairProxy p;
    p.head_local = col.offset;
    p.tail_local = col.tail;
    p.radius_m = col.radius_m;
    p.inside = col.inside;
    p.plane = col.shape == VrmColliderShape::Plane;
    p.normal_local = col.normal;
    out.proxies.push_back({col.node, p});
    if (!p.plane && !p.inside)
      placed.push_back(place(p, Eigen::Affine3d(world[std::size_t(col.node)])));
  }
  out.vrm = out.proxies.size();
  TorsoSkin skin;
  skin.positions = trunk.positions;
  skin.trunk_weight = trunk.trunk_weight;
  skin.hips = trunk.hips;
  skin.chest_top = trunk.neck;
  const TorsoFit fit = fit_torso_capsule(placed, skin);
  const int j = trunk.carrier >= 0 ? c.joint_index(trunk.carrier) : -1;
  out.torso_fitted = fit.fitted && j >= 0;
  out.covered_fraction = fit.covered_fraction;
  if (out.torso_fitted && fit.uncovered) {
    out.proxies.push_back({trunk.carrier, riding_proxy(fit.capsule, c.bind_world[std::size_t(j)])});
    out.torso_added = true;
    out.torso_radius = fit.capsule.radius_m;
    out.torso_node = trunk.carrier;
  }
  out.body = fit_body_capsules(c, trunk, placed, chains, params);
  for (BodyCapsule& b : out.body)
    if (b.added) {
      b.proxy = int(out.proxies.size());
      out.proxies.push_back(
          {b.node, riding_proxy(b.capsule, c.bind_world[std::size_t(c.joint_index(b.node))])});
    }
  return out;
}

ChainSpec hair_chain_spec(const Character& c, const HairChainResult& chain,
                          const HairColliders& colliders) {
  ChainSpec spec = grown_chain_spec(c.roles.head, chain.nodes, chain.bones, chain.chain);
  spec.forward_plane = spec.floor = false;
  spec.kind = ChainKind::Hair;
  spec.solver = ChainSolver::Arc;
  spec.colliders = colliders.proxies;
  spec.hair_stiffness_per_s2 = chain.stiffness_per_s2;
  spec.hair_damping_per_s = chain.damping_per_s;
  return spec;
}

namespace {

using namespace clip_detail;

double ms_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

/// The judged edges of a chain in their two tiers (harm.h): every edge with an end it
/// re-weighted (chain or root band); tier 0 those with both ends on the piece, tier 1 the rest.
std::array<CharacterWork::Tier, 2> judged_edges(const ChainResult& ch,
                                                const std::vector<std::pair<int, int>>& edges,
                                                std::size_t vertices) {
  std::vector<char> changed(vertices, 0); // 2 on the piece, 1 in its band
  for (std::size_t v : ch.band_originals) changed[v] = 1;
  for (std::size_t v : ch.original_vertices) changed[v] = 2;
  std::array<CharacterWork::Tier, 2> out;
  for (auto& t : out) t.ends.assign(vertices, false);
  for (const auto& e : edges) {
    const char a = changed[std::size_t(e.first)], b = changed[std::size_t(e.second)];
    if (!a && !b) continue;
    CharacterWork::Tier& t = out[a == 2 && b == 2 ? 0 : 1];
    t.edges.push_back(e);
    t.ends[std::size_t(e.first)] = t.ends[std::size_t(e.second)] = true;
  }
  return out;
}

/// The edges with both ends in `tail`, in edge-list order.
std::vector<std::pair<int, int>> tail_edges(const std::vector<std::pair<int, int>>& edges,
                                            const std::vector<bool>& tail) {
  std::vector<std::pair<int, int>> out;
  for (const auto& e : edges)
    if (tail[std::size_t(e.first)] && tail[std::size_t(e.second)]) out.push_back(e);
  return out;
}

/// g_0: the lowest bind point of the result skin, vertices dominated by a chain bone excluded
/// (a tail hanging below the feet must not define the ground); the character's lowest point
/// when every vertex is (bake.h).
double body_floor(const SkinSampler& skin, const Character& rigged, const CharacterResult& cr) {
  std::set<int> chain_nodes;
  for (const auto& ch : cr.chains) chain_nodes.insert(ch.nodes.begin(), ch.nodes.end());
  std::vector<int> dominant = skin.dominant_node();
  double floor = INFINITY;
  for (std::size_t v = 0; v < skin.size(); ++v)
    if (!chain_nodes.count(dominant[v])) floor = std::min(floor, skin.bind()[v].y());
  return std::isfinite(floor) ? floor : rigged.min_y;
}

/// The original rig and the rigid reference of character k: they need only the input and the
/// tail found.
CharacterWork prepare_input_rigs(const ClipPassInput& in, std::size_t k,
                                 const ClipPassParams& params) {
  const Character& input = (*in.input_characters)[k];
  CharacterWork w;
  w.character = k;
  const bool given = in.input_skins && k < in.input_skins->size() && (*in.input_skins)[k];
  w.input = given ? (*in.input_skins)[k]
                  : std::make_shared<const SkinEdges>(*in.doc, *in.input_model, input);
  w.original = &w.input->skin;
  w.rigid = std::make_unique<SkinSampler>(*w.original); // the same skin, then pinned
  w.tail.assign(w.original->size(), false);
  for (const auto& ch : (*in.results)[k].chains)
    for (std::size_t v : ch.original_vertices) {
      w.tail[v] = true;
      w.rigid->pin(v, input.roles.hips);
    }
  const auto& chains = (*in.results)[k].chains;
  bool shared = false;
  for (const auto& ch : chains) {
    const SkinSampler* rigid = w.rigid.get();
    if (chains.size() > 1) {
      w.piece_rigid.push_back(std::make_unique<SkinSampler>(*w.original));
      for (std::size_t v : ch.original_vertices) w.piece_rigid.back()->pin(v, input.roles.hips);
      rigid = w.piece_rigid.back().get();
    }
    w.judge.push_back(judged_edges(ch, w.edges(), w.original->size()));
    CharacterWork::Tier& own = w.judge.back()[0];
    own.shared = chains.size() == 1 && own.edges == tail_edges(w.edges(), w.tail);
    shared = shared || own.shared;
    for (CharacterWork::Tier& t : w.judge.back())
      if (!t.shared)
        t.input = std::make_unique<StretchMeter>(
            std::vector<StretchRig>{{in.input_model, w.original, false, true, false},
                                    {in.input_model, rigid, false, true, false}},
            t.edges, t.ends, params.stretch);
  }
  w.input_rigs = std::make_unique<StretchMeter>(
      std::vector<StretchRig>{{in.input_model, w.original, false, shared},
                              {in.input_model, w.rigid.get(), false, shared}},
      w.edges(), w.tail, params.stretch);
  return w;
}

/// The meters of w's result rig (w.result): the whole rig and each judged tier's edges.
void prepare_output_meters(const Model& rigged_model, const ClipPassParams& params,
                           CharacterWork& w) {
  bool shared = false;
  for (const auto& tiers : w.judge) shared = shared || tiers[0].shared;
  w.output_rig = std::make_unique<StretchMeter>(
      std::vector<StretchRig>{{&rigged_model, w.result.get(), true, shared}}, w.edges(), w.tail,
      params.stretch);
  for (auto& tiers : w.judge)
    for (CharacterWork::Tier& t : tiers)
      if (!t.shared)
        t.output = std::make_unique<StretchMeter>(
            std::vector<StretchRig>{{&rigged_model, w.result.get(), false, true, false}}, t.edges,
            t.ends, params.stretch);
}

/// Work w's skin probes and skin tries (clip_skin.cpp): per baked tail chain of `cr` (`grown`,
/// its specs as w.chains were prepared) its skin against the legs' capsules `at_bind`, and the
/// chains prepared again for each try that differs from the run's own settings. A try that
/// bends less has its chains' weighted limits read again at its ratio (weigh_tail_bend), once
/// per distinct ratio.
void prepare_skin_tries(const CharacterResult& cr, const std::vector<RestObstacle>& at_bind,
                        const std::vector<int>& leg_joints, const Character& rigged,
                        const std::vector<ChainSpec>& grown, const ClipPassParams& params,
                        CharacterWork& w) {
  std::vector<const ChainResult*> baked; // grown[k] is baked[k]'s spec
  for (const auto& ch : cr.chains)
    if (!ch.nodes.empty()) {
      baked.push_back(&ch);
      w.skin_probes.push_back(
          skin_depth_probe(*w.result, ch.original_vertices, at_bind, leg_joints));
    }
  const BakeParams& bp = params.bake_params;
  if (at_bind.empty() || !bp.colliders || !bp.try_skin) return;
  std::map<double, std::vector<ChainSpec>> bending_less; // by the try's ratio
  for (const SkinTry& t : bp.skin_tries) {
    std::vector<ChainSpec> specs;
    if (!(t.min_skin_ratio > 0)) {
      specs = grown;
    } else {
      auto [at, fresh] = bending_less.try_emplace(t.min_skin_ratio, grown);
      if (fresh)
        for (std::size_t k = 0; k < at->second.size() && k < baked.size(); ++k) {
          ChainSpec& spec = at->second[k]; // bending less than the chain's own limit, never more
          spec.min_skin_ratio = std::isnan(spec.min_skin_ratio)
                                    ? std::max(t.min_skin_ratio, bp.spring.min_skin_ratio)
                                    : std::max(t.min_skin_ratio, spec.min_skin_ratio);
          weigh_tail_bend(*w.result, w.edges(), rigged, *baked[k], bp.spring.min_skin_ratio, spec,
                          params.threads);
        }
      specs = at->second;
    }
    for (ChainSpec& spec : specs) spec.collider_skin_share = t.skin_share;
    const bool same =
        t.skin_share == bp.collider_skin_share && t.bend_scale == 1 && t.min_skin_ratio == 0;
    w.skin_tries.push_back(same ? std::vector<ChainBake>(specs.size())
                                : prepare_bakes(rigged, specs, w.floor, skin_try_params(bp, t)));
  }
}

/// The springs of w's character (w.floor, w.chains) on its result rig (w.result).
void prepare_springs(const ClipPassInput& in, const Model& rigged_model, const Character& rigged,
                     const ClipPassParams& params, CharacterWork& w) {
  const CharacterResult& cr = (*in.results)[w.character];
  w.floor = std::isfinite(params.bake_params.floor_y) ? params.bake_params.floor_y
                                                      : body_floor(*w.result, rigged, cr);
  std::vector<ChainSpec> grown; // chains with bones (a rigid fallback has none)
  std::vector<int> leg_joints;
  const std::vector<RestObstacle> at_bind = leg_capsules(*w.result, rigged, {}, &leg_joints);
  std::vector<RestObstacle> legs =
      swept_capsules(*in.doc, rigged_model, rigged, rigged.roles.hips, at_bind, leg_joints,
                     in.clips, params.stretch.samples);
  legs.insert(legs.end(), at_bind.begin(), at_bind.end());
  for (const auto& ch : cr.chains)
    if (!ch.nodes.empty()) {
      grown.push_back(tail_chain_spec(rigged, ch));
      weigh_tail_bend(*w.result, w.edges(), rigged, ch, params.bake_params.spring.min_skin_ratio,
                      grown.back(), params.threads);
      grown.back().clear_of = legs;
      grown.back().limb_colliders = at_bind;
      grown.back().limb_collider_joints = leg_joints;
      grown.back().collider_skin_share = params.bake_params.collider_skin_share;
    }
  w.chains = prepare_bakes(rigged, grown, w.floor, params.bake_params);
  prepare_skin_tries(cr, at_bind, leg_joints, rigged, grown, params, w);
}

/// The result rig and the springs of w's character, from the plan held in memory. The meters
/// and the springs read the result rig and write fields of their own: built side by side.
void prepare_output_rig(const ClipPassInput& in, const Model& rigged_model, const HeldSkins& held,
                        const Character& rigged, const ClipPassParams& params, CharacterWork& w) {
  w.result = std::make_unique<SkinSampler>(*in.doc, rigged_model, rigged, &held);
  parallel_for(params.bake ? 2 : 1, params.threads, [&](std::size_t task) {
    if (task == 0)
      prepare_output_meters(rigged_model, params, w);
    else
      prepare_springs(in, rigged_model, rigged, params, w);
  });
}

ClipOutcome run_clip(const ClipPassInput& in, const Rigged& rigged,
                     const std::vector<CharacterWork>& works,
                     const std::vector<HairWork>& hair_works, int clip,
                     const ClipPassParams& params, StretchScratch& scratch) {
  ClipOutcome out;
  auto t0 = Clock::now();
  ClipSampler input_clip(*in.doc, *in.input_model, clip);
  for (const CharacterWork& w : works)
    out.input_rigs.push_back(w.input_rigs->measure(input_clip, clip, scratch));
  auto t1 = Clock::now();
  for (const CharacterWork& w : works) {
    out.baked.emplace_back();
    for (const ChainBake& chain : w.chains)
      out.baked.back().push_back(bake_clip(*in.doc, rigged.model, chain, clip, params.bake_params));
  }
  for (const HairWork& h : hair_works) {
    out.hair.emplace_back();
    for (const ChainBake& chain : h.chains)
      out.hair.back().push_back(bake_clip(*in.doc, rigged.model, chain, clip, params.bake_params));
  }
  auto t2 = Clock::now();
  const ClipSampler output_clip = output_sampler(in, rigged, works, hair_works, out, clip);
  for (std::size_t wi = 0; wi < works.size(); ++wi) {
    OutputJudged m =
        judge_output(works[wi], out.input_rigs[wi], input_clip, output_clip, clip, scratch);
    if (params.bake)
      keep_skin_clear(in, rigged, works, hair_works, wi, clip, input_clip, output_clip, params, m,
                      out, scratch);
    if (params.bake && params.bake_params.hold_harmful) {
      hold_where_harmful(in, rigged, works, hair_works, wi, clip, input_clip, params.harm, m, out,
                         scratch);
      measure_held_skin(in, rigged, works, hair_works, wi, clip, params, out, scratch);
    }
    out.output_rig.push_back(std::move(m.output_rig));
    out.judge.push_back(std::move(m.judge));
    out.edge_net.push_back(std::move(m.edge_net));
    for (ClipStretch& cs : out.input_rigs[wi]) std::vector<std::uint8_t>().swap(cs.tail_torn);
  }
  auto t3 = Clock::now();
  out.bake_ms = ms_between(t1, t2);
  out.stretch_ms = ms_between(t0, t1) + ms_between(t2, t3);
  return out;
}

/// The net harm per vertex the chain changed (PieceJudge::vertex_net): over every clip and
/// both tiers of chain j of work w (index wi), the newly torn minus healed samples of the
/// edges at each vertex; zeros left out, ascending vertex order.
std::vector<std::pair<std::size_t, long long>>
vertex_net_harm(const ChainResult& chain, const CharacterWork& w,
                const std::vector<ClipOutcome>& outcomes, std::size_t wi, std::size_t j) {
  std::vector<long long> net(w.original->size(), 0);
  for (std::size_t t = 0; t < 2; ++t) {
    const auto& tier = w.judge[j][t];
    const auto& edges = (tier.shared ? *w.input_rigs : *tier.input).tail_edges(0);
    for (const ClipOutcome& o : outcomes) {
      const std::vector<std::int32_t>& e = o.edge_net[wi][j][t];
      for (std::size_t k = 0; k < e.size() && k < edges.size(); ++k)
        if (e[k] != 0) {
          net[std::size_t(edges[k].first)] += e[k];
          net[std::size_t(edges[k].second)] += e[k];
        }
    }
  }
  std::vector<std::size_t> changed = chain.original_vertices;
  changed.insert(changed.end(), chain.band_originals.begin(), chain.band_originals.end());
  std::sort(changed.begin(), changed.end());
  std::vector<std::pair<std::size_t, long long>> out;
  for (std::size_t v : changed)
    if (v < net.size() && net[v] != 0) out.push_back({v, net[v]});
  return out;
}

/// Chain j of work wi judged in every clip (PieceJudge).
PieceJudge piece_judge(const ChainResult& chain, const std::vector<ClipOutcome>& outcomes,
                       std::size_t wi, std::size_t j) {
  PieceJudge pj;
  pj.piece = chain.piece;
  for (const ClipOutcome& o : outcomes) {
    const auto& tiers = o.judge[wi][j];
    const EdgeFlips &own = tiers[0][0], &seam = tiers[1][0];
    const double total = double(std::max<std::size_t>(1, own.edge_samples + seam.edge_samples));
    pj.clips.push_back(o.output_rig[wi].name);
    pj.input_torn.push_back(100.0 * double(own.input_torn + seam.input_torn) / total);
    pj.output_torn.push_back(100.0 * double(own.output_torn + seam.output_torn) / total);
    pj.flips.push_back(own);
    pj.seam_flips.push_back(seam);
    pj.body_torn.push_back(o.output_rig[wi].body.torn_percent);
    if (!chain.rigid) {
      pj.rigid_flips.push_back(tiers[0][1]);
      pj.rigid_seam_flips.push_back(tiers[1][1]);
    }
  }
  return pj;
}

/// A baked chain's record, its clips not added yet.
ChainRecord chain_record(const ChainBake& chain, ChainKind kind) {
  ChainRecord rec;
  rec.kind = kind;
  rec.solver = chain.solver;
  rec.bones = chain.bones;
  rec.nodes = chain.nodes;
  return rec;
}

/// One clip's bake added to its chain's record (the keys moved there), its warnings to
/// `warnings`. No collider penetration is measured yet: NaN.
void add_clip(BakedClip& baked, ChainRecord& rec, std::vector<std::string>& warnings) {
  warnings.insert(warnings.end(), baked.warnings.begin(), baked.warnings.end());
  rec.bakes.push_back(baked.bake);
  rec.penetration.push_back(NAN);
  rec.keys.push_back(std::move(baked));
}

/// The pass's result from every clip's outcome: figures in clip order, keys and warnings in
/// character, chain and clip order (the keys moved out of the outcomes).
ClipPassResult collect(const std::vector<CharacterWork>& works, std::vector<ClipOutcome>& outcomes,
                       const Rigged& rigged, const std::vector<CharacterResult>* results,
                       double skin_bound_h) {
  const std::size_t characters = results->size();
  const std::size_t n = outcomes.size();
  ClipPassResult r;
  r.stretch.resize(characters);
  r.bakes.resize(characters);
  r.floors.assign(characters, NAN);
  r.rests.resize(characters);
  r.chains.resize(characters);
  r.judge.resize(characters);
  for (const ClipOutcome& o : outcomes) r.bake_ms += o.bake_ms, r.stretch_ms += o.stretch_ms;
  for (std::size_t wi = 0; wi < works.size(); ++wi) {
    const CharacterWork& w = works[wi];
    const std::size_t k = w.character;
    r.floors[k] = w.floor;
    for (std::size_t c = 0; c < n; ++c) {
      const ClipOutcome& o = outcomes[c];
      StretchRow row;
      row.clip = o.output_rig[wi].clip;
      row.name = o.output_rig[wi].name;
      row.duration = o.output_rig[wi].duration;
      row.original = o.input_rigs[wi][0].tail;
      row.rigid = o.input_rigs[wi][1].tail;
      row.result = o.output_rig[wi].tail;
      row.body = o.output_rig[wi].body;
      row.has_original = row.has_rigid = true;
      r.stretch[k].push_back(row);
    }
    const CharacterResult& cr = (*results)[k];
    for (std::size_t j = 0; j < w.judge.size(); ++j) {
      r.judge[k].push_back(piece_judge(cr.chains[j], outcomes, wi, j));
      r.judge[k].back().vertex_net = vertex_net_harm(cr.chains[j], w, outcomes, wi, j);
    }
    for (const ChainBake& chain : w.chains) {
      r.chains[k].push_back(chain_record(chain, ChainKind::Tail));
      r.rests[k].push_back(
          {chain.bones.empty() ? "" : chain.bones.front(), chain.carry_deg, chain.clears, {}});
      for (std::size_t c = 0; c + 1 < chain.proxy_nodes.size(); c += 2)
        r.rests[k].back().colliders.push_back(
            rigged.model.nodes[std::size_t(chain.proxy_nodes[c])].name + " -> " +
            rigged.model.nodes[std::size_t(chain.proxy_nodes[c + 1])].name);
    }
    std::vector<bool> hold_step; // per baked chain (a rigid fallback has none)
    for (const ChainResult& ch : cr.chains)
      if (!ch.nodes.empty()) hold_step.push_back(ch.hold_harmful);
    for (std::size_t j = 0; j < w.chains.size(); ++j) {
      ChainRecord& rec = r.chains[k][j];
      for (std::size_t c = 0; c < n; ++c) add_clip(outcomes[c].baked[wi][j], rec, r.warnings);
      const std::vector<ClipBake>& mine = rec.bakes;
      warn_unsettled(mine, w.chains[j], r.warnings);
      warn_held(mine, w.chains[j], j < hold_step.size() && hold_step[j], r.warnings);
      const double h = rigged.characters[k].height;
      warn_floor_penetration(mine, w.chains[j], 1e-3 * h, h, r.warnings);
      warn_skin_depth(mine, w.chains[j], skin_bound_h * h, h, !w.skin_tries.empty(), r.warnings);
      r.baked += mine.size();
      r.bakes[k].insert(r.bakes[k].end(), mine.begin(), mine.end());
    }
  }
  return r;
}

/// The hair chains' bakes, keys and colliders from every clip's outcome, in character, chain,
/// clip order (the keys moved out of the outcomes).
void collect_hair(const std::vector<HairWork>& hair_works, std::vector<ClipOutcome>& outcomes,
                  std::size_t characters, ClipPassResult& r) {
  if (hair_works.empty()) return;
  r.hair_colliders.resize(characters);
  for (std::size_t hi = 0; hi < hair_works.size(); ++hi) {
    const HairWork& h = hair_works[hi];
    const std::size_t k = h.character;
    r.hair_colliders[k] = h.colliders;
    r.warnings.insert(r.warnings.end(), h.colliders.warnings.begin(), h.colliders.warnings.end());
    for (std::size_t j = 0; j < h.chains.size(); ++j) {
      r.chains[k].push_back(chain_record(h.chains[j], ChainKind::Hair));
      ChainRecord& rec = r.chains[k].back();
      for (ClipOutcome& o : outcomes) add_clip(o.hair[hi][j], rec, r.warnings);
      warn_unsettled(rec.bakes, h.chains[j], r.warnings);
      r.baked += rec.bakes.size();
    }
  }
}

/// The hair works of every character with hair chains (none when not baking).
std::vector<HairWork> prepare_hair(const ClipPassInput& in, const Rigged& rigged,
                                   const ClipPassParams& params) {
  std::vector<HairWork> out;
  if (!in.hair || !params.bake) return out;
  for (std::size_t k = 0; k < in.hair->size(); ++k) {
    const HairResult& hr = (*in.hair)[k];
    if (hr.chains.empty()) continue;
    HairWork h;
    h.character = k;
    const Character& c = rigged.characters[k];
    h.colliders = hair_colliders(*in.doc, rigged.model, c, hr.trunk, hr.chains);
    std::vector<ChainSpec> specs;
    for (const HairChainResult& ch : hr.chains)
      specs.push_back(hair_chain_spec(c, ch, h.colliders));
    h.chains = prepare_bakes(c, specs, NAN, params.bake_params);
    out.push_back(std::move(h));
  }
  return out;
}

} // namespace

ClipPassResult clip_pass(const ClipPassInput& in, const ClipPassParams& params) {
  params.validate();
  const std::size_t characters = in.results->size();
  Rigged rigged;
  std::vector<CharacterWork> works;
  // The output rig and the input rigs need nothing of each other: built side by side.
  parallel_for(2, params.threads, [&](std::size_t task) {
    if (task == 0) {
      PlannedRig planned = planned_rig(*in.doc, *in.input_model, in.plan ? *in.plan : RigEdit{});
      rigged.model = std::move(planned.model);
      rigged.held = std::move(planned.held);
      rigged.characters = build_characters(*in.doc, rigged.model, params.bind, &rigged.held);
      return;
    }
    for (std::size_t k = 0; k < characters; ++k)
      if (!(*in.results)[k].chains.empty()) works.push_back(prepare_input_rigs(in, k, params));
  });
  for (CharacterWork& w : works)
    prepare_output_rig(in, rigged.model, rigged.held, rigged.characters[w.character], params, w);
  const std::vector<HairWork> hair_works = prepare_hair(in, rigged, params);
  // Longest clip first (animation.h's clip_duration): the fewest idle workers at the end.
  const std::size_t n = in.clips.size();
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::vector<double> length(n);
  for (std::size_t c = 0; c < n; ++c) length[c] = clip_duration(*in.doc, rigged.model, in.clips[c]);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return length[a] > length[b]; });
  std::vector<ClipOutcome> outcomes(n);
  std::vector<StretchScratch> scratch(std::min(std::size_t(worker_count(params.threads)), n));
  parallel_for_workers(n, params.threads, [&](std::size_t i, std::size_t worker) {
    outcomes[order[i]] =
        run_clip(in, rigged, works, hair_works, in.clips[order[i]], params, scratch[worker]);
  });

  ClipPassResult r =
      collect(works, outcomes, rigged, in.results, params.bake_params.skin_depth_bound_h);
  collect_hair(hair_works, outcomes, characters, r);
  return r;
}

void write_clip_pass(Document& doc, const ClipPassResult& pass) {
  for (const std::vector<ChainRecord>& character : pass.chains)
    for (const ChainRecord& chain : character)
      for (const BakedClip& b : chain.keys) write_baked_clip(doc, b, chain.nodes);
}

} // namespace retail
