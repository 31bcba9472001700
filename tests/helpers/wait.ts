/**
 * Waiting in tests for what has no event to wait on: a condition on OS
 * state (a reparented process disappearing), a file a command creates, and
 * a promise that may never settle.
 *
 * Nothing here imports the library.
 */

import { existsSync } from "node:fs";

/**
 * Polls `condition` until it holds or `withinMs` passes; returns whether it
 * held.
 */
export async function eventually(condition: () => boolean, withinMs = 5_000): Promise<boolean> {
  const deadline = Date.now() + withinMs;
  while (!condition()) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return true;
}

/** Polls until `file` exists; false when it did not appear within `withinMs`. */
export function appeared(file: string, withinMs = 5_000): Promise<boolean> {
  return eventually(() => existsSync(file), withinMs);
}

/** Resolves to the promise's value, or to "timed out" after `ms`. */
export async function within<T>(promise: Promise<T>, ms: number): Promise<T | "timed out"> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<"timed out">((resolve) => timer = setTimeout(() => resolve("timed out"), ms));
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
