// retail — naming geometry on the command line: `--tail SEL`, `--not-tail SEL` (SPEC §13) and,
// with the same syntax, `--hair SEL` (SPEC §10).
//
// A selector is, tried in this order: `piece:N` (N a whole number: the piece detection numbers N,
// the report's characters[].pieces[].id; resolved by plan_character, rerig.h, and handed to
// plan_hair for --hair); `M/P` (two whole numbers: meshes[M].primitives[P]); a mesh name (every
// primitive of that mesh); a material name (every primitive drawn with it).
#pragma once

#include "retail/base/document.h"
#include "retail/rig/mesh.h"

#include <string>
#include <vector>

namespace retail {

/// Is `selector` a piece selector, `piece:N` with N a whole number (at most 9 digits)? Sets `id`.
bool parse_piece_selector(const std::string& selector, int& id);

/// Per original vertex of `mesh` (its source primitives concatenated): does `selector` name the
/// primitive it belongs to? Reads mesh and material names from doc.gltf (indices validated by
/// parse_model). All false when it names none of this character's primitives, and for a piece
/// selector (parse_piece_selector: geometry only detection can name).
std::vector<bool> select_geometry(const Document& doc, const WeldedMesh& mesh,
                                  const std::string& selector);

/// Failure: Error(Usage) naming `what` ("--tail") and the selector when `matched` is false (it
/// named no primitive of any character).
void require_selected(const std::string& selector, const std::string& what, bool matched);

} // namespace retail
