// The accessor type tables of the typed view (model.h).
#include "retail/base/model.h"

namespace retail {

int type_components(const std::string& type) {
  if (type == "SCALAR") return 1;
  if (type == "VEC2") return 2;
  if (type == "VEC3") return 3;
  if (type == "VEC4" || type == "MAT2") return 4;
  if (type == "MAT3") return 9;
  if (type == "MAT4") return 16;
  return 0;
}

int component_size(int component_type) {
  switch (component_type) {
  case kByte:
  case kUnsignedByte:
    return 1;
  case kShort:
  case kUnsignedShort:
    return 2;
  case kUnsignedInt:
  case kFloat:
    return 4;
  default:
    return 0;
  }
}

} // namespace retail
