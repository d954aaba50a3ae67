#include "z402/config/atomic_file.hpp"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace z402::config {

error io_failure(const std::filesystem::path& file, const std::string& what) {
  return {errc::io_error, file.string(), what + ": " + std::strerror(errno)};
}

namespace {

// What `produce` passes to its sink, handed to `write` in pieces of up to 256 KiB.
void buffered(const std::function<void(const chunk_sink&)>& produce, const std::function<void(std::string_view)>& write) {
  constexpr std::size_t buffer_size = 256u << 10;
  std::string buffer;
  buffer.reserve(buffer_size);
  produce([&](std::string_view chunk) {
    if (buffer.size() + chunk.size() > buffer_size) {
      write(buffer);
      buffer.clear();
    }
    if (chunk.size() > buffer_size) write(chunk);
    else buffer.append(chunk);
  });
  write(buffer);
}

// Writes all of `bytes` at `offset` (a short write or EINTR goes on), moving `offset` past them;
// false once a write fails, errno set.
bool write_at(int fd, std::string_view bytes, std::uint64_t& offset) {
  for (std::size_t done = 0; done < bytes.size();) {
    auto n = ::pwrite(fd, bytes.data() + done, bytes.size() - done, static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    done += static_cast<std::size_t>(n);
    offset += static_cast<std::uint64_t>(n);
  }
  return true;
}

}  // namespace

expected<void> sync_directory_of(const std::filesystem::path& file) {
  auto dir = file.has_parent_path() ? file.parent_path() : std::filesystem::path{"."};
  int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0) return io_failure(file, "cannot open " + dir.string());
  auto rc = ::fsync(dfd);
  ::close(dfd);
  if (rc != 0) return io_failure(file, "cannot fsync " + dir.string());
  return {};
}

expected<void> write_file_atomically(const std::filesystem::path& path, std::string_view content) {
  return write_file_atomically(path, [content](const chunk_sink& sink) { sink(content); });
}

expected<void> write_file_atomically(const std::filesystem::path& path, const std::function<void(const chunk_sink&)>& produce) {
  auto tmp = path;
  tmp += ".tmp-" + std::to_string(::getpid());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return io_failure(path, "cannot create " + tmp.string());
  std::optional<error> failed;
  std::uint64_t end = 0;
  auto write_all = [&](std::string_view bytes) {
    if (!failed && !write_at(fd, bytes, end)) failed = io_failure(path, "cannot write " + tmp.string());
  };
  buffered(produce, write_all);
  if (failed) {
    ::close(fd);
    ::unlink(tmp.c_str());
    return *failed;
  }
  if (::fsync(fd) != 0) {
    auto err = io_failure(path, "cannot fsync " + tmp.string());
    ::close(fd);
    ::unlink(tmp.c_str());
    return err;
  }
  ::close(fd);
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    auto err = io_failure(path, "cannot rename " + tmp.string());
    ::unlink(tmp.c_str());
    return err;
  }
  return sync_directory_of(path);
}

expected<void> append_durably(const std::filesystem::path& path, std::uint64_t& good_bytes, std::string_view bytes) {
  return append_durably(path, good_bytes, [bytes](const chunk_sink& sink) { sink(bytes); });
}

expected<void> append_durably(const std::filesystem::path& path, std::uint64_t& good_bytes,
                              const std::function<void(const chunk_sink&)>& produce) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) return io_failure(path, "cannot open " + path.string());
  std::optional<error> failed;
  std::uint64_t end = good_bytes;
  auto write_all = [&](std::string_view bytes) {
    if (!failed && !write_at(fd, bytes, end)) failed = io_failure(path, "cannot write " + path.string());
  };
  if (::ftruncate(fd, static_cast<off_t>(good_bytes)) != 0) failed = io_failure(path, "cannot truncate " + path.string());
  else buffered(produce, write_all);
  if (!failed && ::fdatasync(fd) != 0) failed = io_failure(path, "cannot sync " + path.string());
  ::close(fd);
  if (failed) return *failed;
  if (good_bytes == 0)  // a new file: its directory entry must reach the disk too
    if (auto synced = sync_directory_of(path); !synced) return synced;
  good_bytes = end;
  return {};
}

expected<std::string> read_file(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return error{errc::not_found, path.string(), path.string() + " does not exist"};
  std::ifstream in{path, std::ios::binary};
  if (!in) return io_failure(path, "cannot open " + path.string());
  std::ostringstream out;
  out << in.rdbuf();
  if (in.bad()) return io_failure(path, "cannot read " + path.string());
  return out.str();
}

}  // namespace z402::config
