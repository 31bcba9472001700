/**
 * Reading callers' objects by their own properties only. A polluted
 * `Object.prototype` (an `env`, `stdin` or `dshEnv` some dependency set
 * there) must never reach a command: every field of a request, a spec or
 * the options is read as an own property, never through the prototype.
 *
 * Internal: not exported from the package.
 *
 * @module
 */

/**
 * `record[key]` when `record` holds `key` itself; undefined when it holds
 * nothing there or only inherits a value.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ownValue } from "./own_fields.ts";
 * const inherited = { env: { LEAKED: "1" } };
 * const request: { command: string; env?: Record<string, string> } = Object.create(inherited);
 * request.command = "ls";
 * assert.deepEqual(request.env, { LEAKED: "1" }); // what plain property access sees
 * assert.equal(ownValue(request, "env"), undefined);
 * assert.equal(ownValue(request, "command"), "ls");
 * ```
 */
export function ownValue<T extends object, K extends keyof T>(record: T, key: K): T[K] | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

/**
 * For a validator: an object holding exactly `value`'s own enumerable
 * string-keyed properties and no prototype, so nothing inherited is seen;
 * anything that is not a plain object is returned as it is (the validator
 * refuses it with its own words). The copy is shallow: nested records (an
 * `env`) are the caller's own objects, checked where they are.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ownFields } from "./own_fields.ts";
 * const copy = ownFields({ command: "ls" }) as Record<string, unknown>;
 * assert.equal(Object.getPrototypeOf(copy), null);
 * assert.equal("toString" in copy, false); // nothing inherited
 * assert.equal(copy.command, "ls");
 * ```
 */
export function ownFields(value: unknown): unknown {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return value;
  if (Object.prototype.toString.call(value) !== "[object Object]") return value;
  const copy: Record<string, unknown> = Object.create(null);
  for (const key of Object.keys(value)) copy[key] = (value as Record<string, unknown>)[key];
  return copy;
}
