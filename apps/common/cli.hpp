#pragma once
// The command lines of z402's programs, on Boost.Program_options: every command and
// subcommand answers --help (usage, what it does, its options) and --version; an unknown
// option, a missing value or a bad value is refused with one line that names the option and
// exit code 2.
#include "z402/error.hpp"

#include <boost/program_options.hpp>

#include <optional>
#include <string>
#include <vector>

namespace z402::cli {

namespace po = boost::program_options;

inline constexpr int usage_exit = 2;

struct command {
  command(std::string n, std::string syn, std::string sum)
      : name(std::move(n)), synopsis(std::move(syn)), summary(std::move(sum)) {}

  std::string name;      // as typed: "z402-bazaar provider add"
  std::string synopsis;  // what follows the name in the usage line
  std::string summary;   // one paragraph: what it does
  po::options_description options{"options", 120, 60};
  po::options_description operands;  // what `positional` names: parsed, not listed as options
  po::positional_options_description positional;
};

/// --discovery URL (required, http:// or https://) and --insecure: how every client of a
/// catalog names it.
void catalog_options(command& cmd, std::string& discovery);

/// Parses `args` (after the command's own words) into `vm`. Returns an exit code when the
/// program should stop now: 0 after printing --help or --version, 2 after a usage error.
std::optional<int> parse(command& cmd, const std::vector<std::string>& args, po::variables_map& vm);

/// The --help text of `cmd` (docs/reference.md's command reference is checked against it).
std::string help_text(const command& cmd);

/// "NAME: MESSAGE (see NAME --help)" on stderr; returns 2.
int usage_error(const command& cmd, const std::string& message);

/// A secret kept in a file (a key): its text without the white space around it. An error
/// (io_error, or corrupt when empty) names the file, never what it holds.
expected<std::string> read_secret(const std::string& path);

/// Prints "NAME VERSION".
int print_version(const std::string& program);

}  // namespace z402::cli
