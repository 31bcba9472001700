/**
 * The observer a caller hands `run()`, `start()` or `exec()`: checked once,
 * so a mistake is a `ShellSpecError` before anything runs, not a crash in
 * the middle of a stream.
 *
 * @module
 */

import { ShellSpecError } from "../errors.ts";
import type { ShellObserver } from "../capture/types.ts";

const CALLBACKS = ["onStdout", "onStderr"] as const;

/**
 * The observer's callbacks, or undefined for none. A callback may be an own
 * property or a method of the observer's class; one that only a polluted
 * `Object.prototype` supplies is not the caller's and is ignored. Throws
 * {@linkcode ShellSpecError} naming `observer` or the callback at fault.
 */
export function checkObserver(observer: unknown): ShellObserver | undefined {
  if (observer === undefined) return undefined;
  if (typeof observer !== "object" || observer === null) {
    throw new ShellSpecError("observer", "must be an object with onStdout and/or onStderr functions");
  }
  // No prototype: a callback left out must read as absent, whatever Object.prototype holds.
  const checked: ShellObserver = Object.create(null);
  for (const name of CALLBACKS) {
    const callback = callerProperty(observer, name);
    if (callback === undefined) continue;
    if (typeof callback !== "function") throw new ShellSpecError(`observer.${name}`, "must be a function");
    // Bound: the observer's own `this` stays what its author expects.
    checked[name] = (chunk) => callback.call(observer, chunk);
  }
  return Object.keys(checked).length === 0 ? undefined : checked;
}

/** `object[name]` from the object itself or its prototype chain short of `Object.prototype`. */
function callerProperty(object: object, name: string): unknown {
  for (let at: object | null = object; at !== null && at !== Object.prototype; at = Object.getPrototypeOf(at)) {
    const descriptor = Object.getOwnPropertyDescriptor(at, name);
    if (descriptor !== undefined) return descriptor.get === undefined ? descriptor.value : descriptor.get.call(object);
  }
  return undefined;
}
