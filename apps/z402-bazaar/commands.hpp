#pragma once
// The subcommands of z402-bazaar. Each returns the process exit code.
#include "z402/config/bazaar_config.hpp"

#include <string>
#include <vector>

namespace z402::app {

int serve(const config::bazaar_config& cfg);
int provider_command(const config::bazaar_config& cfg, const std::vector<std::string>& args);
int terms_command(const config::bazaar_config& cfg);
int settle_key_command(const config::bazaar_config& cfg, const std::vector<std::string>& args);

}  // namespace z402::app
