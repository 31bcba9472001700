/**
 * A small seeded PRNG (mulberry32) so a stress run can be replayed with
 * `--seed N`: the plan and every job's sizes, delays and payloads come from
 * it. Timing is still the machine's, so a replay reproduces the workload,
 * not the exact interleaving.
 *
 * @module
 */

/** Seeded pseudo-random numbers. */
export class Rng {
  #state: number;

  /** @param seed Any 32-bit integer. */
  constructor(seed: number) {
    this.#state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.#state = (this.#state + 0x6d2b79f5) >>> 0;
    let t = this.#state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [lo, hi], both included. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }

  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.next() < p;
  }

  /** One element of `items`. */
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)];
  }

  /** A 32-bit seed for a derived generator. */
  seed(): number {
    return Math.floor(this.next() * 4294967296) >>> 0;
  }

  /** `n` pseudo-random bytes. */
  bytes(n: number): Uint8Array {
    const words = new Uint32Array(Math.ceil(n / 4));
    for (let i = 0; i < words.length; i++) words[i] = Math.floor(this.next() * 4294967296);
    return new Uint8Array(words.buffer, 0, n);
  }

  /** Shuffles `items` in place (Fisher–Yates). */
  shuffle<T>(items: T[]): T[] {
    for (let i = items.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      [items[i], items[j]] = [items[j], items[i]];
    }
    return items;
  }
}
