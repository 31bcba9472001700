/**
 * `@dsh/shell`: run shell commands for a model or for hooks, each in its own
 * process group, with a credential-scrubbed environment, a managed `DSH_*`
 * namespace, deadlines that kill the whole tree, and bounded output with a
 * spill file holding the full stream.
 *
 * @example
 * ```ts
 * import { createLocalShell } from "@dsh/shell";
 * import assert from "node:assert/strict";
 * await using shell = createLocalShell();
 * const result = await shell.run(shell.resolve({ command: "echo hello", owner: null }));
 * assert.equal(result.stdout.text, "hello\n");
 * ```
 *
 * @module
 */

export { createLocalShell } from "./src/local_shell.ts";
export { createShell } from "./src/seam/shell.ts";
export { DEFAULTS } from "./src/seam/defaults.ts";
export {
  isShellError,
  ShellClosedError,
  ShellEngineError,
  ShellError,
  type ShellErrorCode,
  ShellFileError,
  ShellSandboxError,
  ShellSpawnError,
  ShellSpecError,
  TaskAccessError,
  TaskLimitError,
} from "./src/seam/errors.ts";
export type {
  CollectedOutput,
  DshEnv,
  EnvPatch,
  LocalShellOptions,
  SandboxPolicy,
  Shell,
  ShellEvent,
  ShellEvents,
  ShellExecOptions,
  ShellExecRequest,
  ShellExecSpec,
  ShellFiles,
  ShellObserver,
  ShellRunResult,
  ShellSession,
  ShellSessionExecOptions,
  ShellSessionOptions,
  ShellTask,
  TaskOutput,
  TaskOutputWait,
  TaskStatus,
  WaitForOutputOptions,
} from "./src/seam/types.ts";
// One home entry per name: the adapter contract is in `./seam`, the engines and their contract in `./engines`, the
// environment rules in `./env`, the schemas in `./schemas`.
