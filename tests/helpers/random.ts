/**
 * Seeded pseudo-random numbers for tests that generate their inputs: the
 * same seed gives the same sequence, so a failing case can be replayed.
 *
 * Nothing here imports the library.
 */

/** A small seeded PRNG (mulberry32) returning numbers in [0, 1). */
export function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A whole number in [min, max]. */
export function between(random: () => number, min: number, max: number): number {
  return min + Math.floor(random() * (max - min + 1));
}
