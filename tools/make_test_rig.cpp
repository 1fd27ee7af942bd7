// make_test_rig — writes a synthetic auto-rigged character and its ground truth (rig_generator.h).
//   make_test_rig OUT.glb [--bare-names] [--cm] [--rotated] [--tail carried|hanging|none]
//                 [--two-shells] [--ears] [--cape] [--skirt] [--sheath] [--all-pieces]
// Writes OUT.glb and OUT.truth.json (piece membership per vertex, tail centreline).
#include "retail/error.h"
#include "retail/rig_generator.h"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>

int main(int argc, char** argv) {
  CLI::App app{"make_test_rig: a synthetic auto-rigged character with ground truth"};
  std::string out, tail = "carried";
  retail::RigOptions o;
  bool bare = false, all = false, no_seams = false, no_clips = false;
  app.add_option("OUT", out, "output .glb (ground truth goes to OUT with .truth.json)")->required();
  app.add_flag("--bare-names", bare, "Hips instead of mixamorig:Hips");
  app.add_flag("--cm", o.centimetres, "centimetre skin space (armature scale 0.01)");
  app.add_flag("--rotated", o.rotated, "armature rotated -90 deg about X");
  app.add_option("--tail", tail, "carried, hanging or none")
      ->check(CLI::IsMember({"carried", "hanging", "none"}));
  app.add_flag("--two-shells", o.tail_two_shells, "tail as a skin shell plus a fur shell");
  app.add_flag("--no-seams", no_seams, "do not split tail vertices at a UV seam");
  app.add_flag("--ears", o.ears, "ears on the head");
  app.add_flag("--cape", o.cape, "a cape on the back");
  app.add_flag("--skirt", o.skirt, "a skirt around the hips");
  app.add_flag("--sheath", o.sheath, "a sheath slung across the back");
  app.add_flag("--all-pieces", all, "ears, cape, skirt and sheath");
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
  o.tail = tail == "carried"   ? retail::TailStyle::Carried
           : tail == "hanging" ? retail::TailStyle::Hanging
                               : retail::TailStyle::None;
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
