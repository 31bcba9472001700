/**
 * The environment rules of `@dsh/shell`, as pure functions: how a command's
 * environment is built from the ambient one (credentials and `DSH_*`
 * scrubbed, the fixed overrides, the caller's `env`, then the managed
 * `dshEnv`), why each entry is kept or dropped, and the credential tests.
 * See `docs/environment.md`.
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

export { isCredentialName, isCredentialValue } from "./credential.ts";
export {
  DSH_ENV_PREFIX,
  ENV_OVERRIDES,
  type EnvDropReason,
  type EnvExplanation,
  type EnvInput,
  type EnvSource,
  explainEnv,
  mergeEnv,
  scrubEnv,
} from "./merge.ts";
