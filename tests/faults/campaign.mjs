// tests/faults/campaign --seed S --minutes M [--faults KIND,...] [--bazaar BIN] [--out DIR] [--plant ledger] [--expect-violation]
//
// A fault campaign against a primary and two followers (root: it makes network namespaces):
// client load and random, combined faults for M minutes, then the checker over the history
// (docs/faults.md). Exit 0 when every promise held (or, with --expect-violation, when the
// checker caught the planted bug), 1 otherwise, 77 when it cannot make namespaces (CTest's
// skip). The seed is printed first ("random" draws one), and the same seed draws the same
// schedule of faults. DIR keeps the history, the results, each node's log and data dir.
import { parseArgs } from "node:util";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const usage = "usage: tests/faults/campaign --seed S|random --minutes M [--faults KIND,...] [--bazaar BIN] [--out DIR] [--plant ledger] [--expect-violation]";
let o;
try {
  ({ values: o } = parseArgs({ options: {
    seed: { type: "string" }, minutes: { type: "string", default: "2" }, bazaar: { type: "string" },
    out: { type: "string" }, plant: { type: "string" }, faults: { type: "string" }, "expect-violation": { type: "boolean", default: false },
    help: { type: "boolean", default: false },
  } }));
} catch (e) {
  // An unknown option or one without its value: what parseArgs says, and how to ask.
  console.error(`campaign: ${e.message}\n${usage}`);
  process.exit(2);
}
if (o.help) {
  console.log(usage);
  process.exit(0);
}
const here = dirname(fileURLToPath(import.meta.url));
/** The checkout's commit, "-dirty" when it has changes (null outside a git checkout). */
function commitOf(dir) {
  const git = (...args) => spawnSync("git", ["-C", dir, ...args], { encoding: "utf8" });
  const head = git("rev-parse", "--short", "HEAD");
  if (head.status !== 0) return null;
  return head.stdout.trim() + (git("status", "--porcelain", "--untracked-files=no").stdout.trim() ? "-dirty" : "");
}
const bazaar = resolve(o.bazaar ?? process.env.Z402_BAZAAR ?? join(here, "../../build/apps/z402-bazaar"));
process.env.Z402_BAZAAR = bazaar;  // the e2e helpers run the CLI through it
const { freshSeed } = await import("./lib/random.mjs");
const { canMakeHosts } = await import("./lib/hosts.mjs");
const { runCampaign, plants } = await import("./lib/run.mjs");
const { faultKinds } = await import("./lib/nemesis.mjs");
const { check, tally } = await import("./lib/checker.mjs");
const { markdown, report } = await import("./lib/report.mjs");

const seed = o.seed === undefined || o.seed === "random" ? freshSeed() : Number(o.seed);
const minutes = Number(o.minutes);
const refuse = (message) => {
  console.error(`campaign: ${message}\n${usage}`);
  process.exit(2);
};
if (!Number.isInteger(seed) || seed < 0 || seed >= 2 ** 32) refuse(`--seed must be an integer in [0, 2^32) or "random": ${o.seed}`);
if (!(minutes > 0)) refuse(`--minutes must be a positive number: ${o.minutes}`);
if (o.plant && !plants[o.plant]) refuse(`--plant must be one of ${Object.keys(plants).join(", ")}: ${o.plant}`);
const faults = o.faults?.split(",");
for (const f of faults ?? []) if (!faultKinds.includes(f)) refuse(`--faults takes kinds among ${faultKinds.join(", ")}: ${f}`);
if (!canMakeHosts()) {
  console.error("campaign: skipped: cannot make network namespaces and enter them (run as root, as CI does, and not in a chroot)");
  process.exit(77);
}
const out = o.out ?? mkdtempSync(join(tmpdir(), "z402-faults-"));
// A campaign's directory is its own (campaign.txt names it so): one an earlier campaign left is
// emptied, any other refused.
if (existsSync(out) && readdirSync(out).length > 0) {
  if (!existsSync(join(out, "campaign.txt"))) refuse(`--out ${out} holds files of another kind: give a new or a campaign's directory`);
  rmSync(out, { recursive: true });
}
mkdirSync(out, { recursive: true });
writeFileSync(join(out, "campaign.txt"), `${process.argv.slice(1).join(" ")}\nseed ${seed}\n`);
const log = (line) => console.log(`campaign: ${line}`);
log(`seed ${seed}, ${minutes} min${faults ? `, faults: ${faults.join(", ")}` : ""}${o.plant ? `, planted bug: ${o.plant}` : ""}; history and logs in ${out}`);
const started = new Date().toISOString(), commit = commitOf(here);
const { history, meta, nemesisErrors, stalls } = await runCampaign({ seed, minutes, bazaar, out, plant: o.plant, faults, log });
const results = check(history.events, meta);
const summary = { ...meta, started, commit, ...tally(history.events), nemesisErrors, stalls, promises: results.map(({ name, checked, violations }) => ({ name, checked, violations: violations.length })) };
writeFileSync(join(out, "results.json"), JSON.stringify({ summary, results }, null, 1));
writeFileSync(join(out, "results.md"), markdown({ summary, results }));
const violated = report({ summary, results, events: history.events, log });
if (o["expect-violation"]) {
  log(violated ? "the planted bug was caught" : "the planted bug was NOT caught");
  process.exit(violated ? 0 : 1);
}
process.exit(violated ? 1 : 0);
