/**
 * What was built from an ambient environment, remembered with the
 * environment it was built from. The ambient environment is read at every
 * spawn (the specification says so) and is nearly always what it was at
 * the previous spawn, so the scrub and the merge run again only when it
 * changed: a name added or removed, or a value changed.
 *
 * Internal: not exported from the seam.
 *
 * @module
 */

import process from "node:process";

/** The last look at one ambient environment (its entries with a value), and what was built from it. */
interface Snapshot<R> {
  readonly entries: ReadonlyMap<string, string>;
  readonly result: R;
}

/**
 * For each ambient environment source (the process environment, however
 * it is read, or a shell's fixed `ambientEnv`), one snapshot of its entries and the result
 * `build` made of them. Reading the environment is the one cost left when
 * nothing changed: each value is read once and compared with the snapshot.
 * Memory is one copy of each environment and its result; the objects are
 * held weakly, so a shell's own `ambientEnv` goes with the shell.
 *
 * An entry whose value is `undefined` is an absent variable, and the order
 * of the entries is not part of the environment: Deno lists the process
 * environment in a different order at every read. So `build` must make
 * the same result from the same entries with a value, in any order, with
 * or without `undefined` ones.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { AmbientMemo } from "./ambient_memo.ts";
 * let builds = 0;
 * const memo = new AmbientMemo((names) => {
 *   builds++;
 *   return [...names].sort();
 * });
 * const ambient: Record<string, string | undefined> = { PATH: "/usr/bin", HOME: "/home/u" };
 * assert.deepEqual(memo.get(ambient), ["HOME", "PATH"]);
 * assert.deepEqual(memo.get(ambient), ["HOME", "PATH"]); // unchanged: remembered
 * ambient.EDITOR = "vim";
 * assert.deepEqual(memo.get(ambient), ["EDITOR", "HOME", "PATH"]); // changed: built again
 * assert.equal(builds, 2);
 * ```
 */
export class AmbientMemo<R> {
  readonly #snapshots = new WeakMap<object, Snapshot<R>>();
  readonly #build: (names: readonly string[], values: readonly (string | undefined)[]) => R;

  /**
   * @param build Makes the result from an environment's names and values.
   *   It must depend on nothing else, nor on their order or on the names
   *   whose value is `undefined`: its result is reused for as long as the
   *   entries with a value stay the same.
   */
  constructor(build: (names: readonly string[], values: readonly (string | undefined)[]) => R) {
    this.#build = build;
  }

  /**
   * What `build` returns for `ambient`'s own enumerable entries: the
   * remembered result when the entries with a value are exactly those of
   * the last call with the same source (same names, same values), otherwise
   * a new one. `build` gets the values as read here, once each, so a source
   * that changes meanwhile (or a getter) cannot make the result disagree
   * with the snapshot it is remembered for.
   *
   * @param ambient The environment as read now.
   * @param source What the snapshot is remembered under (default:
   *   `ambient`): one stable object for a reader that returns a new copy
   *   of the same environment at each read.
   */
  get(ambient: Readonly<Record<string, string | undefined>>, source: object = ambient): R {
    const names = namesOf(ambient);
    const snapshot = this.#snapshots.get(source);
    const values: (string | undefined)[] = new Array(names.length);
    let same = snapshot !== undefined;
    let defined = 0;
    for (let i = 0; i < names.length; i++) {
      const value = ambient[names[i]];
      values[i] = value;
      if (value === undefined) continue;
      defined++;
      // A name the snapshot lacks gives undefined, never equal to a value. Own keys are unique, so the same
      // count of entries with a value, each found with its value, is the same set.
      if (same && snapshot!.entries.get(names[i]) !== value) same = false;
    }
    if (same && defined === snapshot!.entries.size) return snapshot!.result;
    const entries = new Map<string, string>();
    for (let i = 0; i < names.length; i++) if (values[i] !== undefined) entries.set(names[i], values[i]!);
    const result = this.#build(names, values);
    this.#snapshots.set(source, { entries, result });
    return result;
  }
}

/**
 * The names of `ambient`'s own enumerable string-keyed entries. The process
 * environment holds nothing else on either runtime (both refuse a symbol
 * or a non-enumerable entry), so its own keys are listed without asking
 * each one whether it is enumerable: on Deno, where `process.env` is a
 * proxy over the runtime's environment, each such question is a call into
 * the runtime, and skipping them halves the cost of the read.
 */
function namesOf(ambient: Readonly<Record<string, string | undefined>>): string[] {
  if (ambient !== process.env) return Object.keys(ambient);
  return Reflect.ownKeys(ambient).filter((key): key is string => typeof key === "string");
}
