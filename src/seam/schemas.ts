/**
 * The zod schemas of `@dsh/shell`'s shapes, for a harness that validates
 * what crosses a process or a network boundary: a request a model made, a
 * spec, a result, the shell's options. Each parses into the same type the
 * root entry names, and its errors name the field at fault.
 *
 * @example
 * ```ts
 * import { ShellExecRequestSchema } from "@dsh/shell/seam";
 * import assert from "node:assert/strict";
 * assert.equal(ShellExecRequestSchema.safeParse({ command: "ls", owner: null }).success, true);
 * assert.equal(ShellExecRequestSchema.safeParse({ command: "ls", owner: null, timeoutMs: -1 }).success, false);
 * ```
 *
 * @module
 */

import { collectedOutputSchema } from "./capture/schema.ts";
import { optionsSchema, requestSchema, specSchema } from "./resolve/schemas.ts";
import { runResultSchema } from "./settle/schema.ts";
import type { CollectedOutput, LocalShellOptions, ShellExecRequest, ShellExecSpec, ShellRunResult } from "./types.ts";

// Each schema is built beside its feature (the request's, the spec's and the options' in resolve/, the output's in
// capture/, the result's in settle/, the sandbox policy's in sandbox/); this entry names the public ones.

/**
 * A validator for `T`: the part of a zod schema that callers need. The
 * exported schemas are zod 4 schemas; they are typed by this narrow
 * interface so the public API does not expose zod's internals.
 *
 * @example
 * ```ts
 * import { ShellExecRequestSchema } from "@dsh/shell/seam";
 * import assert from "node:assert/strict";
 * assert.equal(ShellExecRequestSchema.safeParse({ command: "ls", owner: null }).success, true);
 * assert.equal(ShellExecRequestSchema.safeParse({ command: "ls" }).success, false); // owner is required
 * ```
 */
export interface ShellSchema<T> {
  /** Returns the validated value or throws the validation error. */
  parse(input: unknown): T;
  /** Returns the validated value or the validation error, without throwing. */
  safeParse(input: unknown): { success: true; data: T } | { success: false; error: Error };
}

/**
 * Schema of {@linkcode ShellExecRequest}: validate a request that arrived as JSON before handing it over.
 *
 * @example
 * ```ts
 * import { ShellExecRequestSchema } from "@dsh/shell/seam";
 * import assert from "node:assert/strict";
 * const request = ShellExecRequestSchema.parse(JSON.parse('{"command":"ls","owner":"s1"}'));
 * assert.deepEqual(request, { command: "ls", owner: "s1" });
 * // Unknown keys are refused, so a misspelt field never goes unnoticed:
 * assert.equal(ShellExecRequestSchema.safeParse({ command: "ls", owner: "s1", cwd: "/" }).success, false);
 * ```
 */
export const ShellExecRequestSchema: ShellSchema<ShellExecRequest> = requestSchema;

/**
 * Schema of {@linkcode ShellExecSpec}: what `run()` checks a hand-built spec with.
 *
 * @example
 * ```ts
 * import { ShellExecSpecSchema } from "@dsh/shell/seam";
 * import assert from "node:assert/strict";
 * const spec = { command: "true", workdir: "relative/dir", timeoutMs: 1000, stdoutMaxBytes: 1000, owner: null };
 * assert.equal(ShellExecSpecSchema.safeParse(spec).success, false); // workdir must be absolute
 * ```
 */
export const ShellExecSpecSchema: ShellSchema<ShellExecSpec> = specSchema;

/**
 * Schema of {@linkcode CollectedOutput}.
 *
 * @example
 * ```ts
 * import { CollectedOutputSchema } from "@dsh/shell/seam";
 * import assert from "node:assert/strict";
 * const output = CollectedOutputSchema.parse({ text: "hi\n", truncated: false, totalBytes: 3 });
 * assert.equal(output.totalBytes, 3);
 * ```
 */
export const CollectedOutputSchema: ShellSchema<CollectedOutput> = collectedOutputSchema;

/**
 * Schema of {@linkcode ShellRunResult}: check a result that crossed a process or network boundary.
 *
 * @example
 * ```ts
 * import { createLocalShell } from "@dsh/shell";
 * import { ShellRunResultSchema } from "@dsh/shell/seam";
 * import assert from "node:assert/strict";
 * await using shell = createLocalShell();
 * const result = await shell.run(shell.resolve({ command: "echo hi", owner: null }));
 * const copy = ShellRunResultSchema.parse(JSON.parse(JSON.stringify(result)));
 * assert.equal(copy.stdout.text, "hi\n");
 * ```
 */
export const ShellRunResultSchema: ShellSchema<ShellRunResult> = runResultSchema;

/**
 * Schema of {@linkcode LocalShellOptions}: check options read from a configuration file.
 *
 * @example
 * ```ts
 * import { LocalShellOptionsSchema } from "@dsh/shell/seam";
 * import assert from "node:assert/strict";
 * assert.equal(LocalShellOptionsSchema.safeParse({ graceMs: 0 }).success, false); // must be positive
 * assert.equal(LocalShellOptionsSchema.safeParse({ graceMs: 500 }).success, true);
 * ```
 */
export const LocalShellOptionsSchema: ShellSchema<LocalShellOptions> = optionsSchema;
