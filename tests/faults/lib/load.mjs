// The campaign's clients, each a sequential process of the history: providers declaring their
// routes (a new revision of their descriptions, or the same one again as a heartbeat), rail
// nodes settling payments (a payment with no answer sent again, to any node, as a rail node
// retries; some acknowledged payments sent again on purpose to another node), readers reading
// lists, searches and resolves, and a /health poller per node. Any node takes any request.
import { createHash } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { item, settleBody, sleep } from "../../e2e/lib/server.mjs";
import { describe } from "./revision.mjs";

const readTimeoutMs = 4000;
// A follower waits up to 5 s for its primary's answer to a forwarded write.
const writeTimeoutMs = 8000;

/** A POST of `body` as JSON with the bearer `key`; {status, json} or {error} without an answer. */
async function post(url, key, body) {
  try {
    const r = await fetch(url, {
      method: "POST", body: JSON.stringify(body), signal: AbortSignal.timeout(writeTimeoutMs),
      headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
    });
    const text = await r.text();
    let json = null;
    try { json = JSON.parse(text); } catch { /* not JSON: its status says enough */ }
    return { status: r.status, json };
  } catch (e) {
    return { error: e.cause?.code ?? e.name };
  }
}

const digest = (bytes) => createHash("sha256").update(bytes).digest("hex").slice(0, 32);

/**
 * A search page's digest with its next-page cursor left out ({} for other pages): each node signs
 * its cursors with a key of its own and the time it rendered the page (docs/cluster.md), so the
 * checker compares the rest of the page across nodes and counts the cursors apart.
 */
function beyondCursor(path, body) {
  if (!path.startsWith("/discovery/search?")) return {};
  try {
    const page = JSON.parse(body);
    if (!page.pagination?.cursor) return {};
    page.pagination.cursor = "";
    return { hashBeyondCursor: digest(JSON.stringify(page)) };
  } catch {
    return {};
  }
}

/** A write's completion: 503 and 5xx, like no answer at all, leave it unknown (a forwarded write may have landed). */
const writeOutcome = (r) => (r.error || r.status >= 500 ? "info" : r.status === 200 ? "ok" : "fail");

/** A provider's declaration of all its routes at `revision`. */
export const declaration = (terms, provider, revision) => ({
  items: provider.routes.map((url, k) => item(terms, provider.payTo, url, {
    description: describe(provider.index, k, revision),
  })),
});

/**
 * Runs the clients until `load.stopping` is set, then lets each finish what it started (a rail
 * node gives up a payment only after its retries). Resolves once all have stopped.
 */
export function startLoad({ history, nodes, providers, settleKey, terms, random, out }) {
  const load = { stopping: false };
  const pickNode = (r, not) => r.pick(nodes.filter((n) => n !== not));
  const processes = [];

  for (const provider of providers) {
    const r = random.fork();
    processes.push((async () => {
      while (!load.stopping) {
        const node = pickNode(r);
        const revision = provider.revision > 0 && r.chance(0.25) ? provider.revision : ++provider.revision;
        const id = history.invoke(`provider-${provider.index}`, node.name, "declare", { provider: provider.index, revision });
        const a = await post(`${node.url}/discovery/declarations`, provider.key, declaration(terms, provider, revision));
        const outcome = writeOutcome(a);
        history.complete(id, outcome, { status: a.status, error: a.error ?? a.json?.error });
        if (outcome === "ok") provider.declared = true;
        await sleep(r.int(150, 700));
      }
    })());
  }

  const settle = async (name, node, payment) => {
    const id = history.invoke(name, node.name, "settle", { payment: payment.id, provider: payment.provider, route: payment.route });
    const a = await post(`${node.url}/discovery/settled`, settleKey, payment.body);
    let outcome = writeOutcome(a);
    // A 200 carries the catalog's outcome: a rejected payment counted nothing.
    if (outcome === "ok" && a.json?.bazaar?.status !== "success") outcome = "fail";
    history.complete(id, outcome, { status: a.status, error: a.error ?? a.json?.bazaar?.rejectedReason ?? a.json?.error });
    return outcome;
  };
  const again = [];  // the deliberate second sends still on their way
  for (let k = 0; k < 4; ++k) {
    const r = random.fork();
    processes.push((async () => {
      let n = 0;
      while (!load.stopping) {
        const ready = providers.filter((p) => p.declared);
        if (ready.length === 0) { await sleep(50); continue; }
        const provider = r.pick(ready);
        const route = r.int(0, provider.routes.length - 1);
        const payment = { id: `${k}-${n++}`, provider: provider.index, route, body: settleBody(terms, provider.payTo, provider.routes[route]) };
        let node = pickNode(r), outcome;
        // Sent again while no node says whether it counted, as a rail node retries.
        for (let attempt = 0; attempt < 6 && (outcome = await settle(`rail-${k}`, node, payment)) === "info"; ++attempt) {
          await sleep(r.int(200, 1000));
          node = pickNode(r);
        }
        if (outcome === "ok" && (route === 2 || r.chance(0.2))) {
          // The same payment again, up to ten seconds later (across a restart, often), at another
          // node: it must not count twice. Every payment to a provider's third route is sent
          // twice, so that a count made twice outnumbers those a kill may lose there.
          const other = pickNode(r, node), wait = r.int(0, 10000);
          again.push(sleep(wait).then(() => settle(`rail-${k}-again-${payment.id}`, other, payment)));
        }
        await sleep(r.int(0, 60));
      }
    })());
  }

  // The first body of each (path, ETag) of the latest few thousand, and both bodies of each pair
  // that differ (the first five of each path), in DIR/differ/: what the checker's byte promise
  // names, to be read.
  const firsts = new Map(), differing = new Map(), kept = 4096;
  let differ = 0;
  const keepBody = (node, path, etag, hash, body) => {
    const key = `${path} ${etag}`, first = firsts.get(key);
    if (!first) {
      firsts.set(key, { node, hash, body });
      if (firsts.size > kept) firsts.delete(firsts.keys().next().value);  // the oldest
      return;
    }
    if (first.hash === hash || (differing.get(path) ?? 0) >= 5) return;
    differing.set(path, (differing.get(path) ?? 0) + 1);
    mkdirSync(join(out, "differ"), { recursive: true });
    const n = differ++;
    writeFileSync(join(out, "differ", `${n}-first-${first.node}.body`), first.body);
    writeFileSync(join(out, "differ", `${n}-then-${node}.body`), body);
    writeFileSync(join(out, "differ", `${n}.what`), `${path}\n${etag}\n`);
  };
  const paths = (p) => ["/discovery/resources?limit=100", "/discovery/resources?limit=5&offset=3",
    "/discovery/resources?sort=calls30d&limit=10", "/discovery/search?query=revision+route&limit=5",
    `/discovery/resource?type=http&url=${encodeURIComponent(p.routes[0])}&method=GET`];
  for (let k = 0; k < 4; ++k) {
    const r = random.fork();
    processes.push((async () => {
      while (!load.stopping) {
        const node = pickNode(r), path = r.pick(paths(r.pick(providers)));
        const id = history.invoke(`reader-${k}`, node.name, "read", { path });
        try {
          const res = await fetch(`${node.url}${path}`, { signal: AbortSignal.timeout(readTimeoutMs) });
          const body = Buffer.from(await res.arrayBuffer());
          const etag = res.headers.get("etag"), hash = digest(body);
          // A resolve of an identity not listed yet is answered 404: an answer, not a failure.
          const answered = res.status === 200 || (res.status === 404 && path.startsWith("/discovery/resource?"));
          history.complete(id, answered ? "ok" : "fail", { path, status: res.status, etag, bytes: body.length, hash, ...beyondCursor(path, body) });
          if (etag) keepBody(node.name, path, etag, hash, body);
        } catch (e) {
          history.complete(id, "info", { path, error: e.cause?.code ?? e.name });
        }
        await sleep(r.int(0, 40));
      }
    })());
  }

  for (const node of nodes) {
    processes.push((async () => {
      while (!load.stopping) {
        const id = history.invoke(`health-${node.name}`, node.name, "health", null);
        try {
          const res = await fetch(`${node.url}/health`, { signal: AbortSignal.timeout(readTimeoutMs) });
          const h = await res.json();
          history.complete(id, res.status === 200 ? "ok" : "fail", { status: h.status, failingSince: h.persistence?.failingSince ?? null });
        } catch (e) {
          history.complete(id, "info", { error: e.cause?.code ?? e.name });
        }
        await sleep(250);
      }
    })());
  }

  load.done = Promise.all(processes).then(() => Promise.all(again));
  return load;
}
