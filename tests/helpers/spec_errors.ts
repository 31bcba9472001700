/**
 * Checks for the library's named errors that do not depend on importing
 * it: errors are recognised by their stable `name`, as callers do after
 * serialisation; `instanceof` is checked by the tests that import the
 * classes.
 */

import assert from "node:assert/strict";

/** What a `ShellSpecError` carries. */
export interface SpecErrorLike {
  name: string;
  message: string;
  field: string;
}

/**
 * Asserts that `error` is a `ShellSpecError` (by name) whose message names
 * `name`, and whose `field` is `field` when given (otherwise it must name
 * `name` too).
 */
export function assertNamesField(
  error: unknown,
  name: string,
  field?: string,
): asserts error is SpecErrorLike {
  assert.ok(error instanceof Error, `expected an Error, got ${String(error)}`);
  assert.equal(error.name, "ShellSpecError", error.message);
  const { field: actual } = error as unknown as SpecErrorLike;
  assert.equal(typeof actual, "string", "the error has a field");
  assert.ok(
    error.message.includes(name),
    `the message ${JSON.stringify(error.message)} names ${JSON.stringify(name)}`,
  );
  if (field !== undefined) assert.equal(actual, field);
  else {
    assert.ok(
      actual.includes(name),
      `the field ${JSON.stringify(actual)} names ${JSON.stringify(name)}`,
    );
  }
}

/** Runs `fn`, which must throw, and returns what it threw. */
export function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  assert.fail("expected a throw, but the call returned");
}

/** Awaits `promise`, which must reject, and returns the reason. */
export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  assert.fail("expected a rejection, but the promise resolved");
}
