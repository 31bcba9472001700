/**
 * A shell that lives exactly as long as a test body: created in a fresh
 * directory, closed and its directory removed afterwards whatever happens.
 */

import { createLocalShell, type LocalShellOptions, type Shell } from "../../mod.ts";
import { withFreshDir } from "./dirs.ts";

/** The grace period of a shell made by {@linkcode withShell} unless its options give another: short, for quick tests. */
const GRACE_MS = 300;

/**
 * Runs `body` with a new local shell (`graceMs` 300, its workdir a fresh
 * directory, then `options`) and that directory; closes the shell and
 * removes the directory afterwards, whatever happens.
 */
export async function withShell(
  options: LocalShellOptions,
  body: (shell: Shell, dir: string) => Promise<void>,
): Promise<void> {
  await withFreshDir("dsh-shell-", async (dir) => {
    const shell = createLocalShell({ graceMs: GRACE_MS, workdir: dir, ...options });
    try {
      await body(shell, dir);
    } finally {
      await shell.close();
    }
  });
}
