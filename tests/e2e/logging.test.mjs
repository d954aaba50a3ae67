// One log sink: every line the server prints, its own and the library's (keyring, settle,
// persistence) and the access log, goes through it; --log-format json makes each a JSON
// object with time, level, program, component and message. No line ever holds a key.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  newDataDir, removeDataDir, addProvider, createSettleKey, termsFile, startServer, stopServer, item, declare, settleBody, sleep,
} from "./lib/server.mjs";

let dir, server, key, settleKey, terms;
const payTo = "uregtest1logs";

before(async () => {
  dir = newDataDir();
  key = addProvider(dir, "acme", payTo);
  settleKey = createSettleKey(dir);
  terms = termsFile(dir).terms;
  server = await startServer(dir, ["--log-format", "json"]);
});

after(async () => {
  if (server?.child.exitCode === null) await stopServer(server);
  removeDataDir(dir);
});

const records = () => server.log().trim().split("\n").map((line) => {
  try {
    return JSON.parse(line);
  } catch {
    assert.fail(`not a JSON line: ${line}`);
  }
});

test("every line is a JSON object with time, level, program, component and message", async () => {
  await fetch(`${server.url}/discovery/resources?payTo=secret-intent-words`);
  await sleep(400);  // access lines are flushed every 250 ms
  const all = records();
  assert.ok(all.length >= 2);
  for (const r of all) {
    assert.match(r.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.ok(["debug", "info", "warning", "error"].includes(r.level), r.level);
    assert.equal(r.program, "z402-bazaar");
    assert.equal(typeof r.component, "string");
    assert.equal(typeof r.message, "string");
  }
  assert.match(all[0].message, /^listening on http:\/\/127\.0\.0\.1:\d+ with 0 items/);
  const access = all.find((r) => r.component === "http.access" && r.path === "/discovery/resources");
  assert.deepEqual({ method: access.method, status: access.status }, { method: "GET", status: 200 });
  assert.equal(typeof access.bytes, "number");
  assert.equal(typeof access.durationUs, "number");
  assert.ok(!server.log().includes("secret-intent-words"), "no query string");
});

test("the library's own lines come through the same sink, by component", async () => {
  // SETTLE: a rejected settle event is logged (at most once a second) as a warning.
  const res = await fetch(`${server.url}/discovery/settled`, {
    method: "POST", headers: { authorization: `Bearer ${settleKey}` }, body: JSON.stringify(settleBody(terms, "uregtest1nobody", "https://x.example.com/a")),
  });
  assert.equal(res.status, 200);
  // The keyring: a file that becomes malformed keeps the previous keys, and says so.
  const keyring = join(dir, "providers.json");
  const good = readFileSync(keyring, "utf8");
  appendFileSync(keyring, "garbage");
  await sleep(600);
  writeFileSync(keyring, good);
  await sleep(300);
  const all = records();
  const settle = all.find((r) => r.component === "catalog.settle");
  assert.equal(settle.level, "warning");
  assert.equal(settle.message, "settle events not catalogued");
  assert.equal(settle.cause, "unknown_payee");
  const keys = all.find((r) => r.component === "auth.keyring");
  assert.equal(keys.level, "error");
  assert.equal(keys.message, "keeping the previous provider keys");
});

test("no line holds a key, even one pasted into a path or echoed in a declaration", async () => {
  await fetch(`${server.url}/discovery/${key}`, { headers: { authorization: `Bearer ${key}` } });
  await fetch(`${server.url}/discovery/resources`, { headers: { authorization: `Bearer ${settleKey}x` } });
  const r = await declare(server.url, key, { items: [item(terms, payTo, "https://logs.example.com/a", { description: `my key is ${key}` })] });
  assert.ok(r.status === 200 || r.status === 400, r.body);
  await sleep(400);
  const log = server.log();
  for (const secret of [key, settleKey, key.slice(7), settleKey.slice(7)]) assert.ok(!log.includes(secret), "a key reached the log");
  assert.ok(records().some((r) => r.path === "/discovery/z402pk_[redacted]"), "the pasted key is redacted, the line kept");
});

test("text is the default format: one line per record, starting with the program's name", async () => {
  const other = newDataDir();
  const s = await startServer(other);
  try {
    await fetch(`${s.url}/health`);
    await stopServer(s);
    const lines = s.log().trim().split("\n");
    for (const line of lines) assert.match(line, /^z402-bazaar: /);
    assert.ok(lines.some((l) => /^z402-bazaar: request method=GET path=\/health status=200 bytes=\d+ durationUs=\d+$/.test(l)), s.log());
    assert.equal(lines.at(-1), "z402-bazaar: stopped; catalog saved");
  } finally {
    removeDataDir(other);
  }
});
