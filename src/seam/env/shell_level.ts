/**
 * Keeps the shell from reading the user's startup files behind our back.
 *
 * `bash -c` normally reads no startup file. But bash has a heuristic for
 * commands started by rshd/sshd: when its stdin is a socket, or `SSH_CLIENT`
 * is set, and it thinks it is a top-level shell (its level, one more than
 * `SHLVL`, below 2), it sources `/etc/bash.bashrc` and `~/.bashrc`. Node
 * gives a child's stdin as a socketpair (libuv), so every command with
 * `stdin` on Node — every hook — would run the user's `~/.bashrc` first:
 * slower, different output, sometimes a hang, and different from Deno,
 * whose stdin is a real pipe. Marking the child as nested (`SHLVL` between
 * 1 and 998: bash resets a level of 1000 or more to 1) turns the heuristic
 * off on both runtimes without changing the `<shell> -c <command>` argv the
 * spec fixes.
 *
 * A non-interactive bash also sources the file `BASH_ENV` names, and an
 * interactive one (a terminal session) the one `ENV` names: neither
 * reaches the shell, so no variable a hook's env file or a caller set can
 * make every later command run a script first.
 *
 * @module
 */

/** The highest `SHLVL` kept: bash resets a level of 1000 or more (SHLVL + 1) to 1, a top-level shell again. */
const MAX_KEPT_LEVEL = 998;

/** Variables that name a file the shell would source before the command. */
const STARTUP_FILE_VARIABLES = ["BASH_ENV", "ENV"] as const;

/**
 * `env` with no startup-file variable (`BASH_ENV`, `ENV`) and with `SHLVL`
 * set to `"1"` when it is absent or not an integer from 1 to 998; such a
 * `SHLVL` (the usual case for a harness started from a shell) is kept.
 * Returns `env` itself, changed in place.
 */
export function markNestedShell(env: Record<string, string>): Record<string, string> {
  for (const name of STARTUP_FILE_VARIABLES) delete env[name];
  const level = env.SHLVL;
  const kept = level !== undefined && /^[0-9]{1,3}$/.test(level) && Number(level) >= 1 &&
    Number(level) <= MAX_KEPT_LEVEL;
  if (!kept) env.SHLVL = "1";
  return env;
}
