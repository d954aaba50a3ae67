// The command reference of docs/reference.md, made from the programs' own --help: `node
// tests/e2e/lib/cli-reference.mjs` prints it (with Z402_BAZAAR, Z402_DEMO, Z402_DISCOVER, Z402_SELLER and
// Z402_LOAD naming the built programs); tests/e2e/cli.test.mjs checks docs/reference.md holds it unchanged.
import { execFileSync } from "node:child_process";
import { basename } from "node:path";
import { pathToFileURL } from "node:url";

export const helpCommands = [
  ["Z402_BAZAAR", []], ["Z402_BAZAAR", ["serve"]], ["Z402_BAZAAR", ["provider"]], ["Z402_BAZAAR", ["provider", "add"]],
  ["Z402_BAZAAR", ["provider", "list"]], ["Z402_BAZAAR", ["provider", "rotate"]], ["Z402_BAZAAR", ["provider", "remove"]],
  ["Z402_BAZAAR", ["settle-key"]], ["Z402_BAZAAR", ["terms"]], ["Z402_BAZAAR", ["catalog-key"]],
  ["Z402_BAZAAR", ["catalog-key", "root"]], ["Z402_BAZAAR", ["catalog-key", "online"]], ["Z402_BAZAAR", ["catalog-key", "delegate"]],
  ["Z402_DEMO", []], ["Z402_DEMO", ["pay"]], ["Z402_DISCOVER", []], ["Z402_DISCOVER", ["mcp"]], ["Z402_DISCOVER", ["verify"]],
  ["Z402_SELLER", []], ["Z402_SELLER", ["check"]], ["Z402_LOAD", ["test"]],
];

export function programOf(envName) {
  const path = process.env[envName];
  if (!path) throw new Error(`${envName} must name the built program (ctest sets it)`);
  return path;
}

export function helpOf(envName, words) {
  return execFileSync(programOf(envName), [...words, "--help"], { encoding: "utf8" });
}

export function reference() {
  let out = "";
  for (const [envName, words] of helpCommands) {
    const name = [basename(programOf(envName)), ...words].join(" ");
    out += "```text\n$ " + name + " --help\n" + helpOf(envName, words) + "```\n\n";
  }
  return out;
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) process.stdout.write(reference());
