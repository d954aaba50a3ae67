// Both MCP servers with the official SDK (@modelcontextprotocol/sdk, pinned in tests/mcp) as
// the client: the catalog's /discovery/mcp over Streamable HTTP, and the agent's private
// `z402-discover mcp` over stdio. Tools listed and called with and without filters, pages
// followed by cursor, a client pinned to an older revision, invalid params, a foreign Origin;
// the stdio server never asks /discovery/search, and hostile catalog text reaches the client
// terminal-safe.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { newDataDir, removeDataDir, addProvider, termsFile, startServer, stopServer, item, declare, delist, sleep } from "./lib/server.mjs";
import { assertPricesLabelled } from "./lib/prices.mjs";

const pins = new URL("../mcp", import.meta.url).pathname;
const cache = process.env.Z402_MCP_CACHE ?? join(process.env.XDG_CACHE_HOME ?? join(process.env.HOME ?? tmpdir(), ".cache"), "z402-mcp-sdk");
const modules = execFileSync(new URL("../lib/npm-cache", import.meta.url).pathname, [pins, cache, "@modelcontextprotocol/sdk"], { encoding: "utf8" }).trim();
const sdk = (path) => import(pathToFileURL(join(modules, "@modelcontextprotocol/sdk/dist/esm", path)).href);
const { Client } = await sdk("client/index.js");
const { StreamableHTTPClientTransport } = await sdk("client/streamableHttp.js");
const { StdioClientTransport } = await sdk("client/stdio.js");
const { ListResourcesResultSchema } = await sdk("types.js");

const unsafe = /[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u;
let dir, server, endpoint, terms;

before(async () => {
  dir = newDataDir();
  ({ terms } = termsFile(dir));
  server = await startServer(dir);
  endpoint = new URL(`${server.url}/discovery/mcp`);
  const cheap = "uregtest1cheap", dear = "uregtest1dear";
  const keys = { cheap: addProvider(dir, "cheap", cheap), dear: addProvider(dir, "dear", dear) };
  await sleep(400);  // the server re-reads keys every 250 ms
  const priced = (payTo, amount, resource, extra) => {
    const it = item(terms, payTo, resource, extra);
    it.accepts[0].amount = amount;
    return it;
  };
  assert.equal((await declare(server.url, keys.cheap, { items: [
    priced(cheap, "500", "https://wx-cheap.example.com/v1/forecast", { serviceName: "Cheap weather", description: "Weather forecast for a city, hourly." }),
    priced(cheap, "800", "https://md.example.com/v1/markdown", { serviceName: "URL to markdown", description: "Turns a web page into markdown." }),
    priced(cheap, "1000", "https://tr.example.com/v1/translate", { serviceName: "Translator", description: "Translates text to German, French or Spanish.",
      extensions: { z402: { unit: "1k chars" } } }),
    ...Array.from({ length: 5 }, (_, i) => priced(cheap, "300", `https://img-${i}.example.com/gen`, { serviceName: "Images", description: `Generates an image, style ${i}.` })),
  ] })).status, 200);
  assert.equal((await declare(server.url, keys.dear, { items: [
    priced(dear, "9000", "https://wx-dear.example.com/v1/forecast", { serviceName: "Premium weather", description: "Weather forecast for a city, by the minute." }),
  ] })).status, 200);
});

after(async () => {
  if (server?.child.exitCode === null) await stopServer(server);
  removeDataDir(dir);
});

async function httpClient(transportOptions = {}, wrap = (t) => t) {
  const transport = new StreamableHTTPClientTransport(endpoint, transportOptions);
  const client = new Client({ name: "z402-test", version: "1.0.0" });
  await client.connect(wrap(transport));
  return { client, transport };
}

const search = async (query) => (await fetch(`${server.url}/discovery/search?${new URLSearchParams(query)}`)).json();

test("the SDK connects over Streamable HTTP, negotiates the latest revision and lists three tools with schemas", async () => {
  const { client, transport } = await httpClient();
  assert.equal(client.getServerVersion().name, "z402-bazaar");
  assert.equal(transport.protocolVersion, "2025-11-25");
  assert.deepEqual(client.getServerCapabilities().tools, { listChanged: false });
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((t) => t.name), ["search_resources", "list_resources", "get_resource"]);
  for (const t of tools) {
    assert.equal(t.inputSchema.type, "object");
    assert.equal(t.outputSchema.type, "object");
  }
  await client.ping();
  await client.close();
});

test("search_resources ranks as /discovery/search does, filters, caps the price and pages with cursors", async () => {
  const { client } = await httpClient();
  await client.listTools();  // the SDK validates structuredContent against each tool's outputSchema
  const r = await client.callTool({ name: "search_resources", arguments: { query: "weather forecast" } });
  assert.equal(r.isError, false);
  const http = await search({ query: "weather forecast", limit: "20" });
  assert.deepEqual(r.structuredContent.resources.map((x) => x.resource), http.resources.map((x) => x.resource));
  assert.match(r.content[0].text, /^search results: \d+ resources\n- GET https:\/\/wx-/);

  const capped = await client.callTool({ name: "search_resources", arguments: { query: "weather forecast", maxAmount: 1000 } });
  assert.deepEqual(capped.structuredContent.resources.map((x) => x.resource), ["https://wx-cheap.example.com/v1/forecast"]);
  const filtered = await client.callTool({ name: "search_resources", arguments: { query: "weather", payTo: "uregtest1dear" } });
  assert.deepEqual(filtered.structuredContent.resources.map((x) => x.resource), ["https://wx-dear.example.com/v1/forecast"]);

  const seen = [];
  let cursor;
  do {
    const page = await client.callTool({ name: "search_resources", arguments: { query: "image style", limit: 2, ...(cursor ? { cursor } : {}) } });
    seen.push(...page.structuredContent.resources.map((x) => x.resource));
    cursor = page.structuredContent.pagination.cursor;
  } while (cursor);
  const all = await search({ query: "image style", limit: "100" });
  assert.deepEqual(seen, all.resources.map((x) => x.resource));
  assert.equal(seen.length, 5);
  await client.close();
});

test("list_resources and get_resource answer what the HTTP reads answer", async () => {
  const { client } = await httpClient();
  await client.listTools();
  const all = await client.callTool({ name: "list_resources", arguments: {} });
  assert.equal(all.structuredContent.pagination.total, 9);
  assert.equal(all.structuredContent.items.length, 9);
  const page = await client.callTool({ name: "list_resources", arguments: { limit: 3, offset: 2, maxAmount: "400" } });
  assert.deepEqual(page.structuredContent.pagination, { limit: 3, offset: 2, total: 5 });
  for (const it of page.structuredContent.items) assert.ok(it.accepts.some((a) => BigInt(a.amount) <= 400n));
  const http = await (await fetch(`${server.url}/discovery/resources?limit=3&offset=2&maxAmount=400`)).json();
  assert.deepEqual(page.structuredContent, http);

  const one = await client.callTool({ name: "get_resource", arguments: { url: "https://md.example.com/v1/markdown" } });
  assert.equal(one.isError, false);
  assert.equal(one.structuredContent.resources[0].serviceName, "URL to markdown");
  const none = await client.callTool({ name: "get_resource", arguments: { url: "https://md.example.com/v1/markdown", method: "POST" } });
  assert.equal(none.isError, true);
  assert.match(none.content[0].text, /^not_found: /);
  await client.close();
});

test("every tool's text prices in zat per billing unit, with the exact ZEC beside it", async () => {
  const { client } = await httpClient();
  const translator = "- GET https://tr.example.com/v1/translate at 1000 zat/1k chars (0.00001 ZEC)";
  const calls = [
    ["search_resources", { query: "translate text to german", limit: 2 }],
    ["list_resources", {}],
    ["get_resource", { url: "https://tr.example.com/v1/translate" }],
  ];
  for (const [name, args] of calls) {
    const r = await client.callTool({ name, arguments: args });
    assert.equal(r.isError, false);
    const text = r.content.map((c) => c.text).join("\n");
    assert.ok(text.split("\n").includes(translator), `${name}: ${JSON.stringify(text)}`);
    assertPricesLabelled(text);
  }
  await client.close();
  const agent = await stdioClient(server.url);
  const picked = await agent.callTool({ name: "discover", arguments: { intent: "translate text to german" } });
  const text = picked.content.map((c) => c.text).join("\n");
  assert.match(text, /^Translator  GET https:\/\/tr\.example\.com\/v1\/translate  1000 zat\/1k chars \(0\.00001 ZEC\)  /m);
  assertPricesLabelled(text);
  await agent.close();
});

test("invalid params, unknown tools and methods get the JSON-RPC errors the spec names", async () => {
  const { client } = await httpClient();
  const code = async (call) => {
    try {
      await call();
    } catch (e) {
      return e.code;
    }
    assert.fail("expected an error");
  };
  assert.equal(await code(() => client.callTool({ name: "search_resources", arguments: {} })), -32602);
  assert.equal(await code(() => client.callTool({ name: "search_resources", arguments: { query: 5 } })), -32602);
  assert.equal(await code(() => client.callTool({ name: "search_resources", arguments: { query: "x", limit: 0 } })), -32602);
  assert.equal(await code(() => client.callTool({ name: "search_resources", arguments: { query: "x", cursor: "forged" } })), -32602);
  assert.equal(await code(() => client.callTool({ name: "list_resources", arguments: { maxAmount: "-1" } })), -32602);
  assert.equal(await code(() => client.callTool({ name: "list_resources", arguments: { colour: "red" } })), -32602);
  assert.equal(await code(() => client.callTool({ name: "fetch_url", arguments: {} })), -32602);
  assert.equal(await code(() => client.request({ method: "resources/list", params: {} }, ListResourcesResultSchema)), -32601);
  await client.close();

  const post = (body, headers = {}) => fetch(endpoint, { method: "POST", headers: { "content-type": "application/json", ...headers }, body });
  const batch = await post(JSON.stringify([{ jsonrpc: "2.0", id: 1, method: "ping" }]));
  assert.equal(batch.status, 400);
  assert.equal((await batch.json()).error.code, -32600);
  const garbage = await post("{not json");
  assert.equal(garbage.status, 400);
  assert.equal((await garbage.json()).error.code, -32700);
  const get = await fetch(endpoint);
  assert.equal(get.status, 405);
  assert.equal(get.headers.get("allow"), "POST");
  const version = await post(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }), { "mcp-protocol-version": "2024-11-05" });
  assert.equal(version.status, 400);
});

test("tool results come from a cache per catalog version: made once, each answer with its own id, a change seen at once", async () => {
  const call = async (id, name, args) => {
    const res = await fetch(endpoint, { method: "POST", headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } }) });
    return { status: res.status, text: await res.text() };
  };
  const counts = async () => {
    const text = await (await fetch(`${server.url}/metrics`)).text();
    const value = (source) => Number(text.match(new RegExp(`^z402_mcp_results_total\\{source="${source}"\\} (\\d+)$`, "m"))[1]);
    return { made: value("made"), cache: value("cache"), repeat: value("repeat") };
  };
  const moved = async (from) => {
    const now = await counts();
    return { made: now.made - from.made, cache: now.cache - from.cache, repeat: now.repeat - from.repeat };
  };

  const start = await counts();
  const search = { query: "forecast for a city", limit: 1 };
  const first = await call(7, "search_resources", search);
  const again = await call("seven", "search_resources", search);
  assert.equal(first.status, 200);
  assert.equal(JSON.parse(first.text).id, 7);
  assert.equal(JSON.parse(again.text).id, "seven");
  assert.equal(again.text, first.text.replace('"id":7,', '"id":"seven",'), "the same bytes but the id");
  // The same message but its id is answered from memory, without being parsed again (per io
  // thread: fetch keeps its one connection, so these land on one thread).
  for (const id of [100, 101, 102, 103]) assert.equal((await call(id, "search_resources", search)).text, first.text.replace('"id":7,', `"id":${id},`));
  const repeated = await moved(start);
  assert.equal(repeated.made, 1);
  assert.equal(repeated.cache + repeated.repeat, 5);
  assert.ok(repeated.repeat >= 1, `a message repeated but for its id is answered from memory: ${JSON.stringify(repeated)}`);
  // The same arguments written otherwise are another message: the cache answers it.
  const reordered = await fetch(endpoint, { method: "POST", headers: { "content-type": "application/json" },
    body: JSON.stringify({ id: 70, jsonrpc: "2.0", method: "tools/call", params: { arguments: { limit: 1, query: search.query }, name: "search_resources" } }) });
  assert.equal(await reordered.text(), first.text.replace('"id":7,', '"id":70,'));
  assert.deepEqual(await moved(start), { ...repeated, cache: repeated.cache + 1 });
  // An id written with an escape takes the whole path, and is answered as that path writes it.
  const escaped = await fetch(endpoint, { method: "POST", headers: { "content-type": "application/json" },
    body: `{"jsonrpc":"2.0","id":"s\\u0065ven","method":"tools/call","params":{"name":"search_resources","arguments":${JSON.stringify(search)}}}` });
  assert.equal(await escaped.text(), again.text);
  assert.deepEqual(await moved(start), { ...repeated, cache: repeated.cache + 2 });
  await call(8, "search_resources", { ...search, limit: 2 });
  const later = { ...repeated, made: 2, cache: repeated.cache + 2 };
  assert.deepEqual(await moved(start), later, "other arguments, another result");
  const refused = await call(9, "search_resources", { ...search, limit: 0 });
  const refusedAgain = await call(10, "search_resources", { ...search, limit: 0 });
  assert.equal(JSON.parse(refused.text).error.code, -32602);
  assert.equal(JSON.parse(refusedAgain.text).error.code, -32602, "a refusal is not answered from memory");
  assert.deepEqual(await moved(start), later, "a refusal is neither made nor kept");

  const listed = async () => JSON.parse((await call(11, "list_resources", { limit: 100 })).text).result.structuredContent.items.length;
  assert.equal(await listed(), 9);
  const payTo = "uregtest1later";
  const key = addProvider(dir, "later", payTo);
  await sleep(400);  // the server re-reads keys every 250 ms
  assert.equal((await declare(server.url, key, { items: [item(terms, payTo, "https://qr.example.com/v1/code", { description: "QR codes." })] })).status, 200);
  assert.equal(await listed(), 10, "a declaration is a new version: its result is made again");
  assert.deepEqual(await delist(server.url, key, { items: [{ type: "http", resource: "https://qr.example.com/v1/code" }] }), { status: 200, json: { removed: 1 } });
  assert.equal(await listed(), 9);
});

test("a kept result goes from its file unencoded and gzip'd to a client that takes gzip, each answer with its own id, the same JSON both ways", async () => {
  // Node's fetch asks for gzip and inflates what it gets, as the SDK's transport does.
  const call = async (id, encoding) => {
    const res = await fetch(endpoint, { method: "POST", headers: { "content-type": "application/json", ...(encoding ? { "accept-encoding": encoding } : {}) },
      body: JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "list_resources", arguments: { limit: 100 } } }) });
    return { encoding: res.headers.get("content-encoding"), vary: res.headers.get("vary"), text: await res.text() };
  };
  const plain = await call(1, "identity");
  assert.equal(plain.encoding, null);
  assert.equal(plain.vary, "Accept-Encoding");
  // Unencoded, the kept result (over 4 KiB) goes from its file after the envelope's head.
  assert.deepEqual(JSON.parse(plain.text).result.structuredContent, await (await fetch(`${server.url}/discovery/resources?limit=100`)).json());
  assert.equal((await call(1, "identity")).text, plain.text);
  for (const [id, encoding] of [[2, "gzip"], ["two", undefined], [3, "gzip;q=1, identity;q=0.5"]]) {
    const zipped = await call(id, encoding);
    assert.equal(zipped.encoding, "gzip", `asked ${encoding ?? "fetch's default"}`);
    assert.equal(zipped.text, plain.text.replace('"id":1,', `"id":${JSON.stringify(id)},`));
  }
  assert.equal((await call(4, "gzip;q=0")).encoding, null, "gzip refused");
  // A result under the gzip threshold (a page of one) is not worth compressing.
  const small = await fetch(endpoint, { method: "POST", headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 5, method: "tools/call", params: { name: "get_resource", arguments: { url: "https://nowhere.example.com/" } } }) });
  assert.equal(small.headers.get("content-encoding"), null);
  assert.equal((await small.json()).result.isError, true);
});

test("a client pinned to an older revision gets it, and its requests carry it", async () => {
  const pin = (transport) => {
    const send = transport.send.bind(transport);
    transport.send = (message, options) =>
      send(message.method === "initialize" ? { ...message, params: { ...message.params, protocolVersion: "2025-03-26" } } : message, options);
    return transport;
  };
  const { client, transport } = await httpClient({}, pin);
  assert.equal(transport.protocolVersion, "2025-03-26");
  const { tools } = await client.listTools();
  assert.equal(tools.length, 3);
  await client.close();
  // an unknown revision asked for gets the latest (the spec's negotiation)
  const r = await fetch(endpoint, { method: "POST", headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2030-01-01", capabilities: {}, clientInfo: { name: "x", version: "1" } } }) });
  assert.equal((await r.json()).result.protocolVersion, "2025-11-25");
});

test("a page of a foreign origin is refused with 403; the server's own origin is not", async () => {
  await assert.rejects(httpClient({ requestInit: { headers: { Origin: "http://evil.example" } } }), (e) => e.code === 403 && /Origin http:\/\/evil.example/.test(e.message));
  const { client } = await httpClient({ requestInit: { headers: { Origin: server.url } } });
  assert.equal((await client.listTools()).tools.length, 3);
  await client.close();
});

/** A catalog that records what it is asked and serves `items`. */
async function fakeCatalog(items) {
  const paths = [];
  const srv = createServer((req, res) => {
    paths.push(req.url.split("?")[0]);
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ x402Version: 2, items, pagination: { limit: 100, offset: 0, total: items.length } }));
  });
  await new Promise((r) => srv.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${srv.address().port}`, paths, close: () => srv.close() };
}

async function stdioClient(discovery) {
  const transport = new StdioClientTransport({ command: process.env.Z402_DISCOVER, args: ["mcp", "--discovery", discovery], stderr: "pipe" });
  const client = new Client({ name: "z402-test", version: "1.0.0" });
  await client.connect(transport);
  return client;
}

test("z402-discover mcp over stdio: discover ranks locally, caps the price, get_resource reads the same copy", async () => {
  const client = await stdioClient(server.url);
  assert.equal(client.getServerVersion().name, "z402-discover");
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((t) => t.name), ["discover", "get_resource"]);
  const r = await client.callTool({ name: "discover", arguments: { intent: "weather forecast for my city" } });
  assert.equal(r.isError, false);
  assert.ok(r.structuredContent.resources.length >= 2);
  assert.match(r.structuredContent.pick.url, /^https:\/\/wx-/);
  assert.match(r.content[0].text, /pick: GET https:\/\/wx-/);
  const capped = await client.callTool({ name: "discover", arguments: { intent: "weather forecast", maxAmount: 1000, limit: 3 } });
  assert.ok(capped.structuredContent.resources.length <= 3);
  assert.ok(!capped.structuredContent.resources.some((x) => x.url.includes("wx-dear")));
  assert.equal(capped.structuredContent.pick.url, "https://wx-cheap.example.com/v1/forecast");
  const one = await client.callTool({ name: "get_resource", arguments: { url: "https://md.example.com/v1/markdown", method: "GET" } });
  assert.equal(one.structuredContent.resources[0].serviceName, "URL to markdown");
  await assert.rejects(client.callTool({ name: "discover", arguments: { intent: " " } }), (e) => e.code === -32602);
  await client.close();
});

test("the stdio server never asks /discovery/search, and hostile catalog text reaches the client terminal-safe", async () => {
  const evil = "\x1b]0;pwned\x07\x1b[2J\u202eevil\u2066x\u2069\u200f\u0085\x9b31m\r\n\x7f";
  const fake = await fakeCatalog([{
    resource: "https://svc.example.com/tool", type: "http", x402Version: 2, serviceName: `name${evil}`, description: `weather ${evil} thing`,
    tags: [`tag${evil}`], accepts: [{ scheme: "exact", network: evil, amount: "10", asset: `ZEC${evil}`, payTo: evil, maxTimeoutSeconds: 60 }],
    extensions: { bazaar: { info: { input: { type: "http", method: `GET${evil}` } } }, z402: { unit: `call${evil}` } },
    lastSeen: evil, paidCallsToday: 3,
  }]);
  try {
    const client = await stdioClient(fake.url);
    const r = await client.callTool({ name: "discover", arguments: { intent: "weather thing" } });
    await client.callTool({ name: "discover", arguments: { intent: "another intent" } });
    await client.close();
    assert.equal(r.structuredContent.resources.length, 1);
    const everything = JSON.stringify(r.structuredContent) + r.content.map((c) => c.text).join("");
    const decoded = JSON.parse(JSON.stringify(r));
    for (const text of [r.content[0].text, ...Object.values(decoded.structuredContent.resources[0]).filter((v) => typeof v === "string")])
      assert.equal(text.match(unsafe), null, `unsafe character in ${JSON.stringify(text)}`);
    assert.ok(everything.includes("\ufffd"), "unsafe characters are replaced");
    assert.ok(fake.paths.length >= 1);
    assert.deepEqual([...new Set(fake.paths)], ["/discovery/resources"], "only the public list is read");
    assert.equal(fake.paths.length, 1, "the copy is kept: a second discover within a minute reads nothing");
  } finally {
    fake.close();
  }
});
