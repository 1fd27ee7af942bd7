// Helpers shared by the tests: generated rigs, temp folders, running the CLI, shared models.
#pragma once

// Built under AddressSanitizer (GCC defines __SANITIZE_ADDRESS__, clang has the feature test).
#if defined(__SANITIZE_ADDRESS__)
#define RETAIL_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define RETAIL_TEST_ASAN 1
#endif
#endif
#ifndef RETAIL_TEST_ASAN
#define RETAIL_TEST_ASAN 0
#endif

#include "retail/base/document.h"
#include "retail/base/model.h"
#include "retail/io/validate.h"
#include "retail/rig/mesh.h"
#include "retail/rig/skeleton.h"
#include "retail/rig_generator.h"

#include <array>
#include <map>
#include <regex>
#include <string>
#include <vector>

namespace test {

/// A fresh empty folder under the system temp dir (removed at exit is not needed: tests are
/// free to leave files there; names are unique per process and call).
std::string temp_dir();

/// Generates a rig and returns it parsed back from its serialized bytes (as a file would be).
retail::GeneratedRig make_rig(const retail::RigOptions& options = {});

/// Serializes and re-parses a document (no sidecars).
retail::Document reparse(const retail::Document& doc);

/// Writes bytes to `path` (non-atomic, for fixtures).
void write_bytes(const std::string& path, const retail::Bytes& bytes);

/// A fresh temp_dir() holding the rig `options` generate as in.glb and its ground truth as
/// in.truth.json (what tail_eval's generated_tail reads); returns the folder.
std::string generated_rig_dir(const retail::RigOptions& options);

/// Runs the retail binary with `args`; captures stdout and stderr. Returns the exit code.
int run_retail(const std::vector<std::string>& args, std::string* out = nullptr,
               std::string* err = nullptr);

/// ../shared/data, or "" when absent (and a one-time "SKIPPED" line on stderr saying so).
std::string shared_data();

/// Every .glb/.vrm/.gltf below `dir`, sorted.
std::vector<std::string> model_files(const std::string& dir);

/// Builds characters of a parsed document with default parameters.
std::vector<retail::Character> characters_of(const retail::Document& doc);

/// glTF JSON with default values removed (byteOffset 0, normalized false, mode 4, LINEAR,
/// identity TRS, ...) and asset.generator dropped: the form compared for "unchanged".
retail::Json normalize_defaults(retail::Json j);

/// Per original vertex (primitive order of the file's first character): is its largest weight
/// on a joint whose name matches `pattern`? Ties: the first influence listed.
std::vector<bool> largest_weight_on(const std::string& path, const std::regex& pattern);

/// Influences (joint node -> weight, JOINTS_0/WEIGHTS_0 as stored) per vertex of mesh 0, its
/// primitives in order, through skin 0's joint list.
std::vector<std::map<int, double>> mesh0_influences(const retail::Document& doc,
                                                    const retail::Model& model);

/// A WeldedMesh from positions and triangles (no weld: ids as given), for hand cases; defined in
/// test_weld.cpp.
retail::WeldedMesh mesh_from(const std::vector<Eigen::Vector3d>& pts,
                             const std::vector<std::array<int, 3>>& tris);

} // namespace test
