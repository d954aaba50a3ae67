#include "z402/wire/iso_time.hpp"

#include <chrono>
#include <cstdio>

namespace z402::wire {

// Written digit by digit: every item a settle touches is rendered again with its lastUpdated
// (and lastSeen), and snprintf's format parsing was 4.7 % of the catalog thread's time at
// 400k settles (perf, z402-bench-engine --no-reads).
void append_iso_ms(std::string& out, std::int64_t ms) {
  using namespace std::chrono;
  auto day = utc_day(ms);
  auto in_day = ms - day * ms_per_day;
  year_month_day ymd{sys_days{days{day}}};
  auto year = static_cast<int>(ymd.year());
  if (year < 0 || year > 9999) {
    // Outside what four digits hold (no catalog time is): the old printf form, sign and all.
    char buf[64];
    std::snprintf(buf, sizeof buf, "%04d", year);
    out.append(buf);
  } else {
    char y[4] = {static_cast<char>('0' + year / 1000), static_cast<char>('0' + year / 100 % 10),
                 static_cast<char>('0' + year / 10 % 10), static_cast<char>('0' + year % 10)};
    out.append(y, 4);
  }
  char rest[20];
  auto two = [&](char* at, long long v) {
    at[0] = static_cast<char>('0' + v / 10);
    at[1] = static_cast<char>('0' + v % 10);
  };
  rest[0] = '-';
  two(rest + 1, static_cast<unsigned>(ymd.month()));
  rest[3] = '-';
  two(rest + 4, static_cast<unsigned>(ymd.day()));
  rest[6] = 'T';
  two(rest + 7, in_day / 3'600'000);
  rest[9] = ':';
  two(rest + 10, in_day / 60'000 % 60);
  rest[12] = ':';
  two(rest + 13, in_day / 1000 % 60);
  rest[15] = '.';
  auto milli = in_day % 1000;
  rest[16] = static_cast<char>('0' + milli / 100);
  two(rest + 17, milli % 100);
  rest[19] = 'Z';
  out.append(rest, sizeof rest);
}

std::string format_iso_ms(std::int64_t ms) {
  std::string out;
  out.reserve(24);
  append_iso_ms(out, ms);
  return out;
}

expected<std::int64_t> parse_iso_ms(std::string_view s) {
  using namespace std::chrono;
  auto not_a_time = [] { return refused("", "is not a UTC time written YYYY-MM-DDTHH:MM:SS.mmmZ"); };
  if (s.size() != 24 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' ||
      s[16] != ':' || s[19] != '.' || s[23] != 'Z')
    return not_a_time();
  auto num = [&](std::size_t pos, std::size_t len) -> int {
    int v = 0;
    for (std::size_t i = pos; i < pos + len; ++i) {
      if (s[i] < '0' || s[i] > '9') return -1;
      v = v * 10 + (s[i] - '0');
    }
    return v;
  };
  int y = num(0, 4), mo = num(5, 2), d = num(8, 2), h = num(11, 2), mi = num(14, 2), sec = num(17, 2),
      milli = num(20, 3);
  if (y < 0 || mo < 0 || d < 0 || h < 0 || h > 23 || mi < 0 || mi > 59 || sec < 0 || sec > 59 || milli < 0)
    return not_a_time();
  year_month_day ymd{year{y}, month{static_cast<unsigned>(mo)}, day{static_cast<unsigned>(d)}};
  if (!ymd.ok()) return refused("", "names a day that does not exist");
  auto days_since = sys_days{ymd}.time_since_epoch().count();
  return days_since * ms_per_day + h * 3'600'000LL + mi * 60'000LL + sec * 1000LL + milli;
}

}  // namespace z402::wire
