// retail — the QA pages' template files (tools/html) and three.js (from npm, pinned in
// tests/js/package.json), compiled in as text by cmake/embed_html.cmake.
#pragma once

#include <string_view>

namespace retail::html_assets {

/// One ES module of three.js, with the bare specifier the page's import map gives it (its own
/// relative imports rewritten to such specifiers at build time).
struct Module {
  std::string_view specifier, source;
};

extern const std::string_view page_html, page_css, page_js, report_js, boot_js; ///< the page
extern const std::string_view index_html, index_js;                             ///< the batch index
extern const Module* const three_modules; ///< three_module_count modules (0: built without)
extern const int three_module_count;
extern const std::string_view three_version; ///< three's package.json version ("" without)

} // namespace retail::html_assets
