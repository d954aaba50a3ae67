// The Services page: reads the public list like any client (never /discovery/search, the
// filter is local), groups routes by (origin, payTo, serviceName), and renders every catalog
// text as text. Refreshes every 10 s with If-None-Match, so an unchanged catalog costs a 304.
"use strict";

const PAGE = 1000;          // items per request (the server's maximum)
const MAX_PAGES = 20;       // a bound on one refresh, whatever pagination says
const REFRESH_MS = 10000;
const CHUNK = 150;          // rows rendered per frame: 4,096 items never freeze the page
const UP_S = 75, LATE_S = 300, FUTURE_S = 90;  // docs/contract.md §5

const state = { items: [], groups: [], etag: null, expanded: new Set(), filter: "", renderToken: 0, rowsByKey: new Map() };

const $ = (id) => document.getElementById(id);

function el(tag, props, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(props || {})) {
    if (k === "class") node.className = v;
    else if (k === "text") node.textContent = v;
    else node.setAttribute(k, v);
  }
  for (const c of children) if (c != null) node.append(c);
  return node;
}

// Untrusted text: as a text node, isolated so bidi characters cannot reorder what surrounds it.
const untrusted = (text, cls) => el("bdi", cls ? { class: cls } : {}, String(text ?? ""));

const str = (v) => (typeof v === "string" ? v : "");
const input = (item) => item?.extensions?.bazaar?.info?.input ?? {};

function originOf(url) {
  try { return new URL(url).origin; } catch { return str(url); }
}

function statusOf(lastSeen, now) {
  const t = Date.parse(str(lastSeen));
  if (!Number.isFinite(t)) return { name: "none", age: null };
  const age = Math.floor((now - t) / 1000);
  if (age < -FUTURE_S) return { name: "none", age: null };
  const a = Math.max(age, 0);
  return { name: a <= UP_S ? "up" : a <= LATE_S ? "late" : "down", age: a };
}

const RANK = { up: 3, late: 2, down: 1, none: 0 };

function ageText(s) {
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86400) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86400)}d`;
}

// Prices, as every text of the Bazaar shows them: the atomic amount with its unit (x402 amounts
// are atomic units; ZEC's is the zatoshi, 10^-8 ZEC), the billing unit, and the exact whole
// coins. The library's rules::price_label answers the same; tests/unit/price-labels.json holds
// both to the same vectors.
const KNOWN_ASSETS = { ZEC: { atomic: "zat", decimals: 8 } };

function wholeCoins(atomic, decimals) {
  const digits = atomic.replace(/^0+/, "");
  if (!digits) return "0";
  const padded = digits.padStart(decimals + 1, "0");
  const whole = padded.slice(0, padded.length - decimals);
  const fraction = padded.slice(padded.length - decimals).replace(/0+$/, "");
  return fraction ? `${whole}.${fraction}` : whole;
}

function priceLabel(amount, asset, unit) {
  const known = Object.hasOwn(KNOWN_ASSETS, asset) ? KNOWN_ASSETS[asset] : null;
  let label = `${amount || "?"} ${known ? known.atomic : `atomic units of ${asset || "?"}`}/${unit || "call"}`;
  if (known && /^[0-9]+$/.test(amount)) label += ` (${wholeCoins(amount, known.decimals)} ${asset})`;
  return label;
}

function priceOf(item) {
  const offer = Array.isArray(item.accepts) ? item.accepts[0] ?? {} : {};
  const amount = str(offer.amount);
  return { amount, label: priceLabel(amount, str(offer.asset), str(item?.extensions?.z402?.unit)) };
}

function compareAmounts(a, b) {
  const digits = /^[0-9]{1,60}$/;
  if (digits.test(a) && digits.test(b)) return BigInt(a) < BigInt(b) ? -1 : BigInt(a) > BigInt(b) ? 1 : 0;
  return a < b ? -1 : a > b ? 1 : 0;
}

function methodOf(item) {
  const i = input(item);
  if (item.type === "mcp") return `MCP ${str(i.toolName)}`;
  return str(i.method) || "GET";
}

function parameterNames(item) {
  const i = input(item);
  const names = new Set();
  const keysOf = (o) => (o && typeof o === "object" && !Array.isArray(o) ? Object.keys(o) : []);
  for (const part of ["queryParams", "body", "pathParams"]) {
    keysOf(i[part]).forEach((k) => names.add(k));
    keysOf(item?.extensions?.bazaar?.schema?.properties?.input?.properties?.[part]?.properties).forEach((k) => names.add(k));
  }
  keysOf(i.inputSchema?.properties).forEach((k) => names.add(k));
  return [...names];
}

function payToOf(item) {
  return Array.isArray(item.accepts) && item.accepts[0] ? str(item.accepts[0].payTo) : "";
}

// Rows: one per (origin, payTo, serviceName), never per name alone; in list order.
function groupItems(items) {
  const groups = new Map();
  for (const item of items) {
    if (!item || typeof item !== "object") continue;
    const origin = originOf(item.resource);
    const payTo = payToOf(item);
    const name = str(item.serviceName);
    const key = JSON.stringify([origin, payTo, name]);
    let g = groups.get(key);
    if (!g) {
      g = { key, origin, payTo, name, routes: [], haystack: "" };
      groups.set(key, g);
    }
    g.routes.push(item);
  }
  for (const g of groups.values()) {
    g.haystack = [g.name, g.origin, ...g.routes.flatMap((r) => [str(r.resource), str(r.description), methodOf(r),
      str(r?.extensions?.z402?.unit), ...(Array.isArray(r.tags) ? r.tags.map(str) : []), ...parameterNames(r)])]
      .join("\n").toLowerCase();
  }
  return [...groups.values()];
}

function rowPrice(g) {
  const prices = g.routes.map(priceOf);
  const labels = new Set(prices.map((p) => p.label));
  if (labels.size === 1) return prices[0].label;
  prices.sort((a, b) => compareAmounts(a.amount, b.amount));
  return `${prices[0].label} – ${prices[prices.length - 1].label}`;
}

function rowStatus(g, now) {
  let best = { name: "none", age: null };
  for (const r of g.routes) {
    const s = statusOf(r.lastSeen, now);
    if (RANK[s.name] > RANK[best.name] || (s.name === best.name && s.age !== null && s.age < best.age)) best = s;
  }
  return best;
}

const count = (n) => (Number.isSafeInteger(n) && n > 0 ? n : 0);
const today = (g) => g.routes.reduce((n, r) => n + count(r.paidCallsToday), 0);
const DAYS = 30;
const last30 = (item) => count(item?.quality?.l30DaysTotalCalls);
const month = (g) => g.routes.reduce((n, r) => n + last30(r), 0);

// The routes' daily counts added up, oldest first (callsByDay, which the page asks the list for).
function byDay(g) {
  const sum = new Array(DAYS).fill(0);
  for (const r of g.routes)
    if (Array.isArray(r.callsByDay) && r.callsByDay.length === DAYS) r.callsByDay.forEach((n, i) => { sum[i] += count(n); });
  return sum;
}

// A sparkline of the daily counts: an inline SVG made with DOM calls (no markup parsed, no
// style attribute: the page's CSP allows neither inline script nor inline style).
const SVG_NS = "http://www.w3.org/2000/svg";
const SPARK_W = 60, SPARK_H = 16;
function sparkline(days) {
  const most = Math.max(...days);
  const svg = document.createElementNS(SVG_NS, "svg");
  svg.setAttribute("class", "spark");
  svg.setAttribute("viewBox", `0 0 ${SPARK_W} ${SPARK_H}`);
  svg.setAttribute("width", String(SPARK_W));
  svg.setAttribute("height", String(SPARK_H));
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", `paid calls per day for 30 days, at most ${most} in a day, ${days[DAYS - 1]} today`);
  const line = document.createElementNS(SVG_NS, "polyline");
  line.setAttribute("points", days.map((n, i) =>
    `${(i * SPARK_W / (DAYS - 1)).toFixed(1)},${(SPARK_H - 1 - (most ? (n / most) * (SPARK_H - 2) : 0)).toFixed(1)}`).join(" "));
  svg.append(line);
  return svg;
}

function statusCell(cell, s) {
  cell.className = `status ${s.name}`;
  cell.textContent = s.name === "none" ? "none" : `${s.name} ${ageText(s.age)}`;
}

// How the route came to be listed: declared by its provider, or seen only in payments (then
// its description and schema are whatever payers echoed).
function provenanceBadge(item) {
  const fromPayments = item.listedBy === "settlement";
  return el("span", { class: `badge ${fromPayments ? "settlement" : "declaration"}`,
    text: fromPayments ? "seen in payments only" : "declared by its provider" });
}

function routeDetails(item, now) {
  const price = priceOf(item);
  const s = statusOf(item.lastSeen, now);
  const params = parameterNames(item);
  const example = item?.extensions?.bazaar?.info?.output?.example;
  const status = el("span");
  statusCell(status, s);
  return el("section", { class: "route" },
    el("h3", {}, untrusted(methodOf(item), "method"), untrusted(item.resource), provenanceBadge(item)),
    el("p", {}, untrusted(price.label), " · ", status, " · today ", String(count(item.paidCallsToday)), " · 30 days ", String(last30(item))),
    item.description ? el("p", {}, untrusted(item.description)) : null,
    el("p", {}, "Input parameters: ", params.length ? untrusted(params.join(", ")) : "none"),
    example !== undefined ? el("div", {}, el("p", { text: "Example output:" }), el("pre", {}, untrusted(JSON.stringify(example, null, 2)))) : null);
}

function renderGroup(g, index, now) {
  const id = `details-${index}`;
  const open = state.expanded.has(g.key);
  const toggle = el("button", { type: "button", "aria-expanded": String(open), "aria-controls": id }, untrusted(g.name || "(unnamed)"));
  const status = el("td", { "data-label": "Status" });
  statusCell(status, rowStatus(g, now));
  const row = el("tr", { class: "group" },
    el("td", { class: "service", "data-label": "Service" }, toggle, untrusted(g.origin, "origin"), untrusted(g.payTo, "payto")),
    el("td", { "data-label": "Routes" }, String(g.routes.length)),
    el("td", { "data-label": "Price" }, untrusted(rowPrice(g))),
    status,
    el("td", { class: "num", "data-label": "Today" }, String(today(g))),
    el("td", { class: "num month", "data-label": "30 days" }, sparkline(byDay(g)), el("span", { class: "calls" }, String(month(g)))));
  const details = el("tr", { class: "details", id }, el("td", { colspan: "6" }));
  details.hidden = !open;
  if (open) g.routes.forEach((r) => details.firstChild.append(routeDetails(r, now)));
  toggle.addEventListener("click", () => {
    const nowOpen = toggle.getAttribute("aria-expanded") !== "true";
    toggle.setAttribute("aria-expanded", String(nowOpen));
    details.hidden = !nowOpen;
    if (nowOpen) {
      state.expanded.add(g.key);
      details.firstChild.replaceChildren(...g.routes.map((r) => routeDetails(r, Date.now())));
    } else {
      state.expanded.delete(g.key);
    }
  });
  state.rowsByKey.set(g.key, { group: g, status });
  return [row, details];
}

function matches(g, terms) {
  return terms.every((t) => g.haystack.includes(t));
}

function render() {
  const token = ++state.renderToken;
  const terms = state.filter.toLowerCase().split(/\s+/).filter(Boolean);
  const shown = state.groups.filter((g) => matches(g, terms));
  const body = $("rows");
  body.replaceChildren();
  state.rowsByKey.clear();
  const routes = state.items.length;
  $("summary").textContent = terms.length
    ? `${shown.length} of ${state.groups.length} services match`
    : `${state.groups.length} services, ${routes} routes`;
  let at = 0;
  const step = () => {
    if (token !== state.renderToken) return;  // a newer render took over
    const now = Date.now();
    const frag = document.createDocumentFragment();
    for (const end = Math.min(at + CHUNK, shown.length); at < end; at++) frag.append(...renderGroup(shown[at], at, now));
    body.append(frag);
    if (at < shown.length) requestAnimationFrame(step);
    else body.dataset.rendered = String(shown.length);
  };
  delete body.dataset.rendered;
  step();
}

// An unchanged catalog: only the statuses move with the clock.
function refreshStatuses() {
  const now = Date.now();
  for (const { group, status } of state.rowsByKey.values()) statusCell(status, rowStatus(group, now));
}

async function fetchPage(offset, etag) {
  const headers = { accept: "application/json" };
  if (etag) headers["if-none-match"] = etag;
  const res = await fetch(`/discovery/resources?limit=${PAGE}&offset=${offset}&callsByDay=1`, { headers, cache: "no-store" });
  if (res.status === 304) return { unchanged: true };
  if (!res.ok) throw new Error(`the catalog answered ${res.status}`);
  return { etag: res.headers.get("etag"), body: await res.json() };
}

async function refresh() {
  try {
    const first = await fetchPage(0, state.etag);
    if (first.unchanged) return refreshStatuses();
    const items = [...(first.body.items ?? [])];
    const total = Number(first.body.pagination?.total) || 0;
    for (let pages = 1; items.length < total && pages < MAX_PAGES; pages++) {
      const next = await fetchPage(items.length, null);
      const more = next.body?.items ?? [];
      if (!more.length) break;
      items.push(...more);
    }
    state.items = items;
    state.groups = groupItems(items);
    state.etag = first.etag;
    render();
  } catch (e) {
    $("summary").textContent = `Could not read the catalog (${e.message}); retrying in 10 s.`;
  }
}

document.addEventListener("DOMContentLoaded", () => {
  let pending = null;
  $("filter").addEventListener("submit", (e) => e.preventDefault());
  $("search").addEventListener("input", (e) => {
    clearTimeout(pending);
    pending = setTimeout(() => { state.filter = e.target.value; render(); }, 80);
  });
  refresh();
  setInterval(refresh, REFRESH_MS);
});
