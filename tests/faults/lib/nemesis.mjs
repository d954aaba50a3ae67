// The nemesis: at random intervals it starts a fault drawn from the seed, and each fault heals
// itself after a drawn while, so faults overlap and combine. It keeps one fault at a time per
// process, per pair, per cluster link and on the primary's disk, and never pauses a primary
// whose disk faults are on, nor starts them on a paused one (fiu-ctrl would wait on a stopped
// process). A kill may come while the disk fails: the restarted process has no failure points. Every start and end is
// in the history with the fault's number, kind and target.
import { sleep } from "../../e2e/lib/server.mjs";
import { setLink } from "./hosts.mjs";

const day = 86400;

/** The failure points of the primary's data dir: its writes, syncs and renames (never sockets or pipes). */
const diskPoints = ["posix/io/rw/pwrite", "posix/io/sync/fsync", "posix/io/sync/fdatasync", "posix/io/dir/rename"];
const errnos = { EIO: 5, ENOSPC: 28 };

/** The kinds of fault the nemesis draws from (disk-failing also draws disk-flaky). */
export const faultKinds = ["kill", "pause", "pair-down", "follower-isolated", "primary-isolated", "one-way", "delay", "reset",
  "disk-failing", "short-writes", "clock"];

/**
 * Starts injecting faults into `cluster` {primary, followers, proxies (one per follower)}: of
 * every kind, or only of those `only` names (faultKinds). Returns {stop()}, which resolves once
 * every fault under way has healed.
 */
export function startNemesis({ history, cluster, random, only, pauseMs = [400, 2500] }) {
  const { primary, followers, proxies } = cluster;
  const nodes = [primary, ...followers];
  const busy = new Set();  // "process:NAME", "pair:NAME", "link:NAME", "disk"
  const underway = new Set();
  const errors = [];
  let stopping = false, number = 0;

  /** Runs fault `kind` on `target` holding `locks`: start(), a drawn wait, end(). */
  const fault = (kind, target, locks, heldMs, start, end) => {
    if (locks.some((l) => busy.has(l))) return;
    for (const l of locks) busy.add(l);
    const n = number++;
    const run = (async () => {
      const began = history.now();
      const detail = (await start()) ?? {};
      history.fault("start", kind, target, { fault: n, ...detail }, began);
      if (heldMs > 0) await sleep(heldMs);
      await end?.();
      history.fault("end", kind, target, { fault: n });
    })().catch((e) => {
      // A node that does not come back is a finding of its own, reported with the seed.
      errors.push({ fault: n, kind, target, message: e.message });
      history.fault("end", kind, target, { fault: n, error: e.message });
    }).finally(() => {
      for (const l of locks) busy.delete(l);
      underway.delete(run);
    });
    underway.add(run);
  };

  /** A disk fault's detail: whether every fiu-ctrl command took, and when the last one had (ms). */
  const applied = (took) => ({ applied: took.every(Boolean), appliedAt: history.now() });

  const r = random;
  const kinds = [
    // Processes: a crash and a restart with the same data dir; a stop of seconds.
    [3, "kill", () => {
      const node = r.pick(nodes), down = r.int(300, 4000);
      fault("kill", node.name, [`process:${node.name}`], down, () => node.signal("SIGKILL"), () => node.start());
    }],
    [2, "pause", () => {
      const node = r.pick(nodes);
      if (node === primary && busy.has("disk")) return;
      fault("pause", node.name, [`process:${node.name}`, ...(node === primary ? ["disk"] : [])], r.int(1000, 6000),
        () => node.signal("SIGSTOP"), () => node.signal("SIGCONT"));
    }],
    // The network: a node's pair down (cut from clients and cluster alike).
    [2, "pair-down", () => {
      const node = r.pick(nodes);
      fault("pair-down", node.name, [`pair:${node.name}`], r.int(1000, 8000), () => setLink(node.host, false), () => setLink(node.host, true));
    }],
    // Cluster links, through their proxies: a follower isolated, the primary isolated, one
    // direction held, delays, every connection reset.
    [2, "follower-isolated", () => {
      const k = r.int(0, followers.length - 1), p = proxies[k];
      fault("follower-isolated", followers[k].name, [`link:${followers[k].name}`], r.int(1000, 10000),
        () => { p.set("up", { hold: true }); p.set("down", { hold: true }); },
        () => { p.set("up", { pass: true }); p.set("down", { pass: true }); });
    }],
    [1, "primary-isolated", () => {
      fault("primary-isolated", primary.name, followers.map((f) => `link:${f.name}`), r.int(1000, 10000),
        () => { for (const p of proxies) { p.set("up", { hold: true }); p.set("down", { hold: true }); } },
        () => { for (const p of proxies) { p.set("up", { pass: true }); p.set("down", { pass: true }); } });
    }],
    [2, "one-way", () => {
      const k = r.int(0, followers.length - 1), p = proxies[k], direction = r.pick(["up", "down"]);
      fault("one-way", followers[k].name, [`link:${followers[k].name}`], r.int(1000, 8000),
        () => { p.set(direction, { hold: true }); return { direction }; }, () => p.set(direction, { pass: true }));
    }],
    [2, "delay", () => {
      const k = r.int(0, followers.length - 1), p = proxies[k], delayMs = [r.int(0, 50), r.int(100, 600)];
      fault("delay", followers[k].name, [`link:${followers[k].name}`], r.int(2000, 10000),
        () => { p.set("up", { delayMs }); p.set("down", { delayMs }); return { delayMs }; },
        () => { p.set("up", { pass: true }); p.set("down", { pass: true }); });
    }],
    [1, "reset", () => {
      const k = r.int(0, followers.length - 1);
      fault("reset", followers[k].name, [`link:${followers[k].name}`], 0, () => proxies[k].cut());
    }],
    // The primary's disk: every write, sync and rename failing; some of them failing; short writes.
    [2, "disk-failing", () => {
      const errno = r.pick(Object.keys(errnos)), flaky = r.chance(0.4), probability = 0.3;
      const enable = (p) => (flaky ? `enable_random name=${p},probability=${probability},failinfo=${errnos[errno]}` : `enable name=${p},failinfo=${errnos[errno]}`);
      fault(flaky ? "disk-flaky" : "disk-failing", primary.name, ["disk"], r.int(2000, 10000),
        async () => ({ errno, ...applied(await Promise.all(diskPoints.map((p) => primary.fiu(enable(p))))) }),
        () => Promise.all(diskPoints.map((p) => primary.fiu(`disable name=${p}`))));
    }],
    [1, "short-writes", () => {
      fault("short-writes", primary.name, ["disk"], r.int(2000, 10000),
        async () => applied([await primary.fiu("enable_random name=posix/io/rw/pwrite/reduce,probability=0.5")]),
        () => primary.fiu("disable name=posix/io/rw/pwrite/reduce"));
    }],
    // Clocks: to three seconds before the next UTC midnight, on past the payment window (25 h),
    // back by minutes. Forward jumps stop once a node is five days ahead.
    [2, "clock", () => {
      const node = r.pick(nodes), now = node.wallClockMs(), ahead = node.clockOffsetS > 5 * day;
      const how = ahead ? "back" : r.pick(["midnight", "window", "back"]);
      const seconds = how === "midnight" ? Math.floor((Math.ceil(now / (day * 1000)) * day * 1000 - 3000 - now) / 1000)
        : how === "window" ? day + 3600 : -r.int(60, 600);
      fault("clock", node.name, [`clock:${node.name}`], 0, () => { node.jumpClock(seconds); return { how, seconds, offset: node.clockOffsetS }; });
    }],
  ];
  if (kinds.map(([, name]) => name).join() !== faultKinds.join()) throw new Error("the nemesis's kinds are not faultKinds");
  const drawn = only ? kinds.filter(([, name]) => only.includes(name)) : kinds;
  const total = drawn.reduce((s, [w]) => s + w, 0);

  const loop = (async () => {
    while (!stopping) {
      await sleep(r.int(...pauseMs));
      if (stopping) break;
      let x = r.float() * total;
      const [, , start] = drawn.find(([w]) => (x -= w) < 0) ?? drawn.at(-1);
      start();
    }
  })();

  return {
    errors,
    /** Whether a fault under way holds `lock` ("process:NAME", "pair:NAME", "link:NAME", "disk"). */
    holds: (lock) => busy.has(lock),
    async stop() {
      stopping = true;
      await loop;
      while (underway.size > 0) await Promise.all([...underway]);
    },
  };
}
