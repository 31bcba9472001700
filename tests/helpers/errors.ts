/**
 * What a call threw or a promise rejected with, and checks of the errors
 * tests expect: an error recognised by its stable `name` (and class), and
 * a `ShellSpecError` naming the field that is wrong.
 */

import assert from "node:assert/strict";
import { isShellError, ShellSpecError } from "../../mod.ts";

/** Runs `fn`, which must throw, and returns what it threw; `what` is the failure when it returns. */
export function thrown(fn: () => unknown, what = "expected a throw, but the call returned"): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  assert.fail(what);
}

/** Awaits `promise`, which must reject, and returns the reason; `what` is the failure when it resolves. */
export async function rejection(
  promise: Promise<unknown>,
  what = "expected a rejection, but the promise resolved",
): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  assert.fail(what);
}

/** Runs `fn`, which must throw an Error named `name` (and, when given, of class `type`), and returns it. */
export function throwsNamed(fn: () => unknown, name: string, type?: new (...args: never[]) => Error): Error {
  const caught = thrown(fn, `expected ${name} to be thrown, but the call returned`);
  assert.ok(caught instanceof Error, `expected ${name} to be thrown, got ${String(caught)}`);
  assert.equal(caught.name, name);
  if (type !== undefined) assert.ok(caught instanceof type, `expected an instance of ${type.name}`);
  return caught;
}

/**
 * Asserts that `error` is a `ShellSpecError` (class and name) whose message
 * starts with its field path and names `name`, and whose field names `name`
 * too: the field itself (`env`) or a place under it (`env["A=B"]`).
 */
export function assertSpecErrorNaming(error: unknown, name: string): asserts error is ShellSpecError {
  assert.ok(error instanceof ShellSpecError, `expected a ShellSpecError, got ${String(error)}`);
  assert.equal(error.name, "ShellSpecError", error.message);
  assert.equal(typeof error.field, "string", "the error has a field");
  assert.ok(
    error.message.startsWith(`${error.field}: `),
    `the message ${JSON.stringify(error.message)} starts with its field ${JSON.stringify(error.field)}`,
  );
  assert.ok(
    error.message.includes(name),
    `the message ${JSON.stringify(error.message)} names ${JSON.stringify(name)}`,
  );
  assert.ok(error.field.includes(name), `the field ${JSON.stringify(error.field)} names ${JSON.stringify(name)}`);
}

/**
 * Asserts that `error` is a `ShellSpecError` (class and name) whose field is
 * exactly `field`, whose message starts with `field: `, and which matches
 * `message` when given.
 */
export function assertSpecError(error: unknown, field: string, message?: RegExp): asserts error is ShellSpecError {
  assertSpecErrorNaming(error, field);
  assert.equal(error.field, field);
  if (message !== undefined) assert.match(error.message, message);
}

/**
 * Asserts that `error` is the family's argument error: a `TypeError` (as it
 * was before it joined the family, so `instanceof TypeError` callers keep
 * working) with the code `ERR_SHELL_ARGUMENT`, a field that is exactly
 * `field`, a message that starts with `field: `, and that matches `message`
 * when given.
 */
export function assertArgumentError(
  error: unknown,
  field: string,
  message?: RegExp,
): asserts error is TypeError & { code: "ERR_SHELL_ARGUMENT"; field: string } {
  assert.ok(error instanceof TypeError, `expected a TypeError, got ${String(error)}`);
  assert.ok(isShellError(error), `not of the error family: ${String(error)}`);
  assert.equal(error.code, "ERR_SHELL_ARGUMENT", error.message);
  assert.equal((error as { field?: unknown }).field, field, error.message);
  assert.ok(error.message.startsWith(`${field}: `), error.message);
  if (message !== undefined) assert.match(error.message, message);
}
