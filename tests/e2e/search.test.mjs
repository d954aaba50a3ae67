// Search, resolve and the read protocol (ETag, 304, gzip) over HTTP.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { gunzipSync } from "node:zlib";
import { newDataDir, removeDataDir, addProvider, termsFile, startServer, stopServer, item, declare } from "./lib/server.mjs";

let dir, server;

before(async () => {
  dir = newDataDir();
  const { terms } = termsFile(dir);
  server = await startServer(dir);
  for (const [name, payTo] of [["one", "uregtest1one"], ["two", "uregtest1two"]]) {
    const key = addProvider(dir, name, payTo);
    await new Promise((r) => setTimeout(r, 400));  // the server re-reads keys every 250 ms
    const items = [
      item(terms, payTo, "https://md.example.com/v1/markdown", { serviceName: "URL to markdown", description: "Fetches a web page and returns it as clean markdown." }),
      item(terms, payTo, `https://wx-${name}.example.com/v1/current`, { serviceName: "Current weather", description: "Current weather for a city." }),
      ...Array.from({ length: 12 }, (_, i) => item(terms, payTo, `https://img-${name}-${i}.example.com/gen`, { serviceName: "Image generation", description: `Generates images from a prompt, style ${i}.` })),
    ];
    const r = await declare(server.url, key, { items });
    assert.equal(r.status, 200, r.body);
  }
});

after(async () => {
  await stopServer(server);
  removeDataDir(dir);
});

const get = (path, headers = {}) => fetch(`${server.url}${path}`, { headers });

test("search ranks, pages with cursors and refuses bad cursors", async () => {
  const first = await (await get("/discovery/search?query=turn+a+web+page+into+markdown&limit=5")).json();
  assert.equal(first.x402Version, 2);
  assert.equal(first.partialResults, false);
  assert.equal(first.resources[0].resource, "https://md.example.com/v1/markdown");
  const seen = [];
  let cursor = null, pages = 0;
  do {
    const q = `/discovery/search?query=image+generation&limit=5${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
    const page = await (await get(q)).json();
    assert.equal(page.pagination.limit, 5);
    seen.push(...page.resources.map((r) => `${r.resource} ${r.accepts[0].payTo}`));
    cursor = page.pagination.cursor;
  } while (cursor && ++pages < 20);
  // Every match once, page after page; the 24 image items first (the words typed), then what
  // the query's expansions also found.
  assert.equal(new Set(seen).size, seen.length);
  assert.equal(seen.filter((s) => s.includes("/gen ")).length, 24);
  assert.ok(seen.slice(0, 24).every((s) => s.includes("/gen ")), seen.join("\n"));
  const one = await (await get("/discovery/search?query=image+generation&limit=5")).json();
  const c = one.pagination.cursor;
  // Tampered in the middle (six bits of the cursor), and in the lowest bit of the last character:
  // the MAC's 32 bytes leave that bit as padding, which only a canonical decoder refuses.
  const mid = Math.floor(c.length / 2);
  const tampered = c.slice(0, mid) + (c[mid] === "A" ? "B" : "A") + c.slice(mid + 1);
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  const padded = c.slice(0, -1) + alphabet[alphabet.indexOf(c.at(-1)) ^ 1];
  for (const bad of [`query=image&cursor=${encodeURIComponent(c)}`, `query=image+generation&type=mcp&cursor=${encodeURIComponent(c)}`,
                     `query=image+generation&cursor=${encodeURIComponent(tampered)}`,
                     `query=image+generation&cursor=${encodeURIComponent(padded)}`]) {
    const r = await get(`/discovery/search?${bad}`);
    assert.equal(r.status, 400);
    assert.equal((await r.json()).error, "invalid_cursor");
  }
  const filtered = await (await get("/discovery/search?query=weather&payTo=uregtest1two")).json();
  assert.ok(filtered.resources.length > 0);
  assert.ok(filtered.resources.every((r) => r.accepts.some((a) => a.payTo === "uregtest1two")));
  const none = await (await get("/discovery/search?query=weather&payTo=uregtest1nobody")).json();
  assert.equal(none.resources.length, 0);
  const missing = await get("/discovery/search?limit=5");
  assert.equal(missing.status, 400);
  assert.equal((await missing.json()).error, "query_required");
  assert.equal((await get(`/discovery/search?query=${"a".repeat(513)}`)).status, 400);
});

test("explain=1 says why each result matched; a bad explain is refused naming it", async () => {
  const r = await (await get("/discovery/search?query=fetch+a+webpage+as+markdown&limit=3&explain=1")).json();
  assert.equal(r.explain.length, r.resources.length);
  assert.equal(r.explain[0].resource, r.resources[0].resource);
  assert.equal(r.resources[0].resource, "https://md.example.com/v1/markdown");
  const words = r.explain[0].matches.map((m) => `${m.word}>${m.term}:${m.via}`);
  assert.ok(words.includes("markdown>markdown:typed"), words.join(" "));
  assert.ok(r.explain[0].matches.every((m) => m.fields.length > 0 && m.score > 0));
  const sum = r.explain[0].matches.reduce((a, m) => a + m.score, 0);
  assert.ok(Math.abs(sum - r.explain[0].score) < 1e-3);
  assert.equal((await (await get("/discovery/search?query=markdown")).json()).explain, undefined);
  const bad = await get("/discovery/search?query=markdown&explain=maybe");
  assert.equal(bad.status, 400);
  const body = await bad.json();
  assert.equal(body.error, "invalid_filter");
  assert.match(body.message, /explain/);
});

test("resolve lists every provider's item with one identity", async () => {
  const r = await get(`/discovery/resource?type=http&url=${encodeURIComponent("https://MD.example.com/v1/markdown/")}&method=GET`);
  assert.equal(r.status, 200);
  const body = await r.json();
  assert.deepEqual(body.resources.map((x) => x.accepts[0].payTo).sort(), ["uregtest1one", "uregtest1two"]);
  const none = await get(`/discovery/resource?type=http&url=${encodeURIComponent("https://nobody.example.com/")}`);
  assert.equal(none.status, 404);
  assert.equal((await none.json()).error, "not_found");
  const noUrl = await get("/discovery/resource?type=http");
  assert.equal(noUrl.status, 400);
  assert.match((await noUrl.json()).message, /url/);
});

test("reads carry an ETag, answer If-None-Match with 304, and gzip when accepted", async () => {
  const r = await get("/discovery/resources?limit=20");
  const etag = r.headers.get("etag");
  assert.match(etag, /^"[0-9a-f]+-[0-9a-f]+-[0-9a-f]{16}"$/);  // run, version, request
  assert.equal(r.headers.get("cache-control"), "no-cache");
  const again = await get("/discovery/resources?limit=20", { "if-none-match": etag });
  assert.equal(again.status, 304);
  assert.equal(again.headers.get("etag"), etag);
  const other = await get("/discovery/resources?limit=21", { "if-none-match": etag });
  assert.equal(other.status, 200);
  const search = await get("/discovery/search?query=weather");
  assert.equal((await get("/discovery/search?query=weather", { "if-none-match": search.headers.get("etag") })).status, 304);
  // Raw bytes: node's fetch would decompress silently.
  const { request } = await import("node:http");
  const raw = await new Promise((resolve) => request(`${server.url}/discovery/resources?limit=20`, { headers: { "accept-encoding": "gzip, deflate" } },
    (res) => { const chunks = []; res.on("data", (c) => chunks.push(c)); res.on("end", () => resolve({ headers: res.headers, body: Buffer.concat(chunks) })); }).end());
  assert.equal(raw.headers["content-encoding"], "gzip");
  assert.equal(raw.headers.vary, "Accept-Encoding");
  const plain = JSON.parse(gunzipSync(raw.body).toString("utf8"));
  assert.equal(plain.items.length, 20);
  const small = await new Promise((resolve) => request(`${server.url}/discovery/resources?limit=1&type=mcp`, { headers: { "accept-encoding": "gzip" } },
    (res) => { res.resume(); res.on("end", () => resolve(res.headers)); }).end());
  assert.equal(small["content-encoding"], undefined, "bodies under 1 KiB are sent as they are");
  const refused = await new Promise((resolve) => request(`${server.url}/discovery/resources?limit=20`, { headers: { "accept-encoding": "gzip;q=0" } },
    (res) => { res.resume(); res.on("end", () => resolve(res.headers)); }).end());
  assert.equal(refused["content-encoding"], undefined);
});

/** The gzip counters of /metrics: {compressed, cache}. */
async function gzipCounts() {
  const text = await (await fetch(`${server.url}/metrics`, { headers: { "accept-encoding": "identity" } })).text();
  const value = (source) => Number(text.match(new RegExp(`^z402_gzip_pages_total\\{source="${source}"\\} (\\d+)$`, "m"))[1]);
  return { compressed: value("compressed"), cache: value("cache") };
}

/** GET with the headers node's fetch and browsers send; the raw (still compressed) bytes. */
async function gzipped(path) {
  const { request } = await import("node:http");
  return new Promise((resolve) => request(`${server.url}${path}`, { headers: { "accept-encoding": "gzip, deflate, br" } },
    (res) => { const chunks = []; res.on("data", (c) => chunks.push(c)); res.on("end", () => resolve({ headers: res.headers, body: Buffer.concat(chunks) })); }).end());
}

test("a page is compressed once per version: repeated gzip'd reads come from the cache, the same bytes", async () => {
  const before = await gzipCounts();
  const first = await gzipped("/discovery/resources?limit=30");
  assert.equal(first.headers["content-encoding"], "gzip");
  const plain = await (await fetch(`${server.url}/discovery/resources?limit=30`, { headers: { "accept-encoding": "identity" } })).text();
  assert.equal(gunzipSync(first.body).toString("utf8"), plain, "the compressed page is the page");
  for (let i = 0; i < 5; i++) {
    const again = await gzipped("/discovery/resources?limit=30");
    assert.ok(again.body.equals(first.body), "the same compressed bytes");
    assert.equal(again.headers["content-length"], String(first.body.length));
  }
  const after = await gzipCounts();
  assert.equal(after.compressed - before.compressed, 1, "compressed once");
  assert.equal(after.cache - before.cache, 5, "then served from the cache");
  // A search page is cached the same way, under its own ETag.
  await gzipped("/discovery/search?query=weather&limit=7");
  await gzipped("/discovery/search?query=weather&limit=7");
  const searched = await gzipCounts();
  assert.equal(searched.compressed - after.compressed, 1);
  assert.equal(searched.cache - after.cache, 1);
});

test("GET /discovery/terms is what `z402-bazaar terms` prints, public, with an ETag that answers 304", async () => {
  const { terms } = termsFile(dir);
  const r = await get("/discovery/terms");
  assert.equal(r.status, 200);
  assert.deepEqual(await r.json(), terms);
  assert.equal(r.headers.get("cache-control"), "public, max-age=60");
  const etag = r.headers.get("etag");
  assert.match(etag, /^"[0-9a-f]{32}"$/);
  const again = await get("/discovery/terms", { "if-none-match": etag });
  assert.equal(again.status, 304);
  assert.equal(again.headers.get("etag"), etag);
  const post = await fetch(`${server.url}/discovery/terms`, { method: "POST", body: "{}" });
  assert.equal(post.status, 405);
});
