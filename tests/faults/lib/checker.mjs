// The checker: the campaign's promises, proved from the history alone (faults, operations and
// the final reads taken after healing and a quiet period), so a saved history is checked again
// by `tests/faults/check FILE`. Each promise reports how many cases it checked and every
// violation with the time it happened, for the history around it.
//
// What a SIGKILL of the primary may lose is the one window the server documents: a write is
// acknowledged before it is saved, and saved about once a second (counts are published every
// 250 ms), so what the primary acknowledged in its last running second and a quarter before a
// kill may be gone; and while its disk fails, saving is retried (backing off up to 5 s) and
// everything acknowledged since the failure began is at risk until a save succeeds. A payment
// counted once may count again after the primary's clock has moved 24 hours past it (the
// payment ledger's window, by the server's clock).
import { revisionOf } from "./revision.mjs";

const lastSecondMs = 1250;   // the persist interval and the counts interval
const answerSlackMs = 500;   // between the server's acknowledgement and the client's reading of it
const retrySlackMs = 6000;   // a failed save is retried within 5 s
const healthGraceMs = 2500;  // a change arrives, a save is tried (at most about once a second) and fails
const windowS = 86400;       // the payment ledger's window
const clockLagMs = 1500;     // a node's clock moves within a second of its jump (libfaketime rereads its file each second)

/** The history's timeline of faults, by kind and target, as [start, end] intervals. */
function faultIntervals(events) {
  const open = new Map(), intervals = [];
  for (const e of events) {
    if (e.type !== "fault") continue;
    if (e.phase === "start") open.set(e.fault, { ...e, start: e.t, end: Infinity });
    else if (open.has(e.fault)) {
      const f = open.get(e.fault);
      f.end = e.t;
      open.delete(e.fault);
      intervals.push(f);
    }
  }
  return [...intervals, ...open.values()].sort((a, b) => a.start - b.start);
}

/** Whether the point `t` lies in [from, to]. */
const within = (t, from, to) => t >= from && t <= to;

export function check(events, meta) {
  const faults = faultIntervals(events);
  const of = (kind, target) => faults.filter((f) => f.kind === kind && (target === undefined || f.target === target));
  const primaryKills = of("kill", meta.primary).map((f) => f.start);
  const primaryPauses = of("pause", meta.primary);
  // A disk window runs from its start to its end, or to the primary's kill (the process that
  // comes back has no failure points).
  const diskWindows = faults.filter((f) => (f.kind === "disk-failing" || f.kind === "disk-flaky") && f.applied)
    .map((f) => ({ ...f, end: Math.min(f.end, primaryKills.find((k) => k >= f.start) ?? Infinity) }));

  /** The primary's running (not stopped) milliseconds in [from, to]. */
  const running = (from, to) => primaryPauses.reduce((ms, p) => ms - Math.max(0, Math.min(to, p.end) - Math.max(from, p.start)), to - from);
  /**
   * Whether a write the primary may have taken at any moment in [from, to] can have been lost:
   * a kill during it, or in the primary's next running second and a quarter, or a kill while
   * the saves that would have kept it were failing (a disk failure that began before that save,
   * had not ended, or ended too recently for its retry, when the write came, and the kill came
   * before the retry after it).
   */
  const atRisk = (from, to) => primaryKills.some((k) => k >= from - answerSlackMs &&
    (k <= to + answerSlackMs || running(to, k) < lastSecondMs + answerSlackMs ||
     diskWindows.some((w) => w.start <= to + lastSecondMs + answerSlackMs && w.end + retrySlackMs >= from && k <= w.end + retrySlackMs)));

  const ops = new Map();  // id -> {invoke, complete}
  for (const e of events) {
    if (e.type === "fault") continue;
    if (e.type === "invoke") ops.set(e.id, { invoke: e, complete: null });
    else ops.get(e.id).complete = e;
  }
  const all = [...ops.values()].filter((o) => o.complete);
  /**
   * The latest moment a write can take effect at the primary. One answered took effect before
   * its answer. One left without an answer may take effect after its client gave up, while a
   * fault holds it on its way: a stopped node that reads it once resumed, or a partition of its
   * node or of the primary, through which a follower's forward waits in its link's socket and
   * arrives once the link heals, at TCP's next retransmission, which backs off exponentially and
   * so comes at most as long after the heal as the bytes had waited before it.
   */
  const holding = faults.filter((f) => ["pause", "pair-down", "one-way", "follower-isolated", "primary-isolated", "delay"].includes(f.kind));
  const latestEffect = (o) => {
    if (o.complete.type !== "info") return o.complete.t;
    let latest = o.complete.t;
    for (const f of holding) {
      if ((f.target === o.invoke.node || f.target === meta.primary) && f.start <= o.complete.t && f.end > o.invoke.t)
        latest = Math.max(latest, f.end + (f.end - o.invoke.t));
    }
    return latest;
  };
  /**
   * The same for a declaration, which one answer more bounds: a 503. A node refuses a declaration
   * itself without applying it, and a follower answers a forwarded one 503 only once its deadline
   * has passed, after which the primary refuses it (docs/cluster.md): it landed before that
   * answer or never. A settle answered 503 has no such bound: it may still count afterwards.
   */
  const latestDeclared = (o) => (o.complete.value?.status === 503 ? o.complete.t : latestEffect(o));
  const byF = (f) => all.filter((o) => o.invoke.f === f);
  const finals = byF("final").map((o) => o.complete.value);
  const results = [];
  const promise = (name, fn) => {
    const violations = [];
    const checked = fn((v) => violations.push(v));
    results.push({ name, checked, violations });
  };

  // The final reads: one version on every node, and each item's revision and count there.
  const finalItems = (node) => finals.find((f) => f.node === node)?.items ?? {};

  promise("every node ends on the primary's version", (violation) => {
    const tags = new Set(finals.map((f) => f.etag));
    if (finals.length !== meta.nodes.length) violation({ t: Infinity, what: `final reads from ${finals.length} of ${meta.nodes.length} nodes` });
    else if (tags.size !== 1) violation({ t: Infinity, what: `final ETags differ: ${finals.map((f) => `${f.node} ${f.etag}`).join(", ")}` });
    return finals.length;
  });

  promise("every acknowledged declaration is visible on every node", (violation) => {
    let checked = 0;
    for (const p of meta.providers) {
      const declared = byF("declare").filter((o) => o.invoke.value.provider === p.index);
      const taken = declared.filter((o) => o.complete.type !== "fail");
      const sent = (o) => o.invoke.value.revision;
      const sure = taken.filter((o) => o.complete.type === "ok" && !atRisk(o.invoke.t, o.complete.t));
      const last = sure.reduce((a, o) => (!a || sent(o) > sent(a) ? o : a), null);
      // What is served last is the write applied last: the newest sure one, or one that may have
      // been applied after it, as a write left without an answer and held by a fault can be.
      const least = !last ? 0 : Math.min(sent(last), ...taken.filter((o) => latestDeclared(o) > last.invoke.t).map(sent));
      const most = Math.max(0, ...taken.map(sent));
      for (const node of meta.nodes) {
        for (const url of p.routes) {
          ++checked;
          const seen = finalItems(node)[url];
          const revision = seen ? revisionOf(seen.description) : 0;
          if (revision < least || revision > most)
            violation({ t: Infinity, node, provider: p.index, what: `${url} at revision ${revision} on ${node}; acknowledged ${least}, sent at most ${most}` });
        }
      }
    }
    return checked;
  });

  let paymentTallies;  // how many payments, sent again, at risk, allowed twice by a clock
  promise("each item counts every acknowledged payment once", (violation) => {
    const payments = new Map();  // id -> attempts
    for (const o of byF("settle")) {
      const id = o.invoke.value.payment;
      if (!payments.has(id)) payments.set(id, []);
      payments.get(id).push(o);
    }
    // The primary's clock offset at each moment, from the clock jumps made to it.
    const jumps = of("clock", meta.primary);
    const offsetAt = (t) => jumps.filter((j) => j.start <= t).reduce((s, j) => s + j.seconds, 0);
    // The primary's clock, in seconds, at the earliest and latest it may have read while an
    // attempt could take effect (from its invoke to latestEffect): at each end, and on either side
    // of each jump between, with a jump's offset taking hold up to clockLagMs after it was made.
    const serverRange = (o) => {
      const from = o.invoke.t, to = latestEffect(o);
      const moments = [from, to, ...jumps.flatMap((j) => [j.start - 1, j.start, j.start + clockLagMs])]
        .filter((t) => t >= from && t <= to);
      const readings = moments.flatMap((t) => [t / 1000 + offsetAt(t), t / 1000 + offsetAt(t - clockLagMs)]);
      return { least: Math.min(...readings), most: Math.max(...readings) };
    };
    const expected = new Map();  // "provider route" -> {least, most}
    const tallies = (paymentTallies = { distinct: payments.size, sentAgain: 0, atRisk: 0, windowPassed: 0 });
    for (const attempts of payments.values()) {
      const { provider, route } = attempts[0].invoke.value;
      const key = `${provider} ${route}`;
      if (!expected.has(key)) expected.set(key, { least: 0, most: 0, payments: [] });
      const e = expected.get(key);
      const taken = attempts.filter((o) => o.complete.type !== "fail");
      if (attempts.length > 1) ++tallies.sentAgain;
      if (taken.length === 0) continue;
      // Counted at most once, or once more for each time the primary's clock passed the
      // ledger's window between two attempts that may have counted, in whichever order they took
      // effect (one held by a fault may land after one sent later): the most attempts whose
      // clock readings can be spaced a window apart, chosen by the earliest latest reading first.
      let counts = 0;
      let counted = -Infinity;
      for (const { least, most } of taken.map(serverRange).sort((a, b) => a.most - b.most)) {
        const at = Math.max(least, counted + windowS);
        if (at <= most) { ++counts; counted = at; }
      }
      e.most += counts;
      tallies.windowPassed += counts - 1;
      // Sure to count once some node acknowledged it and no attempt that may have counted it was at risk.
      const risked = taken.some((o) => atRisk(o.invoke.t, o.complete.t));
      if (risked) ++tallies.atRisk;
      if (taken.some((o) => o.complete.type === "ok") && !risked) ++e.least;
      e.payments.push(attempts[0].invoke.value.payment);
    }
    let checked = 0;
    for (const p of meta.providers) {
      p.routes.forEach((url, route) => {
        const e = expected.get(`${p.index} ${route}`) ?? { least: 0, most: 0 };
        for (const node of meta.nodes) {
          ++checked;
          const calls = finalItems(node)[url]?.calls ?? 0;
          if (calls < e.least || calls > e.most)
            violation({ t: Infinity, node, provider: p.index, what: `${url} counts ${calls} on ${node}; ${e.least} payments surely counted, ${e.most} at most` });
        }
      });
    }
    return checked;
  });
  results.at(-1).payments = paymentTallies;

  // A search page's next-page cursor is each node's own (signed with its key, stamped with the
  // time it rendered the page): the rest of the page is compared, and the pages that differ in
  // their cursor alone are counted apart (`cursorsApart`), as docs/cluster.md says.
  let cursorsApart = 0;
  promise("one (epoch, version) has the same bytes on every node", (violation) => {
    const seen = new Map();  // "path etag" -> first read
    let checked = 0;
    for (const o of byF("read")) {
      const v = o.complete.value;
      if (o.complete.type !== "ok" || !v.etag) continue;
      ++checked;
      const key = `${v.path} ${v.etag}`;
      const first = seen.get(key);
      if (!first) seen.set(key, o);
      else if (first.complete.value.hash !== v.hash) {
        const f = first.complete.value;
        if (f.hashBeyondCursor && f.hashBeyondCursor === v.hashBeyondCursor) ++cursorsApart;
        else violation({ t: o.complete.t, node: o.invoke.node, what: `${v.path} under ${v.etag}: ${first.invoke.node} served ${f.bytes} bytes (${f.hash}), ${o.invoke.node} ${v.bytes} (${v.hash})` });
      }
    }
    return checked;
  });
  results.at(-1).cursorsApart = cursorsApart;

  promise("/health says degraded while saving fails, and ok once it works again", (violation) => {
    // Writes that surely change the catalog, so a save must follow: the first attempt of a new
    // revision, the first attempt of a payment (a payment sent again, or a heartbeat, may change
    // nothing and then nothing is saved), acknowledged; the primary took it after its invocation.
    const first = new Set();
    const changes = [...byF("declare"), ...byF("settle")].sort((a, b) => a.invoke.t - b.invoke.t).filter((o) => {
      const key = o.invoke.f === "declare" ? `${o.invoke.value.provider}@${o.invoke.value.revision}` : o.invoke.value.payment;
      if (first.has(key)) return false;
      first.add(key);
      return o.complete.type === "ok";
    });
    // A failure counts from when its last fiu-ctrl command took effect.
    const failing = diskWindows.filter((w) => w.kind === "disk-failing").map((w) => ({ ...w, start: w.appliedAt ?? w.start }));
    const anyDisk = faults.filter((f) => f.kind.startsWith("disk-"));
    let checked = 0;
    for (const o of byF("health").filter((h) => h.invoke.node === meta.primary && h.complete.type === "ok")) {
      const { t: from } = o.invoke, to = o.complete.t, status = o.complete.value.status;
      ++checked;
      // A save was surely tried and failed: a write the primary took after the failure began, a
      // grace for the save to come, and the failure still on when /health answered.
      const mustFail = failing.find((w) => to <= w.end &&
        changes.some((c) => c.invoke.t >= w.start && c.complete.t <= from - healthGraceMs));
      if (mustFail && status !== "degraded")
        violation({ t: from, node: meta.primary, what: `/health said "${status}" while the disk failed (fault ${mustFail.fault})` });
      const quiet = !anyDisk.some((w) => w.start <= to && w.end + retrySlackMs + 2000 >= from);
      if (quiet && status === "degraded")
        violation({ t: from, node: meta.primary, what: `/health said "degraded" ${retrySlackMs + 2000} ms after every disk fault had healed` });
    }
    return checked;
  });

  promise("reads never fail on a node that is up and reachable", (violation) => {
    let checked = 0;
    const excused = (node, from, to) => faults.some((f) => f.target === node && ["kill", "pause", "pair-down"].includes(f.kind) &&
      f.start <= to && f.end + answerSlackMs >= from);
    for (const o of byF("read")) {
      ++checked;
      if (o.complete.type === "ok") continue;
      const { node, t: from } = o.invoke;
      if (!excused(node, from, o.complete.t))
        violation({ t: from, node, what: `${o.complete.value.path} on ${node} answered ${o.complete.value.status ?? o.complete.value.error}` });
    }
    return checked;
  });

  return results;
}

/** Operations by function and outcome, faults by kind: the campaign's figures. */
export function tally(events) {
  const ops = {}, faultsByKind = {};
  for (const e of events) {
    if (e.type === "fault") {
      if (e.phase === "start") faultsByKind[e.kind] = (faultsByKind[e.kind] ?? 0) + 1;
    } else if (e.type !== "invoke" && e.f !== "final") {
      ops[e.f] ??= { ok: 0, fail: 0, info: 0 };
      ops[e.f][e.type] += 1;
    }
  }
  return { ops, faults: faultsByKind };
}

/**
 * The history around a violation: for one at a moment, every fault and its node's operations
 * within `ms` of it; for one in the final reads, its provider's writes and the primary's
 * kills and disk faults, the last `last` of them.
 */
export function around(events, violation, { ms = 3000, last = 40 } = {}) {
  if (Number.isFinite(violation.t)) {
    // Reads are many: only those of its node within a quarter of a second.
    const near = (e) => Math.abs(e.t - violation.t) <= (e.f === "read" ? 250 : ms);
    return events.filter((e) => near(e) && (e.type === "fault" || (e.node === violation.node && e.f !== "health"))).slice(-last);
  }
  const ids = new Set(events.filter((e) => e.type === "invoke" && (e.f === "declare" || e.f === "settle") &&
    e.value.provider === violation.provider).map((e) => e.id));
  return events.filter((e) => (e.type === "fault" && ["kill", "disk-failing", "disk-flaky", "clock"].includes(e.kind)) ||
    ids.has(e.id)).slice(-last);
}
