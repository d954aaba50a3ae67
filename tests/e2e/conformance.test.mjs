// The official @x402/extensions client, run by shared/conformance, against the real server.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { newDataDir, removeDataDir, addProvider, termsFile, startServer, stopServer, shared } from "./lib/server.mjs";

test("the official client lists, pages, filters and searches what it declared", async () => {
  const dir = newDataDir();
  const key = addProvider(dir, "conformance", "uregtest1conformance");
  const { file } = termsFile(dir);
  const server = await startServer(dir);
  try {
    const run = spawnSync(join(shared, "conformance/official-client/run"),
      [server.url, "--provider-key", key, "--pay-to", "uregtest1conformance", "--terms", file],
      { encoding: "utf8", timeout: 240000 });
    process.stdout.write(run.stdout + run.stderr);
    assert.equal(run.status, 0, "the official client reported failures");
    assert.match(run.stdout, /official client: \d+ passed, 0 failed/);
  } finally {
    assert.equal((await stopServer(server)).code, 0);
    removeDataDir(dir);
  }
});
