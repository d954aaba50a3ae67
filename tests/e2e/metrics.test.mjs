// GET /metrics as Prometheus scrapes it: the whole page parsed by the official Python client's
// parser, counts that move with the requests made, and nothing that is a secret or a query.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  newDataDir, removeDataDir, addProvider, createSettleKey, termsFile, startServer, stopServer, item, declare, settleBody, sleep,
} from "./lib/server.mjs";

const parser = new URL("./lib/prometheus-parse.py", import.meta.url).pathname;
// The version the build was made from: the project's, in one place.
const projectVersion = readFileSync(new URL("../../CMakeLists.txt", import.meta.url), "utf8").match(/project\(\S+ VERSION (\S+)/)[1];
let dir, server, key, settleKey, terms;
const payTo = "uregtest1metricsprovider";

before(async () => {
  dir = newDataDir();
  key = addProvider(dir, "acme", payTo);
  settleKey = createSettleKey(dir);
  terms = termsFile(dir).terms;
  server = await startServer(dir);
});

after(async () => {
  if (server?.child.exitCode === null) await stopServer(server);
  removeDataDir(dir);
});

/** Scrapes /metrics; returns {text, families, value(name, labels)}. */
async function scrape(url = server.url) {
  const res = await fetch(`${url}/metrics`);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("content-type"), "text/plain; version=0.0.4; charset=utf-8");
  const text = await res.text();
  const parsed = spawnSync("/usr/bin/python3", [parser], { input: text, encoding: "utf8" });
  assert.equal(parsed.status, 0, `the Prometheus parser refused the page: ${parsed.stderr}`);
  const { families, samples } = JSON.parse(parsed.stdout);
  const value = (name, labels = {}) => {
    const found = samples.filter(([n, l]) => n === name && Object.entries(labels).every(([k, v]) => l[k] === v));
    assert.ok(found.length > 0, `no sample ${name} ${JSON.stringify(labels)}`);
    return found.reduce((sum, [, , v]) => sum + v, 0);
  };
  return { text, families, value };
}

const settle = (body) => fetch(`${server.url}/discovery/settled`, {
  method: "POST", headers: { authorization: `Bearer ${settleKey}`, "content-type": "application/json" }, body: JSON.stringify(body),
});

test("the page parses and names every family the issue lists", async () => {
  const { families, value } = await scrape();
  for (const [name, type] of Object.entries({
    z402_build_info: "gauge", z402_http_requests: "counter", z402_http_request_duration_seconds: "histogram",
    z402_http_connections_open: "gauge", z402_http_requests_in_flight: "gauge", z402_http_read_buffers: "gauge",
    z402_catalog_items: "gauge",
    z402_providers: "gauge", z402_catalog_bytes: "gauge", z402_snapshot_version: "gauge",
    z402_snapshot_published_timestamp_seconds: "gauge", z402_declarations: "counter", z402_settles: "counter",
    z402_persistence_last_success_timestamp_seconds: "gauge", z402_persistence_failures: "counter",
    z402_declaration_body_bytes: "gauge", z402_declaration_body_bytes_limit: "gauge", z402_declaration_body_waits: "counter",
    z402_declaration_bodies_waiting: "gauge",
  })) assert.equal(families[name], type, name);
  assert.equal(value("z402_declaration_body_bytes_limit"), 4 * 1024 * 1024, "the default bytes in flight");
  assert.equal(value("z402_build_info", { version: projectVersion }), 1);
  assert.equal(value("z402_providers"), 1);
  assert.ok(value("z402_http_connections_open") >= 1, "the scrape's own connection is open");
});

test("counts move with the requests made", async () => {
  const before = await scrape();
  for (let i = 0; i < 5; i++) assert.equal((await fetch(`${server.url}/discovery/resources?limit=3`)).status, 200);
  assert.equal((await fetch(`${server.url}/discovery/search`)).status, 400);  // query_required
  assert.equal((await fetch(`${server.url}/nowhere`)).status, 404);
  const ok = await declare(server.url, key, { items: [item(terms, payTo, "https://metrics.example.com/v1/a")] });
  assert.equal(ok.status, 200, ok.body);
  const badAmount = item(terms, payTo, "https://metrics.example.com/v1/b");
  badAmount.accepts[0].amount = "-1";
  assert.equal((await declare(server.url, key, { items: [badAmount] })).status, 400);
  assert.equal((await declare(server.url, key, "{not json")).status, 400);
  assert.equal((await settle(settleBody(terms, payTo, "https://metrics.example.com/v1/a"))).status, 200);
  assert.equal((await settle(settleBody(terms, "uregtest1nobody", "https://metrics.example.com/v1/a"))).status, 200);
  await sleep(300);  // the settle's publication and the last answers' bookkeeping

  const after = await scrape();
  const delta = (name, labels) => after.value(name, labels) - before.value(name, labels);
  assert.equal(delta("z402_http_requests_total", { route: "resources", code: "2xx" }), 5);
  assert.equal(delta("z402_http_requests_total", { route: "search", code: "4xx" }), 1);
  assert.equal(delta("z402_http_requests_total", { route: "not_found", code: "4xx" }), 1);
  assert.equal(delta("z402_http_requests_total", { route: "declarations", code: "2xx" }), 1);
  assert.equal(delta("z402_http_requests_total", { route: "declarations", code: "4xx" }), 2);
  assert.equal(delta("z402_http_requests_total", { route: "settled", code: "2xx" }), 2);
  assert.equal(delta("z402_http_request_duration_seconds_count", { route: "resources" }), 5);
  assert.equal(delta("z402_http_request_duration_seconds_bucket", { route: "resources", le: "+Inf" }), 5);
  assert.equal(delta("z402_declarations_total", { outcome: "accepted" }), 1);
  assert.equal(delta("z402_declarations_total", { outcome: "refused", family: "accepts" }), 1);
  assert.equal(delta("z402_declarations_total", { outcome: "refused", family: "body" }), 1);
  assert.equal(delta("z402_settles_total", { outcome: "counted" }), 1);
  assert.equal(delta("z402_settles_total", { outcome: "rejected", reason: "unknown_payee" }), 1);
  assert.equal(after.value("z402_catalog_items"), 1);
  assert.ok(after.value("z402_catalog_bytes") > 0);
  assert.ok(after.value("z402_snapshot_version") > before.value("z402_snapshot_version"));
  assert.ok(Math.abs(after.value("z402_snapshot_published_timestamp_seconds") - Date.now() / 1000) < 60);
  assert.equal(after.value("z402_http_requests_in_flight"), 1, "only the scrape itself is in flight");
});

test("the catalog file's last successful save is a recent time", async () => {
  await sleep(1500);  // saves are coalesced to about one a second
  const { value } = await scrape();
  assert.ok(Math.abs(value("z402_persistence_last_success_timestamp_seconds") - Date.now() / 1000) < 60);
  assert.equal(value("z402_persistence_failures_total"), 0);
});

test("no key, query string or payTo ever appears on the page", async () => {
  await fetch(`${server.url}/discovery/search?query=secret-intent-words`);
  await fetch(`${server.url}/discovery/${key}`, { headers: { authorization: `Bearer ${key}` } });
  const { text } = await scrape();
  for (const secret of [key, settleKey, "secret-intent-words", payTo, "z402pk_", "z402sk_", "metrics.example.com"])
    assert.ok(!text.includes(secret), `the page holds ${secret}`);
});

test("metrics can be turned off in the configuration: /metrics is then 404", async () => {
  const other = newDataDir();
  writeFileSync(join(other, "config.json"), JSON.stringify({ metrics: false }));
  const s = await startServer(other);
  try {
    const res = await fetch(`${s.url}/metrics`);
    assert.equal(res.status, 404);
    assert.equal((await res.json()).error, "not_found");
  } finally {
    await stopServer(s);
    removeDataDir(other);
  }
});
