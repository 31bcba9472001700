/**
 * The specs a shell's `resolve()` returned, remembered so that `run()` and
 * `start()` need not validate them again.
 *
 * @module
 */

import type { ShellExecSpec } from "../types.ts";
import { ownValue } from "../own_fields.ts";

/**
 * The specs one shell's `resolve()` returned, so that `run()` and `start()`
 * need not validate them again: a spec passed back exactly as it was
 * resolved is valid and capped for that shell already. Specs stay plain
 * mutable objects, so each is compared with a private copy of what
 * `resolve()` returned: a field changed, added or removed sends it through
 * `checkSpec` (`request.ts`) like any hand-built spec, and an unchanged one runs
 * from the private copy (a getter redefined on the caller's object cannot
 * change what runs). Specs with `env` or `dshEnv` are not remembered: those
 * records are the caller's own objects and may have changed inside.
 */
export class ResolvedSpecs {
  /** Weak: a spec the caller drops takes its copy with it. */
  readonly #copies = new WeakMap<ShellExecSpec, Readonly<ShellExecSpec>>();

  /** Remembers `spec`, just returned by `resolveRequest` for this shell. */
  remember(spec: ShellExecSpec): void {
    if (ownValue(spec, "env") !== undefined || ownValue(spec, "dshEnv") !== undefined) return;
    const copy: ShellExecSpec = { ...spec };
    const args = ownValue(spec, "args");
    // The argv form's array is the spec's own (resolve() copied it), but a caller can still change it in place.
    if (args !== undefined) copy.args = Object.freeze([...args]) as string[];
    this.#copies.set(spec, Object.freeze(copy));
  }

  /** The private copy of `spec` when it is a remembered spec with no field changed, added or removed. */
  unchanged(spec: ShellExecSpec): ShellExecSpec | undefined {
    // Anything, not only objects, can reach run() from untyped callers; WeakMap.get is fine with all of it.
    const copy = this.#copies.get(spec);
    if (copy === undefined) return undefined;
    const keys = Object.keys(spec);
    if (keys.length !== Object.keys(copy).length) return undefined;
    for (const key of keys) {
      if (!Object.hasOwn(copy, key)) return undefined;
      if (key === "args") {
        if (!sameArgs(spec.args, copy.args)) return undefined;
      } else if (spec[key as keyof ShellExecSpec] !== copy[key as keyof ShellExecSpec]) return undefined;
    }
    return copy;
  }
}

/** Whether the spec's `args` still holds exactly the remembered arguments. */
function sameArgs(given: unknown, remembered: readonly string[] | undefined): boolean {
  if (!Array.isArray(given) || remembered === undefined || given.length !== remembered.length) return false;
  return given.every((arg, index) => arg === remembered[index]);
}
