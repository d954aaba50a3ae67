#include "cli.hpp"

#include "z402/version.hpp"

#include <cctype>
#include <fstream>
#include <iostream>
#include <sstream>

namespace z402::cli {

std::string help_text(const command& cmd) {
  std::ostringstream out;
  out << "usage: " << cmd.name << (cmd.synopsis.empty() ? "" : " ") << cmd.synopsis << "\n\n" << cmd.summary << "\n\n"
      << cmd.options;
  return out.str();
}

expected<std::string> read_secret(const std::string& path) {
  std::ifstream in{path};
  if (!in) return error{errc::io_error, path, "cannot read " + path};
  std::stringstream text;
  text << in.rdbuf();
  auto s = text.str();
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.erase(0, 1);
  if (s.empty()) return error{errc::corrupt, path, path + " is empty"};
  return s;
}

int usage_error(const command& cmd, const std::string& message) {
  std::cerr << cmd.name << ": " << message << " (see " << cmd.name << " --help)" << std::endl;
  return usage_exit;
}

int print_version(const std::string& program) {
  std::cout << program << " " << z402::version() << std::endl;
  return 0;
}

void catalog_options(command& cmd, std::string& discovery) {
  cmd.options.add_options()                                                                      //
      ("discovery", po::value(&discovery)->required()->value_name("URL")->notifier([](const std::string& url) {
         if (!url.starts_with("http://") && !url.starts_with("https://"))
           throw po::error("--discovery must be an http:// or https:// URL");
       }),
       "the catalog's base URL")  //
      ("insecure", "skip TLS certificate checks (local testing only)");
}

std::optional<int> parse(command& cmd, const std::vector<std::string>& args, po::variables_map& vm) {
  cmd.options.add_options()("help,h", "print this help and exit")("version", "print the version and exit");
  po::options_description all;
  all.add(cmd.options).add(cmd.operands);
  try {
    auto parsed = po::command_line_parser(args)
                      .options(all)
                      .positional(cmd.positional)
                      .style(po::command_line_style::unix_style ^ po::command_line_style::allow_guessing)
                      .run();
    po::store(parsed, vm);
    if (vm.count("help")) {
      std::cout << help_text(cmd);
      return 0;
    }
    if (vm.count("version")) return print_version(cmd.name.substr(0, cmd.name.find(' ')));
    po::notify(vm);  // required options and value checks
  } catch (const po::required_option& e) {
    // An operand (NAME, URL) is an option only inside the parser: name it as the usage does.
    auto name = e.get_option_name().substr(2);
    if (cmd.operands.find_nothrow(name, false)) {
      for (auto& c : name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      return usage_error(cmd, "missing " + name);
    }
    return usage_error(cmd, e.what());
  } catch (const po::error& e) {
    return usage_error(cmd, e.what());
  }
  return std::nullopt;
}

}  // namespace z402::cli
