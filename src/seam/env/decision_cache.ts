/**
 * A bounded memo of per-variable decisions, so the environment scrub runs
 * its credential rules only for a variable that is new or whose value
 * changed. The ambient environment is read at every spawn and is nearly
 * always the same, and the rules (a word split and a pattern per token
 * format, per entry) were most of the cost of `mergeEnv(process.env)`.
 *
 * Internal: not exported from the seam.
 *
 * @module
 */

/** How much a {@linkcode DecisionCache} may hold. */
export interface DecisionCacheLimits {
  /** Most names kept; the oldest name is forgotten first. */
  maxNames: number;
  /** Most characters of values kept, all names together; a longer value is never kept. */
  maxValueChars: number;
}

/**
 * Remembers, for each name, the last value seen and the decision made for
 * it. A decision is reused only for the same name **and** the same value,
 * so as long as `decide` is a pure function of the two, answers are exactly
 * what calling it would give. Memory stays within the limits whatever the
 * environment does: a changing one replaces entries instead of adding them.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DecisionCache } from "./decision_cache.ts";
 * const cache = new DecisionCache<boolean>({ maxNames: 512, maxValueChars: 1 << 18 });
 * let calls = 0;
 * const mentionsSecret = (_name: string, value: string): boolean => {
 *   calls++;
 *   return value.includes("secret");
 * };
 * assert.equal(cache.get("PATH", "/usr/bin", mentionsSecret), false); // computed
 * assert.equal(cache.get("PATH", "/usr/bin", mentionsSecret), false); // remembered
 * assert.equal(cache.get("PATH", "/secret/bin", mentionsSecret), true); // a new value: computed
 * assert.equal(calls, 2);
 * ```
 */
export class DecisionCache<D> {
  readonly #limits: DecisionCacheLimits;
  /** Insertion order is age: `Map` iterates oldest first. */
  readonly #entries = new Map<string, { value: string; decision: D }>();
  #valueChars = 0;

  /** @param limits The most names and value characters to hold. */
  constructor(limits: DecisionCacheLimits) {
    this.#limits = limits;
  }

  /**
   * The decision for `name` holding `value`: the remembered one when `value`
   * is the value it was made for, otherwise `decide(name, value)`, which is
   * then remembered in place of the old one.
   */
  get(name: string, value: string, decide: (name: string, value: string) => D): D {
    const known = this.#entries.get(name);
    if (known !== undefined && known.value === value) return known.decision;
    const decision = decide(name, value);
    if (known !== undefined) this.#forget(name, known.value);
    if (value.length <= this.#limits.maxValueChars) this.#remember(name, value, decision);
    return decision;
  }

  #remember(name: string, value: string, decision: D): void {
    while (
      this.#entries.size > 0 &&
      (this.#entries.size >= this.#limits.maxNames || this.#valueChars + value.length > this.#limits.maxValueChars)
    ) {
      const [oldest, entry] = this.#entries.entries().next().value as [string, { value: string }];
      this.#forget(oldest, entry.value);
    }
    this.#entries.set(name, { value, decision });
    this.#valueChars += value.length;
  }

  #forget(name: string, value: string): void {
    this.#entries.delete(name);
    this.#valueChars -= value.length;
  }
}
