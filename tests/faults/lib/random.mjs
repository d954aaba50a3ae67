// A seeded random source (SplitMix32 for the seed, then xoshiro128**): the campaign's every
// choice (which fault, when, how long, which node, which payment is sent twice) is drawn from
// one of these, so the same seed makes the same schedule.

/** A generator seeded with the 32-bit integer `seed`. */
export function seeded(seed) {
  let x = seed >>> 0;
  const splitmix = () => {
    x = (x + 0x9e3779b9) >>> 0;
    let z = x;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  };
  const s = [splitmix(), splitmix(), splitmix(), splitmix()];
  const rotl = (v, k) => ((v << k) | (v >>> (32 - k))) >>> 0;
  const next = () => {
    const result = Math.imul(rotl(Math.imul(s[1], 5) >>> 0, 7), 9) >>> 0;
    const t = (s[1] << 9) >>> 0;
    s[2] ^= s[0]; s[3] ^= s[1]; s[1] ^= s[2]; s[0] ^= s[3];
    s[2] ^= t; s[3] = rotl(s[3], 11);
    return result;
  };
  const random = {
    /** A float in [0, 1). */
    float: () => next() / 2 ** 32,
    /** An integer in [lo, hi]. */
    int: (lo, hi) => lo + Math.floor(random.float() * (hi - lo + 1)),
    /** One element of `list`. */
    pick: (list) => list[Math.floor(random.float() * list.length)],
    /** True with probability `p`. */
    chance: (p) => random.float() < p,
    /** A generator of its own, for one actor of the campaign (its draws do not shift the others'). */
    fork: () => seeded(next()),
  };
  return random;
}

/** A fresh seed from the system's randomness, for a run that was not given one. */
export const freshSeed = () => (Math.random() * 2 ** 32) >>> 0;
