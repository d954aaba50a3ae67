// z402-load test: load-testing a deployment one operates. Open loop by default, so a server that
// stalls shows in the corrected percentiles while the service ones (from each send) stay low;
// what it counts is what the server answered, framed by Content-Length or chunked; thresholds and
// trust decide the exit code.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import net from "node:net";
import { execFile, spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { newDataDir, removeDataDir, startServer, stopServer, sleep, timeScale, addProvider, createSettleKey, termsFile, item, declare, delist, list, waitFor } from "./lib/server.mjs";

const load = process.env.Z402_LOAD;
let dir, server;

before(async () => {
  dir = newDataDir();
  server = await startServer(dir);
  const { terms } = termsFile(dir);
  const payTo = "uregtest1loadprovider";
  const key = addProvider(dir, "loader", payTo);
  const items = ["weather forecast for a city", "translate text between languages", "geocode an address"].map((d, i) =>
    item(terms, payTo, `https://load.example.com/v1/route-${i}`, { description: `A ${d} service.` }));
  // The server reads a new key within 250 ms.
  await waitFor("the provider's declaration", async () => (await declare(server.url, key, { items })).status === 200, 5000);
});

after(async () => {
  await stopServer(server);
  removeDataDir(dir);
});

/** Runs `z402-load test` with `args`; its exit code, stdout and the JSON report. */
function runTest(args) {
  const json = join(dir, `test-${Date.now()}-${Math.random()}.json`);
  return new Promise((resolve) => {
    execFile(load, ["test", ...args, "--json", json, "--no-progress"], { timeout: 120000 }, (err, stdout, stderr) => {
      let report = null;
      try { report = JSON.parse(readFileSync(json, "utf8")); } catch { /* no report: a usage error */ }
      resolve({ code: err ? err.code : 0, stdout, stderr, report });
    });
  });
}

async function metric(name, labels) {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  const line = text.split("\n").find((l) => l.startsWith(`${name}{${labels}} `));
  return Number(line?.split(" ")[1] ?? 0);
}

const answered = (route) => metric("z402_http_requests_total", `route="${route}",code="2xx"`);

/** A server answering in about 1 ms that holds every answer due in the first `stallMs` of each `periodMs`. */
async function stallingServer(periodMs, stallMs) {
  const start = Date.now();
  const srv = http.createServer((req, res) => {
    const send = () => {
      const body = req.url.startsWith("/discovery/resources") ? '{"x402Version":2,"items":[],"pagination":{"limit":20,"offset":0,"total":0}}' : "{}";
      res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
      res.end(body);
    };
    const inPeriod = (Date.now() - start) % periodMs;
    if (inPeriod < stallMs) setTimeout(send, stallMs - inPeriod);
    else setTimeout(send, 1);
  });
  await new Promise((resolve) => srv.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${srv.address().port}`, close: () => new Promise((r) => { srv.closeAllConnections(); srv.close(r); }) };
}

test("a server that stalls 1 s in every 10 s shows it in the corrected p99, not in the service p99", async () => {
  const fake = await stallingServer(10000, 1000);
  try {
    // 2.5 s into the first period, so one stall falls in the 10 s measured: a tenth of the
    // requests wait behind it, up to a second.
    await sleep(2500);
    const r = await runTest([fake.url, "--rate", "1000", "--connections", "16", "--duration", "10s"]);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const list = r.report.endpoints.list;
    assert.ok(list.correctedUs.p99 > 700_000 && list.correctedUs.p99 < 1_100_000, `corrected p99 ${list.correctedUs.p99} µs`);
    assert.ok(list.serviceP99Us < 20_000 * timeScale, `service p99 ${list.serviceP99Us} µs`);
    assert.match(r.stdout, /latency is corrected: from when each request was due/);
  } finally {
    await fake.close();
  }
});

test("z402-bazaar stopped by SIGSTOP for a second shows in the corrected p99", async () => {
  const run = runTest([server.url, "--rate", "500", "--connections", "16", "--duration", "5s"]);
  await sleep(2000);
  process.kill(server.child.pid, "SIGSTOP");
  await sleep(1000);
  process.kill(server.child.pid, "SIGCONT");
  const r = await run;
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.ok(r.report.endpoints.list.correctedUs.p99 > 500_000, `corrected p99 ${r.report.endpoints.list.correctedUs.p99} µs`);
  assert.ok(r.report.endpoints.list.correctedUs.p50 < 50_000 * timeScale, `corrected p50 ${r.report.endpoints.list.correctedUs.p50} µs`);
});

test("the rate offered is the rate asked for, and what it counts is what the server answered, plain and gzip'd", async () => {
  // 5,000/s; under the sanitizers, whose server is several times slower, 2,000/s.
  const rate = timeScale === 1 ? 5000 : 2000;
  for (const gzip of [[], ["--gzip"]]) {
    const before = { list: await answered("resources"), search: await answered("search"), resource: await answered("resource"), mcp: await answered("mcp") };
    const r = await runTest([server.url, "--rate", String(rate), "--max-rate", "5000", "--connections", "16", "--duration", "3s",
      "--mix", "list=4,search=2,resource=2,mcp=1", ...gzip]);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    for (const [endpoint, route] of [["list", "resources"], ["search", "search"], ["resource", "resource"], ["mcp", "mcp"]]) {
      const e = r.report.endpoints[endpoint];
      assert.deepEqual(e.errors, {}, `${endpoint} ${gzip}`);
      // Every request due was sent (and the warmup is none): the server answered exactly these,
      // and the first page the run read before the load.
      assert.equal((await answered(route)) - before[endpoint], e.ok + (endpoint === "list" ? 1 : 0), `${endpoint} ${gzip}`);
      if (gzip.length && endpoint === "list") assert.ok(e.gzipChecked > 0, "no page checked to be gzip'd");
    }
    const all = r.report.all;
    assert.equal(all.due, 3 * rate);
    if (timeScale === 1) assert.ok(Math.abs(all.achievedPerSecond - rate) / rate < 0.01, `achieved ${all.achievedPerSecond}/s`);
  }
});

test("answers per connection: an even share shows as one figure, a connection the server refuses every time as none", async () => {
  const even = await runTest([server.url, "--rate", "200", "--connections", "4", "--duration", "2s"]);
  assert.equal(even.code, 0, even.stdout + even.stderr);
  assert.deepEqual(even.report.answersPerConnection, { connections: 4, min: 100, p10: 100, median: 100, p90: 100, max: 100, none: 0 });
  assert.match(even.stdout, /answers per connection: min 100, p10 100, median 100, p90 100, max 100; 0 of 4 with none/);
  // In front of the server, a proxy that answers 503 to everything on the second connection it
  // sees (the first is the run's read of the catalog): the first of the run's connections.
  let seen = 0;
  const refused = new WeakSet();
  const proxy = http.createServer(async (req, res) => {
    if (refused.has(req.socket)) return res.writeHead(503, { "content-length": 0 }).end();
    const upstream = await fetch(`${server.url}${req.url}`);
    const body = Buffer.from(await upstream.arrayBuffer());
    res.writeHead(upstream.status, { "content-type": "application/json", "content-length": body.length }).end(body);
  });
  proxy.on("connection", (socket) => { if (++seen === 2) refused.add(socket); });
  await new Promise((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  try {
    const r = await runTest([`http://127.0.0.1:${proxy.address().port}`, "--rate", "200", "--connections", "4", "--duration", "2s"]);
    assert.equal(r.report.endpoints.list.errors["status 503"], 100, r.stdout);
    assert.deepEqual(r.report.answersPerConnection, { connections: 4, min: 0, p10: 0, median: 100, p90: 100, max: 100, none: 1 });
    assert.match(r.stdout, /; 1 of 4 with none/);
  } finally {
    proxy.closeAllConnections();
    await new Promise((resolve) => proxy.close(resolve));
  }
});

test("answers framed by chunked encoding, as a proxy sends them, are counted as answered", async () => {
  // A proxy that re-frames every answer of the server as chunks.
  const proxy = http.createServer(async (req, res) => {
    const upstream = await fetch(`${server.url}${req.url}`, { headers: { "accept-encoding": req.headers["accept-encoding"] ?? "" } });
    const body = Buffer.from(await upstream.arrayBuffer());
    res.writeHead(upstream.status, { "content-type": "application/json", "transfer-encoding": "chunked",
      ...(upstream.headers.get("content-encoding") ? { "content-encoding": upstream.headers.get("content-encoding") } : {}) });
    for (let at = 0; at < body.length; at += 100) res.write(body.subarray(at, at + 100));
    res.end();
  });
  await new Promise((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  try {
    const before = await answered("resources");
    const r = await runTest([`http://127.0.0.1:${proxy.address().port}`, "--rate", "200", "--connections", "4", "--duration", "2s"]);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.deepEqual(r.report.endpoints.list.errors, {});
    assert.equal(r.report.endpoints.list.ok, 400);
    assert.equal((await answered("resources")) - before, 400 + 1);  // and the page it read first
  } finally {
    proxy.closeAllConnections();
    await new Promise((r) => proxy.close(r));
  }
});

test("an answer that stops arriving is a timeout after 10 s, not a hang, and the run goes on", async () => {
  // The page read before the run is answered whole; every answer after it stops halfway.
  let seen = 0;
  const stalling = http.createServer(async (req, res) => {
    const body = Buffer.from(await (await fetch(`${server.url}${req.url}`)).arrayBuffer());
    const whole = seen++ === 0;
    res.writeHead(200, { "content-type": "application/json", "content-length": String(body.length + (whole ? 0 : 1000)) });
    res.write(body);
    if (whole) res.end();
  });
  await new Promise((resolve) => stalling.listen(0, "127.0.0.1", resolve));
  try {
    const started = Date.now();
    const r = await runTest([`http://127.0.0.1:${stalling.address().port}`, "--closed", "--connections", "2", "--duration", "1s"]);
    const took = Date.now() - started;
    assert.deepEqual(r.report.endpoints.list.errors, { timeout: 2 }, r.stdout + r.stderr);
    assert.equal(r.report.endpoints.list.ok, 0);
    assert.ok(took >= 10000 && took < 20000, `the run took ${took} ms (a request's timeout: 10 s)`);
  } finally {
    stalling.closeAllConnections();
    await new Promise((r) => stalling.close(r));
  }
});

test("a breached threshold exits 99, a kept one 0, and each is reported", async () => {
  const kept = await runTest([server.url, "--rate", "200", "--duration", "1s", "--threshold", "list.p99<5s", "--threshold", "*.errors<1%"]);
  assert.equal(kept.code, 0, kept.stdout + kept.stderr);
  assert.match(kept.stdout, /threshold list\.p99<5s: ok/);
  const breached = await runTest([server.url, "--rate", "200", "--duration", "1s", "--threshold", "list.p99<1us"]);
  assert.equal(breached.code, 99, breached.stdout + breached.stderr);
  assert.match(breached.stdout, /threshold list\.p99<1us: BREACHED/);
  assert.equal(breached.report.exitCode, 99);
  assert.equal(breached.report.thresholds[0].ok, false);
});

test("a run that cannot be trusted exits 1: a connection refused, a certificate no CA signed, connections lost", async () => {
  // Nothing listens there.
  const port = await new Promise((resolve) => { const s = net.createServer().listen(0, "127.0.0.1", () => { const p = s.address().port; s.close(() => resolve(p)); }); });
  const refused = await runTest([`http://127.0.0.1:${port}`, "--duration", "1s"]);
  assert.equal(refused.code, 1, refused.stdout + refused.stderr);
  assert.match(refused.stderr + refused.stdout, /cannot connect/);
  // A server that accepts the connections, answers the first page, then closes every connection
  // and refuses new ones: the shortfall ends the run within seconds, not at its end.
  let answeredFirst = false;
  const flaky = http.createServer((req, res) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end('{"x402Version":2,"items":[],"pagination":{"limit":20,"offset":0,"total":0}}');
    answeredFirst = true;
  });
  await new Promise((resolve) => flaky.listen(0, "127.0.0.1", resolve));
  const flakyPort = flaky.address().port;
  const started = Date.now();
  const run = runTest([`http://127.0.0.1:${flakyPort}`, "--rate", "100", "--connections", "4", "--duration", "60s"]);
  await sleep(1000);
  assert.ok(answeredFirst);
  flaky.closeAllConnections();
  flaky.close();
  const lost = await run;
  assert.equal(lost.code, 1, lost.stdout + lost.stderr);
  assert.match(lost.stdout, /untrusted: connection shortfall/);
  assert.ok(Date.now() - started < 20000 * timeScale, "the shortfall ended the run early");
});

test("a host other than loopback must be confirmed, and the rate and duration are capped unless raised", async () => {
  const other = await runTest(["https://catalog.example.com", "--duration", "1s"]);
  assert.equal(other.code, 2);
  assert.match(other.stderr, /--i-operate catalog\.example\.com/);
  const fast = await runTest([server.url, "--rate", "5000"]);
  assert.equal(fast.code, 2);
  assert.match(fast.stderr, /--max-rate/);
  const long = await runTest([server.url, "--duration", "10m"]);
  assert.equal(long.code, 2);
  assert.match(long.stderr, /--max-duration/);
  const mix = await runTest([server.url, "--mix", "list=1,everything=2"]);
  assert.equal(mix.code, 2);
  assert.match(mix.stderr, /no endpoint everything/);
});

test("over HTTPS it verifies the certificate with --cacert, times its handshakes, and refuses one no CA it trusts signed", async () => {
  const { makeCa, makeServerCert } = await import("./lib/tls.mjs");
  const ca = makeCa(dir);
  const { cert, key } = makeServerCert(ca.dir, "localhost");
  const tlsDir = newDataDir();
  const tls = await startServer(tlsDir, ["--tls-cert", cert, "--tls-key", key]);
  try {
    const url = tls.url.replace("127.0.0.1", "localhost");
    const r = await runTest([url, "--cacert", ca.ca, "--rate", "200", "--connections", "4", "--duration", "1s"]);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.equal(r.report.endpoints.list.ok, 200);
    assert.equal(r.report.tlsHandshakes.counts.reduce((n, [, c]) => n + c, 0), 4);
    assert.match(r.stdout, /TLS handshakes: 4/);
    // --connect-to aims at the address; Host and SNI stay the URL's.
    const aimed = await runTest([`https://localhost:1`, "--connect-to", new URL(tls.url).host, "--cacert", ca.ca, "--rate", "50", "--duration", "1s"]);
    assert.equal(aimed.code, 0, aimed.stdout + aimed.stderr);
    const otherCa = makeCa(newDataDir());
    const untrusted = await runTest([url, "--cacert", otherCa.ca, "--duration", "1s"]);
    assert.equal(untrusted.code, 1, untrusted.stdout + untrusted.stderr);
    assert.match(untrusted.stderr + untrusted.stdout, /certificate verify failed/);
  } finally {
    await stopServer(tls);
    removeDataDir(tlsDir);
  }
});

/** A provider kept for load tests, and a settle key: their key files and the provider's payTo (made once). */
let tester;
async function loadTester() {
  tester ??= await makeLoadTester();
  return tester;
}

async function makeLoadTester() {
  const payTo = "uregtest1loadtester";
  const providerKey = join(dir, "load-tester.key"), settleKey = join(dir, "settle.key");
  writeFileSync(providerKey, addProvider(dir, "load-tester", payTo) + "\n", { mode: 0o600 });
  writeFileSync(settleKey, createSettleKey(dir) + "\n", { mode: 0o600 });
  const key = readFileSync(providerKey, "utf8").trim();
  // The server reads new keys within 250 ms: removing nothing answers 200 once it knows the
  // provider's, an empty settle 400 (not 401) once it knows the settle key.
  const settleKnown = async () => (await fetch(`${server.url}/discovery/settled`, { method: "POST",
    headers: { authorization: `Bearer ${readFileSync(settleKey, "utf8").trim()}`, "content-type": "application/json" }, body: "{}" })).status !== 401;
  await waitFor("the load tester's keys", async () => (await delist(server.url, key, { all: true })).status === 200 && await settleKnown(), 5000);
  return { payTo, key, args: ["--provider-key-file", providerKey, "--settle-key-file", settleKey, "--pay-to", payTo] };
}

const ownItems = async (payTo) => (await list(server.url, `?payTo=${payTo}`)).json.pagination.total;

test("settles go to the run's own items, each payment counted once; the items leave when the run ends or is interrupted", async () => {
  const tester = await loadTester();
  const counted = () => metric("z402_settles_total", 'outcome="counted",reason=""');
  for (let run = 0; run < 2; ++run) {  // a second run's payments are new ones too
    const before = await counted();
    const r = await runTest([server.url, "--mix", "list=1,settle=1", "--rate", "400", "--duration", "2s", "--declare-every", "500ms", ...tester.args]);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.deepEqual(r.report.endpoints.settle.errors, {});
    assert.equal(r.report.endpoints.settle.ok, 400);
    assert.equal((await counted()) - before, 400);
    // The heartbeats every 500 ms after the declaration made before the start: 0.5, 1 and 1.5 s.
    assert.equal(r.report.endpoints.declare.due, 3);
    assert.equal(r.report.endpoints.declare.ok, 3);
    // The 16 request connections share the list reads and settles evenly; the declarer's is not one of them.
    assert.deepEqual(r.report.answersPerConnection, { connections: 16, min: 50, p10: 50, median: 50, p90: 50, max: 50, none: 0 });
    assert.match(r.stdout, /the run's 4 items are delisted/);
    assert.equal(r.report.itemsLeftBehind, 0);
    assert.equal(await ownItems(tester.payTo), 0);
    assert.ok(!r.stdout.includes(tester.key) && !r.stderr.includes(tester.key) && !JSON.stringify(r.report).includes(tester.key));
  }
  // SIGINT in the middle of a settle load: the figures so far, then the items delisted.
  const json = join(dir, "interrupted.json");
  const child = spawn(load, ["test", server.url, "--mix", "list=1,settle=1", "--rate", "200", "--duration", "60s",
    "--no-progress", "--json", json, ...tester.args]);
  let stdout = "";
  child.stdout.on("data", (d) => { stdout += d; });
  const exited = new Promise((resolve) => child.on("exit", (code) => resolve(code)));
  await waitFor("the run's items", async () => (await ownItems(tester.payTo)) === 4, 10000);
  await sleep(500);
  child.kill("SIGINT");
  assert.equal(await exited, 0, stdout);
  assert.match(stdout, /interrupted: the figures cover the part that ran/);
  assert.match(stdout, /the run's 4 items are delisted/);
  assert.ok(JSON.parse(readFileSync(json, "utf8")).endpoints.settle.ok > 0);
  assert.equal(await ownItems(tester.payTo), 0);
});

test("a settle the catalog does not count is an error with its reason; settles need the provider's and the settle key", async () => {
  const tester = await loadTester();
  // The provider declares an item of its own, so the catalog takes no item from a payment alone;
  // the heartbeat is a minute away: once the run's items are removed behind its back, every
  // settle names an item the catalog does not hold.
  assert.equal((await declare(server.url, tester.key, { items: [item(termsFile(dir).terms, tester.payTo, "https://load.example.com/v1/kept")] })).status, 200);
  const run = runTest([server.url, "--mix", "settle=1", "--rate", "200", "--duration", "3s", "--declare-every", "60s", ...tester.args]);
  await waitFor("the run's items", async () => (await ownItems(tester.payTo)) === 5, 10000);
  await delist(server.url, tester.key, { items: [0, 1, 2, 3].map((i) => ({ type: "http", resource: `https://z402-load.invalid/item-${i}`, method: "GET" })) });
  const r = await run;
  assert.equal((await delist(server.url, tester.key, { all: true })).json.removed, 1);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  const settle = r.report.endpoints.settle;
  // The catalog's reason, cut to 64 characters: one count for every item.
  const rejected = settle.errors["rejected: paymentPayload.resource.url: this provider declares its items an"];
  assert.ok(rejected > 0, r.stdout);
  assert.equal(settle.ok + rejected, settle.due);
  assert.equal(r.report.endpoints.declare, undefined);  // no heartbeat due in the run
  const noKeys = await runTest([server.url, "--mix", "list=1,settle=1"]);
  assert.equal(noKeys.code, 2);
  assert.match(noKeys.stderr, /settle in --mix needs --provider-key-file, --pay-to and --settle-key-file/);
  const declareInMix = await runTest([server.url, "--mix", "declare=1"]);
  assert.equal(declareInMix.code, 2);
  assert.match(declareInMix.stderr, /--declare-every/);
  const wrongPayTo = await runTest([server.url, "--mix", "settle=1", ...tester.args.slice(0, -1), "uregtest1someoneelse"]);
  assert.equal(wrongPayTo.code, 1);
  assert.match(wrongPayTo.stderr, /the run's items were not declared: HTTP 400 .*payTo/);
  const badKey = join(dir, "bad.key");
  writeFileSync(badKey, "z402_not_a_key\n", { mode: 0o600 });
  const refused = await runTest([server.url, "--mix", "settle=1", "--provider-key-file", badKey, ...tester.args.slice(2)]);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /HTTP 401/);
  assert.ok(!refused.stderr.includes("z402_not_a_key"));
  assert.equal(await ownItems(tester.payTo), 0);
});
