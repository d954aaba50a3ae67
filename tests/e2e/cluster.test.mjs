// More than one node: a primary and two followers on loopback, one of them behind a
// small TCP proxy the test controls, linked by mutual TLS under a cluster CA the test makes.
// Followers serve the primary's catalog byte for byte under the same versions (so ETags match),
// take no writes, keep serving when the primary is gone, and catch up: from the version they
// hold after a cut link, with a copy after the primary restarted. Writes at a follower are
// authenticated and checked there and land at the primary, whose answer the client gets. A
// node whose certificate comes from another CA, or that has none, is refused at the handshake.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import net from "node:net";
import { spawnSync } from "node:child_process";
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  newDataDir, removeDataDir, addProvider, createSettleKey, termsFile, startServer, stopServer, item, declare,
  settleBody, delist, sleep, waitFor, freePort, scaled, binary,
} from "./lib/server.mjs";
import { makeCa, makeServerCert } from "./lib/tls.mjs";

let dirs, primary, followers, proxy, providerKey, settleKey, terms, feedPort, cas, countedAtFollower;
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

// Counts and lastSeen (a settle's, or a declaration's for the items it left as they were) are
// published up to the counts interval (250 ms) after they were answered. Waits that out, then
// until each of `nodes` serves the primary's version; the primary's answer.
const oneVersion = async (nodes, path = "/discovery/resources") => {
  await sleep(scaled(300));
  const p = await get(primary, path);
  for (const n of nodes) await waitFor("the primary's version", async () => (await get(n, path)).etag === p.etag, 3000);
  return p;
};

async function startPrimary() {
  return startServer(dirs[0], ["--cluster-listen", `127.0.0.1:${feedPort}`]);
}

/** A cluster node's certificate from the CA in `ca`, and the `cluster` config naming it, in `dataDir`. */
function joinCluster(dataDir, ca, name, usage = "serverAuth,clientAuth") {
  const { cert, key } = makeServerCert(ca.dir, name, { usage });
  writeFileSync(join(dataDir, "config.json"), JSON.stringify({ cluster: { ca: ca.ca, cert, key } }));
  return { cert, key };
}

/** Runs `serve` with `args` and resolves with its exit code and stderr once it exits on its own. */
function serveExit(dataDir, args) {
  const r = spawnSync(binary, ["serve", "--listen", "127.0.0.1:0", "--data-dir", dataDir, ...args], { encoding: "utf8", timeout: scaled(20000) });
  return { status: r.status, stderr: r.stderr };
}

/**
 * Starts a node in a data dir of its own, following the primary; `prepare(dir)` writes its
 * config first and what it returns goes to `check(node, prepared)`. Stopped and removed after.
 */
async function withFollower(prepare, check) {
  const dir = newDataDir();
  try {
    const prepared = prepare(dir);
    const node = await startServer(dir, ["--follow", `127.0.0.1:${feedPort}`]);
    try {
      await check(node, prepared);
    } finally {
      await stopServer(node);
    }
  } finally {
    removeDataDir(dir);
  }
}

/** openssl s_client at the primary's feed with `extra`; what it printed once the server answered or 3 s passed. */
function sClient(extra) {
  const r = spawnSync("openssl", ["s_client", "-connect", `127.0.0.1:${feedPort}`, "-CAfile", cas[0].ca, "-ign_eof", ...extra],
    { input: "", encoding: "utf8", timeout: scaled(3000) });
  return r.stdout + r.stderr;
}

before(async () => {
  dirs = [newDataDir(), newDataDir(), newDataDir()];
  cas = [makeCa(newDataDir(), "z402 cluster CA"), makeCa(newDataDir(), "another CA")];
  for (const [i, d] of dirs.entries()) joinCluster(d, cas[0], `node${i}`);
  providerKey = addProvider(dirs[0], "cluster", payTo);
  settleKey = createSettleKey(dirs[0]);
  terms = termsFile(dirs[0]).terms;
  feedPort = await freePort();
  primary = await startPrimary();
  proxy = await tcpProxy(feedPort);
  followers = [await startServer(dirs[1], ["--follow", `127.0.0.1:${feedPort}`]),
               await startServer(dirs[2], ["--follow", `127.0.0.1:${proxy.port}`])];
  // Connected once its subscription is sent; it has heard from the primary once the copy came.
  for (const f of followers) await waitFor("the follower heard from the primary", async () => (await health(f)).primary.lastHeardFrom !== null, 5000);
  // A follower is connected once it has sent its subscription; the primary counts it once taken.
  await waitFor("both followers subscribed", async () => (await health(primary)).followers === 2, 5000);
});

after(async () => {
  for (const node of [primary, ...followers]) if (node.child.exitCode === null && node.child.signalCode === null) await stopServer(node);
  await proxy.close();
  for (const d of [...dirs, ...cas.map((c) => c.dir)]) removeDataDir(d);
});

test("/health says each node's role; a follower says its link, the version it serves and how old it is", async () => {
  assert.match(primary.log(), /the cluster feed is mutual TLS feed=127\.0\.0\.1:\d+ certificate="CN=localhost"/);
  for (const f of followers) assert.match(f.log(), /following the primary's feed over mutual TLS/);
  const p = await health(primary);
  assert.equal(p.role, "primary");
  assert.equal(p.followers, 2);
  for (const f of followers) {
    const h = await health(f);
    assert.equal(h.role, "follower");
    assert.equal(h.primary.link, "connected");
    // The primary's feed speaks at least once a second, changes or not.
    assert.ok(h.primary.snapshotAgeMs !== null && h.primary.snapshotAgeMs <= scaled(2500), `snapshotAgeMs ${h.primary.snapshotAgeMs}`);
    // Its reads say the same, in headers.
    const r = await fetch(`${f.url}/discovery/resources`);
    assert.equal(r.headers.get("z402-snapshot-version"), String(h.primary.snapshotVersion));
    assert.ok(Number(r.headers.get("z402-snapshot-age-ms")) <= scaled(2500));
  }
  assert.equal((await fetch(`${primary.url}/discovery/resources`)).headers.get("z402-snapshot-age-ms"), null);
});

// How soon a follower shows a write is measured, not asserted here: benchmarks/run reports the
// replication lag (p50, p99, max) beside the settle load that drives it.
const shows = (node, resource) => waitFor(`${node.url} shows ${resource}`, async () =>
  (await get(node, `/discovery/resources?payTo=${payTo}`)).body.includes(resource), 5000);

test("a declaration at the primary is visible on both followers, byte for byte under the same ETag", async () => {
  assert.equal((await declare(primary.url, providerKey, { items: [item(terms, payTo, route(1)), item(terms, payTo, route(2))] })).status, 200);
  await Promise.all(followers.map((f) => shows(f, route(2))));
  for (const path of ["/discovery/resources", `/discovery/search?query=test+route`, `/discovery/resource?type=http&url=${encodeURIComponent(route(1))}`]) {
    const answers = [await get(primary, path), ...(await Promise.all(followers.map((f) => get(f, path))))];
    for (const a of answers.slice(1)) {
      assert.equal(a.status, 200);
      assert.equal(a.etag, answers[0].etag, path);
      assert.equal(a.body, answers[0].body, path);
    }
  }
});

test("a declaration at a follower is checked there and lands at the primary: visible on all three, the primary's answer", async () => {
  // The follower authenticates with the primary's keyring, which the feed brought it.
  await waitFor("the follower knows the provider's key", async () =>
    (await declare(followers[0].url, providerKey, { items: [item(terms, payTo, route(1)), item(terms, payTo, route(2))] })).status === 200, 5000);
  const r = await declare(followers[0].url, providerKey, { items: [item(terms, payTo, route(1)), item(terms, payTo, route(2)), item(terms, payTo, route(5))] });
  assert.equal(r.status, 200);
  assert.equal(JSON.parse(r.body).accepted, 3);
  await Promise.all([primary, followers[1], followers[0]].map((n) => shows(n, route(5))));
  const p = await oneVersion(followers);
  for (const f of followers) assert.equal((await get(f, "/discovery/resources")).body, p.body);
});

test("a heartbeat at a follower moves lastSeen at the primary; once the primary took another declaration, the whole body follows it", async () => {
  const body = { items: [item(terms, payTo, route(1)), item(terms, payTo, route(2))] };
  const lastSeen = async (r) => JSON.parse((await get(primary, `/discovery/resources?payTo=${payTo}`)).body).items
    .find((i) => i.resource === r)?.lastSeen;
  await waitFor("the follower knows the provider's key", async () => (await declare(followers[0].url, providerKey, body)).status === 200, 5000);
  await sleep(scaled(300));
  const before = await lastSeen(route(1));
  // The same body again: it crosses to the primary as its digest, and only lastSeen moves.
  const beat = await declare(followers[0].url, providerKey, body);
  assert.equal(beat.status, 200);
  assert.equal(JSON.parse(beat.body).accepted, 2);
  await waitFor("lastSeen moved at the primary", async () => (await lastSeen(route(1))) > before, 3000);
  // The primary takes another declaration of the provider's, and route 2 leaves: the same body
  // at the follower is no heartbeat there any more, and must list route 2 again.
  assert.equal((await declare(primary.url, providerKey, { items: [item(terms, payTo, route(1))] })).status, 200);
  const removed = await delist(primary.url, providerKey, { items: [{ type: "http", resource: route(2), method: "GET" }] });
  assert.equal(removed.status, 200);
  assert.equal(await lastSeen(route(2)), undefined);
  const again = await declare(followers[0].url, providerKey, body);
  assert.equal(again.status, 200);
  assert.equal(JSON.parse(again.body).accepted, 2);
  await waitFor("route 2 listed again at the primary", async () => (await lastSeen(route(2))) !== undefined, 3000);
});

test("bad writes at a follower are refused there, as the primary would, and change nothing", async () => {
  const before = await oneVersion([]);
  let badItem;  // refused by the rules once this follower knows the key (401 until its keyring came)
  await waitFor("refused by the rules", async () =>
    (badItem = await declare(followers[1].url, providerKey, { items: [item(terms, payTo, "ftp://cluster.example.com/x")] })).status !== 401, 5000);
  assert.equal(badItem.status, 400);
  assert.equal(JSON.parse(badItem.body).error, "invalid_request");
  assert.equal((await declare(followers[1].url, "z402_not_a_key", { items: [item(terms, payTo, route(6))] })).status, 401);
  const providerSettles = await fetch(`${followers[1].url}/discovery/settled`, {
    method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${providerKey}` },
    body: JSON.stringify(settleBody(terms, payTo, route(1))),
  });
  assert.equal(providerSettles.status, 403);
  await sleep(scaled(300));  // past the counts interval: nothing was on its way
  assert.deepEqual(await get(primary, "/discovery/resources"), before);
});

const settleAt = async (node, body) => {
  const r = await fetch(`${node.url}/discovery/settled`, {
    method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${settleKey}` }, body: JSON.stringify(body),
  });
  const text = await r.text();
  return { status: r.status, retryAfter: r.headers.get("retry-after"), json: JSON.parse(text) };
};
const paidCalls = async (node) => {
  const r = await fetch(`${node.url}/discovery/resources?payTo=${payTo}&limit=100`);
  return (await r.json()).items.reduce((sum, i) => sum + i.paidCallsToday, 0);
};

test("a settle at a follower counts at the primary; the same payment at the other follower counts nothing more", async () => {
  await waitFor("the follower knows the settle key", async () => (await settleAt(followers[0], { x402Version: 2 })).status === 400, 5000);
  const counted = await paidCalls(primary);
  const { settles } = await health(primary);
  const body = settleBody(terms, payTo, route(1));
  countedAtFollower = body;
  const first = await settleAt(followers[0], body);
  assert.equal(first.status, 200);
  assert.equal(first.json.bazaar.status, "success");
  const again = await settleAt(followers[1], body);  // a rail node retrying at another node
  assert.deepEqual([again.status, again.json], [200, first.json]);
  await waitFor("counted once on every node", async () =>
    (await Promise.all([primary, ...followers].map(paidCalls))).every((n) => n === counted + 1), 3000);
  const after = (await health(primary)).settles;
  assert.equal(after.counted, settles.counted + 1);
  assert.equal(after.repeated, settles.repeated + 1);
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
  const p = await oneVersion([behind]);
  assert.equal((await get(behind, "/discovery/resources")).body, p.body);
});

const versionOf = (etag) => parseInt(etag.replaceAll('"', "").split("-")[1], 16);  // "epoch-version-target", in hex

test("a follower restarted within the feed's window resumes from its own file without a copy; one down for longer takes a copy", async () => {
  const restart = async () => {
    followers[0] = await startServer(dirs[1], ["--follow", `127.0.0.1:${feedPort}`]);
    await waitFor("connected", async () => (await health(followers[0])).primary.link === "connected", 5000);
    const p = await get(primary, "/discovery/resources");
    await waitFor("caught up", async () => (await get(followers[0], "/discovery/resources")).etag === p.etag, 5000);
    assert.equal((await get(followers[0], "/discovery/resources")).body, p.body);
    return (await health(followers[0])).primary;
  };
  const heldVersion = versionOf((await oneVersion([followers[0]])).etag);
  await stopServer(followers[0]);
  assert.equal((await declare(primary.url, providerKey, { items: [item(terms, payTo, route(1)), item(terms, payTo, route(9))] })).status, 200);
  let link = await restart();
  assert.equal(link.copiesTaken, 0);  // the changes since the version its file held
  assert.match(followers[0].log(), new RegExp(`following the primary primary=127\\.0\\.0\\.1:\\d+ version=${heldVersion}`));

  await stopServer(followers[0]);
  const before = versionOf((await get(primary, "/discovery/resources")).etag);
  // More publications than the window (64) holds; declarations that arrive within one
  // publication interval share a version, so count versions, not declarations.
  for (let i = 0; versionOf((await get(primary, "/discovery/resources")).etag) - before <= 66; i++) {
    assert.ok(i < 1000, "the primary's version does not move on");
    assert.equal((await declare(primary.url, providerKey, { items: [item(terms, payTo, route(1), { description: `Revision ${i}.` })] })).status, 200);
  }
  link = await restart();
  assert.equal(link.copiesTaken, 1);
});

test("SIGKILL of the primary under a settle load at a follower: reads go on, writes get 503, and after its restart the counts equal the settles acknowledged, less at most its last second", async (t) => {
  const counted = await paidCalls(primary);
  const acks = [];  // when each success was answered
  let refused = 0, retryAfter = null, loading = true;
  // Eight rail workers, each posting its next payment once the last was acknowledged, and the
  // same one again after a 503, as a rail node does (it may have been counted: it counts once).
  const load = Promise.all(Array.from({ length: 8 }, async () => {
    let body = settleBody(terms, payTo, route(1 + (acks.length % 2)));
    while (loading) {
      const r = await settleAt(followers[0], body);
      if (r.status === 200 && r.json.bazaar.status === "success") {
        acks.push(performance.now());
        body = settleBody(terms, payTo, route(1 + (acks.length % 2)));
      } else if (r.status === 503) {
        refused++;
        retryAfter = r.retryAfter;
        await sleep(20);
      } else assert.fail(`settle answered ${r.status} ${JSON.stringify(r.json)}`);
    }
  }));
  await sleep(scaled(3000));
  const killedAt = performance.now();
  await stopServer(primary, "SIGKILL");
  for (const f of followers) await waitFor("the primary seen gone", async () => (await health(f)).primary.link === "unreachable", 3000);
  const served = await get(followers[1], "/discovery/resources");
  const ageOf = async () => Number((await fetch(`${followers[1].url}/discovery/resources`)).headers.get("z402-snapshot-age-ms"));
  const age = await ageOf();
  // Writes on their way when it died are answered at once, new ones as they come.
  await waitFor("a write refused", async () => refused > 0, 3000);
  assert.equal(retryAfter, "1");
  const declared = await declare(followers[1].url, providerKey, { items: [item(terms, payTo, route(7))] });
  assert.equal(declared.status, 503);
  assert.deepEqual(await get(followers[1], "/discovery/resources"), served);  // reads go on, unchanged
  assert.ok((await ageOf()) > age, "a read says how long ago the primary was last heard from");
  const copies = await Promise.all(followers.map(async (f) => (await health(f)).primary.copiesTaken));
  const acknowledged = acks.length;
  primary = await startPrimary();
  // A new run of the primary is a new epoch: each follower takes one copy and serves its version.
  for (const [i, f] of followers.entries()) {
    await waitFor("caught up", async () => (await health(f)).primary.copiesTaken === copies[i] + 1, 8000);
  }
  loading = false;
  await load;
  const p = await oneVersion(followers);  // the last counts published and fed
  for (const f of followers) assert.equal((await get(f, "/discovery/resources")).body, p.body);
  // Counts the primary acknowledged reach its catalog file within a second (the persist
  // interval) and a quarter (the counts interval); a SIGKILL may lose those, never more, and a
  // count is never made twice.
  const before = acks.filter((t) => t <= killedAt).length;
  const lastSecond = acks.filter((t) => t > killedAt - scaled(1250) - 250 && t <= killedAt).length;
  const afterRestart = acks.length - acknowledged;
  const total = (await paidCalls(primary)) - counted;
  t.diagnostic(`acknowledged ${before} before the kill (${lastSecond} in its last second), ${afterRestart} after the restart; ` +
    `counted ${total}; refused while it was gone: ${refused}`);
  assert.ok(before > 50, `only ${before} settles acknowledged before the kill`);
  assert.ok(total <= before + afterRestart, `counted ${total} of ${before + afterRestart} acknowledged`);
  assert.ok(total >= before + afterRestart - lastSecond,
    `counted ${total}: ${before - (total - afterRestart)} of ${before} lost, more than the last second's ${lastSecond}`);
  for (const f of followers) assert.equal(await paidCalls(f), await paidCalls(primary));
});

test("a follower restarted without --follow is a primary with the primary's keys, catalog and remembered payments", async () => {
  const promoted = followers[1];
  const served = await get(promoted, "/discovery/resources");
  await stopServer(promoted);
  followers[1] = await startServer(dirs[2]);
  const node = followers[1];
  const h = await health(node);
  assert.equal(h.role, "standalone");
  assert.equal((await get(node, "/discovery/resources")).body, served.body);  // served at once from its own file
  // The primary's keys came with the feed: its provider declares here, its rail node settles here.
  assert.equal((await declare(node.url, providerKey, { items: [item(terms, payTo, route(1)), item(terms, payTo, route(8))] })).status, 200);
  await waitFor("the declaration published", async () => (await get(node, "/discovery/resources")).body.includes(route(8)), 3000);
  const before = await paidCalls(node);
  // A payment the primary counted (reported at the other follower) is remembered: not counted again.
  const repeat = await settleAt(node, countedAtFollower);
  assert.equal(repeat.json.bazaar.status, "success");
  assert.equal((await settleAt(node, settleBody(terms, payTo, route(1)))).json.bazaar.status, "success");
  await waitFor("the new payment counted", async () => (await paidCalls(node)) === before + 1, 3000);
  const { settles } = await health(node);
  assert.equal(settles.counted, 1);
  assert.equal(settles.repeated, 1);
});

test("a follower that checks declarations against other terms than its primary's forwards no writes and says why", async () => {
  const prepare = (dir) => {
    const { cert, key } = makeServerCert(cas[0].dir, "other-terms", { usage: "serverAuth,clientAuth" });
    writeFileSync(join(dir, "config.json"), JSON.stringify({ cluster: { ca: cas[0].ca, cert, key }, terms: { asset: "other-asset" } }));
    return termsFile(dir).terms;
  };
  await withFollower(prepare, async (node, otherTerms) => {
    assert.notEqual(otherTerms.asset, terms.asset);
    await waitFor("the difference logged", async () => /checks differ from its primary's/.test(node.log()), 5000);
    // Its own rules pass this item; the primary's would not: it is not forwarded.
    let r;
    await waitFor("a key it knows", async () =>
      (r = await declare(node.url, providerKey, { items: [item(otherTerms, payTo, route(10))] })).status !== 401, 5000);
    assert.equal(r.status, 503);
    assert.match(JSON.parse(r.body).message, /other terms or limits than its primary's/);
    assert.doesNotMatch((await get(primary, "/discovery/resources")).body, new RegExp(route(10)));
  });
});

test("a node whose certificate another CA signed is refused at the handshake, says so, and changes nothing", async () => {
  const members = (await health(primary)).followers;
  await withFollower((dir) => joinCluster(dir, cas[1], "stranger"), async (stranger) => {
    await waitFor("the refusal logged", async () => /cannot reach the primary's feed.*reason=.*handshake/.test(stranger.log()), 5000);
    const h = await health(stranger);
    assert.notEqual(h.primary.link, "connected");
    assert.equal(h.primary.linksMade, 0);
    assert.equal(h.items, 0);
    // Said once for each reason, not once per attempt (it tries again with backoff).
    await sleep(scaled(1000));
    const reasons = [...stranger.log().matchAll(/cannot reach the primary's feed.*reason=(.*)$/gm)].map((m) => m[1]);
    assert.ok(reasons.some((reason) => /handshake/.test(reason)), reasons.join("\n"));
    assert.equal(new Set(reasons).size, reasons.length, reasons.join("\n"));
    await waitFor("the members still subscribed", async () => (await health(primary)).followers === members, 3000);
  });
});

test("a node without cluster credentials cannot follow a TLS primary", async () => {
  const members = (await health(primary)).followers;
  await withFollower(() => {}, async (plain) => {
    assert.match(plain.log(), /over plain BASP \(loopback only\)/);
    await waitFor("the failure logged", async () => /cannot reach the primary's feed/.test(plain.log()), 8000);
    assert.equal((await health(plain)).primary.linksMade, 0);
    await waitFor("the members still subscribed", async () => (await health(primary)).followers === members, 3000);
  });
});

test("openssl s_client at the feed: the handshake completes with a cluster certificate, not without one or with another CA's", () => {
  const member = makeServerCert(cas[0].dir, "s_client", { usage: "serverAuth,clientAuth" });
  const stranger = makeServerCert(cas[1].dir, "s_client", { usage: "serverAuth,clientAuth" });
  const ok = sClient(["-cert", member.cert, "-key", member.key]);
  assert.match(ok, /Verify return code: 0 \(ok\)/);
  assert.doesNotMatch(ok, /alert/);
  // TLS 1.3 ends the client's part of the handshake before the server has checked it: the
  // server's refusal arrives as an alert on the first read.
  assert.match(sClient([]), /alert certificate required/);
  assert.match(sClient(["-cert", stranger.cert, "-key", stranger.key]), /alert unknown ca/);
});

test("cluster credentials are checked at start: each wrong one is refused, naming its field", () => {
  const dir = newDataDir();
  try {
    const write = (cluster) => writeFileSync(join(dir, "config.json"), JSON.stringify({ cluster }));
    const refusedWith = (pattern, listen = "127.0.0.1:0") => {
      const r = serveExit(dir, ["--cluster-listen", listen]);
      assert.notEqual(r.status, 0);
      assert.match(r.stderr, pattern);
    };
    const good = makeServerCert(cas[0].dir, "checked", { usage: "serverAuth,clientAuth" });
    write({ ca: cas[0].ca, cert: good.cert });
    refusedWith(/cluster\.key is missing/);
    write({ ca: cas[0].ca, cert: good.cert, key: good.key, extra: "x" });
    refusedWith(/unknown key cluster\.extra/);
    const foreign = makeServerCert(cas[1].dir, "checked", { usage: "serverAuth,clientAuth" });
    write({ ca: cas[0].ca, cert: foreign.cert, key: foreign.key });
    refusedWith(/cluster\.cert .* does not verify against cluster\.ca .*: unable to get local issuer certificate/);
    write({ ca: cas[0].ca, cert: good.cert, key: foreign.key });
    refusedWith(/cluster\.key .* is not the key of cluster\.cert/);
    const serverOnly = makeServerCert(cas[0].dir, "server-only");
    write({ ca: cas[0].ca, cert: serverOnly.cert, key: serverOnly.key });
    refusedWith(/must allow both TLS server and client use/);
    const expired = makeServerCert(cas[0].dir, "expired", { usage: "serverAuth,clientAuth", days: 0 });
    write({ ca: cas[0].ca, cert: expired.cert, key: expired.key });
    refusedWith(/does not verify against cluster\.ca .*: certificate has expired/);
    write({ ca: good.key, cert: good.cert, key: good.key });
    refusedWith(/cluster\.ca .* holds no PEM certificate/);
    chmodSync(good.key, 0o644);
    write({ ca: cas[0].ca, cert: good.cert, key: good.key });
    refusedWith(/cluster\.key .* is readable by others \(mode 0644\)/);
    chmodSync(good.key, 0o600);
    write({ ca: join(dir, "missing.pem"), cert: good.cert, key: good.key });
    refusedWith(/cannot read cluster\.ca/);
    // Plain BASP may not listen beyond loopback (with TLS it may: the next test).
    writeFileSync(join(dir, "config.json"), "{}");
    refusedWith(/plain cluster links are accepted on loopback only; 0\.0\.0\.0 is not loopback/, "0.0.0.0:0");
  } finally {
    removeDataDir(dir);
  }
});

test("with cluster credentials a primary publishes its feed beyond loopback", async () => {
  const dir = newDataDir();
  try {
    joinCluster(dir, cas[0], "wide");
    const wide = await startServer(dir, ["--cluster-listen", "0.0.0.0:0"]);
    try {
      assert.match(wide.log(), /the cluster feed is mutual TLS feed=0\.0\.0\.0:\d+/);
    } finally {
      await stopServer(wide);
    }
  } finally {
    removeDataDir(dir);
  }
});
