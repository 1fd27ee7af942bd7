// select_clips (pipeline.h): the clips --clips names, by name, glob or the name after '|'.
#include "retail/app/pipeline.h"

#include "retail/base/error.h"
#include "retail/base/glob.h"
#include "retail/rig/animation.h"

#include <algorithm>
#include <string>
#include <vector>

namespace retail {

std::vector<int> select_clips(const Model& model, const std::vector<std::string>& names) {
  std::vector<int> out;
  const std::size_t n = model.animations.size();
  if (names.empty()) {
    for (std::size_t i = 0; i < n; ++i) out.push_back(int(i));
    return out;
  }
  auto take = [&out](int clip) {
    if (std::find(out.begin(), out.end(), clip) == out.end()) out.push_back(clip);
  };
  for (const auto& want : names) {
    std::vector<int> found;
    for (std::size_t i = 0; i < n; ++i) {
      const std::string& name = model.animations[i].name;
      if (has_wildcard(want) ? glob_match(want, name) || glob_match(want, clip_base_name(name))
                             : name == want)
        found.push_back(int(i));
    }
    // "Walk" also names "CharacterArmature|Walk" (Blender's armature prefix), when only one.
    if (found.empty() && !has_wildcard(want)) {
      for (std::size_t i = 0; i < n; ++i)
        if (clip_base_name(model.animations[i].name) == want) found.push_back(int(i));
      if (found.size() > 1) found.clear();
    }
    if (found.empty()) {
      std::string known;
      for (const auto& a : model.animations) known += (known.empty() ? "'" : ", '") + a.name + "'";
      throw Error(ExitCode::Usage,
                  std::string(has_wildcard(want) ? "no clip matches '" : "no clip named '") + want +
                      "' (clips: " + (known.empty() ? "none" : known) + ")");
    }
    for (int clip : found) take(clip);
  }
  return out;
}

} // namespace retail
