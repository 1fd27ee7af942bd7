// make_test_rig — writes a synthetic auto-rigged character and its ground truth (rig_generator.h).
//   make_test_rig OUT.glb [--bare-names] [--cm] [--rotated]
//                 [--tail carried|hanging|curled|short|thin|pressed|rolled|none] [--two-shells]
//                 [--spikes N] [--thick-base] [--tail-length X] [--tail-radius X] [--curl DEG]
//                 [--leftover-bone LEN] [--horizontal [--hips-ahead X] [--hips-above Y]]
//                 [--ears] [--cape] [--skirt] [--sheath] [--all-pieces] [--ponytail] [--vrm 0|1]
//                 [--braid] [--long-hair] [--short-hair] [--hat] [--cat-ears] [--hair-split]
//                 [--hair-length X] [--hair-radius X]
// Writes OUT.glb and OUT.truth.json (piece membership per vertex, tail centreline).
#include "retail/base/error.h"
#include "retail/base/files.h"
#include "retail/io/io.h"
#include "retail/rig_generator.h"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>

namespace {

/// The head pieces of issue 31 (RigOptions::braid .. hair_radius_scale), and the LegSweep clip.
void bind_head_pieces(CLI::App& app, retail::RigOptions& o) {
  app.add_flag("--leg-sweep", o.leg_sweep,
               "a LegSweep clip: the hips lurch sideways while the thighs swing back");
  app.add_flag("--braid", o.braid, "a braid down the back weighted to the head (and HeadTurn)");
  app.add_flag("--long-hair", o.long_hair,
               "long loose hair in three clumps weighted to the head (and HeadTurn)");
  app.add_flag("--short-hair", o.short_hair, "short hair: a cap close to the skull (and HeadTurn)");
  app.add_flag("--hat", o.hat, "a brimmed hat weighted to the head (and HeadTurn)");
  app.add_flag("--cat-ears", o.cat_ears, "pointed cat ears on top (and HeadTurn)");
  app.add_flag("--hood", o.hood, "a hood down on the nape and upper back (and HeadTurn)");
  app.add_flag("--scarf", o.scarf, "a scarf round the neck, an end down the chest (and HeadTurn)");
  app.add_flag("--hair-close", o.hair_close,
               "the braid and long hair lie along the back, about 1 cm off its skin");
  app.add_flag("--hair-split", o.hair_split_weights,
               "head pieces weighted split by height across head, neck, Spine2 and a shoulder");
  app.add_option("--hair-strands", o.hair_strands,
                 "long hair as this many thin strands, each its own piece (0: three clumps; 3..24)")
      ->capture_default_str();
  app.add_option("--hair-length", o.hair_length_scale,
                 "ponytail, braid and long hair length x this (0, 4]")
      ->capture_default_str();
  app.add_option("--hair-radius", o.hair_radius_scale,
                 "ponytail, braid and long hair radius x this (0, 4]")
      ->capture_default_str();
}

} // namespace

int main(int argc, char** argv) {
  CLI::App app{"make_test_rig: a synthetic auto-rigged character with ground truth"};
  std::string out, tail = "carried";
  retail::RigOptions o;
  bool bare = false, all = false, no_seams = false, no_clips = false;
  app.add_option("OUT", out, "output .glb (ground truth goes to OUT with .truth.json)")->required();
  app.add_flag("--bare-names", bare, "Hips instead of mixamorig:Hips");
  app.add_flag("--cm", o.centimetres, "centimetre skin space (armature scale 0.01)");
  app.add_flag("--rotated", o.rotated, "armature rotated -90 deg about X");
  const std::vector<retail::TailStyle> styles = {
      retail::TailStyle::None,    retail::TailStyle::Carried, retail::TailStyle::Hanging,
      retail::TailStyle::Curled,  retail::TailStyle::Short,   retail::TailStyle::Thin,
      retail::TailStyle::Pressed, retail::TailStyle::Rolled};
  std::vector<std::string> names;
  for (auto s : styles) names.push_back(retail::tail_style_name(s));
  app.add_option("--tail", tail,
                 "carried, hanging, curled (over the back), short (a stub), "
                 "thin (close to the legs), pressed (short and flat, against the rump), "
                 "rolled (a coil resting on the lower back) or none")
      ->check(CLI::IsMember(names));
  app.add_flag("--two-shells", o.tail_two_shells, "tail as a skin shell plus a fur shell");
  app.add_option("--spikes", o.tail_spikes, "spikes (plates) along the tail's top, 0..64")
      ->capture_default_str();
  app.add_flag("--thick-base", o.thick_base, "a thick haunch the tail's wide base grows out of");
  app.add_option("--leftover-bone", o.leftover_bone,
                 "a joint 'Back' under the hips (no role) this long (x H / 1.8, 0..0.6), lying "
                 "along the tail's base and carrying part of the body skin around it")
      ->capture_default_str();
  app.add_flag("--horizontal", o.horizontal_body,
               "a horizontal body (a biped dinosaur's): level torso, legs on a root 'Body' above "
               "it, the joint named Hips at the tail's root; no humanoid pieces");
  app.add_option("--hips-ahead", o.hips_ahead,
                 "horizontal body: its hips joint 'Body' this far ahead of the leg tops")
      ->capture_default_str();
  app.add_option("--hips-above", o.hips_above,
                 "horizontal body: its hips joint 'Body' this far above the leg tops")
      ->capture_default_str();
  app.add_option("--tail-length", o.tail_length_scale, "tail length x this")->capture_default_str();
  app.add_option("--tail-radius", o.tail_radius_scale, "tail radius x this")->capture_default_str();
  app.add_option("--curl", o.tail_curl_deg, "curled tail: the arc's sweep in degrees")
      ->capture_default_str();
  app.add_flag("--no-seams", no_seams, "do not split tail vertices at a UV seam");
  app.add_flag("--ears", o.ears, "ears on the head");
  app.add_flag("--cape", o.cape, "a cape on the back");
  app.add_flag("--skirt", o.skirt, "a skirt around the hips");
  app.add_flag("--sheath", o.sheath, "a sheath slung across the back");
  app.add_flag("--ponytail", o.ponytail,
               "a ponytail mesh weighted to the head, and a HeadTurn clip");
  bind_head_pieces(app, o);
  app.add_flag("--all-pieces", all, "ears, cape, skirt and sheath");
  app.add_option("--vrm", o.vrm,
                 "VRM metadata: 0 (VRM 0.x) or 1 (VRM 1.0): humanoid, a spring tuft on the head, "
                 "colliders on the head, hips and legs")
      ->check(CLI::Range(0, 1));
  app.add_flag("--no-clips", no_clips, "no animations");
  app.add_option("--height", o.height_m, "model height in world units")->capture_default_str();
  app.add_option("--subdivision", o.ring_subdivision, "rings along the tubes x this (density)")
      ->capture_default_str();
  app.add_option("--segments", o.tube_segments, "vertices around each tube ring")
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  o.mixamo_prefix = !bare;
  o.uv_seams = !no_seams;
  o.clips = !no_clips;
  for (auto s : styles)
    if (tail == retail::tail_style_name(s)) o.tail = s;
  if (all) o.ears = o.cape = o.skirt = o.sheath = true;
  try {
    retail::GeneratedRig rig = retail::generate_rig(o);
    retail::write_document(rig.doc, out);
    std::string truth_path = std::filesystem::path(out).replace_extension(".truth.json").string();
    std::string text = rig.truth.dump() + "\n";
    retail::write_file_atomic(truth_path, retail::Bytes(text.begin(), text.end()));
    std::fprintf(stderr, "wrote %s and %s\n", out.c_str(), truth_path.c_str());
    return 0;
  } catch (const retail::Error& e) {
    std::fprintf(stderr, "error: %s: %s\n", out.c_str(), e.what());
    return int(e.code());
  }
}
