/**
 * Keeps bash from reading the user's startup files behind our back.
 *
 * `bash -c` normally reads no startup file. But bash has a heuristic for
 * commands started by rshd/sshd: when its stdin is a socket, or `SSH_CLIENT`
 * is set, and it thinks it is a top-level shell (`SHLVL` absent or 0), it
 * sources `/etc/bash.bashrc` and `~/.bashrc`. Node gives a child's stdin
 * as a socketpair (libuv), so every command with `stdin` on Node — every
 * hook — would run the user's `~/.bashrc` first: slower, different output,
 * sometimes a hang, and different from Deno, whose stdin is a real pipe.
 * Marking the child as nested (`SHLVL` of at least 1) turns the heuristic
 * off on both runtimes without changing the argv the spec fixes.
 *
 * @module
 */

/**
 * `env` with `SHLVL` set to `"1"` when it is absent or not a positive
 * integer; a positive `SHLVL` (the usual case for a harness started from a
 * shell) is kept. Returns `env` itself, changed in place.
 */
export function markNestedShell(env: Record<string, string>): Record<string, string> {
  const level = env.SHLVL;
  if (level === undefined || !/^[0-9]+$/.test(level) || Number(level) < 1) env.SHLVL = "1";
  return env;
}
