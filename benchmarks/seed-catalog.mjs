// Fills a running z402-bazaar with a realistic full catalog: P providers x N items each,
// varied descriptions, tags and bazaar schemas, declared through the public API like real
// providers do. Usage: node seed-catalog.mjs URL DATA_DIR BAZAAR_BINARY [providers] [items]
import { execFileSync } from "node:child_process";

const [url, dataDir, binary, providersArg = "32", itemsArg = "128"] = process.argv.slice(2);
const providers = Number(providersArg), perProvider = Number(itemsArg);
const terms = JSON.parse(execFileSync(binary, ["terms", "--data-dir", dataDir], { encoding: "utf8" }));
const kinds = ["weather", "markdown", "translate", "ocr", "sentiment", "image", "search", "geocode", "summarize", "speech"];
const words = "fast reliable accurate cheap private streaming batch realtime multilingual structured".split(" ");

function bazaar(kind, i) {
  const params = Object.fromEntries(Array.from({ length: 1 + (i % 4) }, (_, k) => [`${kind}Param${k}`, { type: "string", description: `The ${kind} input number ${k}` }]));
  return {
    info: { input: { type: "http", method: "GET", queryParams: Object.fromEntries(Object.keys(params).map((k) => [k, "value"])) },
            output: { type: "json", example: { result: `${kind} result`, score: i % 100 } } },
    schema: { $schema: "https://json-schema.org/draft/2020-12/schema", type: "object",
      properties: { input: { type: "object", properties: { type: { type: "string", const: "http" }, method: { type: "string", enum: ["GET"] },
        queryParams: { type: "object", properties: params } }, required: ["type"] },
        output: { type: "object", properties: { type: { type: "string" }, example: { type: "object" } } } }, required: ["input"] },
  };
}

for (let p = 0; p < providers; p++) {
  const name = `bench-${p}`, payTo = `uregtest1bench${p}`;
  const key = execFileSync(binary, ["provider", "add", name, "--pay-to", payTo, "--data-dir", dataDir], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
  const items = [];
  for (let i = 0; i < perProvider; i++) {
    const kind = kinds[(p + i) % kinds.length];
    items.push({
      resource: `https://${kind}-${p}.example.com/v1/${kind}/${i}`, type: "http", x402Version: 2,
      accepts: [{ ...terms, amount: String(100 + ((p * 7 + i * 13) % 5000)), payTo, maxTimeoutSeconds: 60 }],
      description: `${words[i % words.length]} ${kind} service #${i} from provider ${p}. ` + "Returns structured JSON. ".repeat(1 + (i % 6)),
      mimeType: "application/json", serviceName: `${kind} ${p}`.slice(0, 32), tags: [kind, words[(i + 3) % words.length]],
      extensions: { bazaar: bazaar(kind, i), z402: { unit: i % 2 ? "call" : "page" } },
    });
  }
  // Wait for the key to be picked up by the server (it re-reads the keyring every 250 ms).
  for (let attempt = 0; ; attempt++) {
    const res = await fetch(`${url}/discovery/declarations`, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${key}` }, body: JSON.stringify({ items }) });
    if (res.status === 200) break;
    if (res.status !== 401 || attempt > 40) throw new Error(`declaration failed: ${res.status} ${await res.text()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
const health = await (await fetch(`${url}/health`)).json();
console.log(`seeded ${health.items} items from ${health.providers} providers`);
