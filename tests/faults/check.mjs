// tests/faults/check DIR [--markdown]: the checker again over a campaign's saved history
// (DIR/history.jsonl and the figures in DIR/results.json), as the campaign ran it; exit 1 on a
// violation. With --markdown it prints the figures as DIR/results.md has them instead.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { check, tally } from "./lib/checker.mjs";
import { markdown, report } from "./lib/report.mjs";

const [dir, flag] = process.argv.slice(2);
if (!dir) throw new Error("usage: tests/faults/check DIR [--markdown] (a campaign's --out)");
const events = readFileSync(join(dir, "history.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l));
const { summary } = JSON.parse(readFileSync(join(dir, "results.json"), "utf8"));
const results = check(events, summary);
if (flag === "--markdown") {
  process.stdout.write(markdown({ summary: { ...summary, ...tally(events) }, results }));
  process.exit(0);
}
const violated = report({ summary: { ...summary, ...tally(events) }, results, events, log: (l) => console.log(`check: ${l}`) });
process.exit(violated ? 1 : 0);
