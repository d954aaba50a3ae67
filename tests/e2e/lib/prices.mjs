// A text shows a price in atomic units with their name (zat) and at most the exact whole
// coins beside it: "1000 zat/1k chars (0.00001 ZEC)". An atomic amount written beside a
// whole-coin symbol ("1000 ZEC" for 1,000 zatoshi) is the mislabel these helpers catch.
import assert from "node:assert/strict";

/** The exact whole coins of `zat` zatoshi (10^-8 ZEC), as the catalog writes them. */
export function zecOf(zat) {
  const digits = String(BigInt(zat)).padStart(9, "0");
  const whole = digits.slice(0, -8), fraction = digits.slice(-8).replace(/0+$/, "");
  return fraction ? `${whole}.${fraction}` : whole;
}

/** Fails when `text` names ZEC other than as the exact value of the zat amount just before it. */
export function assertPricesLabelled(text) {
  const labelled = /(\d+) zat\/[^\n()]*? \(([0-9.]+) ZEC\)/g;
  for (const [, zat, zec] of text.matchAll(labelled)) assert.equal(zec, zecOf(zat), `${zat} zat is not ${zec} ZEC in ${JSON.stringify(text)}`);
  const rest = text.replace(labelled, "");
  assert.doesNotMatch(rest, /\d\s*ZEC\b/, `an amount beside a whole-coin symbol in ${JSON.stringify(text)}`);
}
