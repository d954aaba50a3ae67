// DELETE /discovery/declarations: a provider removes its own items (by identity, or all), a
// key never reaches another provider's, removed items leave every read and the saved
// catalog, and bad bodies are refused naming the field with nothing changed.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  newDataDir, removeDataDir, addProvider, createSettleKey, termsFile, startServer, stopServer, item, declare, delist, list, sleep, startDemo, freePort,
} from "./lib/server.mjs";

let dir, server, terms, keys;
const payTo = { a: "uregtest1alpha", b: "uregtest1beta" };
const routes = (who, n) => Array.from({ length: n }, (_, i) => `https://${who}.example.com/v1/r${i}`);

before(async () => {
  dir = newDataDir();
  keys = { a: addProvider(dir, "alpha", payTo.a), b: addProvider(dir, "beta", payTo.b), settle: createSettleKey(dir) };
  terms = termsFile(dir).terms;
  server = await startServer(dir);
  for (const who of ["a", "b"]) {
    const r = await declare(server.url, keys[who], { items: routes(who, 3).map((u) => item(terms, payTo[who], u)) });
    assert.equal(r.status, 200, r.body);
  }
});

after(async () => {
  if (server?.child.exitCode === null) await stopServer(server);
  removeDataDir(dir);
});

const resourcesOf = async (who) => (await list(server.url, `?payTo=${payTo[who]}`)).json.items.map((i) => i.resource);

test("a provider removes one of its items by identity; it leaves list, search and resolve", async () => {
  const [gone, ...kept] = routes("a", 3);
  const r = await delist(server.url, keys.a, { items: [{ type: "http", resource: gone, method: "get" }] });
  assert.deepEqual(r, { status: 200, json: { removed: 1 } });
  assert.deepEqual(await resourcesOf("a"), kept);
  const resolved = await fetch(`${server.url}/discovery/resource?type=http&url=${encodeURIComponent(gone)}`);
  assert.equal(resolved.status, 404);
  const search = await (await fetch(`${server.url}/discovery/search?query=test+route&payTo=${payTo.a}`)).json();
  assert.ok(!search.resources.some((i) => i.resource === gone));
  // again: nothing left to remove, and that is no error
  assert.deepEqual(await delist(server.url, keys.a, { items: [{ type: "http", resource: gone }] }), { status: 200, json: { removed: 0 } });
});

test("a key never removes another provider's item", async () => {
  const before = await resourcesOf("b");
  const r = await delist(server.url, keys.a, { items: [{ type: "http", resource: routes("b", 1)[0] }] });
  assert.deepEqual(r, { status: 200, json: { removed: 0 } });
  assert.deepEqual(await resourcesOf("b"), before);
});

test("bad bodies and keys are refused naming the field, and nothing changes", async () => {
  const before = [await resourcesOf("a"), await resourcesOf("b")];
  const cases = [
    ["{not json", undefined],
    [{}, "items"],
    [{ items: [] }, "items"],
    [{ items: [{ type: "ftp", resource: "https://a.example.com/v1/r1" }] }, "type"],
    [{ items: [{ type: "http" }] }, "resource"],
    [{ items: [{ type: "http", resource: "not a url" }] }, "resource"],
    [{ items: [{ type: "mcp", resource: "https://a.example.com/mcp" }] }, "toolName"],
    [{ items: [{ type: "http", resource: "https://a.example.com/v1/r1", colour: "red" }] }, "colour"],
    [{ all: false }, "all"],
    [{ all: true, items: [{ type: "http", resource: "https://a.example.com/v1/r1" }] }, "all"],
    [{ items: Array.from({ length: 129 }, (_, i) => ({ type: "http", resource: `https://a.example.com/x${i}` })) }, "items"],
  ];
  for (const [body, field] of cases) {
    const r = await delist(server.url, keys.a, body);
    assert.equal(r.status, 400, JSON.stringify(body).slice(0, 80));
    assert.equal(r.json.error, "invalid_request");
    if (field) assert.equal(r.json.details[0].field, field, JSON.stringify(r.json));
  }
  // at the limit: 128 identities is a valid delisting (none of them listed)
  const atLimit = await delist(server.url, keys.a, { items: Array.from({ length: 128 }, (_, i) => ({ type: "http", resource: `https://a.example.com/x${i}` })) });
  assert.deepEqual(atLimit, { status: 200, json: { removed: 0 } });
  assert.equal((await delist(server.url, undefined, { all: true })).status, 401);
  assert.equal((await delist(server.url, "z402pk_nobody", { all: true })).status, 401);
  assert.equal((await delist(server.url, keys.settle, { all: true })).status, 401);
  const put = await fetch(`${server.url}/discovery/declarations`, { method: "PUT", headers: { authorization: `Bearer ${keys.a}` }, body: "{}" });
  assert.equal(put.status, 405);
  assert.equal(put.headers.get("allow"), "POST, DELETE");
  assert.deepEqual([await resourcesOf("a"), await resourcesOf("b")], before);
});

test("all: true removes every item of the caller, from the reads and from the saved catalog", async () => {
  const removed = (await resourcesOf("a")).length;
  assert.deepEqual(await delist(server.url, keys.a, { all: true }), { status: 200, json: { removed } });
  assert.deepEqual(await resourcesOf("a"), []);
  assert.equal((await resourcesOf("b")).length, 3);
  assert.equal((await stopServer(server)).code, 0);
  const saved = readFileSync(join(dir, "catalog.json"), "utf8");
  assert.ok(!saved.includes("a.example.com"));
  assert.ok(saved.includes("b.example.com"));
  server = await startServer(dir);
  assert.deepEqual(await resourcesOf("a"), []);
});

test("a declaration sent again after a delisting lists its items again", async () => {
  const body = { items: routes("a", 2).map((u) => item(terms, payTo.a, u)) };
  assert.equal((await declare(server.url, keys.a, body)).status, 200);
  assert.deepEqual(await delist(server.url, keys.a, { all: true }), { status: 200, json: { removed: 2 } });
  await sleep(10);
  assert.equal((await declare(server.url, keys.a, body)).status, 200);  // the same bytes: not taken for a heartbeat
  assert.deepEqual(await resourcesOf("a"), routes("a", 2));
});

test("the kit removes a route it no longer serves at its first beat, and only under its own origin", async () => {
  const kitDir = newDataDir();
  writeFileSync(join(kitDir, "config.json"), JSON.stringify({ allowHttpResources: true }));
  const demoPayTo = "uregtest1kit";
  const key = addProvider(kitDir, "kit", demoPayTo);
  writeFileSync(join(kitDir, "provider.key"), key + "\n");
  const { terms: kitTerms } = termsFile(kitDir);
  const catalog = await startServer(kitDir);
  const port = await freePort();
  const demoArgs = (routesServed) => ["--discovery", catalog.url, "--provider-key-file", join(kitDir, "provider.key"), "--pay-to", demoPayTo,
    "--listen", `127.0.0.1:${port}`, "--declare-interval-ms", "200", "--routes", routesServed];
  const listed = async () => (await list(catalog.url, `?payTo=${demoPayTo}`)).json.items.map((i) => i.resource).sort();
  const waitFor = async (want) => {
    for (let i = 0; i < 50 && JSON.stringify(await listed()) !== JSON.stringify(want); i++) await sleep(100);
    return listed();
  };
  const origin = `http://127.0.0.1:${port}`;
  try {
    // the same provider's route of another service (another origin) must survive
    const other = item(kitTerms, demoPayTo, "https://other-service.example.com/v1/keep");
    assert.equal((await declare(catalog.url, key, { items: [other] })).status, 200);
    let demo = await startDemo(demoArgs("quote,wordcount,primes"));
    const all = [`${origin}/v1/primes/:n`, `${origin}/v1/quote`, `${origin}/v1/wordcount`, other.resource].sort();
    assert.deepEqual(await waitFor(all), all);
    demo.child.kill("SIGTERM");
    await demo.exited;
    demo = await startDemo(demoArgs("quote,primes"));
    const kept = [`${origin}/v1/primes/:n`, `${origin}/v1/quote`, other.resource].sort();
    assert.deepEqual(await waitFor(kept), kept);
    assert.match(demo.log(), /routes no longer served: removed 1 listed route\(s\) this service no longer serves/);
    demo.child.kill("SIGTERM");
    await demo.exited;
  } finally {
    await stopServer(catalog);
    removeDataDir(kitDir);
  }
});
