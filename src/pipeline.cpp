// The driver: load_input and run (see pipeline.h).
#include "retail/pipeline.h"

#include "retail/error.h"
#include "retail/report.h"
#include "retail/sha256.h"

#include <chrono>
#include <filesystem>

namespace fs = std::filesystem;

namespace retail {
namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

std::string lower_extension(const std::string& path) {
  std::string ext = fs::path(path).extension().string();
  for (char& ch : ext) ch = char(std::tolower((unsigned char)ch));
  return ext;
}

void check_output_path(const std::string& in_path, const std::string& out_path,
                       Container container) {
  std::error_code ec;
  if (fs::exists(out_path, ec) && fs::equivalent(in_path, out_path, ec))
    throw Error(ExitCode::Usage,
                "the output '" + out_path + "' is the input file; retail never modifies its input");
  std::string ext = lower_extension(out_path);
  bool want_glb = ext == ".glb" || ext == ".vrm";
  if (!want_glb && ext != ".gltf")
    throw Error(ExitCode::Usage, "the output '" + out_path + "' must end in .glb, .vrm or .gltf");
  if (want_glb != (container == Container::Glb))
    throw Error(ExitCode::Usage, std::string("the input is a ") +
                                     (container == Container::Glb ? "GLB" : ".gltf") +
                                     " file; write the output as " +
                                     (container == Container::Glb ? ".glb/.vrm" : ".gltf") +
                                     " (retail does not convert containers)");
  fs::path dir = fs::path(out_path).parent_path();
  if (!dir.empty() && !fs::is_directory(dir, ec))
    throw Error(ExitCode::OutputFailed, "the output folder '" + dir.string() + "' does not exist");
}

} // namespace

Input load_input(const std::string& path, const BindParams& bind, std::vector<StageStat>& stats) {
  Input in;
  in.path = path;
  auto t0 = Clock::now();
  in.doc = read_document(path);
  std::size_t bytes = 0;
  for (const auto& b : in.doc.buffers) bytes += b.size();
  stats.push_back(
      {"read", ms_since(t0),
       std::to_string(in.doc.buffers.size()) + " buffers, " + std::to_string(bytes) + " bytes"});
  t0 = Clock::now();
  in.model = parse_model(in.doc);
  stats.push_back({"validate", ms_since(t0),
                   std::to_string(in.model.accessors.size()) + " accessors, " +
                       std::to_string(in.model.nodes.size()) + " nodes, " +
                       std::to_string(in.model.animations.size()) + " clips"});
  t0 = Clock::now();
  in.characters = build_characters(in.doc, in.model, bind);
  std::string summary = std::to_string(in.characters.size()) + " character(s)";
  for (const auto& c : in.characters)
    summary += "; H " + std::to_string(c.height) + ", " + std::to_string(c.joints.size()) +
               " joints, roles from " + c.roles.source;
  stats.push_back({"skeleton", ms_since(t0), summary});
  return in;
}

RunResult run(const std::string& in_path, const std::string& out_path, const RunParams& params) {
  params.validate();
  RunResult result;
  Input in = load_input(in_path, params.bind, result.stages);
  check_output_path(in_path, out_path, in.doc.container);
  for (const auto& c : in.characters) {
    require_roles(in.model, c);
    for (const auto& w : c.warnings) result.warnings.push_back(w);
    for (const auto& n : c.roles.notes) result.notes.push_back(n);
  }
  for (const auto& t : in.model.tolerated) result.warnings.push_back(t);
  if (in.characters.empty())
    result.warnings.push_back("no skin: nothing to re-rig, writing a faithful copy");

  auto t0 = Clock::now();
  std::size_t chains = 0, pieces = 0;
  for (const auto& c : in.characters) {
    result.characters.push_back(rerig_character(in.doc, in.model, c, params.rerig));
    const CharacterResult& r = result.characters.back();
    chains += r.chains.size();
    pieces += r.detection.pieces.size();
    for (const auto& w : r.warnings) result.warnings.push_back(w);
  }
  result.stages.push_back(
      {"rerig", ms_since(t0),
       std::to_string(pieces) + " far pieces, " + std::to_string(chains) + " tail chain(s)"});

  t0 = Clock::now();
  Bytes out = serialize_document(in.doc);
  ReportInput ri;
  ri.input_path = in_path;
  ri.input_sha256 = sha256_hex(read_file(in_path));
  ri.output_path = out_path;
  ri.output_sha256 = sha256_hex(out);
  ri.mode = params.rerig.mode == Mode::Chain   ? "chain"
            : params.rerig.mode == Mode::Rigid ? "rigid"
                                               : "detect";
  ri.model = &in.model;
  ri.characters = &in.characters;
  ri.results = &result.characters;
  ri.stages = &result.stages;
  ri.warnings = result.warnings;
  result.report_path =
      params.report_path.empty() ? default_report_path(out_path) : params.report_path;
  write_document(in.doc, out_path, &out);
  result.stages.push_back(
      {"write", ms_since(t0), out_path + " (" + std::to_string(out.size()) + " bytes)"});
  result.report = make_report(ri);
  if (result.report_path != "-") {
    std::string text = result.report.dump(2) + "\n";
    try {
      write_file_atomic(result.report_path, Bytes(text.begin(), text.end()));
    } catch (const Error&) {
      std::error_code ec;
      fs::remove(out_path, ec); // no partial result: the output goes with its report
      throw;
    }
  }
  return result;
}

} // namespace retail
