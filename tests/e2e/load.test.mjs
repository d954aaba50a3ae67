// The benchmarks' load generator (z402-load run) counts a read once its whole answer has arrived,
// framed by its Content-Length: its readers drop each body as they read it from the socket, so a
// miscount there would show only as figures that are wrong, never as an error.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import { execFile, execFileSync, spawnSync } from "node:child_process";
import { promisify } from "node:util";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { binary, newDataDir, removeDataDir, startServer, stopServer, sleep } from "./lib/server.mjs";

let dir, server, keys;

before(async () => {
  dir = newDataDir();
  server = await startServer(dir);
  keys = join(dir, "keys.json");
  execFileSync(process.env.Z402_LOAD, ["seed", "--target", server.url, "--bazaar", binary, "--data-dir", dir,
    "--keys-out", keys, "--providers", "2", "--items", "100"], { stdio: "ignore" });
});

after(async () => {
  await stopServer(server);
  removeDataDir(dir);
});

/**
 * Runs the readers alone against `url` for a second; returns the summary's list row. Not
 * execFileSync: this process must go on reading the server's log and answering as a fake server.
 */
async function readFor(url, extra = []) {
  const json = join(dir, `run-${Date.now()}.json`);
  await promisify(execFile)(process.env.Z402_LOAD, ["run", "--target", url, "--keys", keys, "--duration", "1",
    "--readers", "4", "--json", json, ...extra]);
  return JSON.parse(readFileSync(json, "utf8")).kinds.list;
}

/** The server's count of list reads answered 2xx. */
async function listReadsAnswered() {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  return Number(text.match(/^z402_http_requests_total\{route="resources",code="2xx"\} (\d+)$/m)[1]);
}

test("the generator counts every page z402-bazaar answers, plain and gzip'd, with no error", async () => {
  for (const gzip of ["0", "1"]) {
    const before = await listReadsAnswered();
    const row = await readFor(server.url, ["--accept-gzip", gzip]);
    const answered = (await listReadsAnswered()) - before;
    assert.deepEqual(row.errors, {}, `accept-gzip ${gzip}`);
    assert.ok(row.count > 0, `accept-gzip ${gzip}: no read counted`);
    // Every read it started ends before it exits: what it counts is what the server answered.
    assert.equal(row.count, answered, `accept-gzip ${gzip}`);
  }
});

/** A server of our own answering every request with `answer(res)`; resolves {url, served(), close()}. */
async function fakeServer(answer) {
  let served = 0;
  const srv = http.createServer(async (req, res) => {
    await answer(res);
    served += 1;
  });
  await new Promise((resolve) => srv.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${srv.address().port}`,
    served: () => served,
    close: () => new Promise((resolve) => { srv.closeAllConnections(); srv.close(resolve); }),
  };
}

test("a body longer than the generator's buffer, arriving in pieces, is read to its end and the next answer framed", async () => {
  // 200 KB in three writes 5 ms apart: the header read takes part of it, the rest takes several
  // socket reads. A body read short or long would make the next answer on the connection unreadable.
  const piece = Buffer.alloc(200 * 1024 / 4, "x");
  const fake = await fakeServer(async (res) => {
    res.writeHead(200, { "content-type": "application/json", "content-length": String(piece.length * 4) });
    res.write(Buffer.concat([piece, piece]));
    await sleep(5);
    res.write(piece);
    await sleep(5);
    res.end(piece);
  });
  try {
    const row = await readFor(fake.url);
    assert.deepEqual(row.errors, {});
    assert.ok(row.count > 4, `only ${row.count} reads in a second`);
    assert.equal(row.count, fake.served());
  } finally {
    await fake.close();
  }
});

test("an answer without a Content-Length is counted as an error, not as a read", async () => {
  const fake = await fakeServer(async (res) => {
    res.writeHead(200, { "content-type": "application/json" });  // node sends it chunked
    res.end("{}");
  });
  try {
    const row = await readFor(fake.url);
    assert.equal(row.count, 0);
    assert.ok(row.errors["no content-length"] > 0, JSON.stringify(row.errors));
  } finally {
    await fake.close();
  }
});

test("a body that stops arriving is a timeout after 10 s, not a hang", async () => {
  const fake = await fakeServer(async (res) => {
    res.writeHead(200, { "content-type": "application/json", "content-length": String(300 * 1024) });
    res.write(Buffer.alloc(100 * 1024, "x"));  // and no more
    await new Promise(() => {});
  });
  try {
    const row = await readFor(fake.url);
    assert.equal(row.count, 0);
    assert.deepEqual(row.errors, { timeout: 4 });
  } finally {
    await fake.close();
  }
});

test("a keys file that is missing, empty or not seed's is refused with its name and why", () => {
  const cases = [
    [join(dir, "absent.json"), null, /cannot be read/],
    [join(dir, "empty.json"), "", /not a keys file written by z402-load seed/],
    [join(dir, "other.json"), JSON.stringify({ providers: ["k"] }), /not a keys file written by z402-load seed/],
    [join(dir, "none.json"), null, /names no provider key/],
  ];
  const seeded = JSON.parse(readFileSync(keys, "utf8"));
  writeFileSync(cases[3][0], JSON.stringify({ ...seeded, providers: [] }));
  for (const [file, text, why] of cases) {
    if (text !== null) writeFileSync(file, text);
    const r = spawnSync(process.env.Z402_LOAD, ["run", "--target", server.url, "--keys", file, "--duration", "1"], { encoding: "utf8" });
    assert.equal(r.status, 2, `${file}: ${r.stderr}`);
    assert.ok(r.stderr.includes(`--keys ${file}: `), r.stderr);
    assert.match(r.stderr, why);
    assert.doesNotMatch(r.stderr, /terminate called/);
  }
});
