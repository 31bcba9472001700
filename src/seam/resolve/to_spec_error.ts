/**
 * Turns zod failures into {@linkcode ShellSpecError}s that name the field.
 * Internal: the public surface is the schemas and the error class.
 *
 * @module
 */

import type { z } from "zod";
import { ShellSpecError } from "../errors.ts";
import { ownFields } from "../own_fields.ts";
import { showValue } from "../show_value.ts";

/**
 * Parses `input` with `schema`, turning the first failure into a
 * {@linkcode ShellSpecError} that names the field. Only the input's own
 * properties are seen, and the result has no prototype: nothing inherited
 * from a polluted `Object.prototype` is read, before or after.
 *
 * @param accept A quicker check by the same rules, for the common case:
 *   given the own fields, it returns them when the schema would accept
 *   them as they are, and undefined for the schema to decide.
 */
export function parseOrThrow<T>(
  schema: z.ZodType,
  input: unknown,
  root: string,
  accept?: (fields: unknown) => T | undefined,
): T {
  const fields = ownFields(input);
  const accepted = accept?.(fields);
  if (accepted !== undefined) return accepted;
  const parsed = schema.safeParse(fields);
  // The validator's output is an ordinary object: an optional field it left
  // out would be read through the prototype again. No prototype, no leak.
  if (parsed.success) return ownFields(parsed.data) as T;
  throw toSpecError(parsed.error, root, fields);
}

/**
 * The names other process libraries (execa, Node's child_process, tinyexec)
 * give the same things, so that a caller who writes them hears ours.
 */
const OTHER_NAMES: Record<string, Record<string, string>> = {
  request: { cwd: "workdir", timeout: "timeoutMs", input: "stdin", maxBuffer: "stdoutMaxBytes" },
  spec: { cwd: "workdir", timeout: "timeoutMs", input: "stdin", maxBuffer: "stdoutMaxBytes" },
  options: { cwd: "workdir", timeout: "timeoutMs", maxBuffer: "maxOutputBytes" },
};

/**
 * Fields whose values are never echoed in an error: the environment and
 * the input may hold credentials, and a command line or its arguments may
 * too (and the limits they break are about size, not a value to see).
 */
const NOT_ECHOED: ReadonlySet<PropertyKey> = new Set(["env", "dshEnv", "ambientEnv", "stdin", "command", "args"]);

/**
 * Turns a zod error into a {@linkcode ShellSpecError} naming the first
 * failing field and, when `input` is given, showing the value it refused:
 * `timeoutMs: must be a positive, finite number (got "5")`, as the tools'
 * errors do. Values of {@linkcode NOT_ECHOED} fields are never shown.
 */
export function toSpecError(error: z.ZodError, root: string, input?: unknown): ShellSpecError {
  const issue = error.issues[0];
  if (issue.code === "unrecognized_keys") {
    const keys = issue.keys.map((key) => JSON.stringify(key)).join(", ");
    const ours = issue.path.length === 0 ? OTHER_NAMES[root] ?? {} : {};
    const hints = issue.keys.filter((key) => Object.hasOwn(ours, key))
      .map((key) => `use ${JSON.stringify(ours[key])} for ${JSON.stringify(key)}`);
    const problem = `unknown key${issue.keys.length > 1 ? "s" : ""} ${keys}`;
    return new ShellSpecError(
      formatPath(root, issue.path),
      hints.length > 0 ? `${problem} (${hints.join("; ")})` : problem,
    );
  }
  return new ShellSpecError(formatPath(root, issue.path), issue.message + echoed(input, issue.path));
}

/** ` (got …)` for the value at `path` in `input`; empty when there is none to show, or it may be a secret. */
function echoed(input: unknown, path: readonly PropertyKey[]): string {
  if (input === undefined || path.length === 0 || NOT_ECHOED.has(path[0])) return "";
  let value: unknown = input;
  for (const key of path) {
    if (typeof value !== "object" || value === null || !Object.hasOwn(value, key)) return "";
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  // A missing required field says "is required": there is nothing to show.
  return value === undefined ? "" : ` (got ${showValue(value)})`;
}

/** `["env", "A=B"]` → `env["A=B"]`; an empty path is the root itself. */
function formatPath(root: string, path: readonly PropertyKey[]): string {
  if (path.length === 0) return root;
  let out = String(path[0]);
  for (const key of path.slice(1)) out += typeof key === "number" ? `[${key}]` : `[${JSON.stringify(String(key))}]`;
  return out;
}
