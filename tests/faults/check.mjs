// tests/faults/check DIR [--markdown]: the checker again over a campaign's saved history
// (DIR/history.jsonl and the figures in DIR/results.json), as the campaign ran it; exit 1 on a
// violation. With --markdown it prints the figures as DIR/results.md has them instead.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { check, tally } from "./lib/checker.mjs";
import { markdown, report } from "./lib/report.mjs";

const usage = "usage: tests/faults/check DIR [--markdown] (a campaign's --out)";
const [dir, flag, ...rest] = process.argv.slice(2);
const refuse = (message) => {
  console.error(`check: ${message}\n${usage}`);
  process.exit(2);
};
if (!dir || dir.startsWith("--")) refuse(dir ? `the campaign's directory comes first: ${dir}` : "no campaign directory given");
if ((flag !== undefined && flag !== "--markdown") || rest.length) refuse(`unknown arguments: ${[flag, ...rest].filter(Boolean).join(" ")}`);
for (const f of ["history.jsonl", "results.json"])
  if (!existsSync(join(dir, f))) refuse(`${dir} has no ${f}: not a campaign's --out, or one that did not finish`);
const events = readFileSync(join(dir, "history.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l));
const { summary } = JSON.parse(readFileSync(join(dir, "results.json"), "utf8"));
const results = check(events, summary);
if (flag === "--markdown") {
  process.stdout.write(markdown({ summary: { ...summary, ...tally(events) }, results }));
  process.exit(0);
}
const violated = report({ summary: { ...summary, ...tally(events) }, results, events, log: (l) => console.log(`check: ${l}`) });
process.exit(violated ? 1 : 0);
