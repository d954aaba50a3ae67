// The Services page in Debian's chromium: grouping by (origin, payTo, serviceName), price
// ranges, statuses from lastSeen, TODAY and 30 DAYS sums with their sparklines, hostile text shown as text and never run, local
// filtering, keyboard use, 360 px, 304 refreshes, and 4,096 items without freezing.
import { test, before, after, describe } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import { createRequire } from "node:module";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execFileSync } from "node:child_process";
import {
  binary, newDataDir, removeDataDir, addProvider, createSettleKey, termsFile, startServer, stopServer, item, declare,
  settleBody,
} from "../e2e/lib/server.mjs";

const require = createRequire(join(process.env.Z402_BROWSER_MODULES ?? "", "noop.js"));
const { chromium } = require("playwright-core");

const chromiumArgs = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
  "--disable-component-update", "--disable-sync"];

const pay = { alpha: "uregtest1alpha", beta: "uregtest1beta", gamma: "uregtest1gamma" };
const evilName = "<img src=x onerror=alert(1)>";

let browser, dir, server, pixel, pixelHits = 0;

function bazaar(params, example) {
  return {
    info: { input: { type: "http", method: "GET", queryParams: params }, output: { type: "json", example } },
    schema: { $schema: "https://json-schema.org/draft/2020-12/schema", type: "object",
      properties: { input: { type: "object" }, output: { type: "object" } }, required: ["input"] },
  };
}

function priced(terms, payTo, amount) {
  return [{ ...terms, amount, payTo, maxTimeoutSeconds: 60 }];
}

async function settle(url, key, body) {
  const res = await fetch(`${url}/discovery/settled`, {
    method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${key}` }, body: JSON.stringify(body),
  });
  assert.equal(res.status, 200);
}

// Declares through the API, counts through settles, then gives items their ages by editing
// lastSeen in the saved catalog while the server is stopped (the only way to make a route
// "late" or "down" without waiting minutes).
async function seed() {
  const keys = Object.fromEntries(Object.entries(pay).map(([name, payTo]) => [name, addProvider(dir, name, payTo)]));
  const settleKey = createSettleKey(dir);
  const { terms } = termsFile(dir);
  server = await startServer(dir);
  const pixelUrl = `http://127.0.0.1:${pixel.address().port}/pixel.png`;
  const ok = async (who, items) => assert.equal((await declare(server.url, keys[who], { items })).status, 200);
  await ok("alpha", [
    item(terms, pay.alpha, "https://wx.example.com/v1/current", { serviceName: "Weather API", description: "Current weather for a city.",
      extensions: { bazaar: bazaar({ city: "Paris" }, { city: "Paris", temperature: 21 }), z402: { unit: "call" } } }),
    item(terms, pay.alpha, "https://wx.example.com/v1/forecast", { serviceName: "Weather API", description: "Seven day forecast.",
      accepts: priced(terms, pay.alpha, "5000"), extensions: { z402: { unit: "call" } } }),
    item(terms, pay.alpha, "https://old.example.com/v1/thing", { serviceName: "Old service", description: "Not seen for hours." }),
  ]);
  await ok("beta", [
    item(terms, pay.beta, "https://wx.example.com/v1/current", { serviceName: "Weather API", description: "The same URL, listed by another payee." }),
    item(terms, pay.beta, "https://future.example.com/v1/x", { serviceName: "Future service", description: "Claims to be seen in the future." }),
  ]);
  await ok("gamma", [
    item(terms, pay.gamma, "https://evil.example.com/v1/x", { serviceName: evilName, iconUrl: "https://icons.example.com/i.png",
      description: `<img src="${pixelUrl}" onerror="alert(1)"><script>alert(2)</script> Evil thing` }),
  ]);
  for (let i = 0; i < 2; i++) await settle(server.url, settleKey, settleBody(terms, pay.alpha, "https://wx.example.com/v1/current"));
  for (let i = 0; i < 3; i++) await settle(server.url, settleKey, settleBody(terms, pay.alpha, "https://wx.example.com/v1/forecast"));
  await stopServer(server);
  const file = join(dir, "catalog.json");
  const saved = JSON.parse(readFileSync(file, "utf8"));
  const now = Date.now();
  for (const it of saved.items) {
    if (it.resource === "https://old.example.com/v1/thing") it.lastSeen = now - 2 * 3600_000;
    if (it.provider === "beta" && it.resource.startsWith("https://wx.")) it.lastSeen = now - 200_000;
    if (it.resource === "https://future.example.com/v1/x") it.lastSeen = now + 600_000;
    // Earlier days of the forecast route: 7 calls 5 days ago, 2 calls 2 days ago (the saved
    // 30 days end with today's paidCalls).
    if (it.resource === "https://wx.example.com/v1/forecast") {
      it.callsByDay = new Array(30).fill(0);
      it.callsByDay[24] = 7;
      it.callsByDay[27] = 2;
      it.callsByDay[29] = it.paidCalls;
    }
  }
  writeFileSync(file, JSON.stringify(saved));
  server = await startServer(dir);
}

/** A page on the Services page that records dialogs and every request it makes. */
async function open(viewport = { width: 1280, height: 900 }) {
  const page = await browser.newPage({ viewport });
  // Every Content-Security-Policy violation the page causes, by directive.
  await page.addInitScript(() => {
    window.__violations = [];
    document.addEventListener("securitypolicyviolation", (e) => window.__violations.push(e.violatedDirective));
  });
  const seen = { dialogs: 0, requests: [] };
  page.on("dialog", async (d) => { seen.dialogs++; await d.dismiss(); });
  page.on("request", (r) => seen.requests.push({ url: r.url(), headers: r.headers() }));
  const res = await page.goto(`${server.url}/`);
  assert.equal(res.status(), 200);
  await page.waitForSelector("#rows[data-rendered]");
  return { page, seen };
}

const rowsOf = (page) => page.$$eval("#rows tr.group", (trs) => trs.map((tr) => ({
  name: tr.querySelector(".service button").textContent,
  payTo: tr.querySelector(".payto").textContent,
  origin: tr.querySelector(".origin").textContent,
  routes: Number(tr.children[1].textContent),
  price: tr.children[2].textContent,
  status: tr.children[3].textContent,
  today: Number(tr.children[4].textContent),
  month: Number(tr.children[5].textContent),
})));

before(async () => {
  pixel = http.createServer((req, res) => { pixelHits++; res.end(); });
  await new Promise((r) => pixel.listen(0, "127.0.0.1", r));
  dir = newDataDir();
  await seed();
  browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: chromiumArgs });
});

after(async () => {
  await browser?.close();
  if (server?.child.exitCode === null) await stopServer(server);
  pixel?.close();
  removeDataDir(dir);
});

test("the page is served with a strict Content-Security-Policy", async () => {
  const res = await fetch(`${server.url}/services`);
  assert.equal(res.status, 200);
  const csp = res.headers.get("content-security-policy");
  assert.match(csp, /default-src 'none'/);
  assert.match(csp, /script-src 'self'/);
  assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|https?:/);
  assert.doesNotMatch(await res.text(), /<script>|\son[a-z]+=/i, "no inline script or handler in the page");
});

test("rows group by origin, payTo and service name, never by name alone", async () => {
  const { page } = await open();
  const rows = await rowsOf(page);
  assert.deepEqual(rows.map((r) => r.name), ["Weather API", "Old service", "Weather API", "Future service", evilName]);
  const [alphaWeather, , betaWeather] = rows;
  assert.equal(alphaWeather.payTo, pay.alpha);
  assert.equal(betaWeather.payTo, pay.beta);
  assert.equal(alphaWeather.origin, betaWeather.origin);
  assert.equal(alphaWeather.routes, 2);
  assert.equal(betaWeather.routes, 1);
  await page.close();
});

test("price ranges, statuses from lastSeen and TODAY sums", async () => {
  const { page } = await open();
  const rows = await rowsOf(page);
  const byKey = Object.fromEntries(rows.map((r) => [`${r.name}|${r.payTo}`, r]));
  assert.equal(byKey[`Weather API|${pay.alpha}`].price, "1000 zat/call (0.00001 ZEC) – 5000 zat/call (0.00005 ZEC)");
  assert.equal(byKey[`Weather API|${pay.beta}`].price, "1000 zat/call (0.00001 ZEC)");
  assert.match(byKey[`Weather API|${pay.alpha}`].status, /^up \d+s$/);
  assert.match(byKey[`Weather API|${pay.beta}`].status, /^late 3m$/);
  assert.match(byKey[`Old service|${pay.alpha}`].status, /^down 2h$/);
  assert.equal(byKey[`Future service|${pay.beta}`].status, "none");
  assert.equal(byKey[`Weather API|${pay.alpha}`].today, 5);
  assert.equal(byKey[`Weather API|${pay.beta}`].today, 0);
  await page.close();
});

test("30 DAYS sums the routes' last 30 days and a sparkline draws them day by day, within the CSP", async () => {
  const { page } = await open();
  const rows = await rowsOf(page);
  const byKey = Object.fromEntries(rows.map((r) => [`${r.name}|${r.payTo}`, r]));
  // current: 2 today; forecast: 3 today, 2 two days ago, 7 five days ago.
  assert.equal(byKey[`Weather API|${pay.alpha}`].month, 14);
  assert.equal(byKey[`Weather API|${pay.beta}`].month, 0);
  const spark = await page.$eval("#rows tr.group td.month svg", (svg) => ({
    label: svg.getAttribute("aria-label"),
    points: svg.querySelector("polyline").getAttribute("points").split(" ").map((p) => p.split(",").map(Number)),
    height: svg.viewBox.baseVal.height,
    drawn: svg.getBoundingClientRect().width,
  }));
  assert.equal(spark.label, "paid calls per day for 30 days, at most 7 in a day, 5 today");
  assert.equal(spark.points.length, 30);
  const ys = spark.points.map(([, y]) => y);
  assert.equal(Math.min(...ys), ys[24], "the highest point is 5 days ago");
  assert.equal(ys[0], spark.height - 1, "a day without calls is on the baseline");
  assert.ok(ys[29] < ys[27] && ys[27] < ys[0], `today (5) above two days ago (2) above none: ${ys}`);
  assert.ok(spark.drawn > 0, "the sparkline is drawn");
  // A row with no calls draws a flat line; nothing the page does breaks its CSP.
  const flat = await page.$$eval("#rows tr.group td.month svg polyline", (ls) => ls.at(-1).getAttribute("points"));
  assert.ok(flat.split(" ").every((p) => p.endsWith(",15.0")), flat);
  await page.getByRole("button", { name: "Weather API" }).first().click();
  assert.match(await page.locator("tr.details:not([hidden])").textContent(), /today 3 · 30 days 12/);
  assert.deepEqual(await page.evaluate(() => window.__violations), []);
  await page.close();
});

test("the page renders every price as the library does (the shared vectors)", async () => {
  const { page } = await open();
  const { vectors } = JSON.parse(readFileSync(new URL("../unit/price-labels.json", import.meta.url), "utf8"));
  const labels = await page.evaluate((vs) => vs.map((v) => priceLabel(v.amount, v.asset, v.unit)), vectors);
  assert.deepEqual(labels, vectors.map((v) => v.label));
  await page.close();
});

test("hostile text is shown as text and never executed; no icon or image is fetched", async () => {
  const { page, seen } = await open();
  await page.getByRole("button", { name: evilName }).click();
  const details = await page.locator("tr.details:not([hidden])").textContent();
  assert.match(details, /<script>alert\(2\)<\/script> Evil thing/);
  assert.match(details, /<img src="http:\/\/127\.0\.0\.1:\d+\/pixel\.png" onerror="alert\(1\)">/);
  await page.waitForTimeout(300);
  assert.equal(seen.dialogs, 0, "no dialog opened");
  assert.equal(pixelHits, 0, "the image URL was never requested");
  assert.equal(await page.locator("img").count(), 0);
  assert.equal(await page.locator("script").count(), 1, "only the page's own script");
  assert.ok(!seen.requests.some((r) => r.url.includes("icons.example.com")), "iconUrl is never loaded");
  await page.close();
});

test("the search box filters locally and nothing calls /discovery/search", async () => {
  const { page, seen } = await open();
  await page.fill("#search", "forecast");
  await page.waitForFunction(() => document.querySelectorAll("#rows tr.group").length === 1);
  const rows = await rowsOf(page);
  assert.equal(rows[0].name, "Weather API");
  assert.equal(rows[0].payTo, pay.alpha);
  assert.match(await page.textContent("#summary"), /^1 of 5 services match$/);
  await page.fill("#search", "");
  await page.waitForFunction(() => document.querySelectorAll("#rows tr.group").length === 5);
  assert.ok(!seen.requests.some((r) => r.url.includes("/discovery/search")));
  await page.close();
});

test("rows expand from the keyboard to show input parameters and example output", async () => {
  const { page } = await open();
  const toggle = page.locator("#rows tr.group .service button").first();
  await toggle.focus();
  await page.keyboard.press("Enter");
  assert.equal(await toggle.getAttribute("aria-expanded"), "true");
  const details = page.locator(`#${await toggle.getAttribute("aria-controls")}`);
  assert.ok(await details.isVisible());
  const text = await details.textContent();
  assert.match(text, /Input parameters: city/);
  assert.match(text, /"temperature": 21/);
  assert.match(text, /5000 zat\/call \(0\.00005 ZEC\)/);
  assert.equal(await details.locator(".badge.declaration").first().textContent(), "declared by its provider");
  await page.keyboard.press("Space");
  assert.equal(await toggle.getAttribute("aria-expanded"), "false");
  assert.ok(await details.isHidden());
  assert.equal(await page.locator("table thead th[scope=col]").count(), 6);
  await page.close();
});

test("readable at 360 px: nothing scrolls sideways", async () => {
  const { page } = await open({ width: 360, height: 740 });
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(width <= 360, `page is ${width} px wide`);
  assert.ok(await page.locator("#rows tr.group").first().isVisible());
  await page.close();
});

test("it refreshes every 10 s and an unchanged catalog costs a 304", async () => {
  const { page, seen } = await open();
  const revalidated = page.waitForResponse((r) => r.url().includes("/discovery/resources") && r.status() === 304, { timeout: 15000 });
  const res = await revalidated;
  assert.ok(res.request().headers()["if-none-match"], "sent If-None-Match");
  assert.equal(await page.locator("#rows tr.group").count(), 5);
  assert.ok(seen.requests.filter((r) => r.url.includes("/discovery/resources")).length >= 2);
  await page.close();
});

describe("a full catalog", () => {
  let bigDir, big;
  before(async () => {
    bigDir = newDataDir();
    big = await startServer(bigDir);
    // The benchmarks' realistic catalog: 32 providers x 128 items, declared through the API.
    execFileSync(process.env.Z402_LOAD, ["seed", "--target", big.url, "--bazaar", binary, "--data-dir", bigDir,
      "--keys-out", join(bigDir, "keys.json")], { stdio: "ignore" });
  });
  after(async () => {
    await stopServer(big);
    removeDataDir(bigDir);
  });

  test("4,096 items render without freezing the page", async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    // The longest gap between animation frames while the page loads and renders.
    await page.addInitScript(() => {
      window.__maxGap = 0;
      let last = performance.now();
      const tick = (t) => { window.__maxGap = Math.max(window.__maxGap, t - last); last = t; requestAnimationFrame(tick); };
      requestAnimationFrame(tick);
    });
    await page.goto(`${big.url}/`);
    await page.waitForSelector("#rows[data-rendered]", { timeout: 30000 });
    assert.match(await page.textContent("#summary"), / 4096 routes$/);
    const gap = await page.evaluate(() => window.__maxGap);
    assert.ok(gap < 1000, `the page froze for ${Math.round(gap)} ms`);
    console.log(`4,096 items: longest gap between frames ${Math.round(gap)} ms`);
    await page.fill("#search", "weather");
    await page.waitForFunction(() => document.querySelector("#rows").dataset.rendered !== undefined &&
      /match$/.test(document.querySelector("#summary").textContent));
    await page.close();
  });
});
