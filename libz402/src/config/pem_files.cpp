#include "z402/config/pem_files.hpp"

#include <openssl/err.h>
#include <sys/stat.h>

#include <cstdio>

namespace z402::config {

expected<void> refuse_readable_key(const std::filesystem::path& key, std::string_view what, std::string field) {
  struct stat st {};
  if (::stat(key.c_str(), &st) != 0)
    return error{errc::io_error, std::move(field), "cannot read " + std::string{what} + " " + key.string()};
  if (st.st_mode & (S_IROTH | S_IWOTH)) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
    return error{errc::io_error, std::move(field),
                 std::string{what} + " " + key.string() + " is readable by others (mode " + mode + "); chmod o-rwx it"};
  }
  return {};
}

std::string openssl_reason() {
  auto code = ERR_get_error();
  ERR_clear_error();
  if (!code) return "not a valid PEM file";
  char buf[256];
  ERR_error_string_n(code, buf, sizeof buf);
  return buf;
}

}  // namespace z402::config
