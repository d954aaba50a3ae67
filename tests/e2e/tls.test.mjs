// HTTPS as clients meet it: curl, node's fetch and openssl s_client against z402-bazaar with a
// CA and certificates the test makes (openssl CLI). TLS 1.2 and 1.3 only, HTTP/1.1 over ALPN,
// wrong host and expired certificates refused by the clients, a certificate rotated on disk
// picked up by new connections while an open one keeps working, a key readable by others
// refused at start, and the demo service on the same option.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmodSync, copyFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import tls from "node:tls";
import { newDataDir, removeDataDir, startServer, stopServer, startDemo, addProvider, sleep, freePort, termsFile, item, declare } from "./lib/server.mjs";
import { makeCa, makeServerCert, replaceCert } from "./lib/tls.mjs";

let dir, ca, first, second, live, server;

before(async () => {
  dir = newDataDir();
  ({ ca } = makeCa(dir));
  first = makeServerCert(dir, "first");
  second = makeServerCert(dir, "second");
  // The files the server is pointed at; rotation replaces their contents.
  live = { cert: join(dir, "live.pem"), key: join(dir, "live.key") };
  copyFileSync(first.cert, live.cert);
  copyFileSync(first.key, live.key);
  chmodSync(live.key, 0o600);
  server = await startServer(dir, ["--tls-cert", live.cert, "--tls-key", live.key]);
});

after(async () => {
  if (server?.child.exitCode === null) await stopServer(server);
  removeDataDir(dir);
});

const curl = (args) => spawnSync("curl", ["-sS", "--max-time", "10", ...args], { encoding: "utf8" });

/** Node's fetch in a fresh process that trusts `caFile` (NODE_EXTRA_CA_CERTS is read at start). */
function nodeFetch(url, caFile) {
  const script = `fetch(${JSON.stringify(url)}).then(async (r) => console.log(r.status, await r.text()), (e) => { console.log("error", e.cause?.code ?? e.message); })`;
  const r = spawnSync(process.execPath, ["-e", script], { encoding: "utf8", env: { ...process.env, NODE_EXTRA_CA_CERTS: caFile } });
  return r.stdout.trim();
}

/** Opens a TLS connection; resolves {socket, serial, protocol, alpn} once it is up. */
function tlsConnect(port, options = {}) {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: "127.0.0.1", port, servername: "localhost", ca: options.ca, ALPNProtocols: ["http/1.1"], ...options }, () => {
      resolve({ socket, serial: socket.getPeerCertificate().serialNumber, protocol: socket.getProtocol(), alpn: socket.alpnProtocol });
    });
    socket.once("error", reject);
  });
}

/** One keep-alive HTTP/1.1 request on an open TLS socket; resolves with the status line. */
function requestOn(socket, path) {
  return new Promise((resolve) => {
    let got = "";
    const onData = (d) => {
      got += d;
      const head = got.indexOf("\r\n\r\n");
      const length = /content-length: (\d+)/i.exec(got);
      if (head >= 0 && length && got.length >= head + 4 + Number(length[1])) {
        socket.off("data", onData);
        resolve(got.split("\r\n")[0]);
      }
    };
    socket.on("data", onData);
    socket.write(`GET ${path} HTTP/1.1\r\nHost: localhost\r\n\r\n`);
  });
}

test("curl and node's fetch read the catalog over HTTPS, HTTP/1.1 negotiated by ALPN", () => {
  const url = `https://127.0.0.1:${server.port}/discovery/resources`;
  const r = curl(["--cacert", ca, "-o", "/dev/null", "-w", "%{http_code} %{http_version} %{ssl_verify_result}", url]);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, "200 1.1 0");
  assert.match(nodeFetch(url, ca), /^200 \{"x402Version":2/);
  assert.match(server.url, /^https:\/\//);
});

test("a page of many items (read from its file, or gathered from the snapshot, a record at a time) arrives whole over TLS", async () => {
  const key = addProvider(dir, "pages", "uregtest1pages");
  const { terms } = termsFile(dir);
  await sleep(400);  // the server re-reads keys every 250 ms
  const items = Array.from({ length: 60 }, (_, i) => item(terms, "uregtest1pages", `https://pages.example.com/r${i}`,
    { description: `Route ${i}: ${"a long description that makes each item the largest the rules allow. ".repeat(8)}`.slice(0, 500) }));
  const declared = await declare(server.url.replace("https://127.0.0.1", "http://127.0.0.1"), key, { items }).catch(() => null);
  assert.equal(declared, null, "the server speaks only TLS");
  const r = spawnSync("curl", ["-sS", "--cacert", ca, "-H", "content-type: application/json", "-H", `authorization: Bearer ${key}`,
    "--data-binary", "@-", `https://127.0.0.1:${server.port}/discovery/declarations`], { input: JSON.stringify({ items }), encoding: "utf8" });
  assert.match(r.stdout, /"accepted":60/, r.stderr);
  const page = curl(["--cacert", ca, "-w", "\n%{size_download} %{http_code}", `https://127.0.0.1:${server.port}/discovery/resources?payTo=uregtest1pages&limit=100`]);
  const [body, stats] = [page.stdout.slice(0, page.stdout.lastIndexOf("\n")), page.stdout.slice(page.stdout.lastIndexOf("\n") + 1)];
  assert.equal(stats.split(" ")[1], "200");
  assert.ok(Number(stats.split(" ")[0]) > 3 * 16384, "the page spans several TLS records");
  const parsed = JSON.parse(body);
  assert.deepEqual(parsed.items.map((i) => i.resource), items.map((i) => i.resource));
  assert.equal(parsed.items[59].description, items[59].description);
  // Read again the page comes from its file, and compressed from the gzip cache: the same page.
  const url = `https://127.0.0.1:${server.port}/discovery/resources?payTo=uregtest1pages&limit=100`;
  assert.equal(curl(["--cacert", ca, url]).stdout, body);
  assert.equal(curl(["--cacert", ca, "--compressed", url]).stdout, body);
  assert.equal(curl(["--cacert", ca, "--compressed", url]).stdout, body);
});

test("TLS 1.2 and 1.3 are spoken; 1.1 and 1.0 are refused", () => {
  const url = `https://127.0.0.1:${server.port}/health`;
  for (const v of ["1.2", "1.3"]) {
    const r = curl(["--cacert", ca, `--tlsv${v}`, "--tls-max", v, "-o", "/dev/null", "-w", "%{http_code}", url]);
    assert.equal(r.stdout, "200", `TLS ${v}: ${r.stderr}`);
  }
  for (const flag of ["-tls1_1", "-tls1"]) {
    const r = spawnSync("openssl", ["s_client", "-connect", `127.0.0.1:${server.port}`, flag, "-CAfile", ca], { input: "", encoding: "utf8" });
    assert.notEqual(r.status, 0, `${flag} must be refused`);
    assert.match(r.stdout, /no peer certificate available/);
    assert.match(r.stdout, /Cipher is \(NONE\)/);
  }
});

test("ALPN: http/1.1 is chosen; a client offering only h2 is refused", () => {
  const ok = spawnSync("openssl", ["s_client", "-connect", `127.0.0.1:${server.port}`, "-alpn", "h2,http/1.1", "-CAfile", ca, "-servername", "localhost"], { input: "", encoding: "utf8" });
  assert.match(ok.stdout, /ALPN protocol: http\/1\.1/);
  assert.match(ok.stdout, /Verify return code: 0 \(ok\)/);
  const h2 = spawnSync("openssl", ["s_client", "-connect", `127.0.0.1:${server.port}`, "-alpn", "h2", "-CAfile", ca], { input: "", encoding: "utf8" });
  assert.notEqual(h2.status, 0);
  assert.match(h2.stdout + h2.stderr, /no application protocol/i);
});

test("a client that asked for another host refuses the certificate", async () => {
  const r = curl(["--cacert", ca, "--resolve", `wrong.example:${server.port}:127.0.0.1`, `https://wrong.example:${server.port}/health`]);
  assert.equal(r.status, 60, r.stderr);  // CURLE_PEER_FAILED_VERIFICATION
  assert.match(r.stderr, /no alternative certificate subject name matches|does not match/);
  await assert.rejects(tlsConnect(server.port, { ca: [ca].map((f) => spawnSync("cat", [f]).stdout), servername: "wrong.example" }),
    (e) => e.code === "ERR_TLS_CERT_ALTNAME_INVALID");
});

test("a server whose certificate has expired is refused by curl and by node", async () => {
  const expired = makeServerCert(dir, "expired", { days: 0 });
  await sleep(1100);  // a certificate made with -days 0 ends the second it starts
  const other = newDataDir();
  const s = await startServer(other, ["--tls-cert", expired.cert, "--tls-key", expired.key]);
  try {
    const r = curl(["--cacert", ca, `https://127.0.0.1:${s.port}/health`]);
    assert.equal(r.status, 60, r.stderr);
    assert.match(r.stderr, /expired/);
    assert.equal(nodeFetch(`https://127.0.0.1:${s.port}/health`, ca), "error CERT_HAS_EXPIRED");
  } finally {
    await stopServer(s);
    removeDataDir(other);
  }
});

test("a certificate replaced on disk is served to new connections within a second; an open connection keeps working", async () => {
  const caPem = spawnSync("cat", [ca]).stdout;
  const before = await tlsConnect(server.port, { ca: caPem });
  assert.equal(before.serial, first.serial);
  assert.equal(before.alpn, "http/1.1");
  assert.equal(await requestOn(before.socket, "/health"), "HTTP/1.1 200 OK");

  replaceCert(second, live);
  await sleep(1000);
  const after = await tlsConnect(server.port, { ca: caPem });
  assert.equal(after.serial, second.serial, "new connections get the new certificate");
  assert.equal(await requestOn(before.socket, "/discovery/resources"), "HTTP/1.1 200 OK", "the open connection still answers");
  before.socket.destroy();
  after.socket.destroy();
  assert.equal(server.log().match(/TLS certificate loaded/g)?.length, 1, server.log());

  // SIGHUP re-reads the files even when nothing about them changed.
  server.child.kill("SIGHUP");
  await sleep(300);
  assert.equal(server.log().match(/TLS certificate loaded/g)?.length, 2, server.log());
  assert.equal(server.child.exitCode, null, "SIGHUP does not stop the server");
});

test("a certificate that cannot be loaded keeps the previous one", async () => {
  writeFileSync(live.cert, "not a certificate\n");
  await sleep(700);
  assert.match(server.log(), /keeping the previous TLS certificate/);
  const r = curl(["--cacert", ca, "-o", "/dev/null", "-w", "%{http_code}", `https://127.0.0.1:${server.port}/health`]);
  assert.equal(r.stdout, "200", r.stderr);
  replaceCert(second, live);
});

test("a key file readable by others is refused at start with one line", () => {
  const open = makeServerCert(dir, "open");
  chmodSync(open.key, 0o644);
  const r = spawnSync(process.env.Z402_BAZAAR, ["serve", "--listen", "127.0.0.1:0", "--data-dir", join(dir, "open-data"),
    "--tls-cert", open.cert, "--tls-key", open.key], { encoding: "utf8", timeout: 10000 });
  assert.equal(r.status, 1);
  const lines = r.stderr.trim().split("\n");
  assert.equal(lines.length, 1, r.stderr);
  assert.match(lines[0], /the TLS key .*open\.key is readable by others \(mode 0644\)/);
});

test("plain HTTP beyond loopback starts with one warning line", async () => {
  const other = newDataDir();
  const r = spawnSync(process.env.Z402_BAZAAR, ["serve", "--listen", "0.0.0.0:0", "--data-dir", other], { encoding: "utf8", timeout: 1500, killSignal: "SIGTERM" });
  removeDataDir(other);
  const warnings = r.stderr.split("\n").filter((l) => /without TLS/.test(l));
  assert.equal(warnings.length, 1, r.stderr);
  assert.match(warnings[0], /^z402-bazaar: warning: listening beyond loopback without TLS/);
  // on loopback, no such line
  assert.doesNotMatch(server.log(), /without TLS/);
});

test("the demo service serves its paid routes over HTTPS with the same option", async () => {
  const keyFile = join(dir, "demo.key");
  writeFileSync(keyFile, addProvider(dir, "demo", "uregtest1demo") + "\n");
  const demo = await startDemo(["--discovery", server.url, "--insecure", "--provider-key-file", keyFile, "--pay-to", "uregtest1demo",
    "--listen", `127.0.0.1:${await freePort()}`, "--declare-interval-ms", "0", "--tls-cert", second.cert, "--tls-key", second.key]);
  try {
    assert.match(demo.url, /^https:/);
    const port = demo.url.split(":").at(-1);
    const r = curl(["--cacert", ca, "-o", "/dev/null", "-w", "%{http_code} %{http_version}", `https://127.0.0.1:${port}/v1/quote?symbol=ZEC`]);
    assert.equal(r.stdout, "402 1.1", r.stderr);
  } finally {
    demo.child.kill("SIGTERM");
    await demo.exited;
  }
});
