// A data dir on a small filesystem that fills up (a tmpfs the test mounts; root only): writes
// are still acknowledged, /health says "degraded" with the persistence failure, the log says
// it once, the save is retried until space is back without waiting for another change, and
// everything acknowledged is on disk then (a SIGKILL after loses nothing). A data dir that
// cannot be written is refused at start; a provider command on a full disk changes nothing.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, appendFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { addProvider, cli, termsFile, startServer, stopServer, item, declare, list, sleep } from "./lib/server.mjs";

const mount = (dir, options) => spawnSync("mount", ["-t", "tmpfs", "-o", options, "tmpfs", dir]).status === 0;
const unmount = (dir) => spawnSync("umount", [dir]);
const probe = mkdtempSync(join(tmpdir(), "z402-disk-probe-"));
const canMount = process.getuid?.() === 0 && mount(probe, "size=64k");
if (canMount) unmount(probe);
rmSync(probe, { recursive: true, force: true });
const skip = canMount ? false : "needs root to mount a small tmpfs (run as root, as CI does)";

let dir;
before(() => {
  if (skip) return;
  dir = mkdtempSync(join(tmpdir(), "z402-disk-"));
  assert.ok(mount(dir, "size=1m"));
});

after(() => {
  if (skip) return;
  unmount(dir);
  rmSync(dir, { recursive: true, force: true });
});

/** Fills the filesystem of `dir` to the last byte; returns the filler's path. */
function fill(dir) {
  const filler = join(dir, "filler");
  writeFileSync(filler, "");
  const chunk = Buffer.alloc(4096, 1);
  for (;;) {
    try {
      appendFileSync(filler, chunk);
    } catch {
      break;
    }
  }
  for (;;) {
    try {
      appendFileSync(filler, Buffer.alloc(1));
    } catch {
      return filler;
    }
  }
}

const health = async (server) => (await fetch(`${server.url}/health`)).json();
const noTemporaryFiles = (dir) => assert.deepEqual(readdirSync(dir).filter((f) => f.includes(".tmp-")), []);

test("a full disk: acknowledged, degraded, said once, retried until space is back, then nothing is lost", { skip }, async () => {
  const payTo = "uregtest1disk";
  const key = addProvider(dir, "disk", payTo);
  const { terms } = termsFile(dir);
  let server = await startServer(dir);
  try {
    assert.equal((await declare(server.url, key, { items: [item(terms, payTo, "https://disk.example.com/first")] })).status, 200);
    await sleep(1200);
    const fine = await health(server);
    assert.equal(fine.status, "ok");
    assert.equal(fine.persistence.failingSince, null);
    assert.match(fine.persistence.lastSavedAt, /^\d{4}-/);

    const filler = fill(dir);
    const many = Array.from({ length: 40 }, (_, i) => item(terms, payTo, `https://disk.example.com/r${i}`, { description: "x".repeat(400) }));
    assert.equal((await declare(server.url, key, { items: many })).status, 200, "acknowledged though the disk is full");
    await sleep(2500);  // the coalesced write and a few retries fail
    const degraded = await health(server);
    assert.equal(degraded.status, "degraded");
    assert.match(degraded.persistence.failingSince, /^\d{4}-/);
    assert.match(degraded.persistence.lastError, /No space left on device/);
    assert.equal((await fetch(`${server.url}/health`)).status, 200, "still 200: reads are fine");
    assert.equal((await list(server.url)).json.pagination.total, 41, "reads go on");
    const lines = server.log().split("\n").filter((l) => /catalog not saved/.test(l));
    assert.equal(lines.length, 1, server.log());
    assert.match(lines[0], /No space left on device/);
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    assert.ok(Number(metrics.match(/^z402_persistence_failures_total (\d+)$/m)[1]) >= 2, "retried");
    noTemporaryFiles(dir);

    rmSync(filler);
    const back = Date.now();
    let h;
    do {
      await sleep(200);
      h = await health(server);
    } while (h.status !== "ok" && Date.now() - back < 6000);
    assert.equal(h.status, "ok", "saved within the retry interval (5 s) once space is back");
    assert.match(server.log(), /catalog saved again/);
    assert.ok(readFileSync(join(dir, "catalog.json"), "utf8").includes("https://disk.example.com/r39"));
    noTemporaryFiles(dir);

    await stopServer(server, "SIGKILL");
    server = await startServer(dir);
    assert.equal((await list(server.url)).json.pagination.total, 41, "everything acknowledged was on disk");
  } finally {
    if (server.child.exitCode === null) await stopServer(server);
  }
});

test("a provider command on a full disk changes nothing and says why", { skip }, async () => {
  const before = readFileSync(join(dir, "providers.json"), "utf8");
  const filler = fill(dir);
  try {
    const r = cli(["provider", "add", "late", "--pay-to", "uregtest1late", "--data-dir", dir]);
    assert.equal(r.status, 1);
    assert.equal(r.stdout, "", "no key is printed for a provider that was not saved");
    assert.equal(r.stderr.trim().split("\n").length, 1, r.stderr);
    assert.match(r.stderr, /^z402-bazaar provider add: .*No space left on device/);
    assert.equal(readFileSync(join(dir, "providers.json"), "utf8"), before);
    noTemporaryFiles(dir);
  } finally {
    rmSync(filler);
  }
});

test("a data dir that cannot be written is refused at start with one line, exit 1", { skip }, async () => {
  const ro = mkdtempSync(join(tmpdir(), "z402-ro-"));
  assert.ok(mount(ro, "ro,size=64k"));
  try {
    const r = spawnSync(process.env.Z402_BAZAAR, ["serve", "--listen", "127.0.0.1:0", "--data-dir", ro], { encoding: "utf8", timeout: 10000 });
    assert.equal(r.status, 1);
    const lines = r.stderr.trim().split("\n");
    assert.equal(lines.length, 1, r.stderr);
    assert.match(lines[0], /^z402-bazaar: error: the data dir cannot be written: cannot create .*Read-only file system/);
  } finally {
    unmount(ro);
    rmSync(ro, { recursive: true, force: true });
  }
});
