/**
 * Whether the sandbox tests can run here. Where bubblewrap is missing they
 * skip with a loud reason, except in CI (`DSH_REQUIRE_SANDBOX=1`), where a
 * missing bubblewrap must fail them instead.
 */

import process from "node:process";
import { existsSync } from "node:fs";

/** CI sets this: the sandbox tests must run, never skip. */
export const SANDBOX_REQUIRED: boolean = process.env.DSH_REQUIRE_SANDBOX === "1";

/** Why the sandbox cannot run here, or false when it can. */
export function sandboxUnavailable(): string | false {
  if (process.platform !== "linux") return "the sandbox is Linux only";
  const bwrap = ["/usr/bin/bwrap", "/bin/bwrap", "/usr/local/bin/bwrap"].find((path) => existsSync(path));
  if (bwrap === undefined) return "bubblewrap is not installed (apt-get install bubblewrap)";
  return false;
}

/** The `skip` option of a sandbox test: the reason, said loudly, when it cannot run and is not required. */
export function sandboxSkip(): string | false {
  const missing = sandboxUnavailable();
  if (!missing || SANDBOX_REQUIRED) return false;
  console.error(`\n*** SANDBOX TESTS SKIPPED: ${missing} ***\n`);
  return missing;
}
