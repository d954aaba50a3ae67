// The checker on histories written by hand: each promise holds on a history that keeps it, and
// is reported violated on one that breaks it, with the documented windows (a kill's last second,
// a failing disk, the payment ledger's 24 hours by the primary's clock) allowed and no more.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { check } from "./lib/checker.mjs";
import { describe } from "./lib/revision.mjs";

const url = (route) => `https://p0.faults.example.com/v1/route-${route}`;
const meta = { primary: "primary", nodes: ["primary", "follower-a"], providers: [{ index: 0, routes: [url(0)] }] };

/** A history built in time order: ops (invoke and completion), faults, and the final reads. */
function history() {
  const events = [];
  let id = 0, fault = 0;
  const h = {
    events,
    op(t, node, f, value, type, took = 10, result = {}) {
      events.push({ t, type: "invoke", id, process: `${f}-${id}`, node, f, value });
      events.push({ t: t + took, type, id, process: `${f}-${id}`, node, f, value: result });
      ++id;
      return h;
    },
    fault(kind, target, start, end, detail = {}) {
      events.push({ t: start, type: "fault", phase: "start", kind, target, fault, ...detail });
      events.push({ t: end, type: "fault", phase: "end", kind, target, fault });
      ++fault;
      return h;
    },
    /** Every node ends serving `revision` and `calls` (one ETag unless `etags` differ). */
    final(t, revision, calls, etags = ["\"v\"", "\"v\""]) {
      meta.nodes.forEach((node, k) => h.op(t, node, "final", null, "ok", 10,
        { node, etag: etags[k], items: revision ? { [url(0)]: { description: describe(0, 0, revision), calls } } : {} }));
      return h;
    },
    declare: (t, revision, type = "ok") => h.op(t, "follower-a", "declare", { provider: 0, revision }, type),
    settle: (t, payment, node = "primary", type = "ok") => h.op(t, node, "settle", { payment, provider: 0, route: 0 }, type),
  };
  return h;
}

const violations = (h) => Object.fromEntries(check(h.events.sort((a, b) => a.t - b.t), meta).map((r) => [r.name, r.violations.length]));
const declared = "every acknowledged declaration is visible on every node";
const counted = "each item counts every acknowledged payment once";

test("an acknowledged declaration and payment, seen on every node, keep every promise", () => {
  const v = violations(history().declare(1000, 1).settle(2000, "a").settle(3000, "a", "follower-a").final(10000, 1, 1));
  assert.ok(Object.values(v).every((n) => n === 0), JSON.stringify(v));
});

// Each node that shows the wrong revision is a violation of its own: two nodes here.
test("an acknowledged declaration lost without a kill is a violation; one acknowledged in the primary's last second is not", () => {
  assert.equal(violations(history().declare(1000, 1).declare(2000, 2).final(10000, 1, 0))[declared], 2);
  assert.equal(violations(history().declare(1000, 1).declare(2000, 2).fault("kill", "primary", 2500, 4000).final(10000, 1, 0))[declared], 0);
  // Five running seconds after the ack were enough to save it, unless the primary was stopped for them...
  assert.equal(violations(history().declare(1000, 1).declare(2000, 2).fault("kill", "primary", 7000, 8000).final(10000, 1, 0))[declared], 2);
  assert.equal(violations(history().declare(1000, 1).declare(2000, 2).fault("pause", "primary", 2300, 6900)
    .fault("kill", "primary", 7000, 8000).final(10000, 1, 0))[declared], 0);
  // ...or its disk failed from before the ack until the kill.
  assert.equal(violations(history().declare(1000, 1).declare(2000, 2).fault("disk-failing", "primary", 1500, 9000, { applied: true })
    .fault("kill", "primary", 7000, 8000).final(10000, 1, 0))[declared], 0);
  // A disk failure that healed long before the kill puts nothing at risk.
  assert.equal(violations(history().declare(1000, 1).declare(2000, 2).fault("disk-failing", "primary", 2500, 3000, { applied: true })
    .fault("kill", "primary", 20000, 21000).final(30000, 1, 0))[declared], 2);
  // A revision left without an answer while a partition held it may be applied after a newer one
  // was acknowledged, and be what is served; one answered, even 503 (the follower answers only
  // once the primary would refuse it), or with nothing holding it, may not.
  const staleAfterNewer = (type, partition = true, result = {}) => {
    const h = history().declare(1000, 1);
    if (partition) h.fault("follower-isolated", "follower-a", 1900, 8000);
    return violations(h.op(2000, "follower-a", "declare", { provider: 0, revision: 2 }, type, 5000, result)
      .op(7500, "primary", "declare", { provider: 0, revision: 3 }, "ok").final(20000, 2, 0))[declared];
  };
  assert.equal(staleAfterNewer("info"), 0);
  assert.equal(staleAfterNewer("info", true, { error: "UND_ERR_HEADERS_TIMEOUT" }), 0);
  assert.equal(staleAfterNewer("info", true, { status: 503, error: "unavailable" }), 2);
  assert.equal(staleAfterNewer("ok"), 2);
  assert.equal(staleAfterNewer("info", false), 2);
  // A revision never sent is a violation too.
  assert.equal(violations(history().declare(1000, 1).final(10000, 3, 0))[declared], 2);
});

test("a payment counted twice is a violation, unless the primary's clock passed the ledger's 24 hours between the two", () => {
  assert.equal(violations(history().declare(500, 1).settle(1000, "a").settle(3000, "a", "follower-a").final(10000, 1, 2))[counted], 2);
  assert.equal(violations(history().declare(500, 1).settle(1000, "a").fault("clock", "primary", 2000, 2000, { seconds: 90000 })
    .settle(3000, "a", "follower-a").final(10000, 1, 2))[counted], 0);
  // An attempt left without an answer while a partition held it may reach the primary once the
  // partition heals, after a clock jump that came after its timeout, and count again; one
  // answered, or unanswered with nothing holding it, could not.
  const heldThenJump = (type, partition = true) => {
    const h = history().declare(500, 1).settle(1000, "a");
    if (partition) h.fault("pair-down", "primary", 1100, 8000);
    return violations(h.op(1200, "follower-a", "settle", { payment: "a", provider: 0, route: 0 }, type, 5000)
      .fault("clock", "primary", 9000, 9000, { seconds: 90000 }).final(30000, 1, 2))[counted];
  };
  assert.equal(heldThenJump("info"), 0);
  assert.equal(heldThenJump("ok"), 2);
  assert.equal(heldThenJump("info", false), 2);
  // The attempts may take effect in another order than they were sent: one sent first to a
  // follower, held while the primary was cut off from its followers, may land after the jump,
  // when the one sent later to the primary had counted before it. Both count then.
  const heldPastLater = (fault) => {
    const h = history().declare(500, 1);
    if (fault) h.fault(fault, "primary", 1100, 9500);
    return violations(h.op(1200, "follower-a", "settle", { payment: "a", provider: 0, route: 0 }, "info", 5000, { status: 503 })
      .settle(6500, "a").fault("clock", "primary", 8000, 8000, { seconds: 90000 }).final(30000, 1, 2))[counted];
  };
  assert.equal(heldPastLater("primary-isolated"), 0);
  assert.equal(heldPastLater(null), 2);
  // A jump back between two attempts does not open the window; one forward past it does.
  const jumpsBetween = (seconds) => violations(history().declare(500, 1).settle(1000, "a")
    .fault("clock", "primary", 3000, 3000, { seconds }).settle(6000, "a", "follower-a").final(30000, 1, 2))[counted];
  assert.equal(jumpsBetween(-600), 2);
  assert.equal(jumpsBetween(90000), 0);
  // A payment whose only answer was none may have counted or not; one refused did not.
  assert.equal(violations(history().declare(500, 1).settle(1000, "a", "follower-a", "info").final(10000, 1, 1))[counted], 0);
  assert.equal(violations(history().declare(500, 1).settle(1000, "a", "follower-a", "info").final(10000, 1, 0))[counted], 0);
  assert.equal(violations(history().declare(500, 1).settle(1000, "a", "primary", "fail").final(10000, 1, 1))[counted], 2);
  // An acknowledged payment lost is a violation, unless a kill took the primary's last second.
  assert.equal(violations(history().declare(500, 1).settle(1000, "a").final(10000, 1, 0))[counted], 2);
  assert.equal(violations(history().declare(500, 1).settle(1000, "a").fault("kill", "primary", 1400, 3000).final(10000, 1, 0))[counted], 0);
});

test("two bodies under one ETag for one path is a violation; the same bytes are not", () => {
  const read = (h, t, node, hash) => h.op(t, node, "read", { path: "/discovery/resources" }, "ok", 5, { path: "/discovery/resources", etag: "\"e1\"", hash, bytes: 10 });
  const same = history();
  read(read(same, 100, "primary", "aa"), 200, "follower-a", "aa");
  assert.equal(violations(same.final(1000, 0, 0))["one (epoch, version) has the same bytes on every node"], 0);
  const differ = history();
  read(read(differ, 100, "primary", "aa"), 200, "follower-a", "bb");
  assert.equal(violations(differ.final(1000, 0, 0))["one (epoch, version) has the same bytes on every node"], 1);
  assert.equal(violations(history().final(1000, 0, 0, ["\"v1\"", "\"v2\""]))["every node ends on the primary's version"], 1);
});

test("/health must say degraded once a save surely failed, and ok again once saving works", () => {
  const name = "/health says degraded while saving fails, and ok once it works again";
  const health = (h, t, status) => h.op(t, "primary", "health", null, "ok", 5, { status });
  const base = () => history().fault("disk-failing", "primary", 1000, 10000, { applied: true }).declare(1200, 1);
  assert.equal(violations(health(base(), 5000, "degraded").final(20000, 1, 0))[name], 0);
  assert.equal(violations(health(base(), 5000, "ok").final(20000, 1, 0))[name], 1);
  // Too soon after the write for a save to have been tried: either answer is true.
  assert.equal(violations(health(base(), 2000, "ok").final(20000, 1, 0))[name], 0);
  // Long after the disk healed, degraded is a lie.
  assert.equal(violations(health(base(), 19000, "degraded").final(20000, 1, 0))[name], 1);
  // A disk fault that was not applied (the primary was down) asks nothing.
  const unapplied = history().fault("disk-failing", "primary", 1000, 10000, { applied: false }).declare(1200, 1);
  assert.equal(violations(health(unapplied, 5000, "ok").final(20000, 1, 0))[name], 0);
  // Only a write that surely changes the catalog obliges a save: a payment sent again, or the
  // same revision as a heartbeat, may change nothing; a new payment does.
  const again = () => history().declare(500, 1).settle(600, "a").fault("disk-failing", "primary", 1000, 10000, { applied: true });
  assert.equal(violations(health(again().settle(1200, "a").declare(1300, 1), 5000, "ok").final(20000, 1, 1))[name], 0);
  assert.equal(violations(health(again().settle(1200, "b"), 5000, "ok").final(20000, 1, 2))[name], 1);
  // The failure counts from when its fiu-ctrl commands took effect, not from when they were sent.
  const late = () => history().fault("disk-failing", "primary", 1000, 10000, { applied: true, appliedAt: 3000 });
  assert.equal(violations(health(late().declare(1200, 1), 5000, "ok").final(20000, 1, 0))[name], 0);
  assert.equal(violations(health(late().declare(3100, 1), 6000, "ok").final(20000, 1, 0))[name], 1);
});

test("a failed read is a violation unless its node was killed, stopped or cut off", () => {
  const name = "reads never fail on a node that is up and reachable";
  const failed = (h, t) => h.op(t, "follower-a", "read", { path: "/discovery/resources" }, "info", 4000, { path: "/discovery/resources", error: "TimeoutError" });
  assert.equal(violations(failed(history(), 1000).final(9000, 0, 0))[name], 1);
  for (const kind of ["kill", "pause", "pair-down"])
    assert.equal(violations(failed(history().fault(kind, "follower-a", 3000, 6000), 1000).final(9000, 0, 0))[name], 0, kind);
  assert.equal(violations(failed(history().fault("pause", "primary", 3000, 6000), 1000).final(9000, 0, 0))[name], 1);
});

// The two commands refuse what they cannot use with a line saying why and how to ask, exit 2,
// before anything runs (the campaign before it makes a namespace, so no root is needed here).
test("campaign and check refuse unknown or missing arguments with why and the usage, exit 2", () => {
  const here = dirname(fileURLToPath(import.meta.url));
  const run = (command, ...args) => spawnSync(join(here, command), args, { encoding: "utf8" });
  const cases = [
    [run("campaign", "--bogus", "1"), /campaign: Unknown option '--bogus'/],
    [run("campaign", "--seed"), /campaign: Option '--seed <value>' argument missing/],
    [run("campaign", "--seed", "abc"), /campaign: --seed must be an integer/],
    [run("check"), /check: no campaign directory given/],
    [run("check", "--markdown"), /check: the campaign's directory comes first/],
    [run("check", here), /has no history\.jsonl/],
    [run("check", here, "--verbose"), /check: unknown arguments: --verbose/],
  ];
  for (const [r, why] of cases) {
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, why);
    assert.match(r.stderr, /usage: tests\/faults\//);
    assert.doesNotMatch(r.stderr, /    at /);  // no stack trace
  }
  const help = run("campaign", "--help");
  assert.equal(help.status, 0);
  assert.match(help.stdout, /^usage: tests\/faults\/campaign --seed/);
});
