// The service kit end to end: z402-demo-service lists itself in a running z402-bazaar, stays
// listed only while ready, is paid with development payments and counted, rebuilds a lost
// catalog, and logs each change of declaration outcome once, never with a key.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { writeFileSync, rmSync, readFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import {
  newDataDir, removeDataDir, addProvider, createSettleKey, startServer, stopServer, list, sleep, freePort, startDemo,
  demoPay, cli, scaled, waitFor, delist,
} from "./lib/server.mjs";

const payTo = "uregtest1demo";
const beatMs = 400;
let dir, catalog, catalogPort, demo, started, providerKey, settleKey;

function writeConfig(extra = {}) {
  writeFileSync(join(dir, "config.json"), JSON.stringify({ allowHttpResources: true, ...extra }));
}

async function startCatalog() {
  catalog = await startServer(dir, ["--listen", `127.0.0.1:${catalogPort}`]);
}

async function demoItems() {
  const l = await list(catalog.url, `?payTo=${payTo}`);
  return l.status === 200 ? l.json.items : [];
}

function decodeRequired(res) {
  const header = res.headers.get("payment-required");
  assert.ok(header, "a 402 carries PAYMENT-REQUIRED");
  return JSON.parse(Buffer.from(header, "base64").toString("utf8"));
}

const callUrl = (item) => item.resource.replace(":n", "97");
const methodOf = (item) => item.extensions.bazaar.info.input.method;
const demoLog = () => demo.log();

before(async () => {
  dir = newDataDir();
  writeConfig();
  providerKey = addProvider(dir, "demo", payTo);
  settleKey = createSettleKey(dir);
  writeFileSync(join(dir, "provider.key"), providerKey + "\n");
  writeFileSync(join(dir, "settle.key"), settleKey + "\n");
  catalogPort = await freePort();
  await startCatalog();
  started = Date.now();
  demo = await startDemo([
    "--discovery", catalog.url, "--provider-key-file", join(dir, "provider.key"), "--pay-to", payTo,
    "--listen", `127.0.0.1:${await freePort()}`, "--settle-key-file", join(dir, "settle.key"),
    "--declare-interval-ms", String(beatMs),
  ]);
});

after(async () => {
  demo?.child.kill("SIGTERM");
  if (demo) await demo.exited;
  if (catalog?.child.exitCode === null) await stopServer(catalog);
  removeDataDir(dir);
});

test("within 1 s the three routes are listed with lastSeen, and prices and methods equal their 402s", async () => {
  const items = await waitFor("three listed routes", async () => ((await demoItems()).length === 3 ? demoItems() : null), 1000);
  assert.ok(Date.now() - started <= 1000 + 100, `listed after ${Date.now() - started} ms`);
  assert.deepEqual(items.map(methodOf).sort(), ["GET", "GET", "POST"]);
  for (const item of items) {
    assert.ok(item.lastSeen, "lastSeen is set");
    const res = await fetch(callUrl(item), { method: methodOf(item), headers: { "content-type": "application/json" }, body: methodOf(item) === "POST" ? "{}" : undefined });
    assert.equal(res.status, 402);
    const required = decodeRequired(res);
    assert.deepEqual(item.accepts, required.accepts, `${item.resource}: listed accepts are the 402's`);
    assert.equal(methodOf(item), required.extensions.bazaar.info.input.method);
    assert.deepEqual(item.extensions.z402, required.extensions.z402);
  }
  const templated = items.find((i) => i.resource.endsWith("/v1/primes/:n"));
  assert.ok(templated, "the path-parameter route is listed by its template");
});

test("z402-discover against the real server picks the demo route that matches the intent", () => {
  const r = spawnSync(process.env.Z402_DISCOVER, ["--discovery", catalog.url, "--intent", "is 97 a prime number"], { encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  // The demo serves plain http here: an agent reads origins over HTTPS only, and says so.
  const plain = "the resource is not https: origins are read over HTTPS only";
  assert.equal(r.stdout.trim().split("\n").at(-1), `pick: GET ${demo.url}/v1/primes/:n  not origin-verified (url: ${plain})`);
  const words = spawnSync(process.env.Z402_DISCOVER, ["--discovery", catalog.url, "--intent", "count the words of my text", "--json"], { encoding: "utf8" });
  assert.equal(words.status, 0, words.stderr);
  assert.deepEqual(JSON.parse(words.stdout).pick,
    { method: "POST", url: `${demo.url}/v1/wordcount`, origin: { verified: false, check: "url", reason: plain } });
  const required = spawnSync(process.env.Z402_DISCOVER, ["--discovery", catalog.url, "--intent", "is 97 a prime number", "--require-origin"], { encoding: "utf8" });
  assert.equal(required.status, 11, required.stderr);
});

test("a demo served over HTTPS is bound to its origin: its manifest names the payTo its 402 asks, for every route", async () => {
  const { makeCa, makeServerCert } = await import("./lib/tls.mjs");
  const tlsDir = join(dir, "origin-tls");
  mkdirSync(tlsDir);
  const ca = makeCa(tlsDir);
  const cert = makeServerCert(tlsDir, "demo");
  const secure = await startDemo([
    "--discovery", catalog.url, "--provider-key-file", join(dir, "provider.key"), "--pay-to", payTo,
    "--listen", `127.0.0.1:${await freePort()}`, "--tls-cert", cert.cert, "--tls-key", cert.key, "--declare-interval-ms", String(beatMs),
  ]);
  try {
    const env = { ...process.env, SSL_CERT_FILE: ca.ca };
    const routes = [["GET", `${secure.url}/v1/quote`], ["POST", `${secure.url}/v1/wordcount`], ["GET", `${secure.url}/v1/primes/:n`]];
    await waitFor("the HTTPS demo's routes listed", async () => (await demoItems()).filter((i) => i.resource.startsWith(secure.url)).length === routes.length, 10_000);
    for (const [method, url] of routes) {
      const r = spawnSync(process.env.Z402_DISCOVER, ["verify", url, "--discovery", catalog.url, "--allow-private-origin", "--method", method],
        { encoding: "utf8", env });
      assert.equal(r.status, 0, r.stderr + r.stdout);
      assert.equal(r.stdout, `${method} ${url}  origin-verified\n`);
    }
    // The seller's own check reports the same binding.
    const check = spawnSync(process.env.Z402_SELLER, ["check", `${secure.url}/v1/quote?symbol=ZEC`, "--discovery", catalog.url], { encoding: "utf8", env });
    assert.equal(check.status, 0, check.stdout + check.stderr);
    assert.match(check.stdout, new RegExp(`ok    origin binding: the origin's /\\.well-known/x402 names payTo ${payTo} for GET ${secure.url.replace(/[.]/g, "\\.")}/v1/quote\n`));
  } finally {
    secure.child.kill("SIGTERM");
    await secure.exited;
    // The tests after this one count the demo's listings: the HTTPS demo's leave with it.
    const items = (await demoItems()).filter((i) => i.resource.startsWith(secure.url))
      .map((i) => ({ type: "http", resource: i.resource, method: methodOf(i) }));
    assert.equal((await delist(catalog.url, providerKey, { items })).status, 200);
  }
});

test("three development payments count 3 in the catalog and on /health; a replay gets 402", async () => {
  const target = `${demo.url}/v1/primes/97`;
  const primes = async () => (await demoItems()).find((i) => i.resource.endsWith("/v1/primes/:n"));
  const health = async () => (await (await fetch(`${demo.url}/health`)).json()).callsToday;
  const [countBefore, callsBefore] = [(await primes()).paidCallsToday, await health()];
  let payment;
  for (let i = 0; i < 3; i++) {
    const r = demoPay([target, "--show-payment"]);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout.trim(), '200 {"n":97,"prime":true,"nextPrime":101}');
    payment = r.stderr.match(/^payment: (\S+)$/m)[1];
  }
  await waitFor("paidCallsToday +3", async () => (await primes()).paidCallsToday === countBefore + 3, 3000);
  assert.equal(await health(), callsBefore + 3);

  const replay = await fetch(target, { headers: { "PAYMENT-SIGNATURE": payment } });
  assert.equal(replay.status, 402);
  assert.equal(decodeRequired(replay).error, "this payment was already used");
  await sleep(scaled(1200));  // longer than the settle reporter and the catalog's publication take
  assert.equal((await primes()).paidCallsToday, countBefore + 3);
  assert.equal(await health(), callsBefore + 3);
});

test("an unready service stops declaring and its lastSeen ages; ready again, it declares at once", async () => {
  demo.child.kill("SIGUSR1");
  await waitFor("503 on /health", async () => (await fetch(`${demo.url}/health`)).status === 503, 1000);
  await sleep(scaled(beatMs));  // a declaration sent just before the service became unready lands
  const seen = (await demoItems())[0].lastSeen;
  await sleep(scaled(4 * beatMs));
  const items = await demoItems();
  assert.equal(items.length, 3);
  assert.ok(items.every((i) => i.lastSeen === seen), "no declaration while unready");
  assert.match(demoLog(), /declarations: paused: the service is not ready/);
  demo.child.kill("SIGUSR2");
  await waitFor("a fresh lastSeen", async () => (await demoItems())[0].lastSeen !== seen, 1000);
});

test("a catalog restarted with its catalog data deleted is rebuilt by the next beat", async () => {
  await stopServer(catalog);
  // Provider records (providers.json) stay: they are the operator's, never lost to a rebuild.
  rmSync(join(dir, "catalog.json"), { force: true });
  await startCatalog();
  assert.equal((await list(catalog.url)).json.pagination.total, 0);
  const items = await waitFor("rebuilt catalog", async () => ((await demoItems()).length === 3 ? demoItems() : null), beatMs + 1000);
  assert.ok(items.every((i) => i.lastSeen));
});

function linesSince(mark, pattern) {
  return demoLog().slice(mark).split("\n").filter((l) => pattern.test(l));
}

async function stillAnswers() {
  const r = await fetch(`${demo.url}/v1/quote?symbol=zec`);
  assert.equal(r.status, 402, "the service keeps answering its routes");
}

test("declaration failures log one line per change of outcome, never the key, and the service keeps answering", async () => {
  let mark = demoLog().length;
  await stopServer(catalog);
  await sleep(scaled(5 * beatMs));
  assert.equal(linesSince(mark, /declarations: the catalog could not be reached/).length, 1, demoLog().slice(mark));
  await stillAnswers();

  mark = demoLog().length;
  writeConfig({ terms: { asset: "OTHER" } });  // new terms: the service's declared terms are stale
  await startCatalog();
  await sleep(scaled(5 * beatMs));
  const refused = linesSince(mark, /declarations: refused by the catalog: 400 invalid_request/);
  assert.equal(refused.length, 1, demoLog().slice(mark));
  await stillAnswers();

  mark = demoLog().length;
  await stopServer(catalog);
  writeConfig();
  const rotated = cli(["provider", "rotate", "demo", "--data-dir", dir]);
  assert.equal(rotated.status, 0);
  const newKey = rotated.stdout.trim().split("\n").at(-1);
  await sleep(scaled(3 * beatMs));
  await startCatalog();
  await sleep(scaled(5 * beatMs));
  const lines = demoLog().slice(mark).split("\n").filter((l) => l.includes("declarations:"));
  assert.equal(lines.length, 2, demoLog().slice(mark));  // unreachable while stopped, then 401
  assert.equal(linesSince(mark, /declarations: refused by the catalog: 401 unauthorized/).length, 1);
  await stillAnswers();

  for (const key of [providerKey, newKey, settleKey]) assert.ok(!demoLog().includes(key), "no log line holds a key");
  assert.ok(!readFileSync(join(dir, "provider.key"), "utf8").includes(newKey));
});
