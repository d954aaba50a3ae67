// The three programs' command lines (Boost.Program_options): --help on every command and
// subcommand, --version, and usage errors refused with exit 2 and one line naming the option.
// The command reference (docs/reference.md) is the programs' own --help, checked here word for word.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { helpCommands, helpOf, programOf, reference } from "./lib/cli-reference.mjs";

const readme = readFileSync(new URL("../../docs/reference.md", import.meta.url), "utf8");
const run = (envName, args) => spawnSync(programOf(envName), args, { encoding: "utf8", timeout: 10000 });

test("every command and subcommand answers --help with its usage, exit 0", () => {
  for (const [envName, words] of helpCommands) {
    const r = run(envName, [...words, "--help"]);
    assert.equal(r.status, 0, `${words.join(" ")}: ${r.stderr}`);
    assert.match(r.stdout, /^usage: /);
    assert.equal(r.stderr, "");
  }
});

test("--version prints the version, exit 0", () => {
  for (const [envName, words] of [["Z402_BAZAAR", []], ["Z402_BAZAAR", ["serve"]], ["Z402_DEMO", []], ["Z402_DEMO", ["pay"]], ["Z402_DISCOVER", []], ["Z402_DISCOVER", ["mcp"]], ["Z402_SELLER", []], ["Z402_SELLER", ["check"]]]) {
    const r = run(envName, [...words, "--version"]);
    assert.equal(r.status, 0);
    assert.match(r.stdout, /^z402-[a-z-]+ \d+\.\d+\.\d+\n$/);
  }
});

test("unknown options, missing values and missing operands: exit 2, one line naming the option", () => {
  const cases = [
    ["Z402_BAZAAR", ["serve", "--bogus"], /^z402-bazaar serve: unrecognised option '--bogus' \(see z402-bazaar serve --help\)$/],
    ["Z402_BAZAAR", ["serve", "--listen"], /^z402-bazaar serve: the required argument for option '--listen' is missing/],
    ["Z402_BAZAAR", ["serve", "--listen", "nowhere"], /^z402-bazaar serve: --listen: listen must be HOST:PORT/],
    ["Z402_BAZAAR", ["serve", "--log-format", "xml"], /^z402-bazaar serve: --log-format must be text or json/],
    ["Z402_BAZAAR", ["serve", "--tls-cert", "a.pem"], /^z402-bazaar serve: --tls-cert and --tls-key go together/],
    ["Z402_BAZAAR", ["provider", "add", "acme"], /^z402-bazaar provider add: the option '--pay-to' is required but missing/],
    ["Z402_BAZAAR", ["provider", "add", "--pay-to", "x"], /^z402-bazaar provider add: missing NAME/],
    ["Z402_BAZAAR", ["provider", "rotate", "a", "b"], /^z402-bazaar provider rotate: too many positional options/],
    ["Z402_BAZAAR", ["provider", "frobnicate"], /^z402-bazaar provider: unknown action 'frobnicate'/],
    ["Z402_BAZAAR", ["settle-key"], /^z402-bazaar settle-key: missing ACTION/],
    ["Z402_BAZAAR", ["settle-key", "destroy"], /^z402-bazaar settle-key: unknown action 'destroy'; expected create/],
    ["Z402_BAZAAR", ["terms", "--data-dir"], /^z402-bazaar terms: the required argument for option '--data-dir' is missing/],
    ["Z402_BAZAAR", ["launch"], /^z402-bazaar: unknown command 'launch'/],
    ["Z402_BAZAAR", [], /^z402-bazaar: no command/],
    ["Z402_DEMO", ["--pay-to", "x"], /^z402-demo-service: the option '--discovery' is required but missing/],
    ["Z402_DEMO", ["pay"], /^z402-demo-service pay: missing URL/],
    ["Z402_DEMO", ["pay", "http://127.0.0.1:1/x", "--method"], /^z402-demo-service pay: the required argument for option '--method' is missing/],
    ["Z402_DISCOVER", ["--discovery", "http://127.0.0.1:1"], /^z402-discover: the option '--intent' is required but missing/],
    ["Z402_DISCOVER", ["--discovery", "http://x", "--intent", "a", "--limit-resources", "0"], /^z402-discover: .*limit-resources/],
    ["Z402_DISCOVER", ["--discovery", "http://x", "--intent", "a", "--limit-resources", "ten"], /^z402-discover: .*limit-resources/],
    ["Z402_DISCOVER", ["--discovery", "ftp://x", "--intent", "a"], /^z402-discover: --discovery must be an http/],
    ["Z402_DISCOVER", ["mcp"], /^z402-discover mcp: the option '--discovery' is required but missing/],
    ["Z402_SELLER", ["check", "http://127.0.0.1:1/x"], /^z402-seller check: the option '--discovery' is required but missing/],
    ["Z402_SELLER", ["check", "--discovery", "http://127.0.0.1:1"], /^z402-seller check: missing URL/],
    ["Z402_SELLER", ["check", "http://127.0.0.1:1/x", "--discovery", "http://127.0.0.1:1", "--method", "FETCH"], /^z402-seller check: --method: unknown method FETCH/],
    ["Z402_SELLER", ["sell"], /^z402-seller: unknown command 'sell'/],
    ["Z402_DISCOVER", ["mcp", "--discovery", "file:///etc"], /^z402-discover mcp: --discovery must be an http/],
  ];
  for (const [envName, args, expected] of cases) {
    const r = run(envName, args);
    assert.equal(r.status, 2, `${args.join(" ")}: ${r.stderr}`);
    assert.equal(r.stdout, "");
    const lines = r.stderr.trimEnd().split("\n");
    assert.equal(lines.length, 1, `${args.join(" ")}: ${r.stderr}`);
    assert.match(lines[0], expected);
  }
});

test("the command reference (docs/reference.md) is the programs' --help, word for word", () => {
  const begin = "<!-- command reference: made by tests/e2e/lib/cli-reference.mjs -->\n";
  const end = "<!-- end of command reference -->";
  const at = readme.indexOf(begin);
  assert.ok(at >= 0, "docs/reference.md has the command reference");
  const section = readme.slice(at + begin.length, readme.indexOf(end, at));
  assert.equal(section, reference(), "regenerate it: node tests/e2e/lib/cli-reference.mjs");
  for (const [envName, words] of helpCommands) assert.ok(section.includes(helpOf(envName, words)));
});
