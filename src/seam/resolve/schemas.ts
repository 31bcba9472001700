/**
 * zod schemas for the request, the spec and the shell options. Each check
 * carries a message written for the person who has to fix the input; the
 * path of the failing field is added by {@linkcode toSpecError}.
 *
 * @module
 */

import { z } from "zod";
import { sandboxPolicySchema } from "../sandbox/schema.ts";
import { LONE_SURROGATE_PROBLEM, noNul, path, wellFormed } from "../schema_parts.ts";
import type { ProcessAdapter } from "../adapter.ts";
import type { DshEnv, EnvPatch, LocalShellOptions, ShellExecRequest, ShellExecSpec } from "../types.ts";

/**
 * The largest delay a JavaScript timer honours (2 147 483 647 ms, some 24.8
 * days); longer ones fire at once. It bounds `timeoutMs`, `maxTimeoutMs`
 * and `graceMs`. Internal: the error message gives the number.
 */
export const MAX_TIMER_MS = 2_147_483_647;

/**
 * The largest in-memory output budget, 1 GiB: a stream's head and tail are
 * held in typed arrays, and a budget that large is a mistake, not a plan.
 */
const MAX_OUTPUT_BUDGET = 1_073_741_824;

/**
 * Linux's MAX_ARG_STRLEN: the most bytes one exec argument may have, its
 * terminating NUL included. The command is one argument (`<shell> -c <command>`).
 */
const MAX_ARG_STRLEN = 131_072;

// z.number() alone already refuses NaN and ±Infinity, but with a message
// that does not say what is expected; the refinements below do.
const positiveFinite = (): z.ZodType<number> =>
  z.number({ error: "must be a positive, finite number" })
    .refine((n) => Number.isFinite(n) && n > 0, { error: "must be a positive, finite number" });

const positiveInteger = (): z.ZodType<number> =>
  z.number({ error: "must be a positive whole number" })
    .refine((n) => Number.isSafeInteger(n) && n > 0, { error: "must be a positive whole number" });

const outputBudget = (): z.ZodType<number> =>
  positiveInteger().refine((n) => n <= MAX_OUTPUT_BUDGET, {
    error: `must be at most ${MAX_OUTPUT_BUDGET} (1 GiB)`,
  });

/** Whether `text` takes at most `limit` bytes in UTF-8; counts only when the length alone cannot tell. */
function fitsInUtf8Bytes(text: string, limit: number): boolean {
  // A UTF-16 unit is 1 to 3 UTF-8 bytes (a surrogate pair, 2 units, is 4).
  if (text.length * 3 <= limit) return true;
  if (text.length > limit) return false;
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3; // a lone surrogate is encoded as U+FFFD
    } else bytes += 3;
    if (bytes > limit) return false;
  }
  return true;
}

const command = z.string({ error: "must be a string" })
  .min(1, { error: "must not be empty" })
  .refine(noNul, { error: "must not contain a NUL character" })
  .refine(wellFormed, { error: LONE_SURROGATE_PROBLEM })
  .refine((text) => fitsInUtf8Bytes(text, MAX_ARG_STRLEN - 1), {
    error: `is longer than the OS allows for one argument (${
      MAX_ARG_STRLEN - 1
    } bytes of UTF-8); pass a long script on stdin instead (e.g. the command "sh -s" with the script as stdin)`,
  });

/**
 * One argument of the argv form: any text the OS can carry in one exec
 * argument (empty is fine: `printf ""` is a real call).
 */
const argument = z.string({ error: "must be a string" })
  .refine(noNul, { error: "must not contain a NUL character" })
  .refine(wellFormed, { error: LONE_SURROGATE_PROBLEM })
  .refine((text) => fitsInUtf8Bytes(text, MAX_ARG_STRLEN - 1), {
    error: `is longer than the OS allows for one argument (${MAX_ARG_STRLEN - 1} bytes of UTF-8)`,
  });

const args = z.array(argument, { error: "must be an array of strings (the program's arguments)" });

const owner = z.union([z.string(), z.null()], {
  error: (issue) => issue.input === undefined ? "is required (use null for unowned work)" : "must be a string or null",
});

const stdin = z.union([z.string(), z.instanceof(Uint8Array)], { error: "must be a string or a Uint8Array" });

const signal = z.custom<AbortSignal>((value) => value instanceof AbortSignal, { error: "must be an AbortSignal" });

/**
 * A plain record: an object that is not an array, a Map or another built-in
 * (`process.env` qualifies; its prototype is not `Object.prototype` on Node).
 */
function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) &&
    Object.prototype.toString.call(value) === "[object Object]";
}

/** Any record, as it is: no copy is made. */
const anyRecord = z.custom<Record<string, unknown>>(isRecord, { error: "must be an object of strings" });

/**
 * Checks env names and values, reporting each problem at `env["NAME"]`.
 * The record is checked where it is, not copied: `z.record` would copy it
 * through assignments and silently drop an own entry named `__proto__`
 * (which `JSON.parse` creates), so it would never reach the child.
 */
function envRecord<T extends Record<string, string | undefined>>(
  valueMayBeUndefined: boolean,
  prefix?: string,
): z.ZodType<T> {
  return anyRecord.superRefine((record, ctx) => {
    for (const [name, value] of Object.entries(record)) {
      const at = [name];
      if (name.length === 0) ctx.addIssue({ code: "custom", path: at, message: "names may not be empty" });
      else if (name.includes("=")) ctx.addIssue({ code: "custom", path: at, message: 'names may not contain "="' });
      else if (name.includes("\0")) ctx.addIssue({ code: "custom", path: at, message: "names may not contain NUL" });
      else if (!wellFormed(name)) ctx.addIssue({ code: "custom", path: at, message: `name ${LONE_SURROGATE_PROBLEM}` });
      else if (prefix !== undefined && !name.startsWith(prefix)) {
        ctx.addIssue({ code: "custom", path: at, message: `names must start with "${prefix}"` });
      }
      if (value === undefined && valueMayBeUndefined) continue;
      if (typeof value !== "string") {
        ctx.addIssue({
          code: "custom",
          path: at,
          message: valueMayBeUndefined ? "must be a string or undefined" : "must be a string",
        });
      } else if (value.includes("\0")) {
        ctx.addIssue({ code: "custom", path: at, message: "values may not contain NUL" });
      } else if (!wellFormed(value)) {
        ctx.addIssue({ code: "custom", path: at, message: `value ${LONE_SURROGATE_PROBLEM}` });
      }
    }
  }) as unknown as z.ZodType<T>;
}

/** A terminal's side: `struct winsize` holds an unsigned short. */
const terminalSide = positiveInteger().refine((n) => n <= 65_535, { error: "must be at most 65535" });

const tty = z.union([
  z.boolean(),
  z.strictObject({ columns: terminalSide.optional(), rows: terminalSide.optional() }, {
    error: (issue) => issue.code === "unrecognized_keys" ? undefined : "must be a boolean or { columns?, rows? }",
  }),
], { error: "must be a boolean or { columns?, rows? }" });

const requestShape = {
  command,
  args: args.optional(),
  owner,
  workdir: path.optional(),
  timeoutMs: positiveFinite().optional(),
  stdoutMaxBytes: outputBudget().optional(),
  signal: signal.optional(),
  stdin: stdin.optional(),
  env: envRecord<EnvPatch>(true).optional(),
  dshEnv: envRecord<DshEnv>(false, "DSH_").optional(),
  sandbox: z.literal(false, {
    error: "can only be false (run this request outside the shell's sandbox); the policy is the shell's",
  }).optional(),
  tty: tty.optional(),
  keepStdin: z.boolean({ error: "must be a boolean" }).optional(),
};

/** The zod schema of {@linkcode ShellExecRequest} (internal; the public alias is in `../schemas.ts`). Unknown keys are refused, so a misspelt field never goes unnoticed. */
export const requestSchema: z.ZodType<ShellExecRequest> = z.strictObject(requestShape, {
  error: (issue) => issue.code === "unrecognized_keys" ? undefined : "must be an object",
});

/**
 * {@linkcode requestSchema}'s verdict on the request most callers make —
 * `command`, `owner`, and any of `workdir`, `timeoutMs`, `stdoutMaxBytes`,
 * `signal` and `stdin` — by the same rules, without zod's per-parse work:
 * that was some 50 µs of every `resolve()`, all of it before the spawn. It
 * only ever accepts: a request with any other field, or with anything
 * wrong, is left to the schema, which words the error.
 *
 * @param fields The request's own fields, as `ownFields` copies them (no
 *   prototype); anything else is left to the schema.
 * @returns `fields` when the schema would accept them as they are, or undefined.
 */
export function commonRequest(fields: unknown): ShellExecRequest | undefined {
  if (typeof fields !== "object" || fields === null || Object.getPrototypeOf(fields) !== null) return undefined;
  const record = fields as Record<string, unknown>;
  let command = false;
  let owner = false;
  // No prototype: for-in sees the own enumerable string keys only.
  for (const key in record) {
    const value = record[key];
    if (key === "command") {
      if (typeof value !== "string" || value.length === 0 || !noNul(value) || !wellFormed(value)) return undefined;
      if (!fitsInUtf8Bytes(value, MAX_ARG_STRLEN - 1)) return undefined;
      command = true;
    } else if (key === "owner") {
      if (value !== null && typeof value !== "string") return undefined;
      owner = true;
    } else if (value === undefined) {
      // An optional field given as undefined is not given; an unknown one is the schema's to refuse.
      if (!OPTIONAL_COMMON_FIELDS.has(key)) return undefined;
    } else if (key === "workdir") {
      if (typeof value !== "string" || value.length === 0 || !noNul(value) || !wellFormed(value)) return undefined;
    } else if (key === "timeoutMs") {
      if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) return undefined;
    } else if (key === "stdoutMaxBytes") {
      if (!Number.isSafeInteger(value) || (value as number) <= 0 || (value as number) > MAX_OUTPUT_BUDGET) {
        return undefined;
      }
    } else if (key === "signal") {
      if (!(value instanceof AbortSignal)) return undefined;
    } else if (key === "stdin") {
      if (typeof value !== "string" && !(value instanceof Uint8Array)) return undefined;
    } else return undefined;
  }
  return command && owner ? record as unknown as ShellExecRequest : undefined;
}

/** The optional fields {@linkcode commonRequest} checks itself. */
const OPTIONAL_COMMON_FIELDS: ReadonlySet<string> = new Set([
  "workdir",
  "timeoutMs",
  "stdoutMaxBytes",
  "signal",
  "stdin",
]);

/** The zod schema of {@linkcode ShellExecSpec} (internal; the public alias is in `../schemas.ts`). */
export const specSchema: z.ZodType<ShellExecSpec> = z.strictObject({
  ...requestShape,
  workdir: path.refine((p) => p.startsWith("/"), { error: "must be an absolute path" }),
  timeoutMs: positiveFinite(),
  stdoutMaxBytes: outputBudget(),
}, { error: (issue) => issue.code === "unrecognized_keys" ? undefined : "must be an object" });

const timerMs = () => positiveFinite().refine((n) => n <= MAX_TIMER_MS, { error: `must be at most ${MAX_TIMER_MS}` });

const ADAPTER_METHODS = ["spawn", "signalGroup", "onHostExit", "spawnWatchdog"] as const;
const adapter = z.custom<ProcessAdapter>(
  (value) =>
    typeof value === "object" && value !== null &&
    ADAPTER_METHODS.every((method) => typeof (value as Record<string, unknown>)[method] === "function"),
  { error: `must be a ProcessAdapter (with ${ADAPTER_METHODS.join(", ")})` },
);

/** The zod schema of {@linkcode LocalShellOptions} (internal; the public alias is in `../schemas.ts`). */
export const optionsSchema: z.ZodType<LocalShellOptions> = z.strictObject({
  workdir: path.optional(),
  timeoutMs: timerMs().optional(),
  maxTimeoutMs: timerMs().optional(),
  maxOutputBytes: outputBudget().optional(),
  // 0 keeps no spill file at all: long output keeps its head and tail only.
  maxSpillBytes: z.number({ error: "must be a whole number of bytes, 0 for no spill file" })
    .refine((n) => Number.isSafeInteger(n) && n >= 0, { error: "must be a whole number of bytes, 0 for no spill file" })
    .optional(),
  spillDir: path.optional(),
  graceMs: timerMs().optional(),
  shell: path.optional(),
  ambientEnv: envRecord<EnvPatch>(true).optional(),
  maxTasksPerOwner: positiveInteger().optional(),
  maxFinishedTasks: positiveInteger().optional(),
  maxSessionStateBytes: positiveInteger().optional(),
  adapter: adapter.optional(),
  sandbox: z.union([z.literal(false), sandboxPolicySchema], {
    error: (issue) => issue.code === "invalid_union" ? "must be false or a sandbox policy object" : undefined,
  }).optional(),
}, { error: (issue) => issue.code === "unrecognized_keys" ? undefined : "options must be an object" });
