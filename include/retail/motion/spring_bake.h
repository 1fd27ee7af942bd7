// retail — the input's own VRM spring chains baked into its clips (SPEC §8, §10; docs/hair.md
// "Baking the file's own springs").
//
// Every chain of the file's VRM springs (vrm_springs.h: VRM 0.x secondaryAnimation or VRM 1
// VRMC_springBone) is re-simulated by the arc-preserving solver (hair_solver.h) with its own
// settings mapped as hair_rig_from_vrm maps them, its own colliders, at the bake's fixed substep,
// while each selected clip plays; each simulated joint's local rotation is recorded as LINEAR keys
// (bake.h: warm-up to a closed loop, one-shot clips from rest). A joint heads one link: the
// baked joints are the chain's joints but its last (every joint when VRM 0 gives the chain a
// virtual end). A bone is read back as its saved local rotation followed by the shortest arc
// taking its saved link direction onto the simulated link.
//
// Kept unbaked, with a reason: a chain hanging from the scene root (nothing to carry it), a chain
// whose solver rig cannot be built (hair_rig_from_vrm's failures), a chain sharing a joint with an
// earlier chain, and (the harm check) a chain whose skin would tear more than the input's in some
// clip: its region (vertices weighted to its joints and their one-ring) is measured (stretch.h)
// under the input's clip and under the clip with the kept chains' keys; a chain that tears more
// (torn percent) is dropped and the others measured again, until none is dropped.
//
// Authored motion wins: a clip that already animates a chain joint's rotation keeps that track
// (no key is written for that joint in that clip). Nothing else changes: write_spring_bake only
// appends accessors, samplers and channels to the clips; the spring metadata, nodes, skins and
// weights are left byte for byte.
//
// Pure: plain data in, a value out; per-clip work on worker threads, results in chain and clip
// order, the same bits for any thread count; no logging, no I/O.
#pragma once

#include "retail/base/document.h"
#include "retail/base/model.h"
#include "retail/motion/bake.h"
#include "retail/motion/hair_solver.h"
#include "retail/qa/stretch.h"
#include "retail/rig/skeleton.h"

#include <string>
#include <vector>

namespace retail {

struct SpringBakeParams {
  BakeParams bake;         ///< fps, warm-up, loop rules; bake.spring.substep_s is the substep
  VrmMapping mapping;      ///< VRM settings -> solver parameters (hair_solver.h)
  StretchParams stretch;   ///< the harm check's measurement
  bool harm_check = true;  ///< drop a chain that tears its skin more than the input
  int max_harm_rounds = 4; ///< measure-and-drop rounds (>= 1)
  int threads = 0;         ///< worker threads (parallel.h; 0: one per core)
  bool enabled = true;     ///< false: nothing is baked, status "off" when the file has springs
  void validate() const;   ///< Failure: Error(Usage) naming the field
};

/// A region's stretch under one clip, as the report gives it.
struct SpringStretch {
  double p99 = 1, max = 1, torn_percent = 0, edge_max_p99_percent = 0;
};

struct SpringBakeChain {
  std::string name;                ///< VRM 1 spring name, else the root joint's node name
  std::string path;                ///< JSON path of the spring / bone group
  std::vector<int> nodes;          ///< the chain's joints, root first
  std::vector<std::string> joints; ///< their node names
  std::size_t bones = 0;           ///< joints that head a link (the ones keyed)
  int anchor = -1;                 ///< the node the root hangs from
  int character = -1;              ///< the character whose skin its joints move (-1: none)
  std::size_t region_vertices = 0, region_edges = 0; ///< the harm check's region
  bool baked = false;                                ///< its keys are written
  std::string reason;                                ///< why it is kept unbaked ("" when baked)
  std::vector<ClipBake> clips;                       ///< per selected clip (empty when never run)
  std::vector<SpringStretch> before, after; ///< per clip, the region (empty without a region)
  /// The torso capsule (hair_measure.h's fit on its character's trunk skin), added where the
  /// chain's own colliders leave the trunk's axis uncovered and its rest pose is outside it.
  bool torso_capsule = false;
  double torso_covered_fraction = 0; ///< of the trunk's axis, by the chain's own colliders
  bool torso_rests_inside = false;   ///< the capsule would hold the chain at rest: not added
};

struct SpringBakeResult {
  /// "" (the file has no VRM springs), "off" (not asked), "no clips", "done".
  std::string status;
  std::string springs; ///< VrmSprings::source
  std::vector<SpringBakeChain> chains;
  std::vector<std::string> warnings;  ///< chain order
  std::size_t clips = 0;              ///< clips selected
  std::size_t baked = 0;              ///< (chain, clip) pairs written
  int harm_rounds = 0;                ///< measurement rounds run
  double bake_ms = 0, stretch_ms = 0; ///< worker time, summed over the clips
  /// Per chain, per clip: the keys (written for baked chains only; empty for chains never run).
  std::vector<std::vector<BakedClip>> keys;
};

/// Bakes the file's VRM spring chains into `clips` (see the top). `model` and `characters` are
/// the input's (from parse_model(doc) and build_characters); `doc` may hold appended data (the
/// tail pass's keys) as long as the input's accessors are unchanged.
/// Post: status "" when the file has no springs (nothing run), "no clips" when `clips` is empty.
/// Unreadable spring metadata is a warning (status "", nothing baked), never a failure.
/// Failure: Error(Usage) for bad params; Error(Unsupported) for a clip beyond the bake's work
/// limits (bake.h).
SpringBakeResult spring_bake(const Document& doc, const Model& model,
                             const std::vector<Character>& characters,
                             const std::vector<int>& clips, const SpringBakeParams& params);

/// One line for the log: what was baked, what was kept unbaked, the worker time.
std::string spring_bake_summary(const SpringBakeResult& r);

/// Appends the keys of every baked chain to the document's clips, in chain then clip order
/// (bake.h's write_baked_clip), and drops them from `r` (the figures stay).
void write_spring_bake(Document& doc, SpringBakeResult& r);

} // namespace retail
