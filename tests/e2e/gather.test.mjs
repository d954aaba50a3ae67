// List pages are written as one gathered sendmsg over the snapshot's items, or with sendfile
// from the page's file once it has one (page_files): a reader that stalls until the socket is
// full, then drains it, must still get every byte, in order, and pipelined answers must keep
// their order.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import net from "node:net";
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { binary, newDataDir, removeDataDir, startServer, stopServer, sleep } from "./lib/server.mjs";

let dir, server;

before(async () => {
  dir = newDataDir();
  server = await startServer(dir);
  // A catalog close to the 16 MiB budget: a page of 1,000 items is about 4 MB.
  execFileSync(process.env.Z402_LOAD, ["seed", "--target", server.url, "--bazaar", binary, "--data-dir", dir,
    "--keys-out", join(dir, "keys.json"), "--fill-bytes", String(15 * 1024 * 1024)], { stdio: "ignore" });
});

after(async () => {
  await stopServer(server);
  removeDataDir(dir);
});

/** Sends raw requests on one socket, stalls `stallMs` before reading, returns every byte. */
function rawExchange(requests, stallMs) {
  return new Promise((resolve, reject) => {
    const socket = net.connect(server.port, "127.0.0.1");
    const chunks = [];
    socket.pause();
    socket.on("connect", async () => {
      socket.write(requests);
      await sleep(stallMs);
      socket.resume();
    });
    socket.on("data", (c) => chunks.push(c));
    socket.on("end", () => resolve(Buffer.concat(chunks)));
    socket.on("error", reject);
  });
}

function splitResponses(buffer) {
  const out = [];
  let at = 0;
  while (at < buffer.length) {
    const end = buffer.indexOf("\r\n\r\n", at);
    const head = buffer.subarray(at, end).toString();
    const length = Number(head.match(/content-length: (\d+)/i)[1]);
    out.push({ head, body: buffer.subarray(end + 4, end + 4 + length).toString() });
    at = end + 4 + length;
  }
  return out;
}

test("a reader that hangs up in the middle of pages sent from their file leaves the server serving", async () => {
  const target = "/discovery/resources?limit=1000&offset=3000";
  const expected = await (await fetch(server.url + target)).text();
  const request = `GET ${target} HTTP/1.1\r\nHost: x\r\n\r\n`;
  for (let i = 0; i < 3; i++) {
    // Three pages asked for, then the reader half-closes, reads a little and resets: the
    // server is still sending, into a socket whose peer has gone (EPIPE, and SIGPIPE).
    await new Promise((resolve, reject) => {
      const socket = net.connect(server.port, "127.0.0.1");
      socket.on("connect", () => socket.end(request.repeat(3)));
      socket.once("data", async () => {
        socket.pause();
        await sleep(50);
        socket.resetAndDestroy();
        resolve();
      });
      socket.on("error", reject);
    });
  }
  await sleep(200);
  const again = splitResponses(await rawExchange(`GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`, 0));
  assert.equal(again[0].body, expected, "the server still answers, byte for byte");
  assert.ok((await pageFiles()).cache > 0, "the pages were sent from their file");
});

test("a stalled reader of a 4 MB page gets every byte, and pipelined pages stay in order", async () => {
  const target = (offset) => `/discovery/resources?limit=1000&offset=${offset}`;
  const expected = await Promise.all([0, 1000, 2000].map(async (o) => (await fetch(server.url + target(o))).text()));
  assert.ok(expected[0].length > 3_000_000, `page is ${expected[0].length} bytes`);
  const requests = [0, 1000].map((o) => `GET ${target(o)} HTTP/1.1\r\nHost: x\r\n\r\n`).join("") +
    `GET ${target(2000)} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`;
  const filesBefore = await pageFiles();
  const answers = splitResponses(await rawExchange(requests, 1500));
  assert.equal(answers.length, 3);
  answers.forEach((a, i) => {
    assert.match(a.head, /^HTTP\/1\.1 200 OK/);
    assert.equal(a.body, expected[i], `answer ${i} is byte-identical`);
  });
  assert.equal(JSON.parse(answers[2].body).pagination.offset, 2000);
  // fetch asked for gzip: these plain reads wrote the first page's file and sent from it.
  assert.ok((await pageFiles()).written > filesBefore.written, "the stalled reader was sent a page from its file");
  // Read again, a file of the same version is sent, still byte for byte.
  const again = splitResponses(await rawExchange(`GET ${target(0)} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`, 500));
  assert.equal(again[0].body, expected[0]);
  assert.ok((await pageFiles()).cache > filesBefore.cache, "the second read came from the cached file");
});

/** The page file counters of /metrics: {written, cache}. */
async function pageFiles() {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  const value = (source) => Number(text.match(new RegExp(`^z402_page_files_total\\{source="${source}"\\} (\\d+)$`, "m"))[1]);
  return { written: value("written"), cache: value("cache") };
}
