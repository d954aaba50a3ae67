// Starts the built z402-bazaar on a free loopback port with its own data dir, and runs its CLI.
import assert from "node:assert/strict";
import { spawn, spawnSync, execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, writeFileSync, rmSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const binary = process.env.Z402_BAZAAR;
export const shared = process.env.Z402_SHARED;
if (!binary) throw new Error("Z402_BAZAAR must name the built z402-bazaar (ctest sets it)");

export function newDataDir() {
  return mkdtempSync(join(tmpdir(), "z402-e2e-"));
}

export function removeDataDir(dir) {
  rmSync(dir, { recursive: true, force: true });
}

/** Runs a CLI command; returns {status, stdout, stderr}. */
export function cli(args) {
  try {
    const stdout = execFileSync(binary, args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
    return { status: 0, stdout, stderr: "" };
  } catch (e) {
    return { status: e.status, stdout: e.stdout ?? "", stderr: e.stderr ?? "" };
  }
}

export function addProvider(dataDir, name, payTo) {
  const r = cli(["provider", "add", name, "--pay-to", payTo, "--data-dir", dataDir]);
  if (r.status !== 0) throw new Error(`provider add failed: ${r.stderr}`);
  return r.stdout.trim().split("\n").at(-1);
}

export function createSettleKey(dataDir) {
  const r = cli(["settle-key", "create", "--data-dir", dataDir]);
  if (r.status !== 0) throw new Error(`settle-key create failed: ${r.stderr}`);
  return r.stdout.trim().split("\n").at(-1);
}

/** A v2 settle body for `payTo` paying `url`. */
export function settleBody(terms, payTo, url) {
  const requirements = { ...terms, amount: "1000", payTo, maxTimeoutSeconds: 60 };
  // Every payment carries a nonce of its own, as real ones do: the catalog counts a payment once.
  return { x402Version: 2, paymentPayload: { x402Version: 2, resource: { url }, accepted: requirements, payload: { nonce: randomUUID() } }, paymentRequirements: requirements };
}

export function termsFile(dataDir) {
  const r = cli(["terms", "--data-dir", dataDir]);
  const file = join(dataDir, "terms.json");
  writeFileSync(file, r.stdout);
  return { file, terms: JSON.parse(r.stdout) };
}

/**
 * Spawns `file args` and resolves once a whole stderr line matches `listening` (under load a
 * line can arrive split across two chunks): {match, child, exited, log()}.
 */
function spawnListening(file, args, listening, what, fdLimit) {
  // With fdLimit the process's own fd limit is raised (bash's ulimit, then exec: the child is the
  // server itself), never the system's.
  const child = fdLimit
    ? spawn("bash", ["-c", `ulimit -n ${fdLimit} && exec "$0" "$@"`, file, ...args], { stdio: ["ignore", "pipe", "pipe"] })
    : spawn(file, args, { stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  const exited = new Promise((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what} did not start: ${stderr}`)), 10000);
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
      const match = stderr.match(listening);
      if (match && timer) {
        clearTimeout(timer);
        resolve({ match, child, exited, log: () => stderr });
      }
    });
    child.on("exit", () => reject(new Error(`${what} exited early: ${stderr}`)));
  });
}

/**
 * Starts `serve` and resolves once it listens: {url, port, child, log(), exited}. `fdLimit` raises
 * the server's own fd limit.
 */
export async function startServer(dataDir, extra = [], { fdLimit } = {}) {
  const listen = extra.includes("--listen") ? [] : ["--listen", "127.0.0.1:0"];
  const { match, ...started } = await spawnListening(binary, ["serve", ...listen, "--data-dir", dataDir, ...extra],
    /listening on (https?:\/\/(?:127\.0\.0\.1|\[::1\]):(\d+)) with /, "server", fdLimit);
  return { url: match[1], port: Number(match[2]), ...started };
}

/** Every thread's stack of a live process, by gdb (when the machine has it), for a hang's report. */
function threadStacks(pid) {
  const r = spawnSync("gdb", ["-p", String(pid), "-batch", "-ex", "thread apply all bt"], { encoding: "utf8", timeout: 60000 });
  if (r.error) return `(no stacks: ${r.error.message})`;
  return r.stdout.split("\n").filter((l) => /^(Thread|#)/.test(l)).join("\n");
}

/**
 * Signals the server and resolves with its exit {code, signal}. A server that has not exited
 * within `within` ms (scaled) is killed and the call throws with its log: a stop that hangs
 * fails the test that asked for it, instead of holding CTest until its own timeout.
 */
export async function stopServer(server, signal = "SIGTERM", { within = 20000 } = {}) {
  if (server.child.exitCode !== null || server.child.signalCode !== null) return server.exited;
  server.child.kill(signal);
  const exit = await settledWithin(server.exited, scaled(within));
  if (exit) return exit.value;
  const stacks = threadStacks(server.child.pid);
  server.child.kill("SIGKILL");
  await server.exited;
  throw new Error(`the server did not exit within ${scaled(within)} ms of ${signal}; its log:\n${server.log?.() ?? ""}\n` +
    `its threads:\n${stacks}`);
}

/** A declaration item valid against `terms` for `payTo`. */
export function item(terms, payTo, resource, extra = {}) {
  return {
    resource, type: "http", x402Version: 2,
    accepts: [{ ...terms, amount: "1000", payTo, maxTimeoutSeconds: 60 }],
    description: "A test route.", serviceName: "E2E", tags: ["test"],
    extensions: { z402: { unit: "call" } },
    ...extra,
  };
}

export async function declare(url, key, body, headers = {}) {
  const res = await fetch(`${url}/discovery/declarations`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${key}`, ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: res.status, body: await res.text() };
}

/** DELETE /discovery/declarations with `key` (none when undefined): {status, json}. */
export async function delist(url, key, body, headers = {}) {
  const res = await fetch(`${url}/discovery/declarations`, {
    method: "DELETE", headers: { "content-type": "application/json", ...(key ? { authorization: `Bearer ${key}` } : {}), ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}

export async function list(url, query = "", headers = {}) {
  const res = await fetch(`${url}/discovery/resources${query}`, { headers });
  return { status: res.status, json: res.status === 200 ? await res.json() : JSON.parse(await res.text()) };
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Polls `check` every 25 ms until it returns something truthy (returned), failing after `ms` (scaled). */
export async function waitFor(what, check, ms) {
  ms = scaled(ms);
  const end = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > end) assert.fail(`timed out after ${ms} ms waiting for ${what}`);
    await sleep(25);
  }
}

/** `promise`'s value as {value} if it settles within `ms`, else null (its timer never outlives it). */
export async function settledWithin(promise, ms) {
  let timer;
  const late = new Promise((resolve) => (timer = setTimeout(resolve, ms, null)));
  try {
    return await Promise.race([promise.then((value) => ({ value })), late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * `ms` stretched for slower builds: Z402_TEST_TIME_SCALE (tests/sanitize/run sets it for ASan and
 * UBSan, which make every process several times slower) multiplies the waits and deadlines
 * tests give processes, never what the processes themselves are configured with.
 */
export const timeScale = Number(process.env.Z402_TEST_TIME_SCALE) || 1;
export const scaled = (ms) => ms * timeScale;

/** A loopback port that was free a moment ago (for servers that must come back on it). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

export const demoBinary = process.env.Z402_DEMO;

/** Starts z402-demo-service; resolves once it listens: {url, child, log(), exited}. */
export async function startDemo(args) {
  if (!demoBinary) throw new Error("Z402_DEMO must name the built z402-demo-service (ctest sets it)");
  const { match, ...started } = await spawnListening(demoBinary, args, /listening on (https?:\/\/127\.0\.0\.1:\d+) as /, "demo");
  return { url: match[1], ...started };
}

/** Runs `z402-demo-service pay ...`: {status, stdout, stderr}. */
export function demoPay(args) {
  const r = spawnSync(demoBinary, ["pay", ...args], { encoding: "utf8" });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}
