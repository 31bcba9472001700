/**
 * A hook's JSON answer: recognised on stdout, parsed, and validated
 * leniently with zod. Each known field is checked on its own; a field of the
 * wrong type is dropped instead of failing the whole answer, because a hook
 * that got one field wrong still meant the others. Unknown fields are kept.
 *
 * @module
 */

import { z } from "zod";
import type { HookJsonOutput, HookSpecificOutput } from "./types.ts";

/** A JSON object (not an array, not null). */
const jsonObject = z.record(z.string(), z.unknown());

/** The known fields of `PermissionRequest`'s `decision` object. */
const permissionRequestFields = {
  behavior: z.enum(["allow", "deny"]),
  updatedInput: jsonObject,
  message: z.string(),
};

/** The known fields of `hookSpecificOutput`, each with the type it must have. */
const specificFields = {
  hookEventName: z.string(),
  permissionDecision: z.enum(["allow", "deny", "ask", "defer"]),
  permissionDecisionReason: z.string(),
  additionalContext: z.string(),
  updatedInput: jsonObject,
  decision: jsonObject.transform((raw) => keepValidFields(raw, permissionRequestFields)),
};

/** The known top-level fields, each with the type it must have. */
const topFields = {
  continue: z.boolean(),
  stopReason: z.string(),
  suppressOutput: z.boolean(),
  systemMessage: z.string(),
  decision: z.enum(["approve", "block"]),
  reason: z.string(),
  hookSpecificOutput: jsonObject.transform((raw) => keepValidFields(raw, specificFields) as HookSpecificOutput),
};

/**
 * Copies `raw`, keeping each field of `fields` only when it passes its
 * schema (in its parsed form) and every other field as it is.
 */
function keepValidFields(raw: Record<string, unknown>, fields: Record<string, z.ZodType>): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(raw)) {
    const schema = Object.hasOwn(fields, name) ? fields[name] : undefined;
    if (schema === undefined) {
      setOwn(kept, name, value);
      continue;
    }
    const checked = schema.safeParse(value);
    if (checked.success) setOwn(kept, name, checked.data);
  }
  return kept;
}

/** Sets an own data property; unlike `target[name] = value`, a key named `__proto__` stays a plain key. */
function setOwn(target: Record<string, unknown>, name: string, value: unknown): void {
  Object.defineProperty(target, name, { value, enumerable: true, writable: true, configurable: true });
}

/** What a hook's stdout is, before any field is looked at. */
export type StdoutShape =
  /** Nothing but whitespace. */
  | { kind: "empty" }
  /** Plain text: it does not start with `{` or `[`. */
  | { kind: "text"; text: string }
  /** A JSON object. */
  | { kind: "object"; value: Record<string, unknown> }
  /** It starts with `{` or `[` but is not a JSON object. */
  | { kind: "invalid" };

/** Reads a hook's stdout as Codex's `parse_json` and `looks_like_json` do: trimmed, then an object or not. */
export function stdoutShape(stdout: string): StdoutShape {
  const text = stdout.trim();
  if (text === "") return { kind: "empty" };
  if (!text.startsWith("{") && !text.startsWith("[")) return { kind: "text", text };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { kind: "invalid" };
  }
  const object = jsonObject.safeParse(parsed);
  return object.success ? { kind: "object", value: object.data } : { kind: "invalid" };
}

/**
 * The hook's JSON answer, when its trimmed stdout starts with `{` and parses
 * as a JSON object; `undefined` otherwise (plain text, or malformed JSON,
 * which stays plain text).
 */
export function parseHookJson(stdout: string): HookJsonOutput | undefined {
  const shape = stdoutShape(stdout);
  if (shape.kind !== "object") return undefined;
  return keepValidFields(shape.value, topFields) as HookJsonOutput;
}
