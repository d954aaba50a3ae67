// Turns the raw outputs of benchmarks/curves into results/curves.md (the tables and their
// targets), results/curves.json and one PNG per curve (gnuplot).
//   node curves-report.mjs RAW_DIR RESULTS_DIR
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { join } from "node:path";

const [raw, results] = process.argv.slice(2);
const read = (f) => readFileSync(join(raw, f), "utf8");
const facts = Object.fromEntries(read("facts").trim().split("\n").map((l) => l.split("=")));
const num = (k) => Number(facts[k]);
const seconds = num("seconds");
const cpuMicros = (name) => (Number(read(`${name}.cpu`)) * 1e6) / num("clock_ticks");

function wrk(name) {
  const text = read(`${name}.txt`);
  const p99 = text.match(/99%\s+([\d.]+)(us|ms|s)/);
  const scale = { us: 0.001, ms: 1, s: 1000 };
  return {
    rps: Number(text.match(/Requests\/sec:\s+([\d.]+)/)[1]),
    requests: Number(text.match(/(\d+) requests in/)[1]),
    p99Ms: Number(p99[1]) * scale[p99[2]],
    non2xx: Number(text.match(/Non-2xx or 3xx responses: (\d+)/)?.[1] ?? 0),
    cpuMicros: cpuMicros(name),
  };
}
// Reads against catalog size take three rounds of the four sizes in turn: the round of the median
// throughput, with the throughput of every round.
function rounds(name) {
  const all = [1, 2, 3].map((round) => wrk(`${name}-${round}`));
  return { ...[...all].sort((a, b) => a.rps - b.rps)[1], rounds: all.map((w) => w.rps) };
}
const loadRun = (name) => ({ ...JSON.parse(read(`${name}.json`)).kinds, cpuMicros: cpuMicros(name) });

const sizes = [1024, 4096, 16384, 65536].map((items) => ({
  items,
  list: rounds(`size-${items}-list`),
  search: rounds(`size-${items}-search`),
  searchable: JSON.parse(read(`size-${items}-searchable.json`)),
  startupMs: num(`startup_ms_${items}`),
  idleRssMb: num(`idle_rss_kb_${items}`) / 1024,
  peakRssMb: num(`peak_rss_kb_${items}`) / 1024,
}));
const pages = [1, 10, 100, 1000].map((limit) => ({ limit, list: wrk(`page-${limit}-list`), search: wrk(`page-${limit}-search`) }));
const settles = [16, 64, 256].map((connections) => ({ connections, ...loadRun(`settle-${connections}`) }));
const heartbeat = loadRun("heartbeat"), changed = loadRun("changed"), page100 = pages.find((p) => p.limit === 100).list;
const settle64 = settles.find((s) => s.connections === 64);
const perOperation = {
  settle: settle64.cpuMicros / settle64.settle.count,
  heartbeat: heartbeat.cpuMicros / heartbeat.declare.count,
  changedDeclaration: changed.cpuMicros / changed.declare.count,
  page100: page100.cpuMicros / page100.requests,
};

// The cost of one doubling between two measured sizes (4x apart: two doublings).
const perDoubling = (a, b) => 1 - Math.sqrt(b / a);
const doublings = [];
for (let i = 1; i < sizes.length; ++i)
  doublings.push({
    from: sizes[i - 1].items, to: sizes[i].items,
    list: perDoubling(sizes[i - 1].list.rps, sizes[i].list.rps),
    search: perDoubling(sizes[i - 1].search.rps, sizes[i].search.rps),
  });
const worst = (k) => Math.max(...doublings.map((d) => d[k]));
const at16k = sizes.find((s) => s.items === 16384);
const pct = (v) => `${(100 * v).toFixed(1)}%`;
const targets = [
  ["list throughput lost per doubling of the catalog, worst step up to 65,536", worst("list"), "< 10%", worst("list") < 0.1, pct],
  ["search throughput lost per doubling of the catalog, worst step up to 65,536", worst("search"), "< 10%", worst("search") < 0.1, pct],
  ["content change searchable at 16,384 items, p99", at16k.searchable.p99Ms, "< 50 ms", at16k.searchable.p99Ms < 50, (v) => `${v.toFixed(1)} ms`],
];

mkdirSync(results, { recursive: true });
// gnuplot: one data file and one PNG per curve.
function plot(name, title, xlabel, ylabel, columns, rows, { logx = true, y2 } = {}) {
  const data = join(raw, `${name}.dat`);
  writeFileSync(data, rows.map((r) => r.join(" ")).join("\n") + "\n");
  const series = columns.map((c, i) => `"${data}" using 1:${i + 2} with linespoints lw 2 title "${c}"${y2?.includes(c) ? " axes x1y2" : ""}`);
  execFileSync("gnuplot", [], {
    input: [
      `set terminal pngcairo size 900,560 font ",10"`,
      `set output "${join(results, `${name}.png`)}"`,
      `set title "${title}"`, `set xlabel "${xlabel}"`, `set ylabel "${ylabel}"`, "set grid", "set key outside bottom center horizontal",
      logx ? "set logscale x 2" : "", "set yrange [0:*]",
      y2 ? `set y2label "${y2.join(", ")}"` : "", y2 ? "set y2tics" : "", y2 ? "set y2range [0:*]" : "",
      `plot ${series.join(", ")}`,
    ].join("\n"),
  });
}
plot("curves-catalog-throughput", "Reads against catalog size (wrk -t1 -c64)", "items in the catalog", "requests/s",
  ["list limit=100", "search limit=10"], sizes.map((s) => [s.items, s.list.rps, s.search.rps]));
plot("curves-catalog-latency", "Latencies against catalog size", "items in the catalog", "ms",
  ["list p99", "search p99", "content change searchable p99", "start-up from the file"],
  sizes.map((s) => [s.items, s.list.p99Ms, s.search.p99Ms, s.searchable.p99Ms, s.startupMs]), { y2: ["start-up from the file"] });
plot("curves-catalog-memory", "Memory against catalog size", "items in the catalog", "MB",
  ["idle RSS", "peak RSS"], sizes.map((s) => [s.items, s.idleRssMb, s.peakRssMb]));
plot("curves-page", "Reads against page size, 4,096 items (wrk -t1 -c64)", "items per page (limit)", "requests/s",
  ["list", "search"], pages.map((p) => [p.limit, p.list.rps, p.search.rps]));
plot("curves-settle", "Settle events over HTTP against connections (offered 40,000/s)", "connections", "settles/s",
  ["answered per s", "p99 ms"], settles.map((s) => [s.connections, s.settle.perSecond, s.settle.p99Ms]), { y2: ["p99 ms"] });

const md = [
  "# z402 Bazaar: how the cost grows with the work",
  "",
  `Commit ${facts.commit}, nproc ${facts.nproc}, ${seconds} s per point, ${new Date().toISOString()}. Server, wrk and z402-load share this machine's cores.`,
  "Made by `benchmarks/run --curves` (`benchmarks/curves`).",
  "",
  "## Targets",
  "",
  "| target | measured | aim | met |",
  "|---|---|---|---|",
  ...targets.map(([name, v, aim, met, fmt]) => `| ${name} | ${fmt(v)} | ${aim} | ${met ? "yes" : "**no**"} |`),
  "",
  "## 1. Against catalog size",
  "",
  "![reads](curves-catalog-throughput.png) ![latencies](curves-catalog-latency.png) ![memory](curves-catalog-memory.png)",
  "",
  "| items | list req/s | list p99 ms | search req/s | search p99 ms | searchable p50 / p99 ms | start-up ms | idle RSS MB | peak RSS MB |",
  "|---|---|---|---|---|---|---|---|---|",
  ...sizes.map((s) => `| ${s.items} | ${Math.round(s.list.rps)} | ${s.list.p99Ms.toFixed(2)} | ${Math.round(s.search.rps)} | ${s.search.p99Ms.toFixed(2)} | ` +
    `${s.searchable.p50Ms.toFixed(1)} / ${s.searchable.p99Ms.toFixed(1)} | ${s.startupMs} | ${s.idleRssMb.toFixed(1)} | ${s.peakRssMb.toFixed(1)} |`),
  "",
  "Each size's reads are the round of its median throughput; the three rounds (the four sizes in turn, the order turned each round):",
  "",
  "| items | list req/s each round | search req/s each round |",
  "|---|---|---|",
  ...sizes.map((s) => `| ${s.items} | ${s.list.rounds.map(Math.round).join(", ")} | ${s.search.rounds.map(Math.round).join(", ")} |`),
  "",
  "| doubling | list throughput lost | search throughput lost |",
  "|---|---|---|",
  ...doublings.map((d) => `| ${d.from} -> ${d.to} (per doubling) | ${pct(d.list)} | ${pct(d.search)} |`),
  "",
  "## 2. Against page size (4,096 items)",
  "",
  "![pages](curves-page.png)",
  "",
  "| limit | list req/s | list p99 ms | search req/s | search p99 ms |",
  "|---|---|---|---|---|",
  ...pages.map((p) => `| ${p.limit} | ${Math.round(p.list.rps)} | ${p.list.p99Ms.toFixed(2)} | ${Math.round(p.search.rps)} | ${p.search.p99Ms.toFixed(2)} |`),
  "",
  "## 3. Settles over HTTP against connections (4,096 items, offered 40,000/s open loop)",
  "",
  "![settles](curves-settle.png)",
  "",
  "| connections | answered per s | p50 ms | p99 ms | errors |",
  "|---|---|---|---|---|",
  ...settles.map((s) => `| ${s.connections} | ${Math.round(s.settle.perSecond)} | ${s.settle.p50Ms.toFixed(2)} | ${s.settle.p99Ms.toFixed(2)} | ` +
    `${Object.entries(s.settle.errors).map(([w, n]) => `${w}: ${n}`).join(", ") || "-"} |`),
  "",
  "## 4. Server CPU per operation (utime + stime over a run of one kind, 4,096 items)",
  "",
  "| operation | CPU µs |",
  "|---|---|",
  `| a settle (64 connections) | ${perOperation.settle.toFixed(1)} |`,
  `| a heartbeat (a declaration that repeats the last one: 128 items) | ${perOperation.heartbeat.toFixed(1)} |`,
  `| a changed declaration (128 items checked, one changed) | ${perOperation.changedDeclaration.toFixed(1)} |`,
  `| a 100-item page | ${perOperation.page100.toFixed(1)} |`,
  "",
];
writeFileSync(join(results, "curves.md"), md.join("\n") + "\n");
writeFileSync(join(results, "curves.json"), JSON.stringify({ facts, sizes, doublings, pages, settles, perOperation,
  targets: targets.map(([name, value, aim, met]) => ({ name, value, aim, met })) }, null, 2) + "\n");
