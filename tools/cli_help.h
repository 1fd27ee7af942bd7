// retail's help and config text (tools/cli_options.cpp binds the options): `--help` in groups
// in a fixed order, flag pairs shown without CLI11's "{false}", the program named `retail`,
// the options `retail batch` passes through to each file, and `--print-config`.
#pragma once

#include <string>

namespace CLI {
class App;
}

/// The option groups of `retail --help`, in the order shown (any other group follows them).
constexpr const char* kGroupEveryday = "Everyday";
constexpr const char* kGroupDetection = "Detection";
constexpr const char* kGroupSpring = "Spring";
constexpr const char* kGroupHair = "Hair";
constexpr const char* kGroupOutput = "Output";
constexpr const char* kGroupAdvanced = "Advanced";

/// Names `app` "retail" (the usage line; not argv[0]'s path) and gives it retail's formatter;
/// subcommands added after this share it. The help and version flags go to the everyday group.
void use_retail_help(CLI::App& app);

/// For `retail batch --help`: the options of `app` (`retail IN OUT`) that apply to every file,
/// by group, wrapped at 100 columns.
std::string pass_through_text(const CLI::App& app);

/// `--print-config`: a TOML file for `--config` (CLI11's reader: `name=value`, `#` comments).
/// Every configurable option of `app` itself (not its subcommands'), by group, under its
/// description: the options given (on the command line or by --config) as `name=value` with
/// the text given, so reading the file back sets exactly what the flags set; every other option
/// commented out at its default (`# name=0.375`). Pre: `app` parsed.
std::string config_text(const CLI::App& app);
