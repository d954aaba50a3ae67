// Writes one settle body a line for the seeded catalog: provider p, item i, for every pair.
//   node settle-bodies.mjs BAZAAR_BINARY DATA_DIR PROVIDERS ITEMS > bodies.txt
import { execFileSync } from "node:child_process";
const [binary, dataDir, providers, items] = process.argv.slice(2);
const terms = JSON.parse(execFileSync(binary, ["terms", "--data-dir", dataDir], { encoding: "utf8" }));
const kinds = ["weather", "markdown", "translate", "ocr", "sentiment", "image", "search", "geocode", "summarize", "speech"];
for (let p = 0; p < Number(providers); p++)
  for (let i = 0; i < Number(items); i += 16) {
    const kind = kinds[(p + i) % kinds.length];
    const requirements = { ...terms, amount: String(100 + ((p * 7 + i * 13) % 5000)), payTo: `uregtest1bench${p}`, maxTimeoutSeconds: 60 };
    const url = `https://${kind}-${p}.example.com/v1/${kind}/${i}`;
    console.log(JSON.stringify({ x402Version: 2, paymentPayload: { x402Version: 2, resource: { url }, accepted: requirements, payload: {} }, paymentRequirements: requirements }));
  }
