// HTTPS as clients meet it: curl, node's fetch and openssl s_client against z402-bazaar with a
// CA and certificates the test makes (openssl CLI). TLS 1.2 and 1.3 only, HTTP/1.1 over ALPN,
// wrong host and expired certificates refused by the clients, a certificate rotated on disk
// picked up by new connections while an open one keeps working, a key readable by others
// refused at start, pipelined and slow readers, timeouts, session resumption, and the demo
// service on the same option.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmodSync, copyFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import net from "node:net";
import tls from "node:tls";
import { newDataDir, removeDataDir, startServer, stopServer, startDemo, addProvider, sleep, scaled, freePort, termsFile, item, declare } from "./lib/server.mjs";
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

/** Opens a TLS connection; resolves {socket, serial, protocol, alpn, ticket} once it is up
 *  (ticket(): the last session ticket the server gave, TLS 1.2's during the handshake). */
function tlsConnect(port, options = {}) {
  return new Promise((resolve, reject) => {
    let ticket;
    const socket = tls.connect({ host: "127.0.0.1", port, servername: "localhost", ca: options.ca, ALPNProtocols: ["http/1.1"], ...options }, () => {
      resolve({ socket, serial: socket.getPeerCertificate().serialNumber, protocol: socket.getProtocol(), alpn: socket.alpnProtocol, ticket: () => ticket });
    });
    socket.on("session", (s) => (ticket = s));
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
  // The MCP tool's answer for the same page: its result kept in a file, encrypted after the
  // envelope that carries each request's id.
  const call = (id) => curl(["--cacert", ca, "-H", "content-type: application/json", "--data-binary",
    JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "list_resources", arguments: { payTo: "uregtest1pages", limit: 100 } } }),
    `https://127.0.0.1:${server.port}/discovery/mcp`]).stdout;
  for (const id of [1, "two"]) {  // made, then from the cache
    const answer = JSON.parse(call(id));
    assert.equal(answer.id, id);
    assert.deepEqual(answer.result.structuredContent, parsed);
  }
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

const get = (path) => `GET ${path} HTTP/1.1\r\nHost: localhost\r\n\r\n`;
const pagePath = "/discovery/resources?payTo=uregtest1pages&limit=100";  // the 60 items declared above

/** Collects what `socket` receives; `answers(n)` resolves with the first n answers, each
 *  {status, body}, once each has its whole Content-Length (parsed as the bytes arrive). */
function collect(socket) {
  const answers = [];
  const waiting = [];
  let pending = Buffer.alloc(0);
  socket.on("data", (d) => {
    pending = pending.length ? Buffer.concat([pending, d]) : d;
    for (;;) {
      const head = pending.indexOf("\r\n\r\n");
      if (head < 0) break;
      const header = pending.subarray(0, head).toString("latin1");
      const length = Number(/content-length: (\d+)/i.exec(header)?.[1] ?? 0);
      if (pending.length < head + 4 + length) break;
      answers.push({ status: header.split("\r\n")[0], body: pending.subarray(head + 4, head + 4 + length).toString("utf8") });
      pending = pending.subarray(head + 4 + length);
    }
    for (const w of waiting.filter((w) => answers.length >= w.n)) {
      waiting.splice(waiting.indexOf(w), 1);
      w.resolve(answers.slice(0, w.n));
    }
  });
  return {
    answers: (n, ms = 10000) => Promise.race([
      new Promise((resolve) => (answers.length >= n ? resolve(answers.slice(0, n)) : waiting.push({ n, resolve }))),
      sleep(ms).then(() => { throw new Error(`fewer than ${n} whole answers within ${ms} ms: ${answers.length}`); }),
    ]),
  };
}

const metricOf = (text, name) => Number(new RegExp(`^${name} (\\d+)$`, "m").exec(text)?.[1]);

test("over TLS: requests pipelined in one segment, a header in pieces and many records each answered whole; a connection between requests holds no read buffer", async () => {
  const caPem = readFileSync(ca);
  const page = curl(["--cacert", ca, `https://127.0.0.1:${server.port}${pagePath}`]).stdout;
  assert.ok(page.length > 3 * 16384, "the page spans several TLS records");
  // Three requests as three TLS records in one write: OpenSSL reads them ahead of the parser,
  // and the second and third are answered from what it holds, not waited for on the socket.
  const conn = await tlsConnect(server.port, { ca: caPem });
  const got = collect(conn.socket);
  conn.socket.cork();
  for (const path of ["/health", pagePath, "/health"]) conn.socket.write(get(path));
  conn.socket.uncork();
  const answers = await got.answers(3);
  assert.deepEqual(answers.map((a) => a.status), Array(3).fill("HTTP/1.1 200 OK"));
  assert.equal(answers[1].body, page);
  // A header in two records, the second later.
  conn.socket.write("GET /health HT");
  await sleep(100);
  conn.socket.write("TP/1.1\r\nHost: localhost\r\n\r\n");
  assert.equal((await got.answers(4))[3].status, "HTTP/1.1 200 OK");
  // Twenty more connections, answered once each, then idle: none holds a read buffer (the
  // scrape's own connection does while it is answered).
  const idle = await Promise.all(Array.from({ length: 20 }, () => tlsConnect(server.port, { ca: caPem })));
  await Promise.all(idle.map((c) => requestOn(c.socket, "/health")));
  const scrape = () => curl(["--cacert", ca, `https://127.0.0.1:${server.port}/metrics`]).stdout;
  let text = scrape();
  for (let i = 0; i < 50 && metricOf(text, "z402_http_read_buffers") !== 1; i++) {
    await sleep(20);
    text = scrape();
  }
  assert.equal(metricOf(text, "z402_http_read_buffers"), 1, text.split("\n").filter((l) => /read_buffers|connections_open/.test(l)).join("; "));
  assert.ok(metricOf(text, "z402_http_connections_open") >= 22);
  // Each idle connection's next request is read and answered.
  assert.deepEqual(await Promise.all(idle.map((c) => requestOn(c.socket, "/health"))), Array(20).fill("HTTP/1.1 200 OK"));
  for (const c of [conn, ...idle]) c.socket.destroy();
});

test("over TLS: a reader that stops reading gets every answer whole once it reads again", async () => {
  const page = curl(["--cacert", ca, `https://127.0.0.1:${server.port}${pagePath}`]).stdout;
  const conn = await tlsConnect(server.port, { ca: readFileSync(ca) });
  const got = collect(conn.socket);
  // 200 pages (about 14 MB) with nobody reading: the sockets fill, and the server's writes wait
  // for room in the middle of a page.
  conn.socket.pause();
  conn.socket.write(get(pagePath).repeat(200));
  await sleep(700);
  conn.socket.resume();
  const answers = await got.answers(200, 30000);
  assert.ok(answers.every((a) => a.status === "HTTP/1.1 200 OK" && a.body === page), "every page whole and in order");
  assert.equal(await requestOn(conn.socket, "/health"), "HTTP/1.1 200 OK");
  conn.socket.destroy();
});

test("over TLS: an idle connection, a handshake never begun and a reader that never reads are closed after the configured timeouts", async () => {
  const other = newDataDir();
  writeFileSync(join(other, "config.json"), JSON.stringify({ connections: { idleTimeoutSeconds: 1, requestTimeoutSeconds: 2 } }));
  const s = await startServer(other, ["--tls-cert", second.cert, "--tls-key", second.key]);
  try {
    const caPem = readFileSync(ca);
    const idle = await tlsConnect(s.port, { ca: caPem });
    const idleClosed = new Promise((resolve) => idle.socket.on("close", () => resolve(Date.now())));
    assert.equal(await requestOn(idle.socket, "/health"), "HTTP/1.1 200 OK");
    const answered = Date.now();
    const idleFor = (await idleClosed) - answered;
    assert.ok(idleFor >= 800 && idleFor < 2500, `closed after ${idleFor} ms idle (timeout 1 s)`);
    // TCP connected, no ClientHello: dropped after the request timeout, counted as a failed handshake.
    const silent = net.connect(s.port, "127.0.0.1");
    const started = Date.now();
    const silentFor = (await new Promise((resolve) => silent.on("close", () => resolve(Date.now())))) - started;
    assert.ok(silentFor >= 1800 && silentFor < 4000, `a silent client dropped after ${silentFor} ms (timeout 2 s)`);
    const scrape = () => curl(["--cacert", ca, `https://127.0.0.1:${s.port}/metrics`]).stdout;
    assert.equal(metricOf(scrape(), "z402_tls_handshake_failures_total"), 1);
    // A reader that never reads while its answers fill the socket: cut off after the request
    // timeout. (A paused socket does not see its close: the server's count of open connections,
    // less the scrape's own, says when it is gone.)
    const stalled = await tlsConnect(s.port, { ca: caPem });
    stalled.socket.pause();
    stalled.socket.write(get("/metrics").repeat(2000));
    const stalledAt = Date.now();
    await sleep(1200);
    assert.equal(metricOf(scrape(), "z402_http_connections_open") - 1, 1, "a stalled reader is not cut off before the request timeout");
    while (metricOf(scrape(), "z402_http_connections_open") - 1 !== 0 && Date.now() - stalledAt < scaled(8000)) await sleep(100);
    const stalledFor = Date.now() - stalledAt;
    assert.ok(stalledFor >= 1500 && stalledFor < scaled(8000), `a stalled reader cut off after ${stalledFor} ms (timeout 2 s)`);
    stalled.socket.destroy();
  } finally {
    await stopServer(s);
    removeDataDir(other);
  }
});

test("a client that reconnects resumes its session with the ticket it was given (TLS 1.3 and 1.2)", async () => {
  const caPem = readFileSync(ca);
  for (const maxVersion of ["TLSv1.3", "TLSv1.2"]) {
    const first = await tlsConnect(server.port, { ca: caPem, maxVersion });
    assert.equal(await requestOn(first.socket, "/health"), "HTTP/1.1 200 OK");
    const session = first.ticket();
    assert.ok(session, `${maxVersion}: a ticket was given`);
    first.socket.destroy();
    const again = await tlsConnect(server.port, { ca: caPem, maxVersion, session });
    assert.equal(again.socket.isSessionReused(), true, `${maxVersion}: the session is resumed`);
    assert.equal(again.protocol, maxVersion);
    assert.equal(await requestOn(again.socket, "/health"), "HTTP/1.1 200 OK");
    again.socket.destroy();
  }
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
