// Helpers for the robustness tests (issue 16): generated rigs with edited clips, JSON text
// splicing, and what every failed or successful run must leave behind.
#pragma once

#include "retail/base/document.h"
#include "support.h"

#include <functional>
#include <string>
#include <vector>

namespace test {

/// A small generated rig with a carried tail and the four clips (Walk, HipSwing, Crouch, Idle).
retail::Document small_rig();

/// The distinct input accessors of the document's animation samplers, in first-use order.
std::vector<int> clip_inputs(const retail::Document& doc);

/// Rewrites the key times of every input of animation `animation` once (rewrite_times).
void rewrite_clip_times(retail::Document& doc, int animation,
                        const std::function<std::vector<float>(std::vector<float>)>& change);

/// Rewrites the float key times of input accessor `accessor` (in place in its buffer) with
/// `change(times)`, and its min/max.
void rewrite_times(retail::Document& doc, int accessor,
                   const std::function<std::vector<float>(std::vector<float>)>& change);

/// The animation whose name is `name`, or -1.
int animation_named(const retail::Document& doc, const std::string& name);

/// Serialises `doc` (GLB) with its JSON chunk text replaced by `edit(text)`.
retail::Bytes with_json_text(const retail::Document& doc,
                             const std::function<std::string(std::string)>& edit);

/// What gltf-transform's quantize() writes, on every skinned mesh: POSITION as normalized
/// `component_type` (5120 BYTE, 5122 SHORT, 5123 UNSIGNED_SHORT) over the mesh's bounding cube,
/// the dequantisation D (translation and uniform scale) folded into its skin's inverse bind
/// matrices (IBM x D), KHR_mesh_quantization used and required. Pre: each skinned mesh is drawn
/// by one node, each skin by one mesh (generated rigs).
retail::Document quantize_positions(const retail::Document& doc, int component_type);

/// Names of the regular files (and links, FIFOs...) in `dir`, sorted; recursive.
std::vector<std::string> files_in(const std::string& dir);

/// No file whose name holds "retail-tmp" below `dir`.
bool no_temp_files(const std::string& dir);

/// Runs the retail binary through `sh -c` with `prefix` before it (e.g. "ulimit -t 10;").
int run_retail_with(const std::string& prefix, const std::vector<std::string>& args,
                    std::string* out, std::string* err);

/// Peak resident memory (KB) of `retail args...` run as a child (stderr to /dev/null), and its
/// exit code in `code`; -1 when it cannot be started.
long peak_kb(const std::vector<std::string>& args, int& code);

} // namespace test
