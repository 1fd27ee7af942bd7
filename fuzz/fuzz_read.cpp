// libFuzzer target: reading + validation + the skeleton + `retail info` on arbitrary bytes.
// Every input must end in a result or a retail::Error; anything else (a crash, a sanitizer
// report, another exception) is a bug. Build and run: fuzz/run.sh (docs/robustness.md).
#include "retail/document.h"
#include "retail/error.h"
#include "retail/info.h"
#include "retail/model.h"
#include "retail/skeleton.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    retail::Bytes bytes(data, data + size);
    retail::Document doc = retail::parse_document(bytes, "");
    retail::Model model = retail::parse_model(doc);
    std::vector<retail::Character> characters = retail::build_characters(doc, model, {});
    retail::Json info = retail::make_info("fuzz.glb", doc, model, characters);
    (void)retail::format_info(info);
  } catch (const retail::Error&) {
    // a clear, classified rejection: what malformed input must get
  }
  return 0;
}
