// z402-discover against hostile servers: each run ends within its 60 s deadline plus 1 s,
// stays within its 32 MiB budget, cannot be made to loop, and prints nothing a terminal would
// act on. Each server is a small loopback server started here.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import { spawn } from "node:child_process";
import { scaled } from "./lib/server.mjs";
import { assertPricesLabelled } from "./lib/prices.mjs";

const binary = process.env.Z402_DISCOVER;
if (!binary) throw new Error("Z402_DISCOVER must name the built z402-discover (ctest sets it)");

/** Runs z402-discover; resolves {code, stdout (Buffer), stderr, ms}. */
function discover(args) {
  const started = Date.now();
  const child = spawn(binary, args, { stdio: ["ignore", "pipe", "pipe"] });
  const out = [];
  let stderr = "";
  child.stdout.on("data", (c) => out.push(c));
  child.stderr.on("data", (c) => (stderr += c));
  return new Promise((resolve) =>
    child.on("close", (code) => resolve({ code, stdout: Buffer.concat(out), stderr, ms: Date.now() - started })));
}

/** A loopback server; `handler(req, res, state)`; resolves {url, state, close()}. */
function serve(handler) {
  const state = { requests: 0, written: 0 };
  const server = http.createServer((req, res) => {
    state.requests++;
    handler(req, res, state);
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => {
    const url = `http://127.0.0.1:${server.address().port}`;
    resolve({ url, state, close: () => { server.closeAllConnections(); server.close(); } });
  }));
}

const offsetOf = (req) => Number(new URL(req.url, "http://x").searchParams.get("offset") ?? 0);

function item(n, extra = {}) {
  return {
    resource: `https://svc${n}.example.com/v1/thing`, type: "http", x402Version: 2,
    accepts: [{ scheme: "exact", network: "zcash:regtest", amount: "1000", asset: "ZEC", payTo: "p", maxTimeoutSeconds: 60 }],
    lastUpdated: "2026-01-01T00:00:00.000Z", serviceName: `Service ${n}`, description: `Thing number ${n}`,
    extensions: { bazaar: { info: { input: { type: "http", method: "GET" } } }, z402: { unit: "call" } },
    ...extra,
  };
}

function page(res, items, pagination) {
  res.writeHead(200, { "content-type": "application/json" });
  res.end(JSON.stringify({ x402Version: 2, items, pagination }));
}

// Printable output: valid UTF-8 and nothing a terminal acts on except our own newlines.
const unsafe = /[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u;
function assertTerminalSafe(buffer) {
  const text = new TextDecoder("utf-8", { fatal: true }).decode(buffer);
  const found = text.match(unsafe);
  assert.equal(found, null, `unsafe character U+${found?.[0].codePointAt(0).toString(16)} in output`);
}

const deadlinePlusOne = 60_000 + scaled(1_000);

describe("hostile servers", { concurrency: true }, () => {
  test("a slow drip (one byte a second) ends at the deadline", async () => {
    const srv = await serve((req, res, st) => {
      const socket = res.socket;
      const body = "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n\r\n" + JSON.stringify({ items: [item(1)] });
      let i = 0;
      const timer = setInterval(() => {
        if (socket.destroyed || i >= body.length) return clearInterval(timer);
        socket.write(body[i++]);
      }, 1000);
      socket.on("close", () => clearInterval(timer));
    });
    const r = await discover(["--discovery", srv.url, "--intent", "thing"]);
    srv.close();
    assert.equal(r.code, 3);
    assert.ok(r.ms <= deadlinePlusOne, `ran ${r.ms} ms`);
    assert.ok(r.ms >= 59_000, `the deadline is 60 s, ended after ${r.ms} ms`);
    assert.match(r.stderr, /deadline/);
    assertTerminalSafe(r.stdout);
  });

  test("an endless body stops at the byte budget", async () => {
    const chunk = Buffer.alloc(1 << 16, "a");
    const srv = await serve((req, res, st) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write('{"items":["');
      const pump = () => {
        while (!res.destroyed && res.write(chunk)) st.written += chunk.length;
        if (!res.destroyed) res.once("drain", pump);
      };
      res.on("close", () => {});
      pump();
    });
    const r = await discover(["--discovery", srv.url, "--intent", "thing"]);
    srv.close();
    assert.equal(r.code, 3);
    assert.match(r.stderr, /32 MiB budget/);
    assert.ok(r.ms <= deadlinePlusOne);
    // What the server managed to hand to the socket: the budget plus the kernel's buffers.
    assert.ok(srv.state.written <= (32 + 8) * 1024 * 1024, `server wrote ${srv.state.written} bytes`);
  });

  test("10,000 pages that never end: at most 100 pages and 1,000 resources", async () => {
    const srv = await serve((req, res) => {
      const offset = offsetOf(req);
      page(res, Array.from({ length: 10 }, (_, k) => item(offset + k)), { limit: 10, offset, total: 100_000 });
    });
    const r = await discover(["--discovery", srv.url, "--intent", "thing"]);
    srv.close();
    assert.equal(r.code, 0);
    assert.ok(srv.state.requests <= 100, `${srv.state.requests} requests`);
    assert.ok(r.stdout.toString().split("\n").filter((l) => l.startsWith("Service ")).length <= 1000);
    assert.match(r.stderr, /the limit of one run/);
  });

  test("a total that keeps growing cannot keep it reading", async () => {
    let total = 100;
    const srv = await serve((req, res) => {
      const offset = offsetOf(req);
      total += 100;
      page(res, Array.from({ length: 100 }, (_, k) => item(offset + k)), { limit: 100, offset, total });
    });
    const r = await discover(["--discovery", srv.url, "--intent", "thing", "--json"]);
    srv.close();
    assert.equal(r.code, 0);
    assert.equal(JSON.parse(r.stdout).resources.length, 1000);
    assert.equal(srv.state.requests, 10);
  });

  test("repeated pages and offsets going backwards neither loop nor repeat lines", async () => {
    const srv = await serve((req, res, st) => {
      page(res, Array.from({ length: 5 }, (_, k) => item(k)), { limit: 5, offset: 1_000_000 - st.requests * 7, total: 10_000_000 });
    });
    const r = await discover(["--discovery", srv.url, "--intent", "thing", "--json"]);
    srv.close();
    assert.equal(r.code, 0);
    assert.equal(JSON.parse(r.stdout).resources.length, 5);
    assert.ok(srv.state.requests <= 100);
  });

  test("escape sequences and bidi overrides in every text field are not printed", async () => {
    const evil = "\x1b]0;pwned\x07\x1b[2J\u202eevil\u2066x\u2069\u200f\u0085\x9b31m\r\n\x7f";
    const srv = await serve((req, res) => {
      const hostile = item(1, {
        resource: `https://svc.example.com/${evil}`, serviceName: `name${evil}`, description: `desc${evil} thing`,
        tags: [`tag${evil}`],
        accepts: [{ scheme: evil, network: evil, amount: `10${evil}`, asset: `ZEC${evil}`, payTo: evil, maxTimeoutSeconds: 60 }],
        extensions: { bazaar: { info: { input: { type: "http", method: `GET${evil}` } } }, z402: { unit: `call${evil}` } },
        lastSeen: evil, paidCallsToday: 3,
      });
      page(res, [hostile], { limit: 100, offset: 0, total: 1 });
    });
    for (const extra of [[], ["--json"]]) {
      const r = await discover(["--discovery", srv.url, "--intent", "thing", ...extra]);
      assert.equal(r.code, 0, r.stderr);
      assertTerminalSafe(r.stdout);
      assertTerminalSafe(Buffer.from(r.stderr));
    }
    srv.close();
  });

  test("invalid UTF-8 in the catalog is replaced, not printed", async () => {
    const srv = await serve((req, res) => {
      const body = Buffer.concat([
        Buffer.from('{"items":[{"resource":"https://a.example.com/x","type":"http","x402Version":2,"accepts":[],"serviceName":"bad'),
        Buffer.from([0xff, 0xfe, 0xc0, 0x80, 0xed, 0xa0, 0x80]),
        Buffer.from('","description":"thing \xe2\x80'), Buffer.from('"}],"pagination":{"limit":100,"offset":0,"total":1}}'),
      ]);
      res.writeHead(200, { "content-type": "application/json" });
      res.end(body);
    });
    const r = await discover(["--discovery", srv.url, "--intent", "thing"]);
    srv.close();
    assert.equal(r.code, 0, r.stderr);
    assertTerminalSafe(r.stdout);
    assert.match(r.stdout.toString(), /^bad\uFFFD/);
  });

  test("a redirect to another origin is refused; one within the origin is followed", async () => {
    const other = await serve((req, res) => page(res, [item(1)], { limit: 100, offset: 0, total: 1 }));
    const away = await serve((req, res) => { res.writeHead(302, { location: `${other.url}/discovery/resources` }); res.end(); });
    const r = await discover(["--discovery", away.url, "--intent", "thing"]);
    assert.equal(r.code, 3);
    assert.match(r.stderr, /another origin/);
    assert.equal(other.state.requests, 0, "the other origin was never asked");
    const within = await serve((req, res) => {
      if (req.url.startsWith("/v2")) return page(res, [item(1)], { limit: 100, offset: 0, total: 1 });
      res.writeHead(307, { location: `/v2${req.url}` });
      res.end();
    });
    const ok = await discover(["--discovery", within.url, "--intent", "thing"]);
    assert.equal(ok.code, 0, ok.stderr);
    for (const s of [other, away, within]) s.close();
  });

  test("a 500 and a body that is not JSON end with exit 3 and one clear line", async () => {
    const failing = await serve((req, res) => { res.writeHead(500); res.end("boom"); });
    const garbage = await serve((req, res) => { res.writeHead(200, { "content-type": "application/json" }); res.end("<html>not json"); });
    const a = await discover(["--discovery", failing.url, "--intent", "thing"]);
    const b = await discover(["--discovery", garbage.url, "--intent", "thing"]);
    failing.close();
    garbage.close();
    assert.equal(a.code, 3);
    assert.equal(a.stderr.trim(), "z402-discover: could not read the catalog: the server answered HTTP 500");
    assert.equal(b.code, 3);
    assert.match(b.stderr, /^z402-discover: could not read the catalog: the answer is not a catalog page \(malformed JSON/);
    assert.equal(b.stderr.trim().split("\n").length, 1);
  });

  test("a price is shown in zat per billing unit with the exact ZEC, and another asset's amount as atomic units", async () => {
    const usdc = item(2, { accepts: [{ scheme: "exact", network: "eip155:8453", amount: "5", asset: "0x833589fC", payTo: "p", maxTimeoutSeconds: 60 }] });
    const srv = await serve((req, res) => page(res, [item(1, { extensions: { z402: { unit: "1k chars" } } }), usdc], { limit: 100, offset: 0, total: 2 }));
    const r = await discover(["--discovery", srv.url, "--intent", "thing"]);
    srv.close();
    const text = r.stdout.toString();
    assert.match(text, /^Service 1  GET https:\/\/svc1\.example\.com\/v1\/thing  1000 zat\/1k chars \(0\.00001 ZEC\)  /m);
    assert.match(text, /^Service 2  GET https:\/\/svc2\.example\.com\/v1\/thing  5 atomic units of 0x833589fC\/call  /m);
    assertPricesLabelled(text);
  });

  test("other words and languages find a listing, and --explain says through which expansion", async () => {
    const forecast = item(1, { serviceName: "Weather forecast", description: "Daily weather forecast for any city." });
    const srv = await serve((req, res) => page(res, [item(2), forecast], { limit: 100, offset: 0, total: 2 }));
    const text = await discover(["--discovery", srv.url, "--intent", "will it snow tomorrow", "--explain"]);
    const json = await discover(["--discovery", srv.url, "--intent", "¿va a nevar mañana?", "--explain", "--json"]);
    srv.close();
    assert.equal(text.code, 0);
    assert.match(text.stdout.toString(), /^Weather forecast  GET https:\/\/svc1\.example\.com\/v1\/thing .*\n    why: snow > weather \(hypernym\) in name, description; tomorrow > daili \(hypernym\) in description\n/);
    // The pick's origin is asked before it is printed: this one does not exist.
    assert.match(text.stdout.toString(), /\npick: GET https:\/\/svc1\.example\.com\/v1\/thing  not origin-verified \(manifest: [^\n]+\)\n$/);
    const parsed = JSON.parse(json.stdout.toString());
    assert.equal(parsed.pick.url, "https://svc1.example.com/v1/thing");
    assert.equal(parsed.pick.origin.verified, false);
    assert.equal(parsed.pick.origin.check, "manifest");
    assert.match(parsed.resources[0].why, /^nevar > weather \(translation, es > hypernym of snow\) in name, description/);
    assert.equal(parsed.resources[1].why, "no match");
  });

  test("nothing in common is pick: none with exit 1; usage errors exit 2", async () => {
    const srv = await serve((req, res) => page(res, [item(1)], { limit: 100, offset: 0, total: 1 }));
    const none = await discover(["--discovery", srv.url, "--intent", "florbix"]);  // no listing and no dictionary has it
    srv.close();
    assert.equal(none.code, 1);
    assert.match(none.stdout.toString(), /\npick: none\n$/);
    for (const args of [[], ["--intent", "x"], ["--discovery", srv.url], ["--discovery", "ftp://x", "--intent", "x"],
      ["--discovery", srv.url, "--intent", "x", "--limit-resources", "1001"], ["--discovery", srv.url, "--intent", "x", "--bogus"]]) {
      assert.equal((await discover(args)).code, 2, args.join(" "));
    }
  });
});
