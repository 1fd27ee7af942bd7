// retail's help and config text (cli_help.h).
#include "cli_help.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <sstream>

namespace {

std::vector<std::string> ordered_groups(const CLI::App& app) {
  std::vector<std::string> out;
  const std::vector<std::string> present = app.get_groups();
  for (const char* g :
       {kGroupEveryday, kGroupDetection, kGroupSpring, kGroupHair, kGroupOutput, kGroupAdvanced})
    if (std::find(present.begin(), present.end(), g) != present.end()) out.push_back(g);
  for (const std::string& g : present)
    if (std::find(out.begin(), out.end(), g) == out.end()) out.push_back(g);
  return out;
}

/// `name` without CLI11's flag values in braces ("--x,--no-x{false}" -> "--x,--no-x").
std::string without_braces(const std::string& name) {
  std::string out;
  bool inside = false;
  for (char ch : name) {
    if (ch == '{') inside = true;
    if (!inside) out += ch;
    if (ch == '}') inside = false;
  }
  return out;
}

/// CLI11's formatter with the groups in retail's order and flag pairs named as typed.
class RetailFormatter : public CLI::Formatter {
public:
  /// CLI11 writes a negated name's value after it ("--vrm-springs,--no-vrm-springs{false}"),
  /// which reads as the default; the description says the default instead.
  std::string make_option_name(const CLI::Option* opt, bool positional) const override {
    return without_braces(CLI::Formatter::make_option_name(opt, positional));
  }

  /// A switch is typed without a value; its description says its default.
  std::string make_option_opts(const CLI::Option* opt) const override {
    return opt->get_expected_max() == 0 ? std::string() : CLI::Formatter::make_option_opts(opt);
  }

  /// CLI11's make_help with retail's groups (make_groups is not virtual).
  std::string make_help(const CLI::App* app, std::string name,
                        CLI::AppFormatMode mode) const override {
    if (mode == CLI::AppFormatMode::Sub) return make_expanded(app);
    return make_description(app) + make_usage(app, name) + make_positionals(app) +
           groups(app, mode) + make_subcommands(app, mode) + "\n" + make_footer(app);
  }

private:
  std::string groups(const CLI::App* app, CLI::AppFormatMode mode) const {
    std::stringstream out;
    const std::vector<std::string> groups = ordered_groups(*app);
    for (const std::string& group : groups) {
      std::vector<const CLI::Option*> opts = app->get_options([&](const CLI::Option* opt) {
        return opt->get_group() == group && opt->nonpositional() &&
               (mode != CLI::AppFormatMode::Sub ||
                (app->get_help_ptr() != opt && app->get_help_all_ptr() != opt));
      });
      if (!group.empty() && !opts.empty()) out << make_group(group, false, opts);
    }
    return out.str();
  }
};

/// `words` joined by spaces after `lead`, wrapped at `width` with `indent` on later lines.
std::string wrap(const std::string& lead, const std::vector<std::string>& words,
                 const std::string& indent, std::size_t width = 100) {
  std::string out = lead, line = lead;
  for (const std::string& w : words) {
    if (line.size() + 1 + w.size() > width && line != indent) {
      out += "\n" + indent;
      line = indent;
    } else if (!line.empty() && line.back() != ' ') {
      out += " ", line += " ";
    }
    out += w, line += w;
  }
  return out + "\n";
}

/// `text` as `# ` comment lines of at most 100 columns.
std::string comment(const std::string& text) {
  std::vector<std::string> words;
  std::istringstream in(text);
  for (std::string w; in >> w;) words.push_back(w);
  return wrap("#", words, "# ");
}

} // namespace

void use_retail_help(CLI::App& app) {
  app.name("retail");
  app.formatter(std::make_shared<RetailFormatter>());
  if (CLI::Option* help = app.get_help_ptr()) help->group(kGroupEveryday);
  if (CLI::Option* version = app.get_option_no_throw("--version"))
    version->group(kGroupEveryday)->configurable(false);
}

std::string pass_through_text(const CLI::App& app) {
  std::string out = "Options applied to every file (those of `retail IN OUT`; retail --help says "
                    "what each does):\n";
  for (const std::string& group : ordered_groups(app)) {
    std::vector<std::string> names;
    for (const CLI::Option* opt : app.get_options()) // per file, not per invocation
      if (opt->get_group() == group && opt->nonpositional() && opt != app.get_help_ptr() &&
          (opt->get_configurable() || opt == app.get_config_ptr() ||
           opt->get_name() == "--dry-run") &&
          opt->get_name() != "--report" && opt->get_name() != "--html")
        names.push_back(without_braces(opt->get_name(false, true)));
    if (!names.empty()) out += wrap("  " + group + ":", names, "    ");
  }
  return out;
}

std::string config_text(const CLI::App& app) {
  std::string out = "# retail options for --config (retail --print-config); a line\n"
                    "# `name=value` sets --name, as on the command line. Uncomment to change.\n";
  for (const std::string& group : ordered_groups(app)) {
    std::string body;
    for (const CLI::Option* opt : app.get_options()) {
      if (opt->get_group() != group || !opt->get_configurable() || !opt->nonpositional() ||
          opt == app.get_help_ptr() || opt == app.get_config_ptr())
        continue;
      const std::string name = opt->get_single_name();
      body += "\n" + comment(opt->get_description());
      const std::vector<std::string> given = opt->reduced_results();
      if (opt->count() > 0 && !given.empty()) {
        body += name + "=" + CLI::detail::ini_join(given) + "\n";
      } else if (!opt->get_default_str().empty()) {
        body += "# " + name + "=" + CLI::detail::convert_arg_for_ini(opt->get_default_str()) + "\n";
      } else {
        body += "# " + name + "=" +
                (opt->get_expected_max() == CLI::detail::expected_max_vector_size ? "[]" : "\"\"") +
                "\n";
      }
    }
    if (!body.empty()) out += "\n# --- " + group + " ---\n" + body;
  }
  return out;
}
