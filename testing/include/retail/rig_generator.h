// retail — synthetic "auto-rigged" characters with known ground truth, for tests and samples.
//
// A humanoid on a Mixamo skeleton (metres, Y up, facing +Z, left = +X), its body made of tubes
// around the bones, plus optional pieces: a tail (one or two overlapping shells, UV-seam split
// vertices), ears on the head, a cape, a skirt and a sheath on the back. Pieces are weighted the
// way a humanoid auto-rigger weights them: the tail split at its midline onto the two thighs and
// blended into the left shin further down (a curled tail: onto its nearest torso and leg bones,
// still split at the midline). Clips: Walk (1 s loop), HipSwing (0.5 m sideways in 2/3 s and
// back), Crouch, Idle. The ground truth (piece of every vertex, the tail centreline in world
// metres) comes with the file.
//
// Tail classes that break the articles' detection (SPEC §13), for tests: a curled tail (an arc
// rising over the back, covariance elongation ~1.2), a short stubby one, a thin one hanging
// close to the legs, spikes or plates along a tail's top (closed cone shells overlapping it) and
// a thick quadruped-like haunch the tail's wide base grows out of.
//
// Tails the far-skin rules miss (issue 28; the shared deer, stag, t-rex and shiba): a short flat
// tail pressed to the rump and a curled one rolled onto it (neither sticks out from the body), a
// leftover bone along the tail's base (the tail lies near a bone), and a horizontal body whose
// legs meet at a joint other than the one named Hips.
#pragma once

#include "retail/base/document.h"

#include <string>

namespace retail {

/// Carried: out behind, rising at the end (length ~0.45 H). Hanging: down behind the legs.
/// Curled: back from the hips, then up and forward over the back as a tightening arc of
/// `tail_curl_deg`. Short: a thick stub straight back (~0.08 H out of the body). Thin: radius
/// ~0.012 H, hanging between and just behind the thighs (most of it within 0.07 H of a leg bone).
/// Pressed: short (~0.09 H), flat (a fifth as thick as wide) and lying against the back of the
/// hips, down over the rump. Rolled: curled ~330 degrees in a tightening coil behind the hips,
/// its end resting on the lower back; on a horizontal body, 270 degrees up off the top of the
/// rump and over, its end lying forward along the top of the back, ahead of its root.
enum class TailStyle { None, Carried, Hanging, Curled, Short, Thin, Pressed, Rolled };

/// "none", "carried", "hanging", "curled", "short", "thin", "pressed", "rolled".
const char* tail_style_name(TailStyle style);

struct RigOptions {
  double height_m = 1.8;     ///< target model height H (world units)
  bool mixamo_prefix = true; ///< "mixamorig:Hips" (else bare "Hips")
  bool centimetres = false;  ///< armature node scale 0.01, skin space in centimetres
  bool rotated = false;      ///< armature node -90 deg about X (skin space Z up, as FBX exports)
  TailStyle tail = TailStyle::Carried;
  bool tail_two_shells = false; ///< a fur shell over the skin shell, in a second primitive
  /// Spikes (plates: flattened cones, a stegosaurus's) along the tail's top, each a closed shell
  /// overlapping the tail skin in the same primitive, weighted as the tail under it; truth: tail.
  int tail_spikes = 0;
  /// A thick quadruped-like haunch (a barrel along Z around the hips, torso-weighted: body) and
  /// the tail's first third widened into it; the tail's base ring lies inside the haunch.
  bool thick_base = false;
  double tail_length_scale = 1; ///< the tail's length (Curled: the arc's size) × this
  double tail_radius_scale = 1; ///< the tail's radius × this (spikes scale with it)
  double tail_curl_deg = 300;   ///< Curled: the arc's sweep in degrees (300: elongation ~1.2)
  bool uv_seams = true;         ///< tail rings duplicate their seam vertex (as exporters do)
  /// A leftover bone this long (skeleton units: x H / 1.8; 0: none): a joint "Back" under the
  /// hips (no role), its bone from the hips back and a little down into the tail's root and
  /// along its base, carrying up to 0.7 of the weight of the body skin around its outer half
  /// (as a rig's forgotten pelvis or tail root does); the tail skin stays on the legs. Appended
  /// after the other joints. At most 0.6.
  double leftover_bone = 0;
  /// A horizontal body (a biped dinosaur's): the torso level, from the hips forward to a neck
  /// and head raised in front, short arms, thick thighs; the legs hang from a joint "Body" (the
  /// skeleton's root, the hips role) `hips_ahead` ahead of and `hips_above` above the leg tops
  /// (skeleton units), and the joint named Hips, its child, starts the spine at the tail's root.
  /// The tail's base widens into the torso (not a rolled tail's); a carried or hanging tail's
  /// rings crowd towards its base. Not with ears, cape, skirt, sheath, ponytail, vrm or
  /// thick_base.
  bool horizontal_body = false;
  double hips_ahead = 0.20, hips_above = 0.38; ///< each within [0, 0.8]
  bool ears = false, cape = false, skirt = false, sheath = false;
  /// A ponytail as its own mesh "Ponytail" (material "Hair", drawn by node "Ponytail" with the
  /// character's skin): a tapering tube from inside the back of the head, out and down behind
  /// the back, weighted 1.0 to the head (as a hair mesh before re-rigging); with clips, also a
  /// HeadTurn clip (8 s loop: 2 s of neck and head yaw up to ±40°, then 6 s still). Truth piece:
  /// "hair".
  bool ponytail = false;
  /// More head pieces (issue 31), each its own mesh drawn with the character's skin (material
  /// "Hair"), weighted 1.0 to the head as a rigger without a bone for them does, each adding the
  /// HeadTurn clip as the ponytail does. Hair that hangs: a braid (mesh "Braid", truth "braid": a
  /// plaited rope down the back, ~0.33 H), long loose hair ("LongHair", "long_hair": a cap close
  /// to the skull with three flat clumps sunk into it, one down the back and one behind each
  /// shoulder, ~0.2 H below the head joint). Pieces that do not: short hair ("ShortHair",
  /// "short_hair": a cap 1.2 cm off the skull), a hat ("Hat", "hat": brim and crown) and cat
  /// ears ("CatEars", "cat_ears": two pointed cones on top, 0.07 H).
  bool braid = false, long_hair = false, short_hair = false, hat = false, cat_ears = false;
  /// Clothing at the neck, weighted like the head pieces (1.0 on the head, or split), each its
  /// own mesh with the HeadTurn clip: a hood down ("Hood", truth "hood": a flat pouch lying on
  /// the nape and upper back, from the neck to the shoulder blades) and a scarf ("Scarf",
  /// "scarf": a ring round the neck with an end hanging down the chest). Neither is hair.
  bool hood = false, scarf = false;
  /// The braid and long hair lie along the back, about 1 cm off its skin (3 cm nearer than by
  /// default: near skin by the far distance), as long hair often rests on a character's back.
  bool hair_close = false;
  /// The head pieces' weights split by height across head, neck, Spine2 and the shoulder on the
  /// vertex's side (a proximity rigger's) instead of 1.0 on the head.
  bool hair_split_weights = false;
  /// Long hair (with long_hair) as this many thin flat strands, each its own piece, fanned behind
  /// the head between where the side clumps hang (hair cards, as many artists build hair),
  /// instead of three clumps; 0: the three clumps. 0 or 3..24.
  int hair_strands = 0;
  /// The ponytail's, braid's and long hair clumps' length and radius x these (each in (0, 4]).
  double hair_length_scale = 1, hair_radius_scale = 1;
  /// VRM metadata: -1 none, 0 (VRM 0.x `VRM`), 1 (VRM 1.0 `VRMC_vrm` + `VRMC_springBone`): the
  /// humanoid map, a short spring tuft under the head (three nodes that are not skin joints,
  /// appended after the others) and collider groups on the head, the hips and the upper legs.
  int vrm = -1;
  bool clips = true; ///< Walk, HipSwing, Crouch, Idle
  /// With clips, also a LegSweep clip (1 s loop: the hips lurch 0.3 m to each side while the
  /// thighs swing back 30 deg): a tail near the legs is carried across them.
  bool leg_sweep = false;
  int tube_segments = 12;   ///< vertices around each tube ring
  int ring_subdivision = 1; ///< rings along the body and tail tubes x this (mesh density)
  /// Failure: Error(Usage) for a non-positive height, fewer than 3 segments, spikes outside
  /// 0..64, scales outside (0, 10], a curl outside [30, 540] degrees, a vrm outside -1..1, a
  /// leftover bone outside [0, 0.6], hips offsets outside [0, 0.8], hair scales outside (0, 4]
  /// or a horizontal body with a humanoid's piece.
  void validate() const;
};

struct GeneratedRig {
  Document doc;
  /// {"schema": "retail.truth/1", "height_m", "pieces": [names], "membership": [per primitive:
  ///  [piece index per vertex]], "tail_centreline": [[x,y,z] world], "tail_shells", "options"}
  Json truth;
};

/// Builds the character. Deterministic: the same options give byte-identical files.
GeneratedRig generate_rig(const RigOptions& options);

} // namespace retail
