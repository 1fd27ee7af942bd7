// retail — synthetic "auto-rigged" characters with known ground truth, for tests and samples.
//
// A humanoid on a Mixamo skeleton (metres, Y up, facing +Z, left = +X), its body made of tubes
// around the bones, plus optional pieces: a tail (carried or hanging between the legs, one or
// two overlapping shells, UV-seam split vertices), ears on the head, a cape, a skirt and a
// sheath on the back. Pieces are weighted the way a humanoid auto-rigger weights them: the tail
// split at its midline onto the two thighs and blended into the left shin further down. Clips:
// Walk (1 s loop), HipSwing (0.5 m sideways in 2/3 s and back), Crouch, Idle. The ground truth
// (piece of every vertex, the tail centreline in world metres) comes with the file.
#pragma once

#include "retail/document.h"

#include <string>

namespace retail {

enum class TailStyle { None, Carried, Hanging };

struct RigOptions {
  double height_m = 1.8;     ///< target model height H (world units)
  bool mixamo_prefix = true; ///< "mixamorig:Hips" (else bare "Hips")
  bool centimetres = false;  ///< armature node scale 0.01, skin space in centimetres
  bool rotated = false;      ///< armature node -90 deg about X (skin space Z up, as FBX exports)
  TailStyle tail = TailStyle::Carried;
  bool tail_two_shells = false; ///< a fur shell over the skin shell, in a second primitive
  bool uv_seams = true;         ///< tail rings duplicate their seam vertex (as exporters do)
  bool ears = false, cape = false, skirt = false, sheath = false;
  bool clips = true;        ///< Walk, HipSwing, Crouch, Idle
  int tube_segments = 12;   ///< vertices around each tube ring
  int ring_subdivision = 1; ///< rings along the body and tail tubes x this (mesh density)
  /// Failure: Error(Usage) for a non-positive height or fewer than 3 segments.
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
