// The signed catalog (docs/trust.md): keys made with z402-bazaar catalog-key, notes served by a
// primary, copied to nginx and checked by z402-discover --root-key, by Go's own note package
// (golang.org/x/mod/sumdb/note) and against tampering, rollback, equivocation and expiry.
import { describe, test, before, after } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import { spawn, spawnSync, execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync, chmodSync, statSync, existsSync } from "node:fs";
import { join } from "node:path";
import { createHash } from "node:crypto";
import {
  newDataDir, removeDataDir, addProvider, termsFile, startServer, stopServer, item, declare, cli, freePort, waitFor,
} from "./lib/server.mjs";

const discoverBinary = process.env.Z402_DISCOVER;
if (!discoverBinary) throw new Error("Z402_DISCOVER must name the built z402-discover (ctest sets it)");

const discoverLimitMs = 30_000;

/** Runs z402-discover; a run that outlives discoverLimitMs is killed and reported as such. */
function discover(args, { env } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(discoverBinary, args, { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, ...env } });
    let stdout = "", stderr = "";
    const limit = setTimeout(() => child.kill("SIGKILL"), discoverLimitMs);
    child.stdout.on("data", (c) => (stdout += c));
    child.stderr.on("data", (c) => (stderr += c));
    child.on("error", (e) => { clearTimeout(limit); reject(new Error(`${discoverBinary} could not run: ${e.message}`)); });
    child.on("close", (code, signal) => {
      clearTimeout(limit);
      if (signal === "SIGKILL") reject(new Error(`${[discoverBinary, ...args].join(" ")} ran past ${discoverLimitMs} ms; stderr: ${stderr}`));
      else resolve({ code, stdout, stderr });
    });
  });
}

/** A loopback server answering each path from `files` (a function of the path, or a map); 404 otherwise. */
function serveFiles(files) {
  const server = http.createServer((req, res) => {
    const body = typeof files === "function" ? files(req.url) : files[req.url];
    if (body === undefined) return res.writeHead(404).end();
    res.writeHead(200, { "content-length": Buffer.byteLength(body) }).end(body);
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () =>
    resolve({ url: `http://127.0.0.1:${server.address().port}`, close: () => { server.closeAllConnections(); server.close(); } })));
}

const get = async (url) => { const r = await fetch(url); return { status: r.status, text: await r.text(), headers: r.headers }; };
const line = (note, label) => note.split("\n").find((l) => l.startsWith(label + " ")).slice(label.length + 1);
const hexOf = (note) => Buffer.from(line(note, "sha256"), "base64").toString("hex");

let dir, root, rootKey, primary, providerKey, terms, state, work, feedPort;

before(async () => {
  dir = newDataDir();
  work = newDataDir();
  root = join(work, "root.key");
  state = join(work, "state.json");
  const made = cli(["catalog-key", "root", "bazaar.test", "--out", root]);
  assert.equal(made.status, 0, made.stderr);
  rootKey = made.stdout.trim();
  assert.equal(cli(["catalog-key", "online", "bazaar.test", "--data-dir", dir]).status, 0);
  assert.equal(cli(["catalog-key", "delegate", "--root", root, "--data-dir", dir]).status, 0);
  providerKey = addProvider(dir, "acme", "uregtest1acme");
  terms = termsFile(dir).terms;
  // Declared in a first run, so the second run's first note (at start) signs it.
  primary = await startServer(dir);
  const r = await declare(primary.url, providerKey, {
    items: [item(terms, "uregtest1acme", "https://acme.example.com/v1/weather", { description: "Weather forecast by city." })] });
  assert.equal(r.status, 200);
  await stopServer(primary);
  feedPort = await freePort();
  primary = await startServer(dir, ["--cluster-listen", `127.0.0.1:${feedPort}`]);
});

after(async () => {
  if (primary) await stopServer(primary);
  removeDataDir(dir);
  removeDataDir(work);
});

describe("catalog keys", () => {
  test("keys are written 0600, never overwritten, never printed; the pin is the verifier key", () => {
    assert.equal(statSync(root).mode & 0o777, 0o600);
    assert.equal(statSync(join(dir, "catalog-online.key")).mode & 0o777, 0o600);
    assert.match(rootKey, /^bazaar\.test\+[0-9a-f]{8}\+[A-Za-z0-9+/]+=*$/);
    const again = cli(["catalog-key", "root", "bazaar.test", "--out", root]);
    assert.equal(again.status, 1);
    assert.match(again.stderr, /exists; a key is never overwritten/);
    // PRIVATE+KEY+NAME+HASH+BASE64: the base64 (which may hold '+' itself) is the secret.
    const secretOf = (file) => readFileSync(file, "utf8").trim().split("+").slice(4).join("+");
    assert.ok(secretOf(root).length > 40);
    assert.ok(!primary.log().includes(secretOf(root)));
    assert.ok(!primary.log().includes(secretOf(join(dir, "catalog-online.key"))));
    assert.equal(cli(["catalog-key", "root", "has space", "--out", join(work, "x.key")]).status, 1);
    assert.equal(cli(["catalog-key", "delegate", "--root", root, "--data-dir", dir, "--days", "0"]).status, 1);
    assert.equal(cli(["catalog-key", "delegate", "--root", root, "--data-dir", dir, "--days", "367"]).status, 1);
  });

  test("a server refuses to start with an online key others may read, or one the keys note does not name", async () => {
    const other = newDataDir();
    try {
      assert.equal(cli(["catalog-key", "online", "bazaar.test", "--data-dir", other]).status, 0);
      assert.equal(cli(["catalog-key", "delegate", "--root", root, "--data-dir", other]).status, 0);
      chmodSync(join(other, "catalog-online.key"), 0o644);
      let r = spawnSync(process.env.Z402_BAZAAR, ["serve", "--listen", "127.0.0.1:0", "--data-dir", other], { encoding: "utf8", timeout: 20000 });
      assert.notEqual(r.status, 0);
      assert.match(r.stderr, /online key .* is readable by others/);
      chmodSync(join(other, "catalog-online.key"), 0o600);
      assert.equal(cli(["catalog-key", "online", "bazaar.test", "--data-dir", other, "--replace"]).status, 0);
      r = spawnSync(process.env.Z402_BAZAAR, ["serve", "--listen", "127.0.0.1:0", "--data-dir", other], { encoding: "utf8", timeout: 20000 });
      assert.notEqual(r.status, 0);
      assert.match(r.stderr, /does not name the online key/);
    } finally {
      removeDataDir(other);
    }
  });
});

describe("the primary's signed catalog", () => {
  test("note, keys note and bytes are served; the note has at least 10 minutes left; sequences grow across restarts", async () => {
    const note = await get(`${primary.url}/discovery/catalog/note`);
    assert.equal(note.status, 200);
    assert.equal(note.headers.get("cache-control"), "no-cache");
    const lines = note.text.split("\n");
    assert.equal(lines[0], "bazaar.test");
    assert.equal(lines[1], "z402 catalog 1");
    assert.ok(Number(line(note.text, "sequence")) >= 2, "the second run signs after the first's sequence");
    assert.ok(Date.parse(line(note.text, "expires")) - Date.now() >= 10 * 60 * 1000);
    const health = await (await fetch(`${primary.url}/health`)).json();
    assert.ok(health.signedCatalog.secondsLeft >= 600);
    const bytes = await fetch(`${primary.url}/discovery/catalog/${hexOf(note.text)}.json`, { headers: { "accept-encoding": "identity" } });
    const body = Buffer.from(await bytes.arrayBuffer());
    assert.equal(bytes.headers.get("cache-control"), "public, max-age=31536000, immutable");
    assert.equal(body.length, Number(line(note.text, "size")));
    assert.equal(createHash("sha256").update(body).digest("hex"), hexOf(note.text));
    assert.equal(JSON.parse(body).items[0].resource, "https://acme.example.com/v1/weather");
    // What Node's fetch asks for: gzip, the same bytes once decoded.
    const gz = await fetch(`${primary.url}/discovery/catalog/${hexOf(note.text)}.json`);
    assert.equal(gz.headers.get("content-encoding"), "gzip");
    assert.equal(createHash("sha256").update(Buffer.from(await gz.arrayBuffer())).digest("hex"), hexOf(note.text));
    assert.equal((await get(`${primary.url}/discovery/catalog/${"0".repeat(64)}.json`)).status, 404);
    assert.equal(readFileSync(join(dir, "catalog.sequence"), "utf8"), line(note.text, "sequence") + "\n");
  });

  test("a catalog that is not signed answers 404 and the agent says once it did not verify", async () => {
    const plain = newDataDir();
    const node = await startServer(plain);
    try {
      const r = await get(`${node.url}/discovery/catalog/note`);
      assert.equal(r.status, 404);
      assert.match(JSON.parse(r.text).message, /not signed/);
      const d = await discover(["--discovery", node.url, "--intent", "weather"]);
      assert.equal(d.code, 1);
      assert.equal(d.stderr.match(/not verified/g).length, 1);
      const pinned = await discover(["--discovery", node.url, "--intent", "weather", "--root-key", rootKey, "--state-file", join(plain, "s.json")]);
      assert.equal(pinned.code, 3, pinned.stderr);
    } finally {
      await stopServer(node);
      removeDataDir(plain);
    }
  });
});

describe("the agent verifies", () => {
  test("a signed catalog is verified, ranked and remembered", async () => {
    const r = await discover(["--discovery", primary.url, "--intent", "weather forecast", "--root-key", rootKey, "--state-file", state]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /pick: GET https:\/\/acme\.example\.com\/v1\/weather/);
    assert.ok(!/not verified/.test(r.stderr));
    const remembered = JSON.parse(readFileSync(state, "utf8")).catalogs["bazaar.test"];
    assert.ok(remembered.sequence >= 2);
  });

  test("the root key and state file come from the config file too; the command line wins; a bad config is a usage error", async () => {
    const home = join(work, "config-home");
    mkdirSync(join(home, "z402-discover"), { recursive: true });
    writeFileSync(join(home, "z402-discover", "config.json"), JSON.stringify({ rootKey: rootKey, stateFile: join(work, "configured.json") }));
    let r = await discover(["--discovery", primary.url, "--intent", "weather"], { env: { XDG_CONFIG_HOME: home } });
    assert.equal(r.code, 0, r.stderr);
    assert.ok(existsSync(join(work, "configured.json")));
    const wrong = "bazaar.test+00000000+AaGWEQcCAo04phf5w4bel/IlgVzXmk3XwsUGovyw6SsI";
    r = await discover(["--discovery", primary.url, "--intent", "weather", "--root-key", wrong], { env: { XDG_CONFIG_HOME: home } });
    assert.equal(r.code, 2);
    assert.match(r.stderr, /--root-key's hash does not match/);
    writeFileSync(join(work, "bad.json"), JSON.stringify({ rootkey: rootKey }));
    r = await discover(["--discovery", primary.url, "--intent", "weather", "--config", join(work, "bad.json")]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /unknown key rootkey/);
  });

  /** The primary's three files, with `bend` applied to them, served by a loopback server. */
  async function bent(bend) {
    const note = (await get(`${primary.url}/discovery/catalog/note`)).text;
    const keys = (await get(`${primary.url}/discovery/catalog/keys.note`)).text;
    const hex = hexOf(note);
    const bytes = (await get(`${primary.url}/discovery/catalog/${hex}.json`)).text;
    const files = bend({ note, keys, bytes });
    return serveFiles({
      "/discovery/catalog/note": files.note, "/discovery/catalog/keys.note": files.keys,
      [`/discovery/catalog/${hex}.json`]: files.bytes,
    });
  }
  const flip = (text, at) => text.slice(0, at) + String.fromCharCode(text.charCodeAt(at) ^ 1) + text.slice(at + 1);

  for (const [what, bend, code, check] of [
    ["one byte of the bytes", (f) => ({ ...f, bytes: flip(f.bytes, 30) }), 8, "catalog-bytes"],
    ["one byte of the note's body", (f) => ({ ...f, note: flip(f.note, f.note.indexOf("size ") + 5) }), 6, "catalog-signature"],
    ["one byte of the note's signature", (f) => ({ ...f, note: flip(f.note, f.note.length - 6) }), 6, "catalog-signature"],
    ["one byte of the keys note", (f) => ({ ...f, keys: flip(f.keys, f.keys.indexOf("online ") + 12) }), 4, "keys-signature"],
  ]) {
    test(`tampering with ${what} is refused: exit ${code}, ${check}`, async () => {
      const server = await bent(bend);
      try {
        const r = await discover(["--discovery", server.url, "--intent", "weather", "--root-key", rootKey, "--state-file", join(work, "tamper.json")]);
        assert.equal(r.code, code, r.stderr);
        assert.equal(r.stderr.trim().split("\n").length, 1);
        assert.match(r.stderr, new RegExp(`^z402-discover: refused \\(${check}\\): `));
        assert.equal(r.stdout, "");
      } finally {
        server.close();
      }
    });
  }

  test("rollback and equivocation are refused from the state file", async () => {
    const note = (await get(`${primary.url}/discovery/catalog/note`)).text;
    const sequence = Number(line(note, "sequence"));
    const args = ["--discovery", primary.url, "--intent", "weather", "--root-key", rootKey, "--state-file", join(work, "history.json")];
    writeFileSync(join(work, "history.json"), JSON.stringify({ catalogs: { "bazaar.test": { sequence: sequence + 5, sha256: line(note, "sha256") } } }));
    let r = await discover(args);
    assert.equal(r.code, 9, r.stderr);
    assert.match(r.stderr, /refused \(rollback\)/);
    writeFileSync(join(work, "history.json"), JSON.stringify({ catalogs: { "bazaar.test": { sequence, sha256: Buffer.alloc(32, 7).toString("base64") } } }));
    r = await discover(args);
    assert.equal(r.code, 10, r.stderr);
    assert.match(r.stderr, /refused \(equivocation\)/);
    // A state file that is not the agent's is not overwritten: without it a rollback could not be told.
    writeFileSync(join(work, "history.json"), "not json");
    r = await discover(args);
    assert.equal(r.code, 3, r.stderr);
    assert.match(r.stderr, /history\.json is not the agent's state/);
    assert.equal(readFileSync(join(work, "history.json"), "utf8"), "not json");
  });

  test("nginx serving copied files gives the same bytes, and the agent verifies through it and through a mirror", async () => {
    const html = join(work, "html"), files = join(html, "discovery", "catalog");
    mkdirSync(files, { recursive: true });
    // nginx's workers (www-data when it starts as root) read the files: the directories are opened to them.
    for (const d of [work, html, join(html, "discovery"), files]) chmodSync(d, 0o755);
    const note = (await get(`${primary.url}/discovery/catalog/note`)).text;
    const hex = hexOf(note);
    const bytes = Buffer.from(await (await fetch(`${primary.url}/discovery/catalog/${hex}.json`, { headers: { "accept-encoding": "identity" } })).arrayBuffer());
    writeFileSync(join(files, "note"), note);
    writeFileSync(join(files, "keys.note"), (await get(`${primary.url}/discovery/catalog/keys.note`)).text);
    writeFileSync(join(files, `${hex}.json`), bytes);
    const port = 20000 + Math.floor(Math.random() * 20000);
    writeFileSync(join(work, "nginx.conf"), `pid ${work}/nginx.pid; error_log ${work}/nginx-error.log; daemon on;
events { worker_connections 64; }
http { access_log off; default_type text/plain; server { listen 127.0.0.1:${port}; root ${html}; } }`);
    execFileSync("nginx", ["-c", join(work, "nginx.conf")]);
    try {
      const mirror = `http://127.0.0.1:${port}`;
      assert.equal(await (await fetch(`${mirror}/discovery/catalog/note`)).text(), note);
      const served = Buffer.from(await (await fetch(`${mirror}/discovery/catalog/${hex}.json`)).arrayBuffer());
      assert.ok(served.equals(bytes));
      let r = await discover(["--discovery", mirror, "--intent", "weather", "--root-key", rootKey, "--state-file", join(work, "nginx.json")]);
      assert.equal(r.code, 0, r.stderr);
      // The note from the primary, the bytes from a mirror directory.
      r = await discover(["--discovery", primary.url, "--mirror", `${mirror}/discovery/catalog/`, "--intent", "weather",
        "--root-key", rootKey, "--state-file", join(work, "mirror.json")]);
      assert.equal(r.code, 0, r.stderr);
    } finally {
      spawnSync("nginx", ["-c", join(work, "nginx.conf"), "-s", "stop"]);
    }
  });
});

describe("a follower", () => {
  test("serves its primary's notes and bytes unchanged, through the feed, and the agent verifies through it", async () => {
    const fdir = newDataDir();
    const follower = await startServer(fdir, ["--follow", `127.0.0.1:${feedPort}`]);
    try {
      const note = await waitFor("the follower's signed catalog", async () => {
        const [a, b] = await Promise.all([get(`${primary.url}/discovery/catalog/note`), get(`${follower.url}/discovery/catalog/note`)]);
        return b.status === 200 && a.text === b.text ? b.text : null;
      }, 10000);
      assert.equal((await get(`${follower.url}/discovery/catalog/keys.note`)).text, (await get(`${primary.url}/discovery/catalog/keys.note`)).text);
      const bytesOf = async (url) => Buffer.from(await (await fetch(`${url}/discovery/catalog/${hexOf(note)}.json`, { headers: { "accept-encoding": "identity" } })).arrayBuffer());
      assert.ok((await bytesOf(follower.url)).equals(await bytesOf(primary.url)));
      const health = await (await fetch(`${follower.url}/health`)).json();
      assert.equal(health.signedCatalog.sequence, Number(line(note, "sequence")));
      const r = await discover(["--discovery", follower.url, "--intent", "weather", "--root-key", rootKey, "--state-file", join(fdir, "s.json")]);
      assert.equal(r.code, 0, r.stderr);
      // Cut from its primary, it keeps serving the note it has (until it expires; /health says how long).
      await stopServer(primary);
      assert.equal((await get(`${follower.url}/discovery/catalog/note`)).text, note);
      assert.ok((await (await fetch(`${follower.url}/health`)).json()).signedCatalog.secondsLeft >= 600);
    } finally {
      await stopServer(follower);
      removeDataDir(fdir);
      primary = await startServer(dir, ["--cluster-listen", `127.0.0.1:${feedPort}`]);
    }
  });
});

describe("interoperability with Go's note package", () => {
  let goNote;
  before(() => {
    goNote = join(work, "go-note");
    const env = { ...process.env, GO111MODULE: "off", GOPATH: "/usr/share/gocode", GOCACHE: join(work, "gocache"), GOFLAGS: "" };
    const built = spawnSync("go", ["build", "-o", goNote, new URL("./lib/go-note/main.go", import.meta.url).pathname], { env, encoding: "utf8" });
    assert.equal(built.status, 0, built.stderr);
  });
  const go = (args, input = "") => spawnSync(goNote, args, { input, encoding: "utf8" });

  test("Go opens the notes the catalog signs", async () => {
    const keys = (await get(`${primary.url}/discovery/catalog/keys.note`)).text;
    const opened = go(["open", rootKey], keys);
    assert.equal(opened.status, 0, opened.stderr);
    const online = opened.stdout.split("\n").find((l) => l.startsWith("online ")).slice(7);
    const note = (await get(`${primary.url}/discovery/catalog/note`)).text;
    const catalog = go(["open", online], note);
    assert.equal(catalog.status, 0, catalog.stderr);
    assert.equal(catalog.stdout, note.slice(0, note.indexOf("\n\n") + 1));
    assert.notEqual(go(["open", online], note.replace("z402 catalog 1", "z402 catalog 2")).status, 0);
  });

  /** A catalog of one listing signed by Go with keys of its own, its notes expiring at the given
   *  times (Unix ms): the files an agent reads, the root key to pin, and the online key. */
  function goCatalog({ keysExpires, catalogExpires }) {
    const [rootSkey, rootVkey] = go(["keys", "go.test"]).stdout.trim().split("\n");
    const [onlineSkey, onlineVkey] = go(["keys", "go.test/online"]).stdout.trim().split("\n");
    const bytes = JSON.stringify({ x402Version: 2, items: [item(terms, "p", "https://go.example.com/v1/weather", { description: "Weather from Go." })],
      pagination: { limit: 1, offset: 0, total: 1 } });
    const digest = createHash("sha256").update(bytes);
    const hex = digest.copy().digest("hex");
    const iso = (ms) => new Date(ms).toISOString();
    const keysNote = go(["sign", rootSkey], `go.test\nz402 catalog keys 1\nexpires ${iso(keysExpires)}\nonline ${onlineVkey}\n`).stdout;
    const note = go(["sign", onlineSkey], `go.test\nz402 catalog 1\nsequence 1\nsize ${Buffer.byteLength(bytes)}\nsha256 ${digest.digest("base64")}\nexpires ${iso(catalogExpires)}\n`).stdout;
    return { rootVkey, onlineSkey, keysNote, catalogExpires: iso(catalogExpires),
             files: { "/discovery/catalog/note": note, "/discovery/catalog/keys.note": keysNote, [`/discovery/catalog/${hex}.json`]: bytes } };
  }
  /** z402-discover over `files`, served on loopback, with `rootKey` pinned and its own state file. */
  async function discoverFrom(files, rootKey, stateName) {
    const server = await serveFiles(files);
    try {
      return await discover(["--discovery", server.url, "--intent", "weather", "--root-key", rootKey, "--state-file", join(work, stateName)]);
    } finally {
      server.close();
    }
  }

  test("notes Go signs verify in the agent", async () => {
    const later = Date.now() + 600_000;
    const signed = goCatalog({ keysExpires: later, catalogExpires: later });
    let r = await discoverFrom(signed.files, signed.rootVkey, "go.json");
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /pick: GET https:\/\/go\.example\.com\/v1\/weather/);
    // A signed note that names more bytes than a run may read (32 MiB) is not read at all.
    const huge = go(["sign", signed.onlineSkey],
      `go.test\nz402 catalog 1\nsequence 2\nsize ${(32 << 20) + 1}\nsha256 ${Buffer.alloc(32).toString("base64")}\nexpires ${signed.catalogExpires}\n`).stdout;
    r = await discoverFrom({ "/discovery/catalog/note": huge, "/discovery/catalog/keys.note": signed.keysNote }, signed.rootVkey, "go-big.json");
    assert.equal(r.code, 3, r.stderr);
    assert.match(r.stderr, /more than the run's budget of 33554432/);
  });

  // Expiry against the agent's real clock, with margins a loaded machine cannot cross (the exact
  // 60 s boundary is trust_test's, on the test clock): a note 50 s past its expiry is within the
  // skew, 70 s past is refused, for the catalog note and for the keys note.
  test("a note 50 s past its expiry is accepted, 70 s past is refused: catalog-expired (7), keys-expired (5)", async () => {
    const later = Date.now() + 600_000;
    const run = (expiries, stateName) => {
      const signed = goCatalog(expiries);
      return discoverFrom(signed.files, signed.rootVkey, stateName);
    };
    let r = await run({ keysExpires: Date.now() - 50_000, catalogExpires: Date.now() - 50_000 }, "skew.json");
    assert.equal(r.code, 0, r.stderr);
    r = await run({ keysExpires: later, catalogExpires: Date.now() - 70_000 }, "expired.json");
    assert.equal(r.code, 7, r.stderr);
    assert.match(r.stderr, /^z402-discover: refused \(catalog-expired\): the catalog note expired at /);
    r = await run({ keysExpires: Date.now() - 70_000, catalogExpires: later }, "keys-expired.json");
    assert.equal(r.code, 5, r.stderr);
    assert.match(r.stderr, /^z402-discover: refused \(keys-expired\): the keys note expired at /);
  });
});

// Origin binding (docs/trust.md, "Origin binding"): a test HTTPS origin on loopback (so the
// agent is run with --allow-private-origin, and trusts the test CA through SSL_CERT_FILE, as
// OpenSSL's default verify paths allow) serves a manifest and a 402 that agree with the
// listing, or do not in one way at a time.
describe("origin-bound listings", () => {
  let origin, originUrl, resource, caEnv, mode = "agree", redirects = 0;
  const payTo = "uregtest1acme";
  const manifestFor = (names, extra = {}) => JSON.stringify({
    x402Version: 2, ...extra,
    routes: [{ method: "GET", url: resource, accepts: [{ ...terms, amount: "1000", payTo: names, maxTimeoutSeconds: 60 }] }],
  });
  /** A manifest of exactly `size` bytes naming the listing's payTo. */
  const manifestOfSize = (size) => {
    const bare = manifestFor(payTo, { padding: "" });
    return manifestFor(payTo, { padding: "x".repeat(size - Buffer.byteLength(bare)) });
  };

  before(async () => {
    const { makeCa, makeServerCert } = await import("./lib/tls.mjs");
    const tlsDir = join(work, "origin-tls");
    mkdirSync(tlsDir);
    const ca = makeCa(tlsDir);
    const cert = makeServerCert(tlsDir, "origin");
    caEnv = { SSL_CERT_FILE: ca.ca };
    const https = await import("node:https");
    origin = https.createServer({ cert: readFileSync(cert.cert), key: readFileSync(cert.key) }, (req, res) => {
      const here = originUrl;
      if (req.url.startsWith("/.well-known/x402")) {
        if (mode === "away") return res.writeHead(302, { location: `https://localhost:${origin.address().port}/.well-known/x402` }).end();
        if (mode.startsWith("hops-") && redirects < Number(mode.slice(5))) {
          redirects += 1;
          return res.writeHead(307, { location: `/.well-known/x402?hop=${redirects}` }).end();
        }
        const body = mode === "other-manifest" ? manifestFor("uregtest1other")
          : mode === "at-limit" ? manifestOfSize(256 << 10)
            : mode === "past-limit" ? manifestOfSize((256 << 10) + 1) : manifestFor(payTo);
        return res.writeHead(200, { "content-type": "application/json" }).end(body);
      }
      if (req.url === "/v1/tide") {
        const asked = mode === "other-402" ? "uregtest1other" : payTo;
        const required = { x402Version: 2, resource: { url: `${here}/v1/tide` },
          accepts: [{ ...terms, amount: "1000", payTo: asked, maxTimeoutSeconds: 60 }] };
        return res.writeHead(402, { "PAYMENT-REQUIRED": Buffer.from(JSON.stringify(required)).toString("base64") }).end("{}");
      }
      res.writeHead(404).end();
    });
    await new Promise((resolve) => origin.listen(0, "127.0.0.1", resolve));
    originUrl = `https://127.0.0.1:${origin.address().port}`;
    resource = `${originUrl}/v1/tide`;
    const r = await declare(primary.url, providerKey, {
      items: [item(terms, payTo, resource, { description: "Tide tables for any harbour." })] });
    assert.equal(r.status, 200, r.body);
  });
  after(() => origin?.close());

  const verify = (args, env = caEnv) => discover(["verify", resource, "--discovery", primary.url, "--allow-private-origin", ...args], { env });
  const inMode = async (m, run) => { mode = m; redirects = 0; try { return await run(); } finally { mode = "agree"; } };

  test("manifest, live 402 and listing agree: the pick is origin-verified, and verify says so", async () => {
    const r = await discover(["--discovery", primary.url, "--intent", "tide tables for a harbour", "--allow-private-origin", "--require-origin"], { env: caEnv });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.trim().split("\n").at(-1), `pick: GET ${resource}  origin-verified`);
    const v = await verify(["--json"]);
    assert.equal(v.code, 0, v.stderr);
    assert.deepEqual(JSON.parse(v.stdout), { listings: [{ method: "GET", url: resource, verified: true }] });
  });

  for (const [m, check, says] of [
    ["other-manifest", "manifest-payTo", /the origin names payTo uregtest1other for this resource, not uregtest1acme/],
    ["other-402", "402-payTo", /the live 402 asks payTo uregtest1other, not uregtest1acme/],
    ["away", "manifest", /redirects to another origin: https:\/\/localhost:/],
    ["hops-4", "manifest", /more than 3 redirects/],
    ["past-limit", "manifest", /the manifest is larger than 256 KiB/],
  ]) {
    test(`refused (${check}) when ${m}: the pick says why; --require-origin makes it exit 11`, async () => {
      await inMode(m, async () => {
        const r = await verify([]);
        assert.equal(r.code, 11, r.stderr);
        assert.equal(r.stdout, `GET ${resource}  not origin-verified (${check}: ${r.stdout.split(`(${check}: `)[1]}`);
        assert.match(r.stdout, says);
        redirects = 0;
        const pick = await discover(["--discovery", primary.url, "--intent", "tide tables for a harbour", "--allow-private-origin", "--require-origin"], { env: caEnv });
        assert.equal(pick.code, 11, pick.stderr);
        assert.match(pick.stdout, new RegExp(`\\npick: GET ${resource.replace(/[.]/g, "\\.")}  not origin-verified \\(${check}: `));
      });
    });
  }

  test("three same-origin redirects and a manifest of exactly 256 KiB are read", async () => {
    for (const m of ["hops-3", "at-limit"]) {
      const r = await inMode(m, () => verify([]));
      assert.equal(r.code, 0, `${m}: ${r.stderr}${r.stdout}`);
      assert.match(r.stdout, /origin-verified\n$/);
    }
  });

  test("a URL with userinfo is refused as given, without its secret in the answer", async () => {
    const withUser = resource.replace("https://", "https://agent:s3cret@");
    const r = await discover(["verify", withUser, "--discovery", primary.url, "--allow-private-origin"], { env: caEnv });
    assert.equal(r.code, 11, r.stderr);
    assert.match(r.stderr, /not origin-verified \(url: the resource URL carries userinfo\)/);
    assert.doesNotMatch(r.stderr + r.stdout, /s3cret/);
  });

  test("without --allow-private-origin a loopback origin is not read; an unlisted URL exits 1; TLS is verified", async () => {
    let r = await discover(["verify", resource, "--discovery", primary.url], { env: caEnv });
    assert.equal(r.code, 11, r.stderr);
    assert.match(r.stdout, /not origin-verified \(manifest: GET https:\/\/127\.0\.0\.1:\d+\/\.well-known\/x402: 127\.0\.0\.1 resolves only to loopback, private or reserved addresses\)/);
    r = await discover(["verify", `${originUrl}/v1/unlisted`, "--discovery", primary.url, "--allow-private-origin"], { env: caEnv });
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /the catalog does not list https:\/\/127\.0\.0\.1:\d+\/v1\/unlisted/);
    // Without the test CA the origin's certificate is not trusted: --insecure is the catalog's, never an origin's.
    r = await discover(["verify", resource, "--discovery", primary.url, "--allow-private-origin", "--insecure"], { env: { SSL_CERT_FILE: "/nonexistent" } });
    assert.equal(r.code, 11, r.stderr);
    assert.match(r.stdout, /not origin-verified \(manifest: .*TLS handshake/);
  });
});
