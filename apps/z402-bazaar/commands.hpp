#pragma once
// The subcommands of z402-bazaar, after their command lines are parsed (main.cpp). Each
// returns the process exit code.
#include "z402/config/bazaar_config.hpp"
#include "z402/telemetry/stream_sink.hpp"

#include <string>

namespace z402::app {

int serve(const config::bazaar_config& cfg, telemetry::log_format format);
int provider_add(const config::bazaar_config& cfg, const std::string& name, const std::string& pay_to);
int provider_list(const config::bazaar_config& cfg);
int provider_rotate(const config::bazaar_config& cfg, const std::string& name);
int provider_remove(const config::bazaar_config& cfg, const std::string& name);
int settle_key_create(const config::bazaar_config& cfg);
int terms_command(const config::bazaar_config& cfg);

}  // namespace z402::app
