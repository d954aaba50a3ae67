// z402-seller check against the demo service and a real catalog, and against a fake route and
// a fake catalog where the case needs one: a listed route passes every check; a price changed
// since the last declaration is shown with both prices; an invalid bazaar extension shows the
// field and the rule; a route answering 200 or 404; a listing that stopped beating is late,
// then down; a payment-only listing shows its provenance; hostile catalog text is printed
// terminal-safe.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createServer } from "node:http";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { assertPricesLabelled } from "./lib/prices.mjs";
import { newDataDir, removeDataDir, addProvider, termsFile, startServer, stopServer, startDemo, freePort, sleep } from "./lib/server.mjs";

const unsafe = /[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u;
let dir, catalog, demo, demoPort, terms;
const payTo = "uregtest1seller";

/** Runs z402-seller; resolves {code, stdout, stderr}. */
function seller(args) {
  return new Promise((resolve) => {
    const child = spawn(process.env.Z402_SELLER, args);
    let stdout = "", stderr = "";
    child.stdout.on("data", (c) => (stdout += c));
    child.stderr.on("data", (c) => (stderr += c));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** A server on `port` (or a free one) answering with `handler(req)` -> {status, headers, body}. */
async function fake(handler, port = 0) {
  const srv = createServer((req, res) => {
    const { status, headers = {}, body = "" } = handler(req);
    res.writeHead(status, { "content-type": "application/json", ...headers });
    res.end(typeof body === "string" ? body : JSON.stringify(body));
  });
  await new Promise((r) => srv.listen(port, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${srv.address().port}`, close: () => new Promise((r) => srv.close(r)) };
}

const route = () => `http://127.0.0.1:${demoPort}/v1/quote?symbol=ZEC`;
const lines = (out) => out.trim().split("\n");
const failed = (out) => lines(out).filter((l) => l.startsWith("FAIL"));

before(async () => {
  dir = newDataDir();
  writeFileSync(join(dir, "config.json"), JSON.stringify({ allowHttpResources: true }));
  writeFileSync(join(dir, "provider.key"), addProvider(dir, "seller", payTo) + "\n");
  terms = termsFile(dir).terms;
  catalog = await startServer(dir);
  demoPort = await freePort();
  demo = await startDemo(["--discovery", catalog.url, "--provider-key-file", join(dir, "provider.key"), "--pay-to", payTo,
    "--listen", `127.0.0.1:${demoPort}`, "--declare-interval-ms", "500"]);
  await sleep(600);
});

after(async () => {
  demo?.child.kill("SIGTERM");
  if (demo) await demo.exited;
  if (catalog?.child.exitCode === null) await stopServer(catalog);
  removeDataDir(dir);
});

test("a listed route passes every check, exit 0", async () => {
  const r = await seller(["check", route(), "--discovery", catalog.url]);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.deepEqual(failed(r.stdout), []);
  assert.match(r.stdout, /^ok    the route answers 402: with a PAYMENT-REQUIRED header \(x402 v2\)$/m);
  assert.match(r.stdout, /^ok    listed: by payTo uregtest1seller, from its declaration$/m);
  assert.match(r.stdout, /^ok    price and payTo: 1000 zat\/quote \(0\.00001 ZEC\) to uregtest1seller$/m);
  assert.match(r.stdout, /^ok    declared recently: up, last declaration \d+ s ago; evicted at /m);
  assert.equal(lines(r.stdout).at(-1), "listed, and the listing matches the 402");
  assertPricesLabelled(r.stdout);
  const json = JSON.parse((await seller(["check", route(), "--discovery", catalog.url, "--json"])).stdout);
  assert.equal(json.exitCode, 0);
  assert.ok(json.checks.every((c) => c.ok));
  const post = await seller(["check", `http://127.0.0.1:${demoPort}/v1/wordcount`, "--data", '{"text":"a b"}', "--discovery", catalog.url]);
  assert.equal(post.code, 0, post.stdout);
});

test("a route whose price changed since its last declaration differs, with both prices", async () => {
  // The route's own 402, with another price, from a stand-in at the same origin.
  const real = await fetch(route());
  const required = JSON.parse(Buffer.from(real.headers.get("payment-required"), "base64").toString("utf8"));
  required.accepts[0].amount = "2500";
  const standIn = await fake(() => ({ status: 402, headers: { "payment-required": Buffer.from(JSON.stringify(required)).toString("base64") }, body: {} }));
  try {
    // The stand-in's 402 names the demo's resource URL: the listing looked up is the demo's.
    const r = await seller(["check", `${standIn.url}/v1/quote?symbol=ZEC`, "--discovery", catalog.url]);
    assert.equal(r.code, 1, r.stdout);
    assert.match(r.stdout, /^FAIL  price and payTo: the 402 asks 2500 zat\/quote \(0\.000025 ZEC\) to uregtest1seller; the listing shows 1000 zat\/quote \(0\.00001 ZEC\) to uregtest1seller$/m);
    assert.match(r.stdout, /-> declare again/);
    assertPricesLabelled(r.stdout);
  } finally {
    await standIn.close();
  }
});

test("an invalid bazaar extension shows the field and the rule", async () => {
  const real = await fetch(route());
  const required = JSON.parse(Buffer.from(real.headers.get("payment-required"), "base64").toString("utf8"));
  required.extensions.bazaar.info.input.queryParams = 5;  // the schema says it is an object
  const standIn = await fake(() => ({ status: 402, headers: { "payment-required": Buffer.from(JSON.stringify(required)).toString("base64") }, body: {} }));
  try {
    const r = await seller(["check", `${standIn.url}/v1/quote`, "--discovery", catalog.url]);
    assert.equal(r.code, 1, r.stdout);
    assert.match(r.stdout, /^FAIL  the catalog's rules: extensions\.bazaar[.a-zA-Z]*: .+$/m);
    assert.match(r.stdout, /-> a declaration of this route is refused for it: change what the 402 says for extensions\.bazaar/);
  } finally {
    await standIn.close();
  }
});

test("a route that answers 200 or 404 instead of 402 fails that check; an unreachable one exits 3", async () => {
  const open = await fake(() => ({ status: 200, body: { free: true } }));
  try {
    const ok = await seller(["check", `${open.url}/v1/free`, "--discovery", catalog.url]);
    assert.equal(ok.code, 1);
    assert.match(ok.stdout, /^FAIL  the route answers 402: it answered 200 OK, not 402 Payment Required$/m);
  } finally {
    await open.close();
  }
  const missing = await seller(["check", `http://127.0.0.1:${demoPort}/v1/nothing`, "--discovery", catalog.url]);
  assert.equal(missing.code, 1);
  assert.match(missing.stdout, /^FAIL  the route answers 402: it answered 404 Not Found/m);
  // with a body too: an unknown route is a 404, not a 413 for a body it would never read
  const missingPost = await seller(["check", `http://127.0.0.1:${demoPort}/v1/nothing`, "--data", JSON.stringify({ text: "x".repeat(2000) }), "--discovery", catalog.url]);
  assert.match(missingPost.stdout, /^FAIL  the route answers 402: it answered 404 Not Found/m);
  const down = await seller(["check", `http://127.0.0.1:${await freePort()}/v1/quote`, "--discovery", catalog.url]);
  assert.equal(down.code, 3);
  const noCatalog = await seller(["check", route(), "--discovery", `http://127.0.0.1:${await freePort()}`]);
  assert.equal(noCatalog.code, 3);
  assert.equal((await seller(["check", route()])).code, 2);
  assert.equal((await seller(["check", "ftp://x", "--discovery", catalog.url])).code, 2);
});

/** A catalog that serves the real terms and the demo's listing of the route, changed by `edit`. */
async function fakeCatalog(edit) {
  const real = await (await fetch(`${catalog.url}/discovery/resource?type=http&url=${encodeURIComponent(`http://127.0.0.1:${demoPort}/v1/quote`)}`)).json();
  const listing = edit(structuredClone(real.resources[0]));
  return fake((req) => req.url.startsWith("/discovery/terms") ? { status: 200, body: terms }
    : req.url.startsWith("/discovery/resource?") ? { status: 200, body: { x402Version: 2, resources: [listing] } }
    : { status: 404, body: { error: "not_found" } });
}

test("a listing whose service stopped beating is late, then down", async () => {
  for (const [ageSeconds, status] of [[100, "late"], [400, "down"]]) {
    const c = await fakeCatalog((l) => ({ ...l, lastSeen: new Date(Date.now() - ageSeconds * 1000).toISOString() }));
    try {
      const r = await seller(["check", route(), "--discovery", c.url]);
      assert.equal(r.code, 1, r.stdout);
      assert.match(r.stdout, new RegExp(`^FAIL  declared recently: ${status}, last declaration (${ageSeconds - 1}|${ageSeconds}|${ageSeconds + 1}) s ago`, "m"));
      assert.match(r.stdout, /-> the service stopped declaring/);
    } finally {
      await c.close();
    }
  }
});

test("a payment-only listing shows its provenance", async () => {
  const c = await fakeCatalog((l) => ({ ...l, listedBy: "settlement" }));
  try {
    const r = await seller(["check", route(), "--discovery", c.url]);
    assert.equal(r.code, 1);
    assert.match(r.stdout, /^ok    listed: by payTo uregtest1seller, from its settlement$/m);
    assert.match(r.stdout, /^FAIL  listed from a declaration: listed from payments alone/m);
  } finally {
    await c.close();
  }
});

test("hostile catalog text is printed terminal-safe", async () => {
  const evil = "\x1b]0;pwned\x07\x1b[2J\u202eevil\u2066x\u2069\u200f\u0085\x9b31m\r\n\x7f";
  const c = await fakeCatalog((l) => ({ ...l, description: `desc${evil}`, mimeType: evil, lastSeen: evil, listedBy: evil }));
  try {
    for (const extra of [[], ["--json"]]) {
      const r = await seller(["check", route(), "--discovery", c.url, ...extra]);
      assert.equal(r.code, 1);
      const text = extra.length ? JSON.parse(r.stdout).checks.map((x) => x.detail + (x.fix ?? "")).join("\n") : r.stdout.replaceAll("\n", " ");
      assert.equal(text.match(unsafe), null, `unsafe character in ${JSON.stringify(text)}`);
    }
  } finally {
    await c.close();
  }
});
