// Generates the Bazaar builder's golden vectors with the official @x402/extensions 2.27.0:
// for each case, its inputs and what declareDiscoveryExtension (and, for a request, the
// server extension's enrichDeclaration) produce, keys sorted. The C++ kit test replays them.
//   node golden-vectors.mjs NODE_MODULES_DIR > bazaar-golden.json
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import { join } from "node:path";

const modules = process.argv[2];
if (!modules) throw new Error("usage: golden-vectors.mjs NODE_MODULES_DIR");
const require = createRequire(join(modules, "noop.js"));
const { declareDiscoveryExtension, bazaarResourceServerExtension } = require("@x402/extensions/bazaar");
const { version } = JSON.parse(readFileSync(join(modules, "@x402/extensions/package.json"), "utf8"));
if (version !== "2.27.0") throw new Error(`expected @x402/extensions 2.27.0, found ${version}`);

const cityOutput = { example: { city: "San Francisco", temperature: 60 }, schema: { properties: { city: { type: "string" }, temperature: { type: "number" } }, required: ["city"] } };

const cases = [
  { name: "query without parameters", config: {} , request: { method: "GET", path: "/v1/time" } },
  { name: "query with parameters, schema and output",
    config: { input: { city: "San Francisco" }, inputSchema: { properties: { city: { type: "string", description: "City name" } }, required: ["city"] }, output: cityOutput },
    request: { method: "GET", path: "/weather" } },
  { name: "query declared with its method, no request", config: { method: "GET", input: { q: "x" } } },
  { name: "query with a falsy output example", config: { input: {}, output: { example: 0 } }, request: { method: "HEAD", path: "/ping" } },
  { name: "json body",
    config: { bodyType: "json", input: { text: "hello world" }, inputSchema: { type: "object", properties: { text: { type: "string", maxLength: 10000 } }, required: ["text"] }, output: { example: { words: 2 } } },
    request: { method: "POST", path: "/v1/wordcount" } },
  { name: "form body", config: { bodyType: "form-data", input: { file: "a.txt" }, inputSchema: { properties: { file: { type: "string" } } } },
    request: { method: "PUT", path: "/upload" } },
  { name: "text body with path parameters in brackets", config: { bodyType: "text", input: "some text" },
    request: { method: "PATCH", path: "/notes/42", routePattern: "/notes/[id]" } },
  { name: "path parameters with a colon pattern",
    config: { input: {}, pathParamsSchema: { properties: { n: { type: "string", pattern: "^[0-9]+$" } }, required: ["n"] }, output: { example: { n: 7, prime: true } } },
    request: { method: "GET", path: "/v1/primes/97", routePattern: "/v1/primes/:n" } },
  { name: "two path parameters and a suffix",
    config: { input: { units: "metric" } },
    request: { method: "GET", path: "/users/7/files/report.json", routePattern: "/users/:uid/files/:name.json" } },
  { name: "wildcard pattern", config: {}, request: { method: "DELETE", path: "/cache/a/b", routePattern: "/cache/*/*" } },
  { name: "wildcard only pattern", config: {}, request: { method: "GET", path: "/anything", routePattern: "/*" } },
  { name: "pattern that does not match the path", config: {}, request: { method: "GET", path: "/other", routePattern: "/items/:id" } },
  { name: "mcp tool",
    config: { toolName: "summarise", description: "Summarise a text", transport: "streamable-http", inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] }, example: { text: "long text" }, output: { example: { summary: "short" } } },
    request: { method: "POST", path: "/mcp" } },
  { name: "mcp tool with another transport and no extras", config: { toolName: "t", transport: "websocket", inputSchema: {} } },
];

function sortKeys(v) {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === "object") return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sortKeys(v[k])]));
  return v;
}

const vectors = cases.map(({ name, config, request }) => {
  const declared = declareDiscoveryExtension(config);
  let bazaar = declared.bazaar;
  if (request) {
    const context = { method: request.method, routePattern: request.routePattern, adapter: { getPath: () => request.path } };
    bazaar = bazaarResourceServerExtension.enrichDeclaration(bazaar, context);
  }
  return sortKeys({ name, config, request: request ?? null, expected: { bazaar } });
});
process.stdout.write(JSON.stringify({ generator: `@x402/extensions ${version}`, vectors }, null, 1) + "\n");
