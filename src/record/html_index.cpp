// The batch index page (html_index.h).
#include "retail/record/html_index.h"

#include "record/html_assets.h"

#include "retail/base/document.h"
#include "retail/record/html_page.h"

#include <cctype>
#include <cmath>
#include <string_view>

namespace retail {

bool needs_look(const IndexRow& row) {
  return row.status == "failed" || row.stepped_down > 0 || row.left_torn > 0 ||
         !row.chain_fail.empty() || !row.warnings.empty() || !row.error.empty() || row.worse;
}

std::string url_path(const std::string& path) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : path) {
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~' || c == '/') {
      out.push_back(char(c));
    } else {
      out.push_back('%');
      out.push_back(hex[c >> 4]);
      out.push_back(hex[c & 15]);
    }
  }
  return out;
}

namespace {

Json row_json(const IndexRow& r) {
  Json j = {{"path", r.path},
            {"status", r.status},
            {"page", r.page},
            {"href", url_path(r.page)},
            {"found", r.found},
            {"stepped_down", r.stepped_down},
            {"left_torn", r.left_torn},
            {"chain_fail", r.chain_fail},
            {"warnings", r.warnings},
            {"error", r.error},
            {"worse", r.worse},
            {"needs_look", needs_look(r)},
            {"ms", std::round(r.ms * 10) / 10}};
  if (r.figures) {
    j["worst_clip"] = r.worst_clip;
    j["torn_before"] = std::round(r.torn_before * 1e4) / 1e4;
    j["torn_after"] = std::round(r.torn_after * 1e4) / 1e4;
  }
  return j;
}

} // namespace

std::string make_batch_index(const std::string& title, const std::vector<IndexRow>& rows) {
  Json data = {{"schema", "retail.index/1"}, {"title", title}, {"rows", Json::array()}};
  for (const IndexRow& r : rows) data["rows"].push_back(row_json(r));
  return fill_template(html_assets::index_html,
                       {{"title", html_text(title)},
                        {"style", std::string(html_assets::page_css)},
                        {"data", json_in_script(data)},
                        {"app", script_safe(std::string(html_assets::index_js))}});
}

} // namespace retail
