// More than one node (issue 16): a primary and two followers on loopback, one of them behind a
// small TCP proxy the test controls. Followers serve the primary's catalog byte for byte under the
// same versions (so ETags match), take no writes, keep serving when the primary is gone, and catch
// up: from the version they hold after a cut link, with a copy after the primary restarted.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import net from "node:net";
import {
  newDataDir, removeDataDir, addProvider, createSettleKey, termsFile, startServer, stopServer, item, declare,
  settleBody, sleep, waitFor, freePort, scaled,
} from "./lib/server.mjs";

let dirs, primary, followers, proxy, providerKey, settleKey, terms, feedPort;
const payTo = "uregtest1cluster";
const route = (n) => `https://cluster.example.com/v1/route-${n}`;

/** A TCP proxy from a free port to `port`; cut() drops every connection it carries, and keeps listening. */
async function tcpProxy(port) {
  const sockets = new Set();
  const server = net.createServer((client) => {
    const upstream = net.connect(port, "127.0.0.1");
    // Either end gone takes the other with it, as a real cut or a dead primary would.
    for (const [s, other] of [[client, upstream], [upstream, client]]) {
      sockets.add(s);
      s.on("error", () => other.destroy());
      s.on("close", () => { sockets.delete(s); other.destroy(); });
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: server.address().port,
    cut: () => { for (const s of sockets) s.destroy(); },
    close: () => new Promise((resolve) => { for (const s of sockets) s.destroy(); server.close(resolve); }),
  };
}

const health = async (node) => (await fetch(`${node.url}/health`)).json();
const get = async (node, path) => {
  const r = await fetch(`${node.url}${path}`);
  return { status: r.status, etag: r.headers.get("etag"), body: await r.text() };
};

async function startPrimary() {
  return startServer(dirs[0], ["--cluster-listen", `127.0.0.1:${feedPort}`]);
}

before(async () => {
  dirs = [newDataDir(), newDataDir(), newDataDir()];
  providerKey = addProvider(dirs[0], "cluster", payTo);
  settleKey = createSettleKey(dirs[0]);
  terms = termsFile(dirs[0]).terms;
  feedPort = await freePort();
  primary = await startPrimary();
  proxy = await tcpProxy(feedPort);
  followers = [await startServer(dirs[1], ["--follow", `127.0.0.1:${feedPort}`]),
               await startServer(dirs[2], ["--follow", `127.0.0.1:${proxy.port}`])];
  for (const f of followers) await waitFor("the follower connected", async () => (await health(f)).primary.link === "connected", 5000);
  // A follower is connected once it has sent its subscription; the primary counts it once taken.
  await waitFor("both followers subscribed", async () => (await health(primary)).followers === 2, 5000);
});

after(async () => {
  for (const node of [primary, ...followers]) if (node.child.exitCode === null && node.child.signalCode === null) await stopServer(node);
  await proxy.close();
  for (const d of dirs) removeDataDir(d);
});

test("/health says each node's role; a follower says its link, the version it serves and how old it is", async () => {
  const p = await health(primary);
  assert.equal(p.role, "primary");
  assert.equal(p.followers, 2);
  for (const f of followers) {
    const h = await health(f);
    assert.equal(h.role, "follower");
    assert.equal(h.primary.link, "connected");
    // The primary's feed speaks at least once a second, changes or not.
    assert.ok(h.primary.snapshotAgeMs <= scaled(2500), `snapshotAgeMs ${h.primary.snapshotAgeMs}`);
  }
});

test("a declaration at the primary is visible on both followers within 100 ms, byte for byte under the same ETag", async () => {
  const sent = performance.now();
  assert.equal((await declare(primary.url, providerKey, { items: [item(terms, payTo, route(1)), item(terms, payTo, route(2))] })).status, 200);
  const seen = await Promise.all(followers.map(async (f) => {
    for (;;) {
      if ((await get(f, `/discovery/resources?payTo=${payTo}`)).body.includes(route(2))) return performance.now() - sent;
      await sleep(1);
    }
  }));
  for (const ms of seen) assert.ok(ms < scaled(100), `visible on a follower after ${ms.toFixed(1)} ms`);
  for (const path of ["/discovery/resources", `/discovery/search?query=test+route`, `/discovery/resource?type=http&url=${encodeURIComponent(route(1))}`]) {
    const answers = [await get(primary, path), ...(await Promise.all(followers.map((f) => get(f, path))))];
    for (const a of answers.slice(1)) {
      assert.equal(a.status, 200);
      assert.equal(a.etag, answers[0].etag, path);
      assert.equal(a.body, answers[0].body, path);
    }
  }
});

test("a follower takes no writes: a declaration or a settle gets 503 with Retry-After, and nothing changes", async () => {
  const before = await get(followers[0], "/discovery/resources");
  const declared = await fetch(`${followers[0].url}/discovery/declarations`, {
    method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${providerKey}` },
    body: JSON.stringify({ items: [item(terms, payTo, route(9))] }),
  });
  assert.equal(declared.status, 503);
  assert.equal(declared.headers.get("retry-after"), "1");
  assert.equal((await declared.json()).error, "unavailable");
  const settled = await fetch(`${followers[0].url}/discovery/settled`, {
    method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${settleKey}` },
    body: JSON.stringify(settleBody(terms, payTo, route(1))),
  });
  assert.equal(settled.status, 503);
  assert.equal(settled.headers.get("retry-after"), "1");
  assert.deepEqual(await get(followers[0], "/discovery/resources"), before);
});

test("a cut link: the follower reaches the primary again with backoff and resumes from its version, without a copy", async () => {
  const behind = followers[1];
  const { copiesTaken: copies, linksMade: links } = (await health(behind)).primary;
  proxy.cut();
  // Reached again within about 100 ms (the first backoff): seen as one more link made.
  await waitFor("the link made again", async () => (await health(behind)).primary.linksMade > links, 3000);
  // A change while the link is down reaches the follower once it is back.
  assert.equal((await declare(primary.url, providerKey, { items: [item(terms, payTo, route(1)), item(terms, payTo, route(3))] })).status, 200);
  await waitFor("the change caught up", async () => (await get(behind, `/discovery/resources?payTo=${payTo}`)).body.includes(route(3)), 8000);
  const h = await health(behind);
  assert.equal(h.primary.link, "connected");
  assert.equal(h.primary.copiesTaken, copies);  // changes since its version, not a whole copy
  const [p, f] = [await get(primary, "/discovery/resources"), await get(behind, "/discovery/resources")];
  assert.equal(f.etag, p.etag);
  assert.equal(f.body, p.body);
});

test("SIGKILL of the primary: followers keep serving reads and say so; once it is back they catch up with a copy", async () => {
  const served = await get(followers[0], "/discovery/resources");
  await stopServer(primary, "SIGKILL");
  for (const f of followers) {
    await waitFor("the primary seen gone", async () => (await health(f)).primary.link === "unreachable", 3000);
    assert.deepEqual(await get(f, "/discovery/resources"), served);
  }
  const copies = await Promise.all(followers.map(async (f) => (await health(f)).primary.copiesTaken));
  primary = await startPrimary();
  // A new run of the primary is a new epoch: each follower takes one copy and serves its version.
  assert.equal((await declare(primary.url, providerKey, { items: [item(terms, payTo, route(4))] })).status, 200);
  const p = await get(primary, "/discovery/resources");
  for (const [i, f] of followers.entries()) {
    await waitFor("caught up", async () => (await get(f, "/discovery/resources")).etag === p.etag, 8000);
    assert.equal((await get(f, "/discovery/resources")).body, p.body);
    assert.equal((await health(f)).primary.copiesTaken, copies[i] + 1);
  }
});
