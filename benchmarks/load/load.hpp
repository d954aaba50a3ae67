#pragma once
// The load itself: readers paging the list (and searching every Nth request), providers
// re-declaring their items on a beat, settle events at a fixed rate (open loop: latency is
// measured from when a request was due, so a slow server cannot hide its queue), and a prober
// that measures how long each declaration takes to become visible to readers.
#include "catalog_gen.hpp"
#include "stats.hpp"

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace z402::bench {

struct load_options {
  std::string host = "127.0.0.1";
  std::string port;
  std::chrono::seconds duration{30};
  std::size_t threads = 1;           // io threads of the generator (lanes)
  std::size_t readers = 64;          // connections reading
  std::size_t list_limit = 100;
  std::size_t search_every = 0;      // 0: no searches; N: every Nth read is a search
  std::chrono::milliseconds declare_every{0};  // 0: no declarations
  std::size_t declarers = 0;         // providers that heartbeat (each with its own connection)
  std::size_t invalid_every = 0;     // 0: none; N: every Nth beat of a declarer is a declaration that must get 400
  std::size_t change_every = 0;      // 0: beats repeat; N: every Nth beat changes the first item's content (probed)
  std::string probe_port;            // empty: probes read the target; else this port on the same host (a follower)
  bool accept_gzip = false;          // readers send Accept-Encoding: gzip, deflate, as node's fetch and browsers do
  double settles_per_second = 0;
  std::size_t settle_connections = 16;
  catalog_shape shape;
  config::rail_terms terms;
  std::vector<std::string> provider_keys;  // by provider index
  std::string settle_key;
};

struct load_result {
  double seconds = 0;
  std::vector<lane_stats> lanes;
};

/// Runs the load for the duration, printing a progress line every second to `progress`.
load_result run_load(const load_options& options, std::FILE* progress);

/// Declares every provider's items once (the seed), retrying while a new key is not yet
/// known to the server. Returns an error message, or empty.
std::string seed_catalog(const load_options& options);

/// How long a content change takes to be searchable, `rounds` times: provider 0 declares its
/// first item with a word no item has, then one connection searches for that word until the
/// item is found (microseconds from sending the declaration). Empty when a round failed (`why`).
std::vector<std::uint64_t> searchable_latency(const load_options& options, std::size_t rounds, std::string& why);

}  // namespace z402::bench
