/**
 * The runtime-neutral seam of `@dsh/shell`: request, spec and result types
 * with their zod schemas, the environment rules, the process-adapter
 * contract (for writing an adapter of your own), `createShell` over any
 * adapter, and the errors. Nothing here spawns a process by itself.
 *
 * @example
 * ```ts
 * import { mergeEnv } from "@dsh/shell/seam";
 * import assert from "node:assert/strict";
 * const env = mergeEnv({
 *   ambient: { PATH: "/usr/bin", GITHUB_TOKEN: "ghp_x" },
 *   dshEnv: { DSH_SESSION: "s1" },
 * });
 * assert.equal(env.GITHUB_TOKEN, undefined);
 * assert.equal(env.DSH_SESSION, "s1");
 * ```
 *
 * @module
 */

export * from "./errors.ts";
export type * from "./types.ts";
export type * from "./adapter.ts";
export type * from "./engine.ts";
export * from "./env/mod.ts";
export {
  CollectedOutputSchema,
  LocalShellOptionsSchema,
  ShellExecRequestSchema,
  ShellExecSpecSchema,
  ShellRunResultSchema,
  type ShellSchema,
} from "./resolve/schemas.ts";
export { DEFAULTS } from "./resolve/options.ts";
export { createShell } from "./shell.ts";
