/**
 * The runtime-neutral seam of `@dsh/shell`: the environment rules as pure
 * functions (`mergeEnv`, `scrubEnv`, `explainEnv`, the credential tests),
 * the zod schemas of the shapes the root entry names, and the
 * process-adapter contract, for writing an adapter of your own (pass it to
 * `createShell`, from the root entry). Nothing here spawns a process by
 * itself.
 *
 * @example
 * ```ts
 * import { createShell } from "@dsh/shell";
 * import type { ProcessAdapter } from "@dsh/shell/seam";
 * import { nodeAdapter } from "@dsh/shell/node";
 * import assert from "node:assert/strict";
 * // An adapter that counts spawns and otherwise is Node's.
 * let spawns = 0;
 * const counting: ProcessAdapter = { ...nodeAdapter, spawn: (request) => (spawns++, nodeAdapter.spawn(request)) };
 * await using shell = createShell(counting);
 * await shell.exec("true");
 * assert.equal(spawns, 1);
 * ```
 *
 * @module
 */

export type {
  ChannelHandle,
  ChannelRequest,
  ChildExit,
  ChildHandle,
  ChildInput,
  GroupSignal,
  ProbeOutcome,
  ProbeRequest,
  ProcessAdapter,
  SpawnRequest,
  TerminalSize,
  WatchdogHandle,
} from "./adapter.ts";
export {
  DSH_ENV_PREFIX,
  ENV_OVERRIDES,
  type EnvDropReason,
  type EnvExplanation,
  type EnvInput,
  type EnvSource,
  explainEnv,
  isCredentialName,
  isCredentialValue,
  mergeEnv,
  scrubEnv,
} from "./env/mod.ts";
export {
  CollectedOutputSchema,
  LocalShellOptionsSchema,
  ShellExecRequestSchema,
  ShellExecSpecSchema,
  ShellRunResultSchema,
  type ShellSchema,
} from "./schemas.ts";
export type { ShellFileErrorCode } from "./errors.ts";
export type { ShellCommandEvent, ShellFileEvent } from "./events/types.ts";
export type {
  ShellFileEdit,
  ShellFilePatchChange,
  ShellFileRead,
  ShellFileReadOptions,
  ShellFileWritten,
} from "./files/types.ts";
