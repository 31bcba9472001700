/**
 * A command's environment, the same way for every transport: the ambient
 * environment (this machine's, or the one an engine's supervisor greeted
 * with), scrubbed and merged with the spec's own `env` and `dshEnv`
 * (`merge.ts`), then marked as a nested shell (`shell_level.ts`).
 *
 * @module
 */

import { ownValue } from "../own_fields.ts";
import type { ShellExecSpec } from "../types.ts";
import { type EnvInput, mergeEnvWith, type ScrubMemo } from "./merge.ts";
import { markNestedShell } from "./shell_level.ts";

/**
 * The environment `spec`'s command is given, from `ambient`, with the
 * scrub's decisions kept in `memo` (under `source` when the ambient object
 * is new at each read).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { commandEnv } from "./command_env.ts";
 * import { newScrubMemo } from "./merge.ts";
 * const spec = { command: "true", owner: null, workdir: "/", timeoutMs: 1, stdoutMaxBytes: 1, env: { A: "1" } };
 * const env = commandEnv(spec, { PATH: "/bin", AWS_SECRET_ACCESS_KEY: "x" }, newScrubMemo());
 * assert.equal(env.A, "1");
 * assert.equal(env.PATH, "/bin");
 * assert.equal(env.AWS_SECRET_ACCESS_KEY, undefined);
 * assert.equal(env.SHLVL, "1");
 * ```
 */
export function commandEnv(
  spec: ShellExecSpec,
  ambient: EnvInput["ambient"],
  memo: ScrubMemo,
  source?: object,
): Record<string, string> {
  // Own properties only: an `env` on a polluted Object.prototype must not reach the child.
  const input = { ambient, env: ownValue(spec, "env"), dshEnv: ownValue(spec, "dshEnv") };
  return markNestedShell(mergeEnvWith(input, memo, source));
}
