// Settled payments over HTTP: exact counts under concurrency, keys, EXTENSION-RESPONSES,
// counts that survive a restart.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import {
  newDataDir, removeDataDir, addProvider, createSettleKey, termsFile, startServer, stopServer, item, declare, list,
  settleBody, sleep, waitFor,
} from "./lib/server.mjs";

let dir, server, providerKey, settleKey, terms;
const payTo = "uregtest1paid";
const url = "https://paid.example.com/v1/route";

before(async () => {
  dir = newDataDir();
  providerKey = addProvider(dir, "paid", payTo);
  settleKey = createSettleKey(dir);
  terms = termsFile(dir).terms;
  server = await startServer(dir);
  assert.equal((await declare(server.url, providerKey, { items: [item(terms, payTo, url)] })).status, 200);
});

after(async () => {
  if (server.child.exitCode === null) await stopServer(server);
  removeDataDir(dir);
});

async function paidCalls() {
  const l = await list(server.url, `?payTo=${payTo}`);
  return l.json.items.find((i) => i.resource === url).paidCallsToday;
}

// POSTs over a keep-alive agent limited to `connections` sockets.
function poster(connections) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const { port } = new URL(server.url);
  return (body, key = settleKey) => new Promise((resolve, reject) => {
    const data = JSON.stringify(body);
    const req = http.request({ host: "127.0.0.1", port, path: "/discovery/settled", method: "POST", agent,
      headers: { "content-type": "application/json", authorization: `Bearer ${key}`, "content-length": Buffer.byteLength(data) } },
      (res) => { let text = ""; res.on("data", (c) => (text += c)); res.on("end", () => resolve({ status: res.statusCode, headers: res.headers, text })); });
    req.on("error", reject);
    req.end(data);
  });
}

test("10,000 settles over 16 keep-alive connections count exactly 10,000", async () => {
  const post = poster(16);
  const before = await paidCalls();
  let success = 0;
  for (let start = 0; start < 10000; start += 1000) {
    const answers = await Promise.all(Array.from({ length: 1000 }, () => post(settleBody(terms, payTo, url))));
    for (const a of answers) {
      assert.equal(a.status, 200, a.text);
      if (JSON.parse(a.text).bazaar.status === "success") success++;
    }
  }
  assert.equal(success, 10000);
  // Counts are published within the counts interval (250 ms) of their answer: exact, not more.
  await waitFor("the last count published", async () => (await paidCalls()) - before >= 10000, 1000);
  assert.equal((await paidCalls()) - before, 10000);
});

test("the outcome is in the body and in EXTENSION-RESPONSES", async () => {
  const post = poster(1);
  const ok = await post(settleBody(terms, payTo, url));
  const header = JSON.parse(Buffer.from(ok.headers["extension-responses"], "base64").toString("utf8"));
  assert.deepEqual(header, { bazaar: { status: "success" } });
  assert.deepEqual(JSON.parse(ok.text), header);
  const rejected = await post(settleBody(terms, payTo, "https://paid.example.com/not-declared"));
  assert.equal(rejected.status, 200);
  const why = JSON.parse(Buffer.from(rejected.headers["extension-responses"], "base64").toString("utf8"));
  assert.equal(why.bazaar.status, "rejected");
  assert.match(why.bazaar.rejectedReason, /declares its items and none matches http https:\/\/paid\.example\.com\/not-declared GET/);
  const health = await (await fetch(`${server.url}/health`)).json();
  assert.ok(health.settles.counted >= 10001 && health.settles.rejected >= 1);
});

test("every item says how it was listed: from payments alone, then by its provider's declaration", async () => {
  const walkIn = "uregtest1walkin", route = "https://walkin.example.com/v1/thing";
  const key = addProvider(dir, "walkin", walkIn);
  await sleep(400);  // the server re-reads keys every 250 ms
  const listed = async () => (await list(server.url, `?payTo=${walkIn}`)).json.items;
  assert.equal(JSON.parse((await poster(1)(settleBody(terms, walkIn, route))).text).bazaar.status, "success");
  await sleep(50);
  assert.deepEqual((await listed()).map((i) => [i.resource, i.listedBy]), [[route, "settlement"]]);
  assert.equal((await declare(server.url, key, { items: [item(terms, walkIn, route)] })).status, 200);
  assert.deepEqual((await listed()).map((i) => [i.resource, i.listedBy, i.paidCallsToday]), [[route, "declaration", 1]]);
  const search = await (await fetch(`${server.url}/discovery/search?query=test+route&payTo=${walkIn}`)).json();
  assert.equal(search.resources[0].listedBy, "declaration");
  const resolved = await (await fetch(`${server.url}/discovery/resource?type=http&url=${encodeURIComponent(route)}`)).json();
  assert.equal(resolved.resources[0].listedBy, "declaration");
});

test("a wrong or missing settle key gets 401, a provider key 403, and nothing changes", async () => {
  const before = await paidCalls();
  const post = poster(1);
  const body = settleBody(terms, payTo, url);
  for (const key of ["z402sk_wrong", ""]) {
    const r = await post(body, key);
    assert.equal(r.status, 401);
    assert.equal(JSON.parse(r.text).error, "unauthorized");
  }
  const noHeader = await fetch(`${server.url}/discovery/settled`, { method: "POST", body: JSON.stringify(body) });
  assert.equal(noHeader.status, 401);
  const asProvider = await post(body, providerKey);
  assert.equal(asProvider.status, 403);
  assert.equal(JSON.parse(asProvider.text).error, "forbidden");
  assert.equal(await paidCalls(), before);
});

test("a malformed settle body gets 400 naming the field", async () => {
  const post = poster(1);
  for (const [body, field] of [[{ x402Version: 2 }, "paymentRequirements"], [{ x402Version: 7 }, "x402Version"]]) {
    const r = await post(body);
    assert.equal(r.status, 400);
    assert.equal(JSON.parse(r.text).details[0].field, field);
  }
  const notJson = await post("{]");
  assert.equal(notJson.status, 400);
});

test("counts survive a clean restart and a SIGKILL 1.5 s after the last acknowledged settle", async () => {
  const counted = await paidCalls();
  assert.equal((await stopServer(server)).code, 0);
  server = await startServer(dir);
  assert.equal(await paidCalls(), counted);
  const post = poster(8);
  const payments = Array.from({ length: 500 }, () => settleBody(terms, payTo, url));
  await Promise.all(payments.map((p) => post(p)));
  await sleep(1500);  // published within 250 ms, then saved within 1 s
  await stopServer(server, "SIGKILL");
  server = await startServer(dir);
  assert.equal(await paidCalls(), counted + 500);
  // The rail node retries all 500 (it never saw the answers): each is answered success as it was,
  // and counts nothing, since the payments file remembers them across the kill.
  const again = poster(8);
  const answers = await Promise.all(payments.map((p) => again(p)));
  assert.ok(answers.every((a) => a.status === 200 && JSON.parse(a.text).bazaar.status === "success"));
  await sleep(400);
  assert.equal(await paidCalls(), counted + 500);
  const health = await (await fetch(`${server.url}/health`)).json();
  assert.equal(health.settles.repeated, 500);
  assert.equal(health.settles.counted, 0);
});

test("a payment reported twice at once over two connections counts once, and both get success", async () => {
  const before = await paidCalls();
  const [a, b] = [poster(1), poster(1)];
  const payments = Array.from({ length: 200 }, () => settleBody(terms, payTo, url));
  const answers = await Promise.all(payments.flatMap((p) => [a(p), b({ ...p, paymentPayload: Object.fromEntries(Object.entries(p.paymentPayload).reverse()) })]));
  assert.ok(answers.every((r) => r.status === 200 && JSON.parse(r.text).bazaar.status === "success"));
  await waitFor("the counts published", async () => (await paidCalls()) - before >= 200, 1000);
  await sleep(300);
  assert.equal((await paidCalls()) - before, 200);
});

test("30 days of paid calls: the quality block, callsByDay, sort=calls30d, minCalls30d and search's usage prior, over HTTP and MCP", async () => {
  const quiet = "https://paid.example.com/v1/quiet", unpaid = "https://paid.example.com/v1/never";
  assert.equal((await declare(server.url, providerKey, { items: [item(terms, payTo, url), item(terms, payTo, unpaid), item(terms, payTo, quiet)] })).status, 200);
  const post = poster(4);
  const sentAt = Date.now();
  for (let i = 0; i < 3; i++) assert.equal((await post(settleBody(terms, payTo, quiet))).status, 200);
  const counted = async () => (await list(server.url, `?payTo=${payTo}`)).json.items.find((i) => i.resource === quiet);
  await waitFor("the quiet route's calls published", async () => (await counted()).quality.l30DaysTotalCalls === 3, 2000);
  const listed = await counted();
  assert.equal(listed.paidCallsToday, 3);
  assert.ok(Math.abs(Date.parse(listed.quality.lastCalledAt) - sentAt) < 60_000, listed.quality.lastCalledAt);
  // The busy route first (it was paid 10,000 times or more), then the quiet one; ties keep listing order.
  assert.deepEqual((await list(server.url, `?payTo=${payTo}`)).json.items.map((i) => i.resource), [url, unpaid, quiet]);
  const sorted = await list(server.url, `?payTo=${payTo}&sort=calls30d`);
  assert.deepEqual(sorted.json.items.map((i) => i.resource), [url, quiet, unpaid]);
  const busy = sorted.json.items[0].quality.l30DaysTotalCalls;
  assert.ok(busy >= 10_000, `${busy}`);
  assert.equal((await list(server.url, `?payTo=${payTo}&minCalls30d=${busy}`)).json.pagination.total, 1);
  assert.equal((await list(server.url, `?payTo=${payTo}&minCalls30d=${busy + 1}`)).json.pagination.total, 0);
  for (const [query, field] of [["sort=newest", "sort"], ["minCalls30d=-3", "minCalls30d"]]) {
    const refused = await list(server.url, `?${query}`);
    assert.equal(refused.status, 400);
    assert.equal(refused.json.error, "invalid_filter");
    assert.match(refused.json.message, new RegExp(field));
  }
  const resource = await (await fetch(`${server.url}/discovery/resource?type=http&url=${encodeURIComponent(quiet)}`)).json();
  const days = resource.resources[0].callsByDay;
  assert.equal(days.length, 30);
  assert.equal(days.at(-1), 3);
  assert.equal(days.slice(0, -1).reduce((a, b) => a + b, 0), 0);
  // MCP's list_resources takes the same sort and filter.
  const rpc = await fetch(`${server.url}/discovery/mcp`, {
    method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call",
      params: { name: "list_resources", arguments: { payTo, sort: "calls30d", minCalls30d: 1 } } }) });
  const answer = await rpc.json();
  assert.deepEqual(answer.result.structuredContent.items.map((i) => i.resource), [url, quiet]);
  // Search: the three match "test" alike, so their paid calls order them, each lifted by its
  // factor (at most 1.1), which explain shows beside the relevance.
  const found = await (await fetch(`${server.url}/discovery/search?query=test&payTo=${payTo}&explain=1`)).json();
  assert.deepEqual(found.resources.map((i) => i.resource), [url, quiet, unpaid]);
  const [busyWhy, quietWhy, unpaidWhy] = found.explain;
  assert.equal(busyWhy.relevance, quietWhy.relevance);
  assert.equal(unpaidWhy.score, quietWhy.relevance);
  assert.ok(busyWhy.usage > quietWhy.usage && quietWhy.usage > 1 && busyWhy.usage <= 1.1, JSON.stringify(found.explain));
  assert.equal(unpaidWhy.usage, undefined);
  const searched = await fetch(`${server.url}/discovery/mcp`, {
    method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "search_resources", arguments: { query: "test", payTo } } }) });
  assert.deepEqual((await searched.json()).result.structuredContent.resources.map((i) => i.resource), [url, quiet, unpaid]);
});
