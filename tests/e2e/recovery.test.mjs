// Nothing is lost: a killed server comes back with what it acknowledged; a corrupt file is
// moved aside and the server starts empty.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, writeFileSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { newDataDir, removeDataDir, addProvider, termsFile, startServer, stopServer, item, declare, list, sleep } from "./lib/server.mjs";

test("SIGKILL two seconds after an acknowledged declaration loses nothing", async () => {
  const dir = newDataDir();
  try {
    const key = addProvider(dir, "acme", "uregtest1acme");
    const { terms } = termsFile(dir);
    let server = await startServer(dir);
    const items = [1, 2, 3].map((n) => item(terms, "uregtest1acme", `https://kill.example.com/r${n}`));
    const r = await declare(server.url, key, { items });
    assert.equal(r.status, 200, r.body);
    await sleep(2000);
    const exit = await stopServer(server, "SIGKILL");
    assert.equal(exit.signal, "SIGKILL");
    server = await startServer(dir);
    const l = await list(server.url);
    assert.deepEqual(l.json.items.map((i) => i.resource), items.map((i) => i.resource));
    assert.equal(l.json.items[0].lastSeen, JSON.parse(r.body).lastSeen);
    assert.equal((await stopServer(server)).code, 0);
  } finally {
    removeDataDir(dir);
  }
});

test("a corrupt catalog file is kept aside with one clear log line and the catalog starts empty", async () => {
  const dir = newDataDir();
  try {
    const key = addProvider(dir, "acme", "uregtest1acme");
    const { terms } = termsFile(dir);
    writeFileSync(join(dir, "catalog.json"), '{"format":"z402-catalog","version":1,"items":[{"provid');
    const server = await startServer(dir);
    const lines = server.log().split("\n").filter((l) => /corrupt/.test(l));
    assert.equal(lines.length, 1);
    assert.match(lines[0], /catalog\.json is corrupt .*moved aside to .*catalog\.json\.corrupt-\d+/);
    const aside = readdirSync(dir).filter((f) => f.startsWith("catalog.json.corrupt-"));
    assert.equal(aside.length, 1);
    assert.ok(readFileSync(join(dir, aside[0]), "utf8").includes('"provid'));
    const l = await list(server.url);
    assert.equal(l.status, 200);
    assert.equal(l.json.pagination.total, 0);
    // The next heartbeat rebuilds it; provider records were never in that file.
    assert.equal((await declare(server.url, key, { items: [item(terms, "uregtest1acme", "https://back.example.com/x")] })).status, 200);
    assert.equal((await list(server.url)).json.pagination.total, 1);
    assert.equal((await stopServer(server)).code, 0);
  } finally {
    removeDataDir(dir);
  }
});
