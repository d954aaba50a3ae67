// Nothing is lost: a killed server comes back with what it acknowledged; a corrupt file is
// moved aside and the server starts empty.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, writeFileSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { newDataDir, removeDataDir, addProvider, termsFile, startServer, stopServer, item, declare, list, sleep } from "./lib/server.mjs";

test("SIGKILL after an acknowledged declaration is saved loses nothing", async () => {
  const dir = newDataDir();
  let server;
  try {
    const key = addProvider(dir, "acme", "uregtest1acme");
    const { terms } = termsFile(dir);
    server = await startServer(dir);
    const items = [1, 2, 3].map((n) => item(terms, "uregtest1acme", `https://kill.example.com/r${n}`));
    const r = await declare(server.url, key, { items });
    assert.equal(r.status, 200, r.body);
    // Saved within the persist interval (1 s) on an idle machine; on a loaded one, as soon as
    // /health says a save at or after the acknowledgement happened.
    const acknowledged = Date.parse(JSON.parse(r.body).lastSeen);
    for (let waited = 0; waited < 20000; waited += 100) {
      const saved = (await (await fetch(`${server.url}/health`)).json()).persistence?.lastSavedAt;
      if (saved && Date.parse(saved) >= acknowledged) break;
      await sleep(100);
    }
    const exit = await stopServer(server, "SIGKILL");
    assert.equal(exit.signal, "SIGKILL");
    server = await startServer(dir);
    const l = await list(server.url);
    assert.deepEqual(l.json.items.map((i) => i.resource), items.map((i) => i.resource));
    assert.equal(l.json.items[0].lastSeen, JSON.parse(r.body).lastSeen);
    assert.equal((await stopServer(server)).code, 0);
    server = null;
  } finally {
    if (server) await stopServer(server, "SIGKILL");
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
