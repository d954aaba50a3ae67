#pragma once
// The subcommands of z402-bazaar, after their command lines are parsed (main.cpp). Each
// returns the process exit code.
#include "z402/config/bazaar_config.hpp"
#include "z402/telemetry/stream_sink.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace z402::app {

int serve(const config::bazaar_config& cfg, telemetry::log_format format);
int provider_add(const config::bazaar_config& cfg, const std::string& name, const std::string& pay_to);
int provider_list(const config::bazaar_config& cfg);
int provider_rotate(const config::bazaar_config& cfg, const std::string& name);
int provider_remove(const config::bazaar_config& cfg, const std::string& name);
int settle_key_create(const config::bazaar_config& cfg);
int terms_command(const config::bazaar_config& cfg);
int catalog_key_root(const std::string& origin, const std::filesystem::path& out);
int catalog_key_online(const config::bazaar_config& cfg, const std::string& origin, bool replace);
/// `out` empty: the data directory's keys note. `online` empty: the data directory's online key.
int catalog_key_delegate(const config::bazaar_config& cfg, const std::vector<std::string>& root_files,
                         std::vector<std::string> online, int days, std::filesystem::path out);

}  // namespace z402::app
