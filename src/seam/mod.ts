/**
 * The runtime-neutral seam of `@dsh/shell`: request, spec and result types
 * with their zod schemas, the environment rules, output capture, the
 * process-adapter contract and the errors. Nothing here spawns a process.
 *
 * @example
 * ```ts
 * import { mergeEnv } from "@dsh/shell/seam";
 * const env = mergeEnv({
 *   ambient: { PATH: "/usr/bin", GITHUB_TOKEN: "ghp_x" },
 *   dshEnv: { DSH_SESSION: "s1" },
 * });
 * console.log(env.GITHUB_TOKEN); // undefined
 * ```
 *
 * @module
 */

export * from "./errors.ts";
export type * from "./types.ts";
export type * from "./adapter.ts";
export * from "./env/mod.ts";
export {
  CollectedOutputSchema,
  LocalShellOptionsSchema,
  MAX_TIMER_MS,
  ShellExecRequestSchema,
  ShellExecSpecSchema,
  ShellRunResultSchema,
  type ShellSchema,
} from "./resolve/schemas.ts";
export { DEFAULTS } from "./resolve/options.ts";
export { OutputCollector } from "./capture/collector.ts";
export type { CollectorOptions, StreamDelta } from "./capture/collector.ts";
export { createShell } from "./shell.ts";
