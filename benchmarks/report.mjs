// Turns the raw outputs of benchmarks/run into results/latest.md (a table of every figure,
// ratio and target) and results/latest.json.   node report.mjs RAW_DIR RESULTS_DIR
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";

const [raw, results] = process.argv.slice(2);
const read = (f) => readFileSync(join(raw, f), "utf8");
const facts = Object.fromEntries(read("facts").trim().split("\n").map((l) => l.split("=")));
const num = (k) => Number(facts[k]);

function wrk(file) {
  const text = read(file);
  const rps = Number(text.match(/Requests\/sec:\s+([\d.]+)/)[1]);
  const p99 = text.match(/99%\s+([\d.]+)(us|ms|s)/);
  const scale = { us: 0.001, ms: 1, s: 1000 };
  const errors = text.match(/Non-2xx or 3xx responses: (\d+)/)?.[1] ?? "0";
  return { rps, p99Ms: Number(p99[1]) * scale[p99[2]], non2xx: Number(errors) };
}
const load = (f) => JSON.parse(read(f)).kinds;
/** The load generator's share of the machine during a run (it shares the cores with the server). */
const generatorShare = (f) => { const j = JSON.parse(read(f)); return j.generatorCpuSeconds / (j.seconds * num("nproc")); };
// The run with the median settle rate, and the range of all five.
const medianRun = (name) => {
  const runs = [1, 2, 3, 4, 5].map((r) => JSON.parse(read(`${name}-${r}.json`))).sort((a, b) => a.settles_per_second - b.settles_per_second);
  return { ...runs[2], runs: runs.map((e) => e.settles_per_second) };
};
const engine = medianRun("engine");
const searchAlone = JSON.parse(read("search-inprocess.json"));
const signing = [32, 128].map((providers) => JSON.parse(read(`signed-${providers}.json`)));
const engineAlone = medianRun("engine-alone");

// benchmarks/run's wrk_pair: the round with the median ratio of z402-bazaar to nginx, and the
// ratios of all three rounds in the order they ran.
const pairRounds = (name) => {
  const rounds = [1, 2, 3].map((r) => {
    const z = wrk(`wrk-z402-${name}-${r}.txt`), n = wrk(`wrk-nginx-${name}-${r}.txt`);
    return { z402: z, nginx: n, ratio: z.rps / n.rps };
  });
  return { ...[...rounds].sort((a, b) => a.ratio - b.ratio)[1], rounds: rounds.map((x) => x.ratio) };
};
const reads = {};
for (const limit of [100, 10]) reads[`limit${limit}`] = { bodyBytes: num(`body_bytes_limit${limit}`), ...pairRounds(`limit${limit}`) };
const gzipReads = {};
for (const limit of [100, 10]) gzipReads[`limit${limit}`] = { gzipBytes: num(`gzip_bytes_limit${limit}`), ...pairRounds(`gzip-limit${limit}`) };
const roundRatios = (r) => r.rounds.map((x) => x.toFixed(2)).join(", ");
// Over HTTPS, with one wrk thread and with two: per page and thread count, the round of the median
// ratio, and what TLS costs against the same page's plain figure (one thread).
const tlsReads = {};
for (const threads of [1, 2])
  for (const limit of [100, 10]) {
    const r = pairRounds(`tls-t${threads}-limit${limit}`);
    tlsReads[`limit${limit}, ${threads} wrk thread${threads > 1 ? "s" : ""}`] = { ...r, threads, limit, costOfTls: r.z402.rps / reads[`limit${limit}`].z402.rps };
  }
const tlsOf = (limit, threads) => Object.values(tlsReads).find((r) => r.limit === limit && r.threads === threads);
// A crowd of readers: per number of connections and server, the round whose throughput is the
// median of three, with its per-connection spread; and, for z402-bazaar, the slowest /health and
// /metrics answers while the crowd was served.
const crowdCounts = [64, 5000, 10000];
const crowdRun = (server, n, r) => {
  const j = JSON.parse(read(`crowd-${server}-${n}-${r}.json`));
  return { rps: j.all.achievedPerSecond, p99Ms: j.all.correctedUs.p99 / 1000, errors: Object.values(j.all.errors ?? {}).reduce((a, b) => a + b, 0),
           spread: j.answersPerConnection };
};
const probes = (file) => {
  const lines = read(file).trim().split("\n").filter(Boolean).map((l) => l.split(" "));
  return { count: lines.length, failed: lines.filter(([code]) => code !== "200").length, maxMs: Math.max(...lines.map(([, t]) => Number(t) * 1000)) };
};
const crowd = crowdCounts.map((n) => {
  const pick = (server) => [1, 2, 3].map((r) => crowdRun(server, n, r)).sort((a, b) => a.rps - b.rps)[1];
  return { connections: n, z402: pick("z402"), nginx: pick("nginx"), health: probes(`probe-z402-health-${n}.txt`), metrics: probes(`probe-z402-metrics-${n}.txt`) };
});
for (const c of crowd) {
  c.z402.ofBase = c.z402.rps / crowd[0].z402.rps;
  c.nginx.ofBase = c.nginx.rps / crowd[0].nginx.rps;
}
const crowdOf = (n) => crowd.find((c) => c.connections === n);
// The load generator beside wrk, each of three rounds in turn: the round of the median ratio.
const generator = {};
for (const scheme of ["http", "https"]) {
  const rounds = [1, 2, 3].map((r) => {
    const w = wrk(`wrk-generator-${scheme}-${r}.txt`), t = JSON.parse(read(`test-generator-${scheme}-${r}.json`));
    return { wrk: w, test: { rps: t.all.achievedPerSecond, p99Ms: t.all.correctedUs.p99 / 1000 },
             ratio: t.all.achievedPerSecond / w.rps };
  });
  generator[scheme] = { ...[...rounds].sort((a, b) => a.ratio - b.ratio)[1], rounds: rounds.map((x) => x.ratio) };
}
// The MCP tools beside the GET reads they mirror, each of three rounds in turn: the round of the
// median ratio, and each round's ratio.
const mcpReads = {};
for (const name of ["search", "list", "gzip-search", "gzip-list"]) {
  const rounds = [1, 2, 3].map((r) => {
    const http = wrk(`wrk-mcp-${name}-http-${r}.txt`), mcp = wrk(`wrk-mcp-${name}-mcp-${r}.txt`);
    return { http, mcp, ratio: mcp.rps / http.rps };
  });
  mcpReads[name] = { ...[...rounds].sort((a, b) => a.ratio - b.ratio)[1], rounds: rounds.map((x) => x.ratio) };
}
// Pages by 30 days of paid calls beside the plain page, read in the same round under settles: per
// kind, the round of the median ratio to the plain page, and each round's ratio.
const usageReads = {};
for (const kind of ["sorted", "filtered"]) {
  const rounds = [1, 2, 3].map((r) => {
    const plain = wrk(`wrk-usage-plain-${r}.txt`), q = wrk(`wrk-usage-${kind}-${r}.txt`);
    return { plain, read: q, ratio: q.rps / plain.rps };
  });
  usageReads[kind] = { ...[...rounds].sort((a, b) => a.ratio - b.ratio)[1], rounds: rounds.map((x) => x.ratio) };
}
const idle = load("load-idle-plain.json"), write = load("load-write-plain.json"), full = load("load-full.json"), settles = load("load-settle.json");
const idleGzip = load("load-idle-gzip.json"), writeGzip = load("load-write-gzip.json");
const shares = { writePlain: generatorShare("load-write-plain.json"), writeGzip: generatorShare("load-write-gzip.json") };
const mb = (kb) => kb / 1024;
const memory = {
  natural: { catalogBytes: num("natural_bytes"), idleRssKb: num("natural_idle_rss_kb"), peakRssKb: num("natural_peak_rss_kb") },
  full: { items: num("full_items"), catalogBytes: num("full_bytes"), idleRssKb: num("full_idle_rss_kb"), peakRssKb: num("full_peak_rss_kb") },
};
memory.natural.items = num("natural_items");
for (const m of Object.values(memory)) {
  m.peakRatio = (m.peakRssKb * 1024) / m.catalogBytes;
  m.bytesPerItem = m.catalogBytes / m.items;
  m.peakRssPerItem = (m.peakRssKb * 1024) / m.items;
}
// More than one node: per number of followers, the primary's CPU (cores), the feed's bytes/s per
// follower, the replication lag (the load's visibility probe, read at the first follower).
const cluster = [0, 1, 2].map((n) => {
  const run = JSON.parse(read(`cluster-${n}.json`));
  const feeds = Array.from({ length: n }, (_, i) => num(`cluster_feed_bytes_${n}_f${i + 1}`) / run.seconds);
  return { followers: n, primaryCores: num(`cluster_primary_cpu_ticks_${n}`) / num("clk_tck") / run.seconds,
           feedBytesPerSecond: feeds, lag: n > 0 ? run.kinds.visibility : null, kinds: run.kinds };
});
const clusterReads = { primary: wrk("wrk-cluster-primary.txt"), follower: wrk("wrk-cluster-f1.txt") };

const targets = [
  ["list reads limit=100 vs nginx", reads.limit100.ratio, ">= 0.95x", reads.limit100.ratio >= 0.95, (v) => `${v.toFixed(2)}x`],
  ["list reads limit=10 vs nginx", reads.limit10.ratio, ">= 0.95x", reads.limit10.ratio >= 0.95, (v) => `${v.toFixed(2)}x`],
  ...[1, 2].flatMap((t) => [100, 10].map((limit) => [`HTTPS list reads limit=${limit} vs nginx, wrk -t${t}`, tlsOf(limit, t).ratio, ">= 1.0x",
    tlsOf(limit, t).ratio >= 1, (v) => `${v.toFixed(2)}x`])),
  ["gzip'd list reads limit=100 vs nginx gzip_static", gzipReads.limit100.ratio, ">= 1.0x", gzipReads.limit100.ratio >= 1, (v) => `${v.toFixed(2)}x`],
  ["gzip'd list reads limit=10 vs nginx gzip_static", gzipReads.limit10.ratio, ">= 1.0x", gzipReads.limit10.ratio >= 1, (v) => `${v.toFixed(2)}x`],
  ["z402-load test (closed, 64 connections) vs wrk -t1 -c64, limit=100", generator.http.ratio, ">= 0.9x", generator.http.ratio >= 0.9, (v) => `${v.toFixed(2)}x`],
  ["the same over HTTPS", generator.https.ratio, ">= 0.9x", generator.https.ratio >= 0.9, (v) => `${v.toFixed(2)}x`],
  ["read p99 under write load, 64 connections", write.list.p99Ms, "< 10 ms", write.list.p99Ms < 10, (v) => `${v.toFixed(2)} ms`],
  ["gzip'd read p99 under write load, 64 connections", writeGzip.list.p99Ms, "< 10 ms", writeGzip.list.p99Ms < 10, (v) => `${v.toFixed(2)} ms`],
  ["changed declaration visible to readers, p99", write.visibility?.p99Ms ?? NaN, "< 50 ms", (write.visibility?.p99Ms ?? Infinity) < 50, (v) => `${v.toFixed(2)} ms`],
  ["settle events over HTTP (offered 40,000/s open loop, 64 connections)", settles.settle.perSecond, ">= 30,000/s", settles.settle.perSecond >= 30000, (v) => `${Math.round(v)}/s`],
  ["list sort=calls30d vs the plain page, limit=100 under settles", usageReads.sorted.ratio, ">= 0.9x", usageReads.sorted.ratio >= 0.9, (v) => `${v.toFixed(2)}x`],
  ["list minCalls30d=1 vs the plain page, limit=100 under settles", usageReads.filtered.ratio, ">= 0.9x", usageReads.filtered.ratio >= 0.9, (v) => `${v.toFixed(2)}x`],
  ["MCP tools/call search_resources vs GET /discovery/search", mcpReads.search.ratio, ">= 0.9x", mcpReads.search.ratio >= 0.9, (v) => `${v.toFixed(2)}x`],
  ["MCP tools/call list_resources vs GET /discovery/resources, limit=100", mcpReads.list.ratio, ">= 0.9x", mcpReads.list.ratio >= 0.9, (v) => `${v.toFixed(2)}x`],
  ["MCP search_resources vs GET /discovery/search, both gzip'd", mcpReads["gzip-search"].ratio, ">= 0.9x", mcpReads["gzip-search"].ratio >= 0.9, (v) => `${v.toFixed(2)}x`],
  ["MCP list_resources vs GET /discovery/resources, limit=100, both gzip'd", mcpReads["gzip-list"].ratio, ">= 0.9x", mcpReads["gzip-list"].ratio >= 0.9, (v) => `${v.toFixed(2)}x`],
  ["settle events in-process", engine.settles_per_second, ">= 300,000/s", engine.settles_per_second >= 300000, (v) => `${Math.round(v)}/s`],
  ["peak RSS / serialised catalog, full catalog under load", memory.full.peakRatio, "<= 3x", memory.full.peakRatio <= 3, (v) => `${v.toFixed(2)}x`],
  ...[5000, 10000].map((n) => [`${n.toLocaleString("en")} keep-alive readers vs 64, limit=10 (nginx: ${crowdOf(n).nginx.ofBase.toFixed(2)}x)`,
    crowdOf(n).z402.ofBase, ">= 0.8x", crowdOf(n).z402.ofBase >= 0.8, (v) => `${v.toFixed(2)}x`]),
  ...[5000, 10000].map((n) => [`${n.toLocaleString("en")} readers: connections given no answer`, crowdOf(n).z402.spread.none, "0",
    crowdOf(n).z402.spread.none === 0, (v) => `${v}`]),
  ["slowest /health or /metrics answer while 10,000 readers are served", Math.max(crowdOf(10000).health.maxMs, crowdOf(10000).metrics.maxMs),
    "< 1000 ms", Math.max(crowdOf(10000).health.maxMs, crowdOf(10000).metrics.maxMs) < 1000, (v) => `${v.toFixed(0)} ms`],
];

const row = (k, r) => `| ${k} | ${Math.round(r.perSecond)} | ${r.p50Ms.toFixed(2)} | ${r.p99Ms.toFixed(2)} | ${r.p999Ms.toFixed(2)} | ${Object.entries(r.errors).map(([w, n]) => `${w}: ${n}`).join(", ") || "-"} |`;
const loadTable = (title, kinds) => [`#### ${title}`, "", "| kind | per s | p50 ms | p99 ms | p999 ms | errors |", "|---|---|---|---|---|---|",
  ...Object.entries(kinds).map(([k, r]) => row(k, r)), ""];

const md = [
  `# z402 Bazaar benchmarks`,
  ``,
  `Commit ${facts.commit}, nproc ${facts.nproc}, ${facts.seconds} s per measurement, ${new Date().toISOString()}. Server, wrk, nginx and z402-load share this machine's cores.`,
  `Made by \`benchmarks/run\`. Why the missed targets are missed, with profiles: [profile.md](profile.md).`,
  ``,
  `## Targets`,
  ``,
  `| target | measured | aim | met |`,
  `|---|---|---|---|`,
  ...targets.map(([name, v, aim, met, fmt]) => `| ${name} | ${fmt(v)} | ${aim} | ${met ? "yes" : "**no**"} |`),
  ``,
  `## 1. List reads: z402-bazaar beside nginx on the same bytes (wrk -t1 -c64)`,
  ``,
  `Three rounds of the two servers in turn; the round of the median ratio is shown, and the ratios of all three rounds.`,
  ``,
  `| page | body bytes | z402 req/s | z402 p99 ms | nginx req/s | nginx p99 ms | z402/nginx | each round |`,
  `|---|---|---|---|---|---|---|---|`,
  ...Object.entries(reads).map(([k, r]) => `| ${k} | ${r.bodyBytes} | ${Math.round(r.z402.rps)} | ${r.z402.p99Ms.toFixed(2)} | ${Math.round(r.nginx.rps)} | ${r.nginx.p99Ms.toFixed(2)} | ${r.ratio.toFixed(2)} | ${roundRatios(r)} |`),
  ``,
  `### gzip'd, as node's fetch and browsers ask (Accept-Encoding: gzip; nginx gzip_static on the same compressed bytes)`,
  ``,
  `| page | gzip bytes | z402 req/s | z402 p99 ms | nginx req/s | nginx p99 ms | z402/nginx | each round |`,
  `|---|---|---|---|---|---|---|---|`,
  ...Object.entries(gzipReads).map(([k, r]) => `| ${k} | ${r.gzipBytes} | ${Math.round(r.z402.rps)} | ${r.z402.p99Ms.toFixed(2)} | ${Math.round(r.nginx.rps)} | ${r.nginx.p99Ms.toFixed(2)} | ${r.ratio.toFixed(2)} | ${roundRatios(r)} |`),
  ``,
  `### By 30 days of paid calls (limit=100, wrk -t1 -c64, while 5,000 settles/s move the counts)`,
  ``,
  `Three rounds of the plain page, \`sort=calls30d\` and \`minCalls30d=1\` in turn; the round of the median ratio to the plain page shown.`,
  ``,
  `| read | req/s | p99 ms | plain req/s | plain p99 ms | read/plain | each round |`,
  `|---|---|---|---|---|---|---|`,
  ...Object.entries(usageReads).map(([k, r]) => `| ${k === "sorted" ? "sort=calls30d" : "minCalls30d=1"} | ${Math.round(r.read.rps)} | ${r.read.p99Ms.toFixed(2)} | ${Math.round(r.plain.rps)} | ${r.plain.p99Ms.toFixed(2)} | ${r.ratio.toFixed(2)} | ${roundRatios(r)} |`),
  ``,
  `### Over HTTPS (TLS 1.3, ECDSA P-256, keep-alive: wrk -c64 with one thread and with two; the same bodies)`,
  ``,
  `Three rounds of the two servers in turn; the round of the median ratio shown. The last column: z402-bazaar over TLS against its own plain figure (one thread).`,
  ``,
  `| page | z402 req/s | z402 p99 ms | nginx req/s | nginx p99 ms | z402/nginx | each round | z402 TLS / z402 plain |`,
  `|---|---|---|---|---|---|---|---|`,
  ...Object.entries(tlsReads).map(([k, r]) => `| ${k} | ${Math.round(r.z402.rps)} | ${r.z402.p99Ms.toFixed(2)} | ${Math.round(r.nginx.rps)} | ${r.nginx.p99Ms.toFixed(2)} | ${r.ratio.toFixed(2)} | ${roundRatios(r)} | ${r.costOfTls.toFixed(2)} |`),
  ``,
  `### A crowd: 64, 5,000 and 10,000 keep-alive readers at once (z402-load test, closed loop, two threads, the first limit=10 page)`,
  ``,
  `Each server in turn, three rounds; the round of the median throughput shown. Spread: answers per connection over the run (min / median / max, and how many connections got none). z402-bazaar runs with \`--max-connections 12000\`; /health and /metrics were asked every 200 ms on new connections while each server served the crowd (nginx answers them 404; z402-bazaar's answers are shown). Connections refused by z402-bazaar over all the crowd's runs: ${facts.crowd_refused ?? "?"}.`,
  ``,
  `| readers | z402 req/s | of 64 | z402 p99 ms | z402 spread | nginx req/s | of 64 | nginx p99 ms | nginx spread | z402/nginx | /health slowest ms (answers, failed) | /metrics slowest ms (answers, failed) |`,
  `|---|---|---|---|---|---|---|---|---|---|---|---|`,
  ...crowd.map((c) => {
    const spread = (s) => `${s.min} / ${s.median} / ${s.max}, ${s.none} none`;
    return `| ${c.connections} | ${Math.round(c.z402.rps)} | ${c.z402.ofBase.toFixed(2)}x | ${c.z402.p99Ms.toFixed(2)} | ${spread(c.z402.spread)} | ` +
      `${Math.round(c.nginx.rps)} | ${c.nginx.ofBase.toFixed(2)}x | ${c.nginx.p99Ms.toFixed(2)} | ${spread(c.nginx.spread)} | ${(c.z402.rps / c.nginx.rps).toFixed(2)} | ` +
      `${c.health.maxMs.toFixed(0)} (${c.health.count}, ${c.health.failed}) | ${c.metrics.maxMs.toFixed(0)} (${c.metrics.count}, ${c.metrics.failed}) |`;
  }),
  ``,
  `### The load generator: z402-load test beside wrk on the same read`,
  ``,
  `\`z402-load test --closed --connections 64\` (one thread, latency not corrected, as wrk's) and \`wrk -t1 -c64\` on the first limit=100 page; three rounds in turn, the round of the median ratio shown.`,
  ``,
  `| scheme | z402-load req/s | z402-load p99 ms | wrk req/s | wrk p99 ms | z402-load/wrk | each round |`,
  `|---|---|---|---|---|---|---|`,
  ...Object.entries(generator).map(([k, r]) => `| ${k} | ${Math.round(r.test.rps)} | ${r.test.p99Ms.toFixed(2)} | ${Math.round(r.wrk.rps)} | ${r.wrk.p99Ms.toFixed(2)} | ${r.ratio.toFixed(2)} | ${roundRatios(r)} |`),
  ``,
  `### The MCP tools beside the GET reads they mirror (wrk -t1 -c64, three rounds in turn; the round of the median ratio shown)`,
  ``,
  `search: "weather forecast for a city", 10 results; list: the first page of 100; gzip-: both sides asked for gzip (Node's fetch does, and so the MCP SDK). The MCP answer also carries a text rendering of the page; both come from caches kept per snapshot version, the MCP result deflated once and framed as a gzip member around each request's id.`,
  ``,
  `| read | GET req/s | GET p99 ms | MCP req/s | MCP p99 ms | non-2xx | MCP/GET | each round |`,
  `|---|---|---|---|---|---|---|---|`,
  ...Object.entries(mcpReads).map(([k, r]) => `| ${k} | ${Math.round(r.http.rps)} | ${r.http.p99Ms.toFixed(2)} | ${Math.round(r.mcp.rps)} | ${r.mcp.p99Ms.toFixed(2)} | ${r.http.non2xx + r.mcp.non2xx} | ${r.ratio.toFixed(2)} | ${roundRatios(r)} |`),
  ``,
  `## 2. Reads under write load (z402-load, 64 readers paging limit=100)`,
  ``,
  ...loadTable("Reads alone", idle),
  ...loadTable("Reads while 32 providers heartbeat every second (every 4th beat changes an item) and 5,000 settle events/s arrive", write),
  ...loadTable("gzip'd reads alone (Accept-Encoding: gzip, deflate)", idleGzip),
  ...loadTable("gzip'd reads under the same write load", writeGzip),
  ...loadTable("Settle events alone, offered 40,000/s open loop on 64 connections (latency counted from when each was due)", settles),
  `Read throughput under write load: ${(write.list.perSecond / idle.list.perSecond).toFixed(2)}x the idle figure plain, ` +
    `${(writeGzip.list.perSecond / idleGzip.list.perSecond).toFixed(2)}x gzip'd, while the generator itself took ` +
    `${(100 * shares.writePlain).toFixed(0)}% and ${(100 * shares.writeGzip).toFixed(0)}% of the machine. "visibility" is the time ` +
    `from sending a changed declaration to the first read that shows its new content; counts and lastSeen are published at ` +
    `most every 250 ms by design and are not probed.`,
  ``,
  `## 3. The engine alone, in-process`,
  ``,
  `| figure | value |`,
  `|---|---|`,
  `| settle events/s (one sender passing each body's JSON text, a reader thread on the snapshot): the median of five runs (all five) | ${Math.round(engine.settles_per_second)} (${engine.runs.map(Math.round).join(", ")}) |`,
  `| CPU µs per settle in the median run: the process's less the reader thread's (the sending thread's) | ${engine.cpu_us_per_settle.toFixed(2)} (${engine.sender_cpu_us_per_settle.toFixed(2)}) |`,
  `| declarations/s (128 checked items each, their content built by the sender, each acknowledged before the next) | ${Math.round(engine.declarations_per_second)} (${Math.round(engine.declared_items_per_second)} items/s) |`,
  `| reads/s of limit=100 by the reader thread meanwhile; the cores it took while the settles ran | ${Math.round(engine.reads_per_second_limit100)}; ${engine.reader_cores_while_settling.toFixed(2)} |`,
  `| settle events/s with no reader thread, each run beside one above: the median of five (all five) | ${Math.round(engineAlone.settles_per_second)} (${engineAlone.runs.map(Math.round).join(", ")}) |`,
  `| CPU µs per settle in that median run (the sending thread's) | ${engineAlone.cpu_us_per_settle.toFixed(2)} (${engineAlone.sender_cpu_us_per_settle.toFixed(2)}) |`,
  ``,
  `The target is the figure with the reader. Its reader spins, and the settles get what it leaves of the two cores, so that ` +
    `figure follows the CPU a settle costs and the share the scheduler gives the sending thread; the runs with no reader show ` +
    `what the settle path alone does here.`,
  ``,
  `## 3b. Search alone, in process (uncached: every query expanded and ranked)`,
  ``,
  `A page of 10 spread by origin, for 14 queries an agent sends in turn (the listings' words, other words, typos, Spanish, ` +
    `Portuguese, French): expanded as the server does (search::expand), and their typed words alone (search::literal).`,
  ``,
  `| items | expanded queries/s | p50 µs | p99 µs | typed words only queries/s | p50 µs | p99 µs |`,
  `|---|---|---|---|---|---|---|`,
  ...searchAlone.sizes.map((x) => `| ${x.items} | ${Math.round(x.expanded.queriesPerSecond)} | ${x.expanded.p50us.toFixed(1)} | ${x.expanded.p99us.toFixed(1)} | ` +
    `${Math.round(x.typedOnly.queriesPerSecond)} | ${x.typedOnly.p50us.toFixed(1)} | ${x.typedOnly.p99us.toFixed(1)} |`),
  ``,
  `The lexicon: ${searchAlone.lexicon.bytes} bytes of read-only data in the library, checked in ${searchAlone.lexicon.checkMs.toFixed(2)} ms; ` +
    `the queries above made ${searchAlone.lexicon.rssKbByQueries} KB of it resident. Made from ${searchAlone.lexicon.sources}.`,
  ``,
  `## 3c. Signing the catalog, in process (docs/trust.md §5)`,
  ``,
  `What the SIGNER does for each note (at most every 10 s while the catalog changes, every 5 minutes otherwise): the whole ` +
    `catalog's bytes, their SHA-256, the Ed25519 signature of the note and the gzip served beside the bytes; the median of five.`,
  ``,
  `| items | bytes | gzip bytes | serialise ms | SHA-256 ms | sign ms | gzip ms | held by the newest and the one before / bytes | process growth / bytes |`,
  `|---|---|---|---|---|---|---|---|---|`,
  ...signing.map((x) => `| ${x.items} | ${x.bytes} | ${x.gzipBytes} | ${x.msSerialise.toFixed(1)} | ${x.msSha256.toFixed(1)} | ` +
    `${x.msSign.toFixed(2)} | ${x.msGzip.toFixed(1)} | ${x.heldPerCatalogByte.toFixed(2)}x | ${x.grownPerCatalogByte.toFixed(2)}x |`),
  ``,
  `A signing node holds two copies of the catalog's bytes and their gzip beside the catalog itself (the newest publication ` +
    `and the one before, which an agent that read the note just before still asks for), and grows to about twice that while it ` +
    `signs (the copy being made, and freed copies the allocator keeps). The servers in section 4 do not sign.`,
  ``,
  `## 4. Memory`,
  ``,
  `| catalog | items | serialised bytes | bytes per item | idle RSS MB | peak RSS MB (under the load of 2) | peak RSS per item | peak / serialised |`,
  `|---|---|---|---|---|---|---|---|`,
  ...[["natural sizes", memory.natural], ["filled close to 16 MiB", memory.full]].map(([name, m]) =>
    `| ${name} | ${m.items} | ${m.catalogBytes} | ${Math.round(m.bytesPerItem)} | ${mb(m.idleRssKb).toFixed(1)} | ${mb(m.peakRssKb).toFixed(1)} | ${Math.round(m.peakRssPerItem)} | ${m.peakRatio.toFixed(2)}x |`),
  ``,
  ...loadTable("The load of (2) on the filled catalog", full),
  `## 5. More than one node (mutual TLS between nodes, all on this machine)`,
  ``,
  `The write load of (2) at the primary with no readers: 32 providers heartbeating every second (every 4th beat a content change) and 5,000 settle events/s.`,
  `Replication lag: a changed declaration, from the primary's answer's send until the first follower's reads show it. Feed bytes: what each follower's process read (TLS records included).`,
  ``,
  `| followers | primary CPU (cores) | settles/s answered | feed KB/s per follower | replication lag p50 ms | p99 ms | max ms |`,
  `|---|---|---|---|---|---|---|`,
  ...cluster.map((c) => `| ${c.followers} | ${c.primaryCores.toFixed(2)} | ${Math.round(c.kinds.settle.perSecond)} | ${c.feedBytesPerSecond.map((b) => (b / 1024).toFixed(1)).join(", ") || "-"} | ` +
    `${c.lag ? c.lag.p50Ms.toFixed(2) : "-"} | ${c.lag ? c.lag.p99Ms.toFixed(2) : "-"} | ${c.lag ? c.lag.maxMs.toFixed(2) : "-"} |`),
  ``,
  `List reads limit=100 (wrk -t1 -c64, no writes): primary ${Math.round(clusterReads.primary.rps)} req/s (p99 ${clusterReads.primary.p99Ms.toFixed(2)} ms), ` +
    `a follower ${Math.round(clusterReads.follower.rps)} req/s (p99 ${clusterReads.follower.p99Ms.toFixed(2)} ms): ${(clusterReads.follower.rps / clusterReads.primary.rps).toFixed(2)}x. ` +
    `The three nodes share two cores here, so reads do not add up across nodes as they would on separate machines.`,
  ``,
];
mkdirSync(results, { recursive: true });
writeFileSync(join(results, "latest.md"), md.join("\n") + "\n");
writeFileSync(join(results, "latest.json"), JSON.stringify({ facts, reads, gzipReads, tlsReads, crowd, generator, mcpReads, underWriteLoad: { idle, write, idleGzip, writeGzip, generatorShare: shares }, settlesAlone: settles, engine, engineAlone, searchAlone, memory, fullCatalogLoad: full, cluster, clusterReads,
  targets: targets.map(([name, value, aim, met]) => ({ name, value, aim, met })) }, null, 2) + "\n");
