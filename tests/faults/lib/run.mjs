// One campaign: three hosts (a primary and two followers, each in its own namespace, the
// followers' feed links through proxies in the runner's), the clients' load and the nemesis for
// the minutes asked, then every fault healed, the load stopped, a quiet period until every node
// serves one version, the final reads, and the checker over the history.
import { mkdirSync, truncateSync, existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { addProvider, createSettleKey, termsFile, sleep } from "../../e2e/lib/server.mjs";
import { makeCa, makeServerCert } from "../../e2e/lib/tls.mjs";
import { makeHost, removeHost, removeHostsRoute, setLink } from "./hosts.mjs";
import { linkProxy } from "./proxy.mjs";
import { Node, feedPort, faketime } from "./nodes.mjs";
import { startLoad } from "./load.mjs";
import { startNemesis } from "./nemesis.mjs";
import { startWatchdog } from "./watchdog.mjs";
import { History } from "./history.mjs";
import { seeded } from "./random.mjs";

/** Bugs the campaign can plant outside the server, to show the checker catches them. */
export const plants = {
  // The primary restarts without its payment ledger: a payment counted before the kill and sent again after counts twice.
  ledger: (dataDir) => existsSync(join(dataDir, "payments.bin")) && truncateSync(join(dataDir, "payments.bin")),
};

/**
 * The cluster CA and a certificate per host, made a day in the past (under libfaketime) so a
 * node whose clock the nemesis sets back still finds them valid.
 */
function certificates(dir, hosts) {
  const saved = { LD_PRELOAD: process.env.LD_PRELOAD, FAKETIME: process.env.FAKETIME };
  Object.assign(process.env, { LD_PRELOAD: faketime, FAKETIME: "-1d" });
  try {
    const ca = makeCa(dir, "z402 faults CA");
    return hosts.map((h) => ({ ca: ca.ca, ...makeServerCert(dir, `node${h.index}`,
      { hosts: [`IP:${h.address}`, `IP:${h.gateway}`], usage: "serverAuth,clientAuth" }) }));
  } finally {
    for (const [k, v] of Object.entries(saved)) if (v === undefined) delete process.env[k]; else process.env[k] = v;
  }
}

const json = async (url) => (await fetch(url, { signal: AbortSignal.timeout(4000) })).json();
const etagOf = async (node) => (await fetch(`${node.url}/discovery/resources?limit=1000`, { signal: AbortSignal.timeout(4000) })).headers.get("etag");

/** Waits until every node serves the primary's version and says it twice, 2 s apart (counts published between). */
async function quiet(nodes, ms) {
  const end = Date.now() + ms;
  for (;;) {
    try {
      const tags = await Promise.all(nodes.map(etagOf));
      if (new Set(tags).size === 1) {
        await sleep(2000);
        const again = await Promise.all(nodes.map(etagOf));
        if (new Set(again).size === 1 && again[0] === tags[0]) return true;
      }
    } catch { /* a node still coming back */ }
    if (Date.now() > end) return false;
    await sleep(250);
  }
}

export async function runCampaign({ seed, minutes, bazaar, out, plant, faults, log }) {
  const random = seeded(seed);
  mkdirSync(out, { recursive: true });
  const hosts = [];
  const removeHosts = () => {
    for (const index of [0, 1, 2]) removeHost(index);
    removeHostsRoute();
  };
  try {
    for (const index of [0, 1, 2]) hosts.push(makeHost(index));
  } catch (e) {
    removeHosts();  // nothing half-made is left behind
    throw e;
  }
  const certs = certificates(out, hosts);
  const names = ["primary", "follower-a", "follower-b"];
  const dirs = names.map((n) => join(out, n));
  for (const [i, d] of dirs.entries()) {
    mkdirSync(d, { recursive: true });
    writeFileSync(join(d, "config.json"), JSON.stringify({ cluster: { ca: certs[i].ca, cert: certs[i].cert, key: certs[i].key } }));
  }
  const providers = Array.from({ length: 6 }, (_, index) => {
    const payTo = `uregtest1faults${index}`;
    return { index, payTo, key: addProvider(dirs[0], `provider${index}`, payTo), revision: 0, declared: false,
      routes: [0, 1, 2].map((k) => `https://p${index}.faults.example.com/v1/route-${k}`) };
  });
  const settleKey = createSettleKey(dirs[0]);
  const { terms } = termsFile(dirs[0]);

  const primary = new Node({ name: names[0], host: hosts[0], bazaar, dataDir: dirs[0], control: out, faults: true,
    args: ["--cluster-listen", `${hosts[0].address}:${feedPort}`], beforeStart: plant && plants[plant] });
  const proxies = await Promise.all(hosts.slice(1).map((h) => linkProxy({ host: h.gateway, port: feedPort }, { host: hosts[0].address, port: feedPort }, random.fork())));
  const followers = hosts.slice(1).map((h, k) => new Node({ name: names[k + 1], host: h, bazaar, dataDir: dirs[k + 1], control: out,
    args: ["--follow", `${h.gateway}:${feedPort}`] }));
  const nodes = [primary, ...followers];
  const history = new History();
  try {
    for (const n of nodes) await n.start();
    for (const f of followers) {
      const end = Date.now() + 20000;
      while ((await json(`${f.url}/health`)).primary?.link !== "connected") {
        if (Date.now() > end) throw new Error(`${f.name} did not reach the primary`);
        await sleep(100);
      }
    }
    log(`the cluster is up; load and faults for ${minutes} min (seed ${seed})`);
    const load = startLoad({ history, nodes, providers, settleKey, terms, random: random.fork(), out });
    const nemesis = startNemesis({ history, cluster: { primary, followers, proxies }, random: random.fork(), only: faults });
    const watchdog = startWatchdog({ history, nodes, out, log,
      excused: (n) => nemesis.holds(`process:${n.name}`) || nemesis.holds(`pair:${n.name}`) });
    await sleep(minutes * 60000);
    log("healing every fault");
    watchdog.stop();
    await nemesis.stop();
    load.stopping = true;
    await load.done;
    // Whatever a fault left behind (a node that did not come back) is brought back for the final reads.
    for (const h of hosts) setLink(h, true);
    for (const p of proxies) { p.set("up", { pass: true }); p.set("down", { pass: true }); }
    for (const n of nodes) if (!n.running()) await n.start();
    log("quiet: waiting for every node to serve one version");
    const settled = await quiet(nodes, 60000);
    for (const n of nodes) {
      const id = history.invoke("final", n.name, "final", null);
      const page = await fetch(`${n.url}/discovery/resources?limit=1000`, { signal: AbortSignal.timeout(4000) });
      const body = await page.json();
      const items = Object.fromEntries(body.items.map((i) => [i.resource, { description: i.description, calls: i.quality?.l30DaysTotalCalls ?? 0 }]));
      history.complete(id, "ok", { node: n.name, etag: page.headers.get("etag"), items, settled });
    }
    return { history, nemesisErrors: nemesis.errors, stalls: watchdog.stalls, meta: { seed, minutes, plant: plant ?? null, kinds: faults ?? null, primary: primary.name, nodes: names,
      providers: providers.map(({ index, routes }) => ({ index, routes })) } };
  } finally {
    for (const n of nodes) {
      if (!n.running()) continue;
      n.signal("SIGCONT");
      await n.signal("SIGTERM");
    }
    for (const p of proxies) await p.close();
    removeHosts();
    history.save(join(out, "history.jsonl"));
  }
}
