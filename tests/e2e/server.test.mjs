// The server as an operator and a hostile client see it: CLI, keys, errors, logs, shutdown.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { connect, createServer } from "node:net";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  newDataDir, removeDataDir, cli, addProvider, termsFile, startServer, stopServer, item, declare, list, sleep,
} from "./lib/server.mjs";

let dir, server, key, terms;
const payTo = "uregtest1acme";

before(async () => {
  dir = newDataDir();
  key = addProvider(dir, "acme", payTo);
  terms = termsFile(dir).terms;
  server = await startServer(dir);
});

after(async () => {
  if (server.child.exitCode === null) await stopServer(server);
  removeDataDir(dir);
});

/** Sends raw bytes and returns the raw answer (the connection is closed by either side). */
function raw(bytes) {
  return new Promise((resolve) => {
    const sock = connect(server.port, "127.0.0.1");
    let got = "";
    sock.on("data", (d) => (got += d));
    sock.on("close", () => resolve(got));
    sock.on("error", () => resolve(got));
    sock.write(bytes);
    setTimeout(() => sock.end(), 1500);
  });
}

function assertError(r, status, code, fieldWord) {
  assert.equal(r.status, status, JSON.stringify(r));
  const body = typeof r.body === "string" ? JSON.parse(r.body) : r.json;
  assert.equal(body.error, code);
  assert.equal(typeof body.message, "string");
  if (fieldWord) assert.match(body.message, new RegExp(fieldWord));
  return body;
}

test("provider add prints only the key, list never shows keys or hashes", () => {
  const r = cli(["provider", "add", "listed", "--pay-to", "uregtest1listed", "--data-dir", dir]);
  assert.equal(r.status, 0);
  const lines = r.stdout.trim().split("\n");
  assert.equal(lines.length, 1);
  assert.match(lines[0], /^z402pk_[A-Za-z0-9_-]{43}$/);
  const l = cli(["provider", "list", "--data-dir", dir]);
  assert.equal(l.status, 0);
  assert.match(l.stdout, /^acme\turegtest1acme\t/m);
  assert.match(l.stdout, /^listed\turegtest1listed\t/m);
  assert.ok(!l.stdout.includes(lines[0]) && !l.stdout.includes("z402pk_"));
  assert.ok(!/[0-9a-f]{64}/.test(l.stdout), "no hash is shown");
  const stored = readFileSync(join(dir, "providers.json"), "utf8");
  assert.ok(!stored.includes(lines[0]), "the key itself is never stored");
});

test("CLI errors are clear and exit non-zero", () => {
  assert.equal(cli(["provider", "add", "acme", "--pay-to", "uregtest1other", "--data-dir", dir]).status, 1);
  assert.equal(cli(["provider", "add", "dup-payto", "--pay-to", payTo, "--data-dir", dir]).status, 1);
  assert.equal(cli(["provider", "add", "bad name", "--pay-to", "x", "--data-dir", dir]).status, 1);
  assert.equal(cli(["provider", "rotate", "nobody", "--data-dir", dir]).status, 1);
  assert.equal(cli(["provider", "add", "missing-payto", "--data-dir", dir]).status, 2);
  assert.equal(cli(["frobnicate"]).status, 2);
  const t = cli(["terms", "--data-dir", dir]);
  assert.deepEqual(Object.keys(JSON.parse(t.stdout)), ["scheme", "network", "asset", "extra"]);
});

test("health reports the engine", async () => {
  const res = await fetch(`${server.url}/health`);
  assert.equal(res.status, 200);
  const body = await res.json();
  assert.equal(body.status, "ok");
  assert.ok(Number.isInteger(body.items) && Number.isInteger(body.providers));
});

test("a declaration is listed at once, with lastSeen and paidCallsToday", async () => {
  const r = await declare(server.url, key, { items: [item(terms, payTo, "https://listed.example.com/v1/a")] });
  assert.equal(r.status, 200, r.body);
  const ack = JSON.parse(r.body);
  assert.equal(ack.accepted, 1);
  const l = await list(server.url, `?payTo=${payTo}`);
  const found = l.json.items.find((i) => i.resource === "https://listed.example.com/v1/a");
  assert.ok(found);
  assert.equal(found.lastSeen, ack.lastSeen);
  assert.equal(found.paidCallsToday, 0);
});

test("reads take no key, but a presented key must be valid", async () => {
  assert.equal((await list(server.url)).status, 200);
  assert.equal((await list(server.url, "", { authorization: `Bearer ${key}` })).status, 200);
  const bad = await list(server.url, "", { authorization: "Bearer z402pk_notakey" });
  assert.equal(bad.status, 401);
  assert.equal(bad.json.error, "unauthorized");
  assert.equal((await list(server.url, "", { authorization: "Basic abc" })).status, 401);
  // The official client sends content-type on a GET: never 415.
  assert.equal((await list(server.url, "?type=http", { "content-type": "application/json" })).status, 200);
});

test("malformed list parameters get 400 invalid_filter naming the parameter", async () => {
  assertError(await list(server.url, "?offset=-1"), 400, "invalid_filter", "offset");
  assertError(await list(server.url, "?type=ftp"), 400, "invalid_filter", "type");
  assertError(await list(server.url, "?payTo=a&payTo=b"), 400, "invalid_filter", "payTo");
  assertError(await list(server.url, "?network=%zz"), 400, "invalid_filter", "escape");
  const clamped = await list(server.url, "?limit=5000&unknown=1");
  assert.equal(clamped.json.pagination.limit, 1000);
});

test("a rotated key works within a second and the old one stops", async () => {
  const rotated = cli(["provider", "rotate", "acme", "--data-dir", dir]).stdout.trim();
  const started = Date.now();
  let ok = false;
  while (Date.now() - started < 1000) {
    if ((await declare(server.url, rotated, { items: [item(terms, payTo, "https://rot.example.com/x")] })).status === 200) { ok = true; break; }
    await sleep(50);
  }
  assert.ok(ok, "the new key was not accepted within 1 s");
  assert.equal((await declare(server.url, key, { items: [item(terms, payTo, "https://rot.example.com/x")] })).status, 401);
  key = rotated;
});

test("a new provider's key works within a second, a removed one stops and its items leave", async () => {
  const newKey = addProvider(dir, "late", "uregtest1late");
  const started = Date.now();
  let status = 0;
  while (Date.now() - started < 1000) {
    status = (await declare(server.url, newKey, { items: [item(terms, "uregtest1late", "https://late.example.com/x")] })).status;
    if (status === 200) break;
    await sleep(50);
  }
  assert.equal(status, 200);
  assert.equal((await list(server.url, "?payTo=uregtest1late")).json.pagination.total, 1);
  assert.equal(cli(["provider", "remove", "late", "--data-dir", dir]).status, 0);
  await sleep(1000);
  assert.equal((await declare(server.url, newKey, { items: [item(terms, "uregtest1late", "https://late.example.com/x")] })).status, 401);
  assert.equal((await list(server.url, "?payTo=uregtest1late")).json.pagination.total, 0);
});

test("hostile declarations get 400 with field and reason, never 500", async () => {
  const cases = [
    ["not json", "{items:", "JSON"],
    ["duplicate keys", '{"items":[],"items":[]}', "repeats the key"],
    ["deep nesting", '{"items":' + "[".repeat(200) + "]".repeat(200) + "}", "deeper"],
    ["invalid UTF-8", Buffer.concat([Buffer.from('{"items":[{"resource":"https://a.example.com/'), Buffer.from([0xff, 0xfe]), Buffer.from('"}]}')]), "JSON"],
    ["huge number", '{"items":[{"x402Version":1e999999}]}', ""],
    ["wrong type", JSON.stringify({ items: "all of them" }), "items"],
    ["control character", JSON.stringify({ items: [item(terms, payTo, "https://a.example.com/x", { description: "bell\u0007" })] }), "description"],
    ["bidi override", JSON.stringify({ items: [item(terms, payTo, "https://a.example.com/x", { serviceName: "evil\u202e" })] }), "serviceName"],
    ["remote $ref", JSON.stringify({ items: [item(terms, payTo, "https://a.example.com/x", {
      extensions: { bazaar: { info: { input: { type: "http", method: "GET" } }, schema: { $ref: "https://evil.example.com/s.json" } } } })] }), "\\$ref"],
    ["someone else's payTo", JSON.stringify({ items: [item(terms, "uregtest1victim", "https://a.example.com/x")] }), "payTo"],
    ["malformed schema", JSON.stringify({ items: [item(terms, payTo, "https://a.example.com/x", {
      extensions: { bazaar: { info: { input: { type: "http" } }, schema: { type: "no-such-type" } } } })] }), "schema"],
  ];
  for (const [name, body, word] of cases) {
    const res = await fetch(`${server.url}/discovery/declarations`, {
      method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${key}` }, body,
    });
    const text = await res.text();
    assert.equal(res.status, 400, `${name}: ${text}`);
    const parsed = JSON.parse(text);
    assert.equal(parsed.error, "invalid_request", name);
    assert.ok(Array.isArray(parsed.details) && parsed.details.length === 1, name);
    assert.equal(typeof parsed.details[0].reason, "string", name);
    if (word) assert.match(parsed.message, new RegExp(word), name);
  }
  const health = await fetch(`${server.url}/health`);
  assert.equal(health.status, 200, "the server survived");
});

test("a refused declaration changes nothing", async () => {
  const before = (await list(server.url, `?payTo=${payTo}`)).json;
  const r = await declare(server.url, key, { items: [item(terms, payTo, "https://new.example.com/1"), item(terms, "uregtest1x", "https://new.example.com/2")] });
  assert.equal(r.status, 400);
  const body = JSON.parse(r.body);
  assert.equal(body.details[0].item, 1);
  assert.equal(body.details[0].field, "accepts[0].payTo");
  const afterList = (await list(server.url, `?payTo=${payTo}`)).json;
  assert.deepEqual(afterList.items.map((i) => [i.resource, i.lastSeen]), before.items.map((i) => [i.resource, i.lastSeen]));
});

test("writes need a valid key and JSON; other mistakes get their own status", async () => {
  assertError(await declare(server.url, "z402pk_wrong", { items: [] }), 401, "unauthorized");
  const noAuth = await fetch(`${server.url}/discovery/declarations`, { method: "POST", body: "{}" });
  assert.equal(noAuth.status, 401);
  assert.equal(noAuth.headers.get("www-authenticate"), "Bearer");
  assertError(await declare(server.url, key, "{}", { "content-type": "text/plain" }), 415, "unsupported_media_type");
  const notFound = await fetch(`${server.url}/nope?secret=1`);
  assert.equal(notFound.status, 404);
  const wrongMethod = await fetch(`${server.url}/discovery/resources`, { method: "DELETE" });
  assert.equal(wrongMethod.status, 405);
  assert.equal(wrongMethod.headers.get("allow"), "GET");
  const getDecl = await fetch(`${server.url}/discovery/declarations`);
  assert.equal(getDecl.status, 405);
});

test("oversized requests get 413 and 431", async () => {
  const big = await raw(`POST /discovery/declarations HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: 40000000\r\n\r\n{`);
  assert.match(big, /^HTTP\/1\.1 413/);
  assert.match(big, /body_too_large/);
  const bigGet = await raw(`GET /discovery/resources HTTP/1.1\r\nHost: x\r\nContent-Length: 5000\r\n\r\n${"x".repeat(5000)}`);
  assert.match(bigGet, /^HTTP\/1\.1 413/);
  const header = await raw(`GET /discovery/resources HTTP/1.1\r\nHost: x\r\nX-Big: ${"h".repeat(20000)}\r\n\r\n`);
  assert.match(header, /^HTTP\/1\.1 431/);
  const garbage = await raw("NOT HTTP AT ALL\r\n\r\n");
  assert.match(garbage, /^HTTP\/1\.1 400/);
});

test("pipelined requests are answered in order", async () => {
  const req = (path) => `GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`;
  const got = await raw(req("/health") + req("/nope") + req("/discovery/resources?limit=1") + `GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
  const statuses = [...got.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => m[1]);
  assert.deepEqual(statuses, ["200", "404", "200", "200"]);
});

test("the access log has no query string and no key", async () => {
  await list(server.url, "?payTo=secret-intent-words");
  await sleep(400);  // the log is flushed every 250 ms
  const log = server.log();
  assert.match(log, /^z402-bazaar: request method=GET path=\/discovery\/resources status=200 bytes=\d+ durationUs=\d+$/m);
  assert.ok(!log.includes("secret-intent-words"));
  assert.ok(!log.includes("secret=1"));
  assert.ok(!log.includes(key) && !log.includes("z402pk_"));
});

test("SIGTERM drains, saves the catalog and exits 0", async () => {
  const r = await declare(server.url, key, { items: [item(terms, payTo, "https://saved.example.com/last")] });
  assert.equal(r.status, 200);
  const exit = await stopServer(server, "SIGTERM");
  assert.equal(exit.code, 0);
  assert.match(server.log(), /catalog saved/);
  const saved = readFileSync(join(dir, "catalog.json"), "utf8");
  assert.ok(saved.includes("https://saved.example.com/last"));
  assert.ok(!saved.includes(key));
});

// A stop that arrives amid SIGHUPs (certificate reloads): before the fix, a SIGHUP handler that
// re-armed its wait just after the stop cancelled it kept the server running for ever (one run
// in three of 40 rounds hung).
test("SIGTERM amid a stream of SIGHUPs still stops the server", async () => {
  for (let round = 0; round < 100; round++) {
    const d = newDataDir();
    try {
      const s = await startServer(d);
      const hup = setInterval(() => s.child.kill("SIGHUP"), 1);
      await sleep(20);
      clearInterval(hup);  // the last ones are still on their way when the stop arrives
      const exit = await stopServer(s, "SIGTERM", { within: 10000 });
      assert.equal(exit.code, 0, s.log());
    } finally {
      removeDataDir(d);
    }
  }
});

/** Whether this machine listens on the IPv6 loopback (a container may have no ::1). */
function ipv6Loopback() {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once("error", () => resolve(false));
    probe.listen(0, "::1", () => probe.close(() => resolve(true)));
  });
}

// An IPv6 host is written back in brackets, as --listen reads it: the URL the server says it
// listens on is one a client can use, and the address a "cannot listen" line names can be pasted.
test("an IPv6 listen address is said in brackets: a URL that works, an error that names it", async (t) => {
  if (!(await ipv6Loopback())) return t.skip("this machine has no IPv6 loopback");
  const d = newDataDir(), other = newDataDir();
  try {
    const s = await startServer(d, ["--listen", "[::1]:0"]);
    try {
      assert.match(s.url, /^http:\/\/\[::1\]:\d+$/);
      const res = await fetch(`${s.url}/discovery/resources`);
      assert.equal(res.status, 200);
      const taken = cli(["serve", "--listen", `[::1]:${s.port}`, "--data-dir", other]);
      assert.equal(taken.status, 1);
      assert.ok(taken.stderr.includes(`cannot listen on [::1]:${s.port}: `), taken.stderr);
    } finally {
      await stopServer(s);
    }
  } finally {
    removeDataDir(d);
    removeDataDir(other);
  }
});
