// What a campaign prints: its figures, each promise and how many cases it checked, and for
// each violation the seed and the history around it (the whole history is in its directory).
import { around } from "./checker.mjs";

const shown = 3;  // violations printed in full per promise

/** Prints the campaign's outcome through `log`; whether any promise was violated. */
export function report({ summary, results, events, log }) {
  log(`operations: ${Object.entries(summary.ops).map(([f, o]) => `${f} ${o.ok} ok / ${o.fail} fail / ${o.info} unknown`).join("; ")}`);
  log(`faults: ${Object.entries(summary.faults).map(([k, n]) => `${k} ${n}`).join(", ")}`);
  for (const e of summary.nemesisErrors) log(`a fault did not heal: ${e.kind} on ${e.target}: ${e.message}`);
  for (const s of summary.stalls ?? []) log(`${s.node} was stuck at ${s.t} ms: ${s.file}`);
  let violated = summary.nemesisErrors.length > 0;
  for (const { name, checked, violations, cursorsApart } of results) {
    log(`${violations.length === 0 ? "held" : "VIOLATED"}: ${name} (${checked} checked${violations.length ? `, ${violations.length} violations` : ""}` +
      `${cursorsApart ? `; ${cursorsApart} search pages differed in their cursor alone` : ""})`);
    for (const v of violations.slice(0, shown)) {
      violated = true;
      log(`  seed ${summary.seed}: ${v.what}${Number.isFinite(v.t) ? ` at ${v.t} ms` : ""}`);
      for (const e of around(events, v)) log(`    ${JSON.stringify(e)}`);
    }
    if (violations.length > shown) violated = true;
  }
  return violated;
}

/** The campaign's figures as Markdown: faults by kind, operations by outcome, each promise. */
export function markdown({ summary, results }) {
  const lines = [
    `# Fault campaign: seed ${summary.seed}, ${summary.minutes} min${summary.kinds ? `, ${summary.kinds.join(", ")} only` : ""}` +
      `${summary.plant ? `, planted bug ${summary.plant}` : ""}`,
    "",
    "A primary and two followers, each in a network namespace of its own, under the load and nemesis of",
    `docs/faults.md${summary.started ? `; started ${summary.started}` : ""}${summary.commit ? ` on commit ${summary.commit}` : ""}.`,
    `Replay: \`sudo tests/faults/campaign --seed ${summary.seed} --minutes ${summary.minutes}${summary.kinds ? ` --faults ${summary.kinds.join(",")}` : ""}` +
      `${summary.plant ? ` --plant ${summary.plant}` : ""}\`.`,
    "",
    "## Faults injected, by kind",
    "",
    "| kind | started |",
    "|---|---:|",
    ...Object.entries(summary.faults).sort(([a], [b]) => a.localeCompare(b)).map(([k, n]) => `| ${k} | ${n} |`),
    `| **all** | ${Object.values(summary.faults).reduce((a, b) => a + b, 0)} |`,
    "",
    "## Operations, by outcome",
    "",
    "ok: acknowledged (a read: answered); fail: refused, so it did not happen; unknown: no answer, a timeout or a 5xx.",
    "",
    "| operation | ok | fail | unknown |",
    "|---|---:|---:|---:|",
    ...Object.entries(summary.ops).map(([f, o]) => `| ${f} | ${o.ok} | ${o.fail} | ${o.info} |`),
    "",
    "## Promises",
    "",
    "| promise | cases checked | violations |",
    "|---|---:|---:|",
    ...results.map((r) => `| ${r.name} | ${r.checked} | ${r.violations.length} |`),
  ];
  const payments = results.find((r) => r.payments)?.payments;
  if (payments)
    lines.push("", `Payments: ${payments.distinct} distinct, ${payments.sentAgain} sent more than once, ${payments.atRisk} whose ` +
      "attempts met a kill's documented window (counted or not, both allowed), " +
      `${payments.windowPassed} allowed a second count by a clock jump past the ledger's 24 hours.`);
  const apart = results.find((r) => r.cursorsApart)?.cursorsApart;
  if (apart) lines.push("", `${apart} search pages differed from another node's under the same ETag in their next-page cursor alone (docs/cluster.md).`);
  for (const e of summary.nemesisErrors ?? []) lines.push("", `A fault did not heal: ${e.kind} on ${e.target}: ${e.message}`);
  for (const s of summary.stalls ?? []) lines.push("", `${s.node} answered nothing with no fault on it, at ${s.t} ms (the watchdog's stacks: ${s.file}).`);
  return lines.join("\n") + "\n";
}
