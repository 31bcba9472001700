/**
 * The zod schemas of `@dsh/shell`'s shapes, for a harness that validates
 * what crosses a process or a network boundary: a request a model made, a
 * spec, a result, the shell's options. Each parses into the same type the
 * root entry names, and its errors name the field at fault.
 *
 * @example
 * ```ts
 * import { ShellExecRequestSchema } from "@dsh/shell/schemas";
 * import assert from "node:assert/strict";
 * assert.equal(ShellExecRequestSchema.safeParse({ command: "ls", owner: null }).success, true);
 * assert.equal(ShellExecRequestSchema.safeParse({ command: "ls", owner: null, timeoutMs: -1 }).success, false);
 * ```
 *
 * @module
 */

export {
  CollectedOutputSchema,
  LocalShellOptionsSchema,
  ShellExecRequestSchema,
  ShellExecSpecSchema,
  ShellRunResultSchema,
  type ShellSchema,
} from "./resolve/schemas.ts";
