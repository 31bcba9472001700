/**
 * Turns a spawn request into the same request run inside bubblewrap, and
 * reads back how it went. `Deno.Command` cannot hand a child any fd beyond
 * 0–2, so a tiny wrapper opens bubblewrap's status file as fd 3 and the
 * seccomp program as fd 4 and `exec`s bubblewrap: the pid the runtime
 * reports stays the session leader's, and no extra process remains. The
 * wrapper is `dash` (a shorter start than bash's) unless the command
 * carries a session's state, whose copier needs bash; every other fd the
 * harness let the child inherit is closed inside, by the mount check's
 * step, before the command runs (`mount_check.ts`). The status file is
 * what tells a command's own exit 1 from a sandbox that never started
 * (bubblewrap exits 1 for both).
 *
 * @module
 */

import { readFileSync, rmSync } from "node:fs";
import type { SpawnRequest } from "../adapter.ts";
import { type ConfinedStateFile, STATE_END, STATE_FD } from "../wrapper.ts";
import { bwrapArgs, type SandboxPlacement } from "./bwrap_args.ts";
import { foregroundArgs } from "./foreground.ts";
import { mountCheckArgs, SANDBOX_ENV_PREFIX } from "./mount_check.ts";
import type { ResolvedSandbox } from "./policy.ts";

/** The fd bubblewrap writes its JSON status lines to. */
export const STATUS_FD = 3;
/** The fd bubblewrap reads the seccomp program from (`--seccomp`). */
export const SECCOMP_FD = 4;

/** What the wrapper runs besides bubblewrap: found once per shell. */
export interface SandboxWrapper {
  /** An absolute path to `bash`: the mount check's step, and the wrapper of a command with a session's state. */
  readonly bash: string;
  /**
   * An absolute path to `dash`, when there is one outside the writable
   * directories: the wrapper of a command without a session's state.
   */
  readonly dash?: string;
  /** The seccomp program's file (`seccomp.ts`), opened by the wrapper for bubblewrap. */
  readonly seccompPath: string;
  /**
   * The argv that starts bubblewrap in the namespaces of the holder of the
   * owners' bounded `/tmp` (`tmp_holder.ts`), and the host user's ids, which
   * bubblewrap then gives the command (the holder's root is that user).
   */
  readonly enter?: { readonly argv: readonly string[]; readonly uid: number; readonly gid: number };
}

/**
 * What copies a session's state from the sandbox's `STATE_FD` (a pipe)
 * into its file on the host, `$3`: at most `$4` bytes (the bound and one
 * more, which makes a state that passed the bound show as one), record by
 * record (the dump's entries end with NUL), stopping at the dump's end
 * mark. A forked bash, no program started: `read -d ''` takes the bytes of
 * a pipe one at a time, so it never reads past the end mark. It holds the
 * command's stdout and stderr until it is done, so that the host, which
 * waits for their end, never reads the file before it is whole; then it
 * lets them go, and a background process that keeps the pipe open holds
 * nothing. Past the bound it reads on into nothing (`cat`): the trap that
 * writes the dump is not ended by a `SIGPIPE`, which would change the
 * command's status. So the command can leave at most `$4` bytes on the
 * host's disk, whatever it writes to its fd 9 (`tmpMaxBytes` bounds its
 * `/tmp`, and this the state).
 */
const STATE_COPY = [
  "left=$4 end=",
  'exec 5>"$3" || exit 0',
  'while [ "$left" -gt 0 ] && IFS= read -r -d \'\' -n "$left" rec; do',
  '  if [ "${#rec}" -ge "$left" ]; then printf %s "$rec" >&5; left=0; break; fi',
  "  printf '%s\\0' \"$rec\" >&5; left=$((left - ${#rec} - 1))",
  `  if [ "$rec" = ${STATE_END} ]; then end=1; break; fi`,
  "done",
  'exec 5>&- >/dev/null 2>&1; [ -n "$end" ] || exec cat',
].join("\n");

/**
 * `$1` is the status file, `$2` the seccomp program, `$3` a session's
 * state file (`carry/`) or empty, and `$4` the most bytes of it the host
 * takes, plus one: the state is copied there from a pipe on `STATE_FD`
 * (`STATE_COPY`), never written by the command itself; the rest is
 * bubblewrap's command line. Every other fd goes: one the harness process
 * inherited without close-on-exec (a directory, say) would reach the
 * command, and `/proc/self/fd/N/..` walks the host's tree from it. The fds
 * are listed again afterwards, and any left is a refusal (exit 125, no
 * status: a `ShellSandboxError`), as is a `/proc` that cannot list them.
 * bash runs with `--norc -p`: no `~/.bashrc` (its stdin is a socket on
 * Node and its environment empty, which bash takes for a command run by
 * sshd), no `BASH_ENV` file and no functions from the environment run
 * outside the sandbox.
 */
const WRAPPER = [
  `exec ${STATUS_FD}>"$1" ${SECCOMP_FD}<"$2" || exit 125`,
  `if [ -n "$3" ]; then exec ${STATE_FD}> >(${STATE_COPY}) || exit 125; fi`,
  "shift 4",
  "for pass in close check; do",
  "  for fd in /proc/self/fd/*; do",
  "    fd=${fd##*/}",
  "    case $fd in",
  `      0|1|2|${STATUS_FD}|${SECCOMP_FD}|${STATE_FD}) ;;`,
  "      ''|*[!0-9]*) echo 'dsh-sandbox: cannot list the open fds in /proc/self/fd' >&2; exit 125 ;;",
  "      *) if [ $pass = close ]; then exec {fd}<&-",
  // The listing's own fd is closed by now; anything else still open was not closed.
  '         elif [ -L /proc/self/fd/$fd ]; then echo "dsh-sandbox: fd $fd stayed open" >&2; exit 125; fi ;;',
  "    esac",
  "  done",
  "done",
  // bash's own bookkeeping would reach bubblewrap's environment: only ours goes on (bash's `exec` still puts a
  // SHLVL of 0 there, which the mount check's bash, inside, takes as its own and hands on to no one).
  "unset PWD OLDPWD SHLVL",
  'exec "$@"',
].join("\n");

/**
 * The wrapper of a command without a session's state, for `dash`: the same
 * arguments as {@linkcode WRAPPER}'s (`$3` empty). It only opens the two
 * fds: `dash` cannot name an fd above 9, so the mount check's step inside
 * closes whatever else the harness let the child inherit, before the
 * command runs (and refuses it when one stays open). dash exports a PWD of
 * its own: only ours goes on, with the SHLVL of 0 that bash's wrapper
 * hands on, so that bubblewrap's environment is the same from either.
 */
const WRAPPER_DASH = [
  `exec ${STATUS_FD}>"$1" ${SECCOMP_FD}<"$2" || exit 125`,
  "shift 4",
  "unset PWD OLDPWD; export SHLVL=0",
  'exec "$@"',
].join("\n");

/**
 * `request`, run inside the sandbox; bubblewrap writes its status lines to
 * `statusPath`. The wrapper and bubblewrap run on the host, so neither gets
 * the command's environment or workdir: a model's command could otherwise
 * aim `LD_LIBRARY_PATH`'s empty entry, or `LD_PRELOAD`, at a library it
 * wrote into the workdir, and the host would load it. So the wrapper and
 * bubblewrap get the command's environment only as `DSH_SANDBOX_ENV_<n>`
 * variables holding `NAME=value` (names no loader reads), never as
 * arguments (`--setenv` put every value in bubblewrap's argv, which every
 * user reads with `ps`); the mount check, inside the sandbox, exports them
 * and unsets its own. The command starts in its workdir (`--chdir`).
 */
export function sandboxedRequest(
  request: SpawnRequest,
  sandbox: ResolvedSandbox,
  placement: Omit<SandboxPlacement, "statusFd" | "seccompFd">,
  files: { readonly statusPath: string; readonly stateFile?: ConfinedStateFile },
  wrapper: SandboxWrapper,
): SpawnRequest {
  const { args: inner, expected } = bwrapArgs(sandbox, { ...placement, statusFd: STATUS_FD, seccompFd: SECCOMP_FD });
  const enter = wrapper.enter;
  if (enter !== undefined) inner.unshift("--uid", String(enter.uid), "--gid", String(enter.gid));
  // Never `--setenv`: bubblewrap's argv is every user's to read (`ps`). The environment travels as bubblewrap's
  // own, under names no loader or shell acts on, and only the mount check inside makes it the command's.
  const env: Record<string, string> = {};
  Object.entries(request.env).forEach(([name, value], at) => env[`${SANDBOX_ENV_PREFIX}${at}`] = `${name}=${value}`);
  const withDash = files.stateFile === undefined && wrapper.dash !== undefined;
  return {
    ...request,
    program: withDash ? wrapper.dash! : wrapper.bash,
    cwd: "/",
    env,
    args: [
      ...(withDash ? ["-c", WRAPPER_DASH] : ["--norc", "-p", "-c", WRAPPER]),
      "dsh-sandbox",
      files.statusPath,
      wrapper.seccompPath,
      files.stateFile?.path ?? "",
      String((files.stateFile?.maxBytes ?? 0) + 1),
      ...(enter?.argv ?? []),
      sandbox.bwrapPath,
      ...inner,
      "--",
      // Closes what the harness let the child inherit (the dash wrapper cannot), and waits for the init to have.
      ...mountCheckArgs(wrapper.bash, expected, undefined, { keep: files.stateFile === undefined ? [] : [STATE_FD] }),
      // On a terminal, Ctrl-C must reach the command, not bubblewrap (foreground.ts).
      ...(request.terminal === undefined ? [] : foregroundArgs(wrapper.bash)),
      request.program,
      ...request.args,
    ],
  };
}

/** What bubblewrap's status file said. */
export interface SandboxStatus {
  /** The command's exit code, when the command ran: its absence means the sandbox never started it. */
  exitCode?: number;
  /** The host pid of the sandbox's init (pid 1 inside), once bubblewrap had cloned it. */
  initPid?: number;
}

/** Reads and removes the status file. A missing or broken file says nothing. */
export function takeStatus(statusPath: string): SandboxStatus {
  const status = readStatus(statusPath);
  rmSync(statusPath, { force: true });
  return status;
}

/** Reads the status file as it is now, while bubblewrap may still write to it. */
export function readStatus(statusPath: string): SandboxStatus {
  let text = "";
  try {
    text = readFileSync(statusPath, "utf8");
  } catch {
    return {};
  }
  const status: SandboxStatus = {};
  for (const line of text.split("\n")) {
    // The file ends with a newline: a parse of the empty line would throw, at every command.
    if (line === "") continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      continue;
    }
    if (typeof parsed !== "object" || parsed === null) continue;
    const record = parsed as Record<string, unknown>;
    if (typeof record["exit-code"] === "number") status.exitCode = record["exit-code"];
    if (typeof record["child-pid"] === "number") status.initPid = record["child-pid"];
  }
  return status;
}

/** bubblewrap's own reason for a failed set-up: its last `bwrap: …` line on stderr, or what stderr holds. */
export function setupFailureReason(stderr: string): string {
  const lines = stderr.split("\n").map((line) => line.trim()).filter((line) => line !== "");
  return lines.filter((line) => line.startsWith("bwrap: ")).at(-1) ?? lines.at(-1) ?? "no message";
}
