// Takes the screenshot of docs/agents.md of the Services page over a realistic catalog: twelve services
// from four providers, declared and paid through the public API.
//   Z402_BAZAAR=build/apps/z402-bazaar Z402_BROWSER_MODULES=~/.cache/z402-browser-tests/node_modules \
//     node tests/browser/screenshot.mjs docs/services-page.png
import { createRequire } from "node:module";
import { join } from "node:path";
import { readFileSync, writeFileSync } from "node:fs";
import {
  newDataDir, removeDataDir, addProvider, createSettleKey, termsFile, startServer, stopServer, item, declare, settleBody,
} from "../e2e/lib/server.mjs";

const out = process.argv[2];
if (!out) throw new Error("usage: screenshot.mjs OUTPUT.png");
const require = createRequire(join(process.env.Z402_BROWSER_MODULES ?? "", "noop.js"));
const { chromium } = require("playwright-core");

const providers = {
  "uregtest1wx": [
    ["Open Weather", "https://api.openwx.example/v1/current", "Current conditions for a city: temperature, wind, humidity.", "1000", "call", ["city"]],
    ["Open Weather", "https://api.openwx.example/v1/forecast", "Hourly and daily forecast up to 7 days ahead.", "2500", "call", ["city", "days"]],
    ["Open Weather", "https://api.openwx.example/v1/history", "Past observations for a station and date range.", "4000", "day", ["station", "from", "to"]],
  ],
  "uregtest1docs": [
    ["URL to markdown", "https://md.docs.example/v1/markdown", "Fetches one public web page and returns its main content as clean markdown.", "1000", "page", ["url"]],
    ["PDF to text", "https://pdf.docs.example/v1/text", "Extracts the text of a PDF, page by page.", "800", "page", ["pdfUrl"]],
    ["OCR", "https://ocr.docs.example/v2/image", "Printed and handwritten text from images and scans.", "1500", "image", ["imageUrl"]],
  ],
  "uregtest1lingo": [
    ["Lingo", "https://lingo.example/translate", "Translates text between 40 languages.", "20", "char", ["text", "targetLanguage"]],
    ["Lingo", "https://lingo.example/detect", "Detects which language a text is written in.", "200", "call", ["text"]],
    ["Speech to text", "https://voice.lingo.example/transcribe", "Transcribes audio recordings with timestamps and speakers.", "3000", "minute", ["audioUrl"]],
  ],
  "uregtest1fin": [
    ["Market data", "https://mkt.fin.example/quote", "Real-time price quote for a ticker symbol.", "500", "quote", ["symbol"]],
    ["Market data", "https://mkt.fin.example/fx", "Exchange rates between currencies.", "300", "call", ["base", "quote"]],
    ["Open Weather", "https://api.openwx.example/v1/current", "The same URL, listed by a reseller with its own payTo.", "1200", "call", ["city"]],
  ],
};

const dir = newDataDir();
const keys = Object.fromEntries(Object.keys(providers).map((payTo, i) => [payTo, addProvider(dir, `p${i}`, payTo)]));
const settleKey = createSettleKey(dir);
const { terms } = termsFile(dir);
let server = await startServer(dir);
try {
  for (const [payTo, rows] of Object.entries(providers)) {
    const items = rows.map(([name, url, description, amount, unit, params]) => item(terms, payTo, url, {
      serviceName: name, description, accepts: [{ ...terms, amount, payTo, maxTimeoutSeconds: 60 }],
      extensions: {
        z402: { unit },
        bazaar: { info: { input: { type: "http", method: "GET", queryParams: Object.fromEntries(params.map((p) => [p, "example"])) },
                          output: { type: "json", example: { ok: true } } },
                  schema: { $schema: "https://json-schema.org/draft/2020-12/schema", type: "object", properties: { input: { type: "object" } }, required: ["input"] } },
      },
    }));
    const r = await declare(server.url, keys[payTo], { items });
    if (r.status !== 200) throw new Error(r.body);
  }
  const paid = [["uregtest1wx", "https://api.openwx.example/v1/current", 7], ["uregtest1wx", "https://api.openwx.example/v1/forecast", 4],
    ["uregtest1docs", "https://md.docs.example/v1/markdown", 12], ["uregtest1lingo", "https://lingo.example/translate", 3], ["uregtest1fin", "https://mkt.fin.example/quote", 9]];
  for (const [payTo, url, n] of paid)
    for (let i = 0; i < n; i++)
      await fetch(`${server.url}/discovery/settled`, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${settleKey}` },
        body: JSON.stringify(settleBody(terms, payTo, url)) });
  // Earlier days for the sparklines: each paid route's saved 30 days get a steady pattern of its
  // own, ending with today's count (the catalog is edited while the server is stopped).
  await stopServer(server);
  const file = join(dir, "catalog.json");
  const saved = JSON.parse(readFileSync(file, "utf8"));
  for (const it of saved.items)
    if (it.paidCalls > 0)
      it.callsByDay = Array.from({ length: 30 }, (_, d) => (d === 29 ? it.paidCalls : Math.round(it.paidCalls * (1.5 + Math.sin(d / 3 + it.paidCalls)))));
  writeFileSync(file, JSON.stringify(saved));
  server = await startServer(dir);
  const browser = await chromium.launch({ executablePath: "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"] });
  const page = await browser.newPage({ viewport: { width: 1100, height: 760 } });
  await page.goto(`${server.url}/`);
  await page.waitForSelector("#rows[data-rendered]");
  await page.getByRole("button", { name: "URL to markdown" }).click();
  await page.screenshot({ path: out, fullPage: true });
  await browser.close();
} finally {
  await stopServer(server);
  removeDataDir(dir);
}
