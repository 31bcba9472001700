/**
 * Issue 41's study of a warm session below a spawn: a session shell that
 * stays alive and runs each command in a forked child of a process group of
 * its own, the child handing its directory and exports back. An
 * experiment, not part of the library: docs/sessions.md, "A warm session
 * shell", has what it showed and the conclusion.
 *
 * Two parts, both in one run:
 *
 * - **The attacks** (`--attacks`): each starts a warm session shell of this
 *   prototype as an ordinary user (`nobody`, through `setpriv`; same-uid
 *   rules, the kernel has no Yama), runs the attacker's command in it as
 *   the design would, then the next command, and prints what happened.
 * - **The bench** (`--bench`): call by call interleaved, medians of
 *   `true`: a raw spawn of `bash -c true`, the library's `session.exec()`,
 *   the warm round trip (host → session shell → forked child in its own
 *   group → state back → answer), and the same in a sandbox: a minimal
 *   bwrap spawned raw, the library's sandboxed `session.exec()`, and the
 *   warm round trip inside one bwrap with the library's namespaces and
 *   seccomp filter.
 *
 * Usage: `npx -y deno@2.9.6 run -A scripts/bench/warm_session.ts [--attacks] [--bench] [--rounds=N]`
 * (both parts when neither is named). Needs Linux, bash, bubblewrap,
 * `setpriv` and `/usr/bin/python3`; run as root (the attacks drop to
 * `nobody`).
 *
 * @module
 */

import {
  chmodSync,
  chownSync,
  closeSync,
  constants,
  copyFileSync,
  fchownSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { createLocalShell } from "../../mod.ts";
import { STATE_END, statePrelude } from "../../src/seam/carry/script.ts";
import { makeStateFile, type StateChange, takeState } from "../../src/seam/carry/state.ts";
import { hostSeccompArch, seccompProgram } from "../../src/seam/sandbox/seccomp.ts";
import { bwrapArgs } from "../../src/seam/sandbox/bwrap_args.ts";
import { resolveSandbox } from "../../src/seam/sandbox/policy.ts";
import { mergeEnv } from "../../src/seam/env/merge.ts";

const flags = new Set(Deno.args.filter((arg) => !arg.startsWith("--rounds=")));
const roundsArg = Deno.args.find((arg) => arg.startsWith("--rounds="));
const ROUNDS = roundsArg === undefined ? 120 : Number(roundsArg.slice("--rounds=".length));
const BOTH = !flags.has("--attacks") && !flags.has("--bench");

/** The uid and gid of `nobody`: the attacks run as an ordinary user. */
const NOBODY = 65534;
const PYTHON = "/usr/bin/python3";

/** The most of a state the host reads (the library's default `maxSessionStateBytes`). */
const STATE_MAX = 1024 * 1024;

/** Prints `alive` when the process whose pid is named in `file` runs (a zombie not yet reaped is gone). */
function aliveCheck(file: string): string {
  return `s=$(cut -d' ' -f3 /proc/$(cat ${file})/stat 2>/dev/null); [ -n "$s" ] && [ "$s" != Z ] && echo alive || echo gone`;
}

/**
 * The session shell. `$1` says what it does after each command: `kill-every-survivor` SIGKILLs what the command
 * left (`kill -9 -1` inside the sandbox: every other process of the pid namespace but the init; on the host the
 * child's group); `keep-survivors-xxxx` (the same length, for the memory attack) does nothing. `$2` is `fork` (the
 * command is eval'd in the forked child), `exec` (the child execs a new `bash -c`) or `setsid` (it execs
 * `setsid bash -c`); `$3` the state prelude (`carry/script.ts`, fd 9); `$4` `sandbox` or `host`; `$5` `moved` when
 * the launcher already put the channel on fds 5 and 6. Requests come on fd 5 as `ID PATH` lines; PATH holds
 * NUL-separated fields: workdir, state file, stdout path, stderr path, command, then the environment (`NAME=value`
 * each). The answer is `done ID STATUS CLEANUP` on fd 6. `times` and `mkfifo DIR FIRST LAST` are the bench's.
 */
const SESSION_SHELL = `
cleanup=$1 mode=$2 prelude=$3 where=$4
# The channel is fds 5 (requests) and 6 (answers). $5 says whether the launcher moved it there before bubblewrap,
# so that bubblewrap's init (pid 1, dumpable, same user) holds /dev/null on 0 and 1, not the channel.
[[ $5 == moved ]] || exec 5<&0 6>&1 0</dev/null 1>/dev/null
# A process group of its own for each child; with setsid the child must not lead one (setsid would fork).
[[ $mode == setsid ]] || set -m
while IFS=' ' read -r -u 5 id req; do
  # The bench asks for the CPU the shell and its children used (bash's own \`times\`, no process started).
  if [[ $id == times ]]; then times >&6; continue; fi
  # FIFOs for the commands' streams, made ahead in batches (mkfifo is no builtin): "mkfifo DIR FIRST LAST".
  if [[ $id == mkfifo ]]; then
    f=($req) names=()
    for ((i = f[1]; i <= f[2]; i++)); do names+=("\${f[0]}/p$i.o" "\${f[0]}/p$i.e"); done
    mkfifo -m 600 -- "\${names[@]}"; printf 'done mkfifo %s -\\n' "$?" >&6; continue
  fi
  r=(); mapfile -d '' -t r < "$req" || break
  (
    set +m
    exec 5<&- 6>&- 0</dev/null 1>"\${r[2]}" 2>"\${r[3]}" 9>"\${r[1]}" || exit 125
    # Every other fd goes, as the sandbox's launcher closes them: whatever the session shell holds is not the
    # command's (the relay's pipe in the attacks, fd 63, was the channel itself).
    for __fd in /proc/self/fd/*; do
      __fd=\${__fd##*/}
      case $__fd in 0|1|2|9) ;; *) exec {__fd}<&- ;; esac 2>/dev/null
    done
    cd -- "\${r[0]}" || exit 125
    # The session shell starts with an empty environment: bash exports only these of its own. (Unsetting every
    # exported variable instead, by prefix as the state dump lists them, cost 1.5-2 ms a command in the fork.)
    unset -v OLDPWD PWD SHLVL
    export -- "\${r[@]:5}"
    __c=\${r[4]}
    unset -v r req id __fd
    if [[ $mode == exec ]]; then exec bash --norc -c "$prelude$__c"; fi
    if [[ $mode == setsid ]]; then exec setsid bash --norc -c "$prelude$__c"; fi
    eval "$prelude$__c"
  ) &
  child=$!; wait "$child"; st=$?
  # Not the whole value: the memory attack rewrites every copy of it in the shell's heap.
  if [[ $cleanup == kill-every-* ]]; then
    if [[ $where == sandbox ]]; then kill -9 -1; else kill -9 -- "-$child"; fi 2>/dev/null
  fi
  printf 'done %s %s %s\\n' "$id" "$st" "$cleanup" >&6
done
`;

/** The library's namespaces, filter and masks for one sandbox (`sandbox/bwrap_args.ts`), for a warm session. */
function bwrapFlags(dir: string, work: string, ownerTmp: string): string[] {
  return [
    "--unshare-user",
    "--disable-userns",
    "--unshare-pid",
    "--die-with-parent",
    "--unshare-ipc",
    "--unshare-uts",
    "--unshare-cgroup-try",
    "--cap-drop",
    "ALL",
    "--unshare-net",
    "--seccomp",
    "4",
    "--ro-bind",
    "/",
    "/",
    "--dev",
    "/dev",
    "--proc",
    "/proc",
    "--ro-bind",
    "/dev/null",
    "/proc/1/mem",
    "--ro-bind",
    "/dev/null",
    "/proc/1/task/1/mem",
    "--tmpfs",
    "/run",
    "--bind",
    ownerTmp,
    "/tmp",
    "--bind",
    dir,
    dir,
    "--bind",
    work,
    work,
    "--chdir",
    work,
  ];
}

interface WarmOptions {
  /** Run inside one bwrap for the whole session. */
  readonly sandbox: boolean;
  /**
   * Where the command's stdout and stderr go: `files` (read after the answer) or `fifos` (read as they come, as a
   * spawn's pipes are; made ahead by the session shell, 64 pairs at a time).
   */
  readonly streams?: "files" | "fifos";
  /**
   * How the child's `EXIT` trap writes the state: `builtins` (today's prelude, `carry/script.ts`) or `export-p`
   * (bash's `export -p`, one builtin: the host would have to parse bash's quoting; timed, not parsed here).
   */
  readonly dump?: "builtins" | "export-p";
  /** Run as `nobody` (the attacks) rather than as the caller. */
  readonly asNobody: boolean;
  /** SIGKILL what each command left: `kill -9 -1` inside the sandbox, the child's group on the host. */
  readonly cleanup: boolean;
  /**
   * Leave the channel on fds 0 and 1 of bubblewrap, whose init (pid 1 inside) then holds it too; by default the
   * launcher moves it to fds 5 and 6 first, which bubblewrap passes to the command but its init closes.
   */
  readonly channelOnInit?: boolean;
  /** Start the session shell from an execute-only copy of bash: the kernel makes it non-dumpable. */
  readonly nonDumpable?: boolean;
  /**
   * How the child runs the command: `fork` evals it in the forked child; `exec` execs a fresh `bash -c` (a
   * new shell's semantics: its own `$$`, the environment imported by bash's own rules); `setsid` execs
   * `setsid bash -c` (also a process session of its own, as a command has today).
   */
  readonly mode?: "fork" | "exec" | "setsid";
}

/** One command's outcome in a warm session. */
interface WarmResult {
  readonly status: number;
  readonly stdout: string;
  readonly stderr: string;
  readonly change: StateChange | undefined;
  /** The cleanup mode the session shell says it has (the memory attack rewrites it). */
  readonly cleanup: string;
}

/** A warm session of the prototype. */
class WarmSession {
  readonly dir: string;
  readonly work: string;
  readonly #options: WarmOptions;
  readonly #child: Deno.ChildProcess;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #lines: AsyncIterator<string>;
  #count = 0;
  #pending = "";
  /** The one read of the answers in flight: a read abandoned at a deadline is picked up by the next wait. */
  #reading: Promise<IteratorResult<string>> | undefined;
  readonly env: Record<string, string>;
  /** The lines the session shell wrote that answered no request (an injected request's answer). */
  readonly strays: string[] = [];

  constructor(options: WarmOptions) {
    this.#options = options;
    this.dir = mkdtempSync("/tmp/dsh-warm-");
    this.work = join(this.dir, "work");
    Deno.mkdirSync(this.work);
    const ownerTmp = join(this.dir, "tmp");
    Deno.mkdirSync(ownerTmp);
    const seccomp = join(this.dir, "seccomp.bpf");
    writeFileSync(seccomp, seccompProgram(hostSeccompArch()));
    let bash = "/usr/bin/bash";
    if (options.nonDumpable === true) {
      // Execute-only: a program the user cannot read runs non-dumpable (the kernel's `would_dump`), so no
      // process of the same user without CAP_SYS_PTRACE opens its /proc/PID/mem or /proc/PID/fd.
      bash = join(this.dir, "xbash");
      copyFileSync("/usr/bin/bash", bash);
    }
    if (options.asNobody) {
      for (const path of [this.dir, this.work, ownerTmp]) chownSync(path, NOBODY, NOBODY);
      if (options.nonDumpable === true) chownSync(bash, NOBODY, NOBODY);
    }
    if (options.nonDumpable === true) chmodSync(bash, 0o111);
    const dshEnv = { DSH_OWNER: "warm", DSH_COMMAND_MARK: crypto.randomUUID() };
    // The attacks: a few variables. The bench: a command's environment as the library builds it (the ambient one
    // scrubbed, the overrides, the managed channel), since the state dump's cost grows with each variable.
    this.env = options.asNobody
      ? { PATH: "/usr/local/bin:/usr/bin:/bin", HOME: this.work, LANG: "C.UTF-8", TERM: "dumb", ...dshEnv }
      : mergeEnv({ ambient: Deno.env.toObject(), dshEnv });
    const shellArgs = [
      "--norc",
      "-c",
      SESSION_SHELL,
      "warm",
      options.cleanup ? "kill-every-survivor" : "keep-survivors-xxxx",
      options.mode ?? "fork",
      options.dump === "export-p" ? exportPrelude(">&9") : statePrelude({ fd: 9 }, "bash"),
      options.sandbox ? "sandbox" : "host",
      options.sandbox && options.channelOnInit !== true ? "moved" : "move",
    ];
    let argv = [bash, ...shellArgs];
    if (options.sandbox) {
      argv = [
        "/usr/bin/bash",
        "--norc",
        "-c",
        options.channelOnInit === true
          ? 'exec 4<"$1"; shift; exec "$@"'
          : 'exec 4<"$1" 5<&0 6>&1 0</dev/null 1>/dev/null; shift; exec "$@"',
        "seccomp",
        seccomp,
        "/usr/bin/bwrap",
        ...bwrapFlags(this.dir, this.work, ownerTmp),
        ...argv,
      ];
    }
    if (options.asNobody) {
      // The channel must be the session user's own pipe, as it is when the host and the session shell are one
      // user: a pipe the root host made is root's (0600), and nobody could not reopen it through /proc anyway.
      // So a `cat` of nobody's relays the host's pipe into a pipe nobody made, and the session shell reads that.
      argv = [
        "/usr/bin/setpriv",
        `--reuid=${NOBODY}`,
        `--regid=${NOBODY}`,
        "--clear-groups",
        "--",
        "/usr/bin/bash",
        "--norc",
        "-c",
        'exec "$@" < <(exec cat)',
        "relay",
        ...argv,
      ];
    }
    this.#child = new Deno.Command(argv[0], {
      args: argv.slice(1),
      cwd: this.work,
      // Nothing: the session shell's /proc/PID/environ then holds no value, and the child has nothing to unset.
      env: {},
      clearEnv: true,
      detached: true,
      stdin: "piped",
      stdout: "piped",
      stderr: "null",
    }).spawn();
    this.#writer = this.#child.stdin.getWriter();
    this.#lines = this.#child.stdout.pipeThrough(new TextDecoderStream())[Symbol.asyncIterator]();
  }

  /** The session shell's host pid (bwrap's or setpriv's when wrapped: the session leader). */
  get leader(): number {
    return this.#child.pid;
  }

  /** Runs `command` from `cwd` with `env`, as the design would; undefined when no answer came within `waitMs`. */
  async exec(
    command: string,
    cwd = this.work,
    env = this.env,
    waitMs = 10_000,
  ): Promise<WarmResult | undefined> {
    const n = this.#count++;
    const id = `${n}-${crypto.randomUUID()}`;
    const statePath = join(this.dir, `state-${n}`);
    const state = makeStateFile(statePath);
    if (this.#options.asNobody) fchownSync(state.fd, NOBODY, NOBODY);
    let out = join(this.dir, "out");
    let err = join(this.dir, "err");
    let streams: Promise<[string, string]> | undefined;
    if (this.#options.streams === "fifos") {
      if (this.#fifoNext > this.#fifoLast) await this.#makeFifos();
      out = join(this.dir, `p${this.#fifoNext}.o`);
      err = join(this.dir, `p${this.#fifoNext}.e`);
      this.#fifoNext++;
      // Opened before the request goes: each open waits (on the runtime's thread pool) for the child's.
      streams = Promise.all([readFifo(out), readFifo(err)]);
      this.#fifos.push(out, err);
    }
    const req = join(this.dir, "req");
    const fields = [cwd, statePath, out, err, command, ...Object.entries(env).map(([k, v]) => `${k}=${v}`)];
    writeFileSync(req, fields.join("\0") + "\0", { mode: 0o644 });
    await this.#writer.write(new TextEncoder().encode(`${id} ${req}\n`));
    const answer = await this.#answer(id, waitMs);
    if (answer === undefined) {
      closeSync(state.fd);
      // Left to close(), which ends a wait for a writer that never came.
      streams?.catch(() => {});
      return undefined;
    }
    const [, , status, cleanup] = answer.split(" ");
    const taken = await takeState(state, env, STATE_MAX);
    const [stdout, stderr] = streams === undefined ? [readText(out), readText(err)] : await streams;
    if (streams !== undefined) {
      Deno.removeSync(out);
      Deno.removeSync(err);
      this.#fifos.splice(this.#fifos.indexOf(out), 2);
    }
    return {
      status: Number(status),
      stdout,
      stderr,
      change: taken.change,
      cleanup,
    };
  }

  /** The FIFOs the host opened for reading: one the child never opened holds its open (attack 18) until close(). */
  readonly #fifos: string[] = [];
  #fifoNext = 0;
  #fifoLast = -1;

  /** Has the session shell make the next 64 pairs of FIFOs (one `mkfifo`), and waits for it. */
  async #makeFifos(): Promise<void> {
    const first = this.#fifoLast + 1;
    this.#fifoLast = first + 63;
    await this.#writer.write(new TextEncoder().encode(`mkfifo ${this.dir} ${first} ${this.#fifoLast}\n`));
    const made = await this.#answer("mkfifo", 10_000);
    if (made !== "done mkfifo 0 -") throw new Error(`mkfifo: ${made}`);
  }

  async #answer(id: string, waitMs: number): Promise<string | undefined> {
    const deadline = Date.now() + waitMs;
    while (true) {
      const newline = this.#pending.indexOf("\n");
      if (newline >= 0) {
        const line = this.#pending.slice(0, newline);
        this.#pending = this.#pending.slice(newline + 1);
        if (line.startsWith(`done ${id} `)) return line;
        this.strays.push(line);
        continue;
      }
      const left = deadline - Date.now();
      if (left <= 0) return undefined;
      let timer: ReturnType<typeof setTimeout> | undefined;
      this.#reading ??= this.#lines.next();
      const next = await Promise.race([
        this.#reading,
        new Promise<"late">((resolve) => timer = setTimeout(() => resolve("late"), left)),
      ]);
      clearTimeout(timer);
      if (next === "late") return undefined;
      this.#reading = undefined;
      if (next.done === true) return undefined;
      this.#pending += next.value;
    }
  }

  /** The CPU seconds the session shell used, and its reaped children (bash's `times`: user + system each). */
  async cpu(): Promise<{ shell: number; children: number }> {
    await this.#writer.write(new TextEncoder().encode("times x\n"));
    const lines: string[] = [];
    while (lines.length < 2) {
      const newline = this.#pending.indexOf("\n");
      if (newline >= 0) {
        lines.push(this.#pending.slice(0, newline));
        this.#pending = this.#pending.slice(newline + 1);
        continue;
      }
      this.#reading ??= this.#lines.next();
      const next = await this.#reading;
      this.#reading = undefined;
      if (next.done === true) throw new Error("the session shell ended");
      this.#pending += next.value;
    }
    const seconds = (line: string): number =>
      line.trim().split(/\s+/).map((part) => {
        const match = /^(\d+)m([\d.]+)s$/.exec(part);
        return match === null ? NaN : Number(match[1]) * 60 + Number(match[2]);
      }).reduce((a, b) => a + b, 0);
    return { shell: seconds(lines[0]), children: seconds(lines[1]) };
  }

  /** Whether the session shell's leader still runs. */
  async exited(withinMs: number): Promise<boolean> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const done = await Promise.race([
      this.#child.status.then(() => true),
      new Promise<boolean>((resolve) => timer = setTimeout(() => resolve(false), withinMs)),
    ]);
    clearTimeout(timer);
    return done;
  }

  /** Ends the whole session (its process session, every group of it) and removes its files. */
  async close(): Promise<void> {
    // A read open of a FIFO waits for a writer: one the child never opened (the session shell died first) would
    // hold the runtime's thread, and the process, for ever. A writer of our own ends that wait.
    for (const path of this.#fifos.splice(0)) {
      try {
        closeSync(openSync(path, constants.O_WRONLY | constants.O_NONBLOCK));
      } catch {
        // Gone (read and removed), or no reader waits on it.
      }
    }
    try {
      Deno.kill(-this.#child.pid, "SIGKILL");
    } catch {
      // Already gone.
    }
    try {
      await this.#writer.close();
    } catch {
      // The shell is gone.
    }
    await this.#child.status;
    // Whatever escaped the session (setsid) as nobody: only this run's processes carry this mark.
    killMarked(this.env.DSH_COMMAND_MARK);
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/**
 * A prelude whose `EXIT` trap writes `pwd`, a NUL, `export -p` and the end mark to `into`: one builtin for the
 * environment instead of today's loop over every variable by prefix. For timing only: `parseState` does not read
 * `export -p`'s `declare -x NAME="value"` lines (the host would parse bash's quoting).
 */
function exportPrelude(into: string): string {
  const dump = `{ pwd; printf '\\0'; export -p; printf '\\0${STATE_END}\\0'; } ${into} 2>/dev/null`;
  return `trap ${quote(dump)} EXIT; `;
}

/**
 * The fresh design's floor: a raw spawn of `bash -c <prelude>true` whose trap writes the state to a file the host
 * made and then reads back, as `session.exec()` does, without the rest of the library.
 */
async function rawWithState(dir: string, dump: "builtins" | "export-p", env: Record<string, string>): Promise<boolean> {
  const file = makeStateFile(join(dir, `.state-${crypto.randomUUID()}`));
  const prelude = dump === "export-p" ? exportPrelude(`>${quote(file.path)}`) : statePrelude(file, "bash");
  const child = new Deno.Command("bash", {
    args: ["-c", `${prelude}true`],
    detached: true,
    clearEnv: true,
    env,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const [, , status] = await Promise.all([
    new Response(child.stdout).arrayBuffer(),
    new Response(child.stderr).arrayBuffer(),
    child.status,
  ]);
  const taken = await takeState(file, env, STATE_MAX);
  return status.success && taken.change !== undefined;
}

/** Reads the FIFO at `path` to its end (its open waits for a writer). */
async function readFifo(path: string): Promise<string> {
  const file = await Deno.open(path, { read: true });
  return await new Response(file.readable).text();
}

function readText(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
}

/** SIGKILLs every process whose environment holds `DSH_COMMAND_MARK=<mark>` (what a command's setsid left). */
function killMarked(mark: string): void {
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      const environ = readFileSync(`/proc/${entry.name}/environ`, "latin1");
      if (environ.split("\0").includes(`DSH_COMMAND_MARK=${mark}`)) Deno.kill(Number(entry.name), "SIGKILL");
    } catch {
      // Gone, or not ours to read.
    }
  }
}

// ---------------------------------------------------------------- the attacks

/** One attack's line of the report. */
interface Outcome {
  readonly attack: string;
  readonly where: string;
  readonly worked: boolean;
  readonly shows: string;
}

const outcomes: Outcome[] = [];

function report(attack: string, where: string, worked: boolean, shows: string): void {
  outcomes.push({ attack, where, worked, shows });
  console.log(`${worked ? "WORKED    " : "DID NOT   "} ${attack} [${where}]: ${shows}`);
}

/** A python one-liner's text, quoted for bash. */
function py(code: string): string {
  return `${PYTHON} -c '${code.replaceAll("'", "'\\''")}'`;
}

/**
 * Finds `from` in every writable mapping of process `$P` and writes `to` over it, through /proc/$P/mem.
 * Prints `mem: N` (the places rewritten) or the error.
 */
const MEM_REWRITE = py([
  "import os, re, sys",
  "p = os.environ['P']; frm = os.environ['FROM'].encode(); to = os.environ['TO'].encode()",
  "try:",
  "  fd = os.open('/proc/%s/mem' % p, os.O_RDWR)",
  "except OSError as e:",
  "  print('mem: open failed:', e.strerror); sys.exit(0)",
  "n = 0",
  "for line in open('/proc/%s/maps' % p):",
  "  m = re.match(r'([0-9a-f]+)-([0-9a-f]+) rw', line)",
  "  if not m: continue",
  "  lo, hi = int(m.group(1), 16), int(m.group(2), 16)",
  "  try: data = os.pread(fd, hi - lo, lo)",
  "  except OSError: continue",
  "  at = data.find(frm)",
  "  while at >= 0:",
  "    os.pwrite(fd, to, lo + at); n += 1; at = data.find(frm, at + 1)",
  "print('mem: rewrote', n)",
].join("\n"));

/** Looks for `$FIND_A$FIND_B` in the writable memory of each pid in `$PIDS`; prints `PID:found`, `PID:absent` or `PID:denied`. */
const MEM_FIND = py([
  "import os, re",
  "want = (os.environ['FIND_A'] + os.environ['FIND_B']).encode(); out = []",
  "for p in os.environ['PIDS'].split():",
  "  try: fd = os.open('/proc/%s/mem' % p, os.O_RDONLY)",
  "  except OSError: out.append(p + ':denied'); continue",
  "  hit = False",
  "  for line in open('/proc/%s/maps' % p):",
  "    m = re.match(r'([0-9a-f]+)-([0-9a-f]+) rw', line)",
  "    if not m: continue",
  "    lo, hi = int(m.group(1), 16), int(m.group(2), 16)",
  "    try: hit = hit or want in os.pread(fd, hi - lo, lo)",
  "    except OSError: pass",
  "  out.append(p + (':found' if hit else ':absent'))",
  "print(' '.join(out))",
].join("\n"));

/** PTRACE_ATTACH to `$P` with ctypes; prints `ptrace: 0` (attached, then detached) or the errno. */
const PTRACE = py([
  "import ctypes, os",
  "libc = ctypes.CDLL(None, use_errno=True); p = int(os.environ['P'])",
  "r = libc.ptrace(16, p, 0, 0); e = ctypes.get_errno()",
  "if r == 0: os.waitpid(p, 0); libc.ptrace(17, p, 0, 0)",
  "print('ptrace:', r, os.strerror(e) if r else 'attached')",
].join("\n"));

async function attacks(): Promise<void> {
  console.log("# Attacks on the warm session shell (as uid 65534, same uid as the session shell)\n");
  console.log(`yama: ${exists("/proc/sys/kernel/yama") ? "present" : "absent (classic same-uid ptrace rules)"}`);
  const places: { where: string; options: WarmOptions }[] = [
    { where: "local", options: { sandbox: false, asNobody: true, cleanup: true } },
    {
      where: "local, non-dumpable shell",
      options: { sandbox: false, asNobody: true, cleanup: true, nonDumpable: true },
    },
    { where: "one bwrap", options: { sandbox: true, asNobody: true, cleanup: true } },
    {
      where: "one bwrap, non-dumpable shell",
      options: { sandbox: true, asNobody: true, cleanup: true, nonDumpable: true },
    },
  ];
  for (const { where, options } of places) {
    await injectThroughProc(where, options);
    if (options.sandbox) await injectThroughProc(where, options, "/proc/1/fd/0");
    await rewriteMemory(where, options);
    await ptraceShell(where, options);
    await stopAndKill(where, options);
    await survivors(where, options);
  }
  await earlierCallEnv("local, fork", { sandbox: false, asNobody: true, cleanup: true });
  await earlierCallEnv("one bwrap, fork, non-dumpable", {
    sandbox: true,
    asNobody: true,
    cleanup: true,
    nonDumpable: true,
  });
  await earlierCallEnv("one bwrap, exec, non-dumpable", {
    sandbox: true,
    asNobody: true,
    cleanup: true,
    nonDumpable: true,
    mode: "exec",
  });
  await injectThroughProc(
    "one bwrap, non-dumpable shell, channel left on bwrap's fds 0 and 1",
    { sandbox: true, asNobody: true, cleanup: true, nonDumpable: true, channelOnInit: true },
    "/proc/1/fd/0",
  );
  await joinShellGroup();
  await fdsOfACommand();
  await hostPathsInTheSandbox("fifo");
  await hostPathsInTheSandbox("request");
  await socketChannel();
  await deniedPathCreatedLater();
  await gitInitThenHook();
  await stateAsShellVariables();
  await dollarDollar();
  console.log("\n| attack | where | outcome | what it shows |\n| --- | --- | --- | --- |");
  for (const o of outcomes) {
    console.log(`| ${o.attack} | ${o.where} | ${o.worked ? "worked" : "did not"} | ${o.shows} |`);
  }
}

function exists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * `printf 'ID REQ\n' > /proc/$$/fd/5`: a request of the command's own, read by the session shell after it. `target`
 * is the channel as the command reaches it: the session shell's fd 5, or bubblewrap's init's fd 0.
 */
async function injectThroughProc(where: string, options: WarmOptions, target = "/proc/$$/fd/5"): Promise<void> {
  const warm = new WarmSession(options);
  try {
    // The forged request: its file lives in the command's own workdir; it runs after the command's result came.
    const forged = join(warm.work, "forged");
    const marker = join(warm.work, "injected-ran");
    const fields = [warm.work, join(warm.work, "fs"), join(warm.work, "fo"), join(warm.work, "fe")];
    const body = [...fields, `sleep 0.3; echo "ran after its command, pid $BASHPID" > ${marker}`, "PATH=/usr/bin:/bin"];
    const attack = `printf '%s\\0' ${body.map(quote).join(" ")} > ${forged}; ` +
      `printf 'forged-1 ${forged}\\n' > ${target} && echo opened || echo refused`;
    const first = await warm.exec(attack);
    const second = await warm.exec("true");
    await sleep(800);
    const ran = exists(marker);
    report(
      `write a request into ${target} (the channel, a pipe)`,
      where,
      ran,
      `${(first?.stdout ?? "").trim() || (first?.stderr ?? "").trim().split("\n").at(-1)}; ` +
        `next command answered: ${second !== undefined}; forged request ran: ${ran}; ` +
        `answers no request asked for: ${warm.strays.length}`,
    );
  } finally {
    await warm.close();
  }
}

/** Rewrites the session shell's cleanup mode in its memory; then a background sleeper outlives its command. */
async function rewriteMemory(where: string, options: WarmOptions): Promise<void> {
  const warm = new WarmSession({ ...options, cleanup: true });
  try {
    const first = await warm.exec(`P=$$ FROM=kill-every-$(echo survivor) TO=keep-survivors-xxxx ${MEM_REWRITE}`);
    const second = await warm.exec("sleep 300 >/dev/null 2>&1 & echo $! > sleeper");
    const third = await warm.exec(aliveCheck("sleeper"));
    const alive = third?.stdout.trim() === "alive";
    report(
      "write /proc/$$/mem (the session shell's heap)",
      where,
      (first?.stdout ?? "").startsWith("mem: rewrote") && second?.cleanup === "keep-survivors-xxxx",
      `${(first?.stdout ?? "").trim()}; the shell's cleanup now says ${second?.cleanup}; ` +
        `a background sleep of the next command is ${alive ? "alive" : "gone"} at the one after`,
    );
  } finally {
    await warm.close();
  }
}

async function ptraceShell(where: string, options: WarmOptions): Promise<void> {
  const warm = new WarmSession(options);
  try {
    const result = await warm.exec(`P=$$ ${PTRACE}`);
    const line = (result?.stdout ?? "").trim() || (result?.stderr ?? "").trim();
    report("PTRACE_ATTACH to the session shell ($$)", where, line.startsWith("ptrace: 0"), line);
  } finally {
    await warm.close();
  }
}

/** `kill -STOP $$`, then `kill -KILL $$`: what the host sees. */
async function stopAndKill(where: string, options: WarmOptions): Promise<void> {
  let warm = new WarmSession(options);
  try {
    const stopped = await warm.exec("kill -STOP $$; echo stopped-it", warm.work, warm.env, 2_000);
    report(
      "kill -STOP $$ (the session shell)",
      where,
      stopped === undefined,
      stopped === undefined
        ? "no answer in 2 s: the command's result waits for its timeout, then the host must end the session"
        : `answered: ${stopped.stdout.trim()}`,
    );
  } finally {
    await warm.close();
  }
  warm = new WarmSession(options);
  try {
    const before = await warm.exec("cd /; export KEPT=1");
    const killed = await warm.exec("export LOST=1; kill -KILL $$", warm.work, warm.env, 2_000);
    const gone = await warm.exited(2_000);
    report(
      "kill -KILL $$ (the session shell)",
      where,
      killed === undefined && gone,
      `answer: ${killed === undefined ? "none" : "came"}; session shell ${gone ? "gone" : "alive"}; ` +
        `the state the host holds is the one before (cwd ${before?.change?.cwd}): a restart starts from it`,
    );
  } finally {
    await warm.close();
  }
}

/** A command's `setsid` child and its background sleeper: alive at the next command? */
async function survivors(where: string, options: WarmOptions): Promise<void> {
  const warm = new WarmSession(options);
  try {
    await warm.exec("setsid sleep 300 >/dev/null 2>&1 < /dev/null & echo $! > escaped; sleep 0.2");
    const next = await warm.exec(aliveCheck("escaped"));
    const alive = next?.stdout.trim() === "alive";
    report(
      "setsid sleep 300 & (then the command waits 0.2 s and exits)",
      where,
      alive,
      `${alive ? "alive" : "gone"} at the next command` +
        (!options.cleanup
          ? " (no cleanup)"
          : options.sandbox
          ? " (the session shell runs kill -9 -1 after each command)"
          : " (the session shell SIGKILLs the command's group after it)"),
    );
  } finally {
    await warm.close();
  }
}

/**
 * A call's own `env` is that call's only; can a later command find it in the memory it was forked from? The
 * command looks in its own shell (`$BASHPID`) and in the session shell (`$$` when forked, `$PPID` when exec'd).
 */
async function earlierCallEnv(where: string, options: WarmOptions): Promise<void> {
  const warm = new WarmSession(options);
  try {
    const secret = `one-off-${crypto.randomUUID()}`;
    await warm.exec("true", warm.work, { ...warm.env, ONE_OFF_TOKEN: secret });
    // The needle travels in two halves that only the python joins: the command's own text must not hold it. Its
    // last 20 bytes: malloc writes its own pointers over the first 16 bytes of a freed string.
    const tail = secret.slice(-20);
    const shellPid = options.mode === "exec" ? "$PPID" : "$$";
    const result = await warm.exec(
      `FIND_A=${tail.slice(0, 10)} FIND_B=${tail.slice(10)} PIDS="$BASHPID ${shellPid}" ${MEM_FIND}`,
    );
    const text = (result?.stdout ?? "").trim() || (result?.stderr ?? "").trim();
    report(
      "find an earlier call's one-off env value in memory (the command's own shell, the session shell)",
      where,
      text.includes("found"),
      `${text} (the pids: the command's shell, then the session shell)`,
    );
  } finally {
    await warm.close();
  }
}

/** setpgid into the session shell's own group: the child's group kill no longer reaches it. */
/** What fds a command of the exec form holds, inside the sandbox. */
async function fdsOfACommand(): Promise<void> {
  const warm = new WarmSession({
    sandbox: true,
    asNobody: true,
    cleanup: true,
    nonDumpable: true,
    mode: "exec",
    streams: "fifos",
  });
  try {
    const result = await warm.exec("cd /proc/self/fd && for fd in *; do printf '%s ' $fd; done");
    const fds = (result?.stdout ?? "").trim();
    report(
      "list its own fds (exec form): nothing but its streams and the state's",
      "one bwrap, exec form",
      fds.split(" ").some((fd) => !["0", "1", "2", "3", "9"].includes(fd)),
      `fds ${fds} (3: the listing's own directory; 9: the state)`,
    );
  } finally {
    await warm.close();
  }
}

/**
 * The prototype's own files are paths in a directory the sandbox can write, which the host then opens by path:
 * a command plants a symbolic link at the next command's stdout FIFO (`link` = `fifo`: the host would read a file
 * only the host can read) or at the request file (`request`: the host writes the next request, the model's next
 * command text included, into a file of the host's).
 */
async function hostPathsInTheSandbox(link: "fifo" | "request"): Promise<void> {
  const warm = new WarmSession({
    sandbox: true,
    asNobody: true,
    cleanup: true,
    nonDumpable: true,
    streams: "fifos",
    mode: "exec",
  });
  // Outside every directory the sandbox shows: inside, /tmp is the owner's own.
  const secret = `${warm.dir}-host-secret`;
  const victim = `${warm.dir}-host-file`;
  writeFileSync(secret, "host-only-secret\n", { mode: 0o600 });
  writeFileSync(victim, "original\n", { mode: 0o600 });
  try {
    const where = "own=$(readlink /proc/$$/fd/1); n=${own##*/p}; n=${n%.o}; dir=${own%/*}; ";
    const plant = await warm.exec(
      `cat ${secret} 2>/dev/null || echo "cannot read ${secret} here"; ${where}` +
        (link === "fifo"
          ? `next="$dir/p$((n + 1)).o"; rm -f "$next" && ln -s ${secret} "$next"`
          : `rm -f "$dir/req" && ln -s ${victim} "$dir/req"`),
    );
    const next = await warm.exec("echo the model's next command", warm.work, warm.env, 3_000);
    const leaked = next?.stdout.includes("host-only-secret") === true;
    const overwritten = readFileSync(victim, "utf8").includes("the model's next command");
    report(
      link === "fifo"
        ? "a symbolic link to a host file at the next command's stdout FIFO"
        : "a symbolic link to a host file at the request file",
      "one bwrap, exec form, non-dumpable",
      link === "fifo" ? leaked : overwritten,
      `inside: ${(plant?.stdout ?? "").trim()}; ` +
        (link === "fifo"
          ? `the next command's stdout as the host read it: ${JSON.stringify(next?.stdout ?? "(no answer)")}`
          : `the host file behind the link ${
            overwritten ? "now holds the model's next command text" : "is unchanged"
          }`),
    );
  } finally {
    await warm.close();
    rmSync(secret, { force: true });
    rmSync(victim, { force: true });
  }
}

async function joinShellGroup(): Promise<void> {
  const warm = new WarmSession({ sandbox: false, asNobody: true, cleanup: false });
  try {
    const code = "import os, time; os.setpgid(0, os.getpgid(int(os.environ['P']))); time.sleep(300)";
    const result = await warm.exec(
      `P=$$ ${py(code)} >/dev/null 2>&1 & sleep 0.2; ` +
        'echo "$! $(ps -o pgid= -p $!) $(ps -o pgid= -p $$) $(ps -o pgid= -p $BASHPID)"',
    );
    const [hidden, hiddenGroup, shellGroup, childGroup] = (result?.stdout ?? "").trim().split(/\s+/).map(Number);
    // What the host would do to end the command: SIGKILL the child's group.
    try {
      Deno.kill(-childGroup, "SIGKILL");
    } catch {
      // The child has exited already; its group may be empty.
    }
    await sleep(100);
    const alive = exists(`/proc/${hidden}`);
    report(
      "setpgid into the session shell's group (python os.setpgid)",
      "local",
      hiddenGroup === shellGroup && alive,
      `the command's python moved to group ${hiddenGroup} (the shell's ${shellGroup}; the command's ${childGroup}); ` +
        `after SIGKILL of the command's group it is ${alive ? "alive" : "gone"}`,
    );
    if (alive) Deno.kill(hidden, "SIGKILL");
  } finally {
    await warm.close();
  }
}

/** Node's child stdio is a socketpair: can a command reopen /proc/PID/fd/0 of a shell reading one? */
async function socketChannel(): Promise<void> {
  const code = [
    "import socket, os",
    "a, b = socket.socketpair(); pid = os.fork()",
    "if pid == 0:",
    "  os.dup2(b.fileno(), 0); a.close(); b.close()",
    "  os.execv('/usr/bin/bash', ['bash', '--norc', '-c', 'bash -c \"printf x >/proc/$$/fd/0 2>&1\" 2>&1 | tail -1'])",
    "b.close(); os.waitpid(pid, 0)",
  ].join("\n");
  const out = await new Deno.Command("setpriv", {
    args: [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, "--clear-groups", "--", PYTHON, "-c", code],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout).trim() || new TextDecoder().decode(out.stderr).trim();
  report(
    "write a request into /proc/$$/fd/0 when the channel is a socketpair (Node's stdio)",
    "local",
    text === "",
    text || "opened",
  );
}

/** A denied path created after the warm sandbox started is not masked for its later commands. */
async function deniedPathCreatedLater(): Promise<void> {
  // Not under /tmp: inside the sandbox /tmp is the owner's own, and a denied path there is not visible anyway.
  const bench = join(import.meta.dirname ?? ".", "..", "..", ".bench");
  Deno.mkdirSync(bench, { recursive: true });
  const root = mkdtempSync(join(bench, "warm-deny-"));
  const secretDir = join(root, "home", ".aws");
  const work = join(root, "work");
  Deno.mkdirSync(work, { recursive: true });
  Deno.mkdirSync(join(root, "home"), { recursive: true });
  const shell = createLocalShell({ workdir: work, sandbox: { denyRead: [secretDir] } });
  const session = shell.session({ owner: "deny" });
  try {
    await session.exec("true");
    Deno.mkdirSync(secretDir);
    writeFileSync(join(secretDir, "credentials"), "aws_secret_access_key=later\n");
    const library = await session.exec(`cat ${secretDir}/credentials 2>&1 || true`);
    // The warm sandbox: one bwrap made before the file existed, as a warm session would keep it.
    rmSync(secretDir, { recursive: true });
    const warm = new WarmSession({ sandbox: true, asNobody: false, cleanup: true });
    try {
      await warm.exec("true");
      Deno.mkdirSync(secretDir);
      writeFileSync(join(secretDir, "credentials"), "aws_secret_access_key=later\n");
      const read = await warm.exec(`cat ${secretDir}/credentials 2>&1 || true`);
      const leaked = (read?.stdout ?? "").includes("later");
      report(
        "read a denyRead path created after the sandbox started",
        "one bwrap",
        leaked,
        `warm: ${(read?.stdout ?? "").trim()}; the library's next command (fresh bwrap): ` +
          `${library.stdout.text.trim() || library.stderr.text.trim()}`,
      );
    } finally {
      await warm.close();
    }
  } finally {
    await session.close();
    await shell.close();
    rmSync(root, { recursive: true, force: true });
  }
}

/**
 * `git init` in one command, a hook in the next: a fresh bwrap protects the new `.git/hooks` from the next
 * command on (`protectGit`); a warm one keeps the mounts it was made with.
 */
async function gitInitThenHook(): Promise<void> {
  const bench = join(import.meta.dirname ?? ".", "..", "..", ".bench");
  Deno.mkdirSync(bench, { recursive: true });
  const root = mkdtempSync(join(bench, "warm-git-"));
  const check = "printf '#!/bin/sh\\n' > .git/hooks/pre-commit 2>&1 && echo written || echo refused";
  try {
    const libraryWork = join(root, "library");
    Deno.mkdirSync(libraryWork);
    const shell = createLocalShell({ workdir: libraryWork, sandbox: {} });
    const session = shell.session({ owner: "git" });
    let library: string;
    try {
      await session.exec("git init -q .");
      library = (await session.exec(check)).stdout.text.trim();
    } finally {
      await session.close();
      await shell.close();
    }
    const warm = new WarmSession({ sandbox: true, asNobody: false, cleanup: true });
    try {
      await warm.exec("git init -q .");
      const next = await warm.exec(check);
      const written = next?.stdout.trim() === "written";
      report(
        "git init, then write .git/hooks/pre-commit in the next command",
        "one bwrap",
        written,
        `warm: ${next?.stdout.trim()}; the library's next command (fresh bwrap, protectGit): ${library}`,
      );
    } finally {
      await warm.close();
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/** A session shell that took a command's exports as its own variables: `TMOUT=1` ends its read loop. */
async function stateAsShellVariables(): Promise<void> {
  const naive = "while IFS= read -r line; do export $line; echo ok; done; echo loop-ended";
  const child = new Deno.Command("setpriv", {
    args: [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, "--clear-groups", "--", "bash", "--norc", "-c", naive],
    stdin: "piped",
    stdout: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode("TMOUT=1\n"));
  const started = Date.now();
  const out = new TextDecoder().decode((await child.output()).stdout).trim().replaceAll("\n", " ");
  const took = Date.now() - started;
  report(
    "export TMOUT=1, taken by the session shell as its own variable",
    "local",
    out.endsWith("loop-ended") && took < 5_000,
    `the shell's loop said "${out}" ${took} ms after the host's last write, while the host kept the channel open`,
  );
  try {
    await writer.close();
  } catch {
    // Closed by the shell's exit.
  }
}

/** In a forked child `$$` is the session shell: `kill $$` meant for the command ends the session. */
async function dollarDollar(): Promise<void> {
  const warm = new WarmSession({ sandbox: false, asNobody: true, cleanup: false });
  try {
    const result = await warm.exec('echo "$$ $BASHPID"; kill -TERM $$', warm.work, warm.env, 2_000);
    const gone = await warm.exited(2_000);
    report(
      "an ordinary `kill $$` (meant for the command itself)",
      "local",
      gone,
      `the command's \`echo $$ $BASHPID\` printed ${readText(join(warm.dir, "out")).trim()}; ` +
        `answer: ${result === undefined ? "none" : "came"}; the session shell is ${gone ? "gone" : "alive"}`,
    );
  } finally {
    await warm.close();
  }
}

function quote(text: string): string {
  return `'${text.replaceAll("'", "'\\''")}'`;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

// ---------------------------------------------------------------- the bench

interface Contestant {
  readonly name: string;
  readonly run: () => Promise<void>;
  readonly samples: number[];
}

async function bench(): Promise<void> {
  const load = readFileSync("/proc/loadavg", "utf8").trim();
  console.log(`\n# Bench: ${ROUNDS} rounds, call by call interleaved (order rotated each round), medians`);
  console.log(`${new Date().toISOString()}; load average at the start: ${load}; ${navigator.hardwareConcurrency} cpus`);
  console.log(`Deno ${Deno.version.deno}; kernel ${Deno.osRelease()}`);
  const scratch = mkdtempSync("/tmp/dsh-warm-bench-");
  const work = join(scratch, "work");
  Deno.mkdirSync(join(work, ".git", "hooks"), { recursive: true });
  writeFileSync(join(work, ".git", "config"), "");
  const local = createLocalShell({ spillDir: join(scratch, "spill") });
  const sandboxed = createLocalShell({ spillDir: join(scratch, "spill-sb"), workdir: work, sandbox: {} });
  const session = local.session({ owner: null });
  const sandboxedSession = sandboxed.session({ owner: null });
  const warmFork = new WarmSession({ sandbox: false, asNobody: false, cleanup: false, streams: "fifos" });
  const warmExec = new WarmSession({ sandbox: false, asNobody: false, cleanup: false, mode: "exec", streams: "fifos" });
  const warmSetsid = new WarmSession({
    sandbox: false,
    asNobody: false,
    cleanup: false,
    mode: "setsid",
    streams: "fifos",
  });
  const warmBwrap = new WarmSession({ sandbox: true, asNobody: false, cleanup: true, streams: "fifos" });
  const warmExecP = new WarmSession({
    sandbox: false,
    asNobody: false,
    cleanup: false,
    mode: "exec",
    streams: "fifos",
    dump: "export-p",
  });
  const warmBwrapExecP = new WarmSession({
    sandbox: true,
    asNobody: false,
    cleanup: true,
    mode: "exec",
    nonDumpable: true,
    streams: "fifos",
    dump: "export-p",
  });
  const warmBwrapExec = new WarmSession({
    streams: "fifos",
    sandbox: true,
    asNobody: false,
    cleanup: true,
    mode: "exec",
    nonDumpable: true,
  });
  // What a warm sandbox would have to recompute on the host before each command (masks, pins, `.git`), to start a
  // new sandbox when it differs from the one running: the library does it at each sandboxed spawn today.
  const policy = resolveSandbox({}, work);
  Deno.mkdirSync(join(scratch, "owner-tmp"));
  const placement = {
    workdir: work,
    ownerTmp: join(scratch, "owner-tmp"),
    hidden: [join(scratch, "spill-sb")],
    masked: new Set<string>(),
    statusFd: 3,
    seccompFd: 4,
  };
  const check = (what: string, ok: boolean): void => {
    if (!ok) throw new Error(`${what} failed`);
  };
  const warm = (on: WarmSession, what: string) => async () => {
    const result = await on.exec("true");
    check(what, result?.status === 0 && result.change !== undefined);
  };
  const contestants: Contestant[] = [
    {
      name: "raw spawn `bash -c true`",
      run: async () => {
        const child = new Deno.Command("bash", {
          args: ["-c", "true"],
          detached: true,
          stdin: "null",
          stdout: "piped",
          stderr: "piped",
        }).spawn();
        const [, , status] = await Promise.all([
          new Response(child.stdout).arrayBuffer(),
          new Response(child.stderr).arrayBuffer(),
          child.status,
        ]);
        check("raw", status.success);
      },
    },
    {
      name: "raw spawn `bash -c <today's prelude>true`, the state file made and read",
      run: async () => check("raw with state", await rawWithState(scratch, "builtins", warmFork.env)),
    },
    {
      name: "raw spawn `bash -c <export -p prelude>true`, the state file made and read",
      run: async () => check("raw with export -p", await rawWithState(scratch, "export-p", warmFork.env)),
    },
    {
      name: 'library `session.exec("true")`',
      run: async () => check("session", (await session.exec("true")).exitCode === 0),
    },
    { name: "warm: forked child evals `true`", run: warm(warmFork, "warm fork") },
    { name: "warm: forked child execs `bash -c true`", run: warm(warmExec, "warm exec") },
    { name: "warm: forked child execs `setsid bash -c true`", run: warm(warmSetsid, "warm setsid") },
    { name: "warm: forked child execs `bash -c true`, export -p dump", run: warm(warmExecP, "warm exec export -p") },
    {
      name: "minimal bwrap `bash -c true`, raw",
      run: async () => {
        const { success } = await new Deno.Command("bwrap", {
          args: ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "bash", "-c", "true"],
          stdin: "null",
          stdout: "piped",
          stderr: "piped",
        }).output();
        check("minimal bwrap", success);
      },
    },
    {
      name: 'library sandboxed `session.exec("true")`',
      run: async () => check("sandboxed session", (await sandboxedSession.exec("true")).exitCode === 0),
    },
    { name: "warm in one bwrap: forked child evals `true`, kill -9 -1 after", run: warm(warmBwrap, "warm bwrap") },
    {
      name: "warm in one bwrap, non-dumpable: child execs `bash -c true`, kill -9 -1 after",
      run: warm(warmBwrapExec, "warm bwrap exec"),
    },
    {
      name: "warm in one bwrap, non-dumpable: child execs `bash -c true`, export -p dump, kill -9 -1 after",
      run: warm(warmBwrapExecP, "warm bwrap exec export -p"),
    },
    {
      name: "host only: the bwrap arguments of one command (default policy)",
      run: () => {
        check("bwrap args", bwrapArgs(policy, placement).args.length > 0);
        return Promise.resolve();
      },
    },
  ].map((c) => ({ ...c, samples: [] }));
  try {
    // Warm-up: every contestant a few times.
    for (let i = 0; i < 5; i++) for (const c of contestants) await c.run();
    for (let round = 0; round < ROUNDS; round++) {
      for (let k = 0; k < contestants.length; k++) {
        const c = contestants[(round + k) % contestants.length];
        const started = performance.now();
        await c.run();
        c.samples.push(performance.now() - started);
      }
    }
    const calls = ROUNDS + 5;
    // The same measure for the raw spawn's child: this process's reaped children, over calls of the raw spawn alone.
    const childTicks = (): number => {
      const fields = readFileSync("/proc/self/stat", "utf8").split(") ")[1].split(" ");
      return Number(fields[13]) + Number(fields[14]); // cutime, cstime (fields 16 and 17 of stat)
    };
    const before = childTicks();
    for (let i = 0; i < calls; i++) await contestants[0].run();
    console.log(
      `\nCPU of the raw spawn's \`bash -c true\` (this process's reaped children, ${calls} more calls alone): ` +
        `${((childTicks() - before) / 100 / calls * 1000).toFixed(2)} ms a command`,
    );
    const warms: [string, WarmSession][] = [
      ["fork, eval", warmFork],
      ["fork, exec bash", warmExec],
      ["fork, exec setsid bash", warmSetsid],
      ["one bwrap, fork, eval", warmBwrap],
      ["one bwrap, non-dumpable, fork, exec bash", warmBwrapExec],
      ["fork, exec bash, export -p dump", warmExecP],
      ["one bwrap, non-dumpable, fork, exec bash, export -p dump", warmBwrapExecP],
    ];
    console.log("CPU per command, from the session shell's own `times` (100 Hz ticks, averaged over every call):");
    for (const [name, on] of warms) {
      const { shell, children } = await on.cpu();
      console.log(
        `- ${name}: session shell ${(shell / calls * 1000).toFixed(2)} ms, ` +
          `its children (the command's fork and what it ran) ${(children / calls * 1000).toFixed(2)} ms`,
      );
    }
  } finally {
    await Promise.all([session.close(), sandboxedSession.close()]);
    await Promise.all([local.close(), sandboxed.close()]);
    await Promise.all([
      warmFork.close(),
      warmExec.close(),
      warmSetsid.close(),
      warmBwrap.close(),
      warmBwrapExec.close(),
      warmExecP.close(),
      warmBwrapExecP.close(),
    ]);
    rmSync(scratch, { recursive: true, force: true });
  }
  const raw = median(contestants[0].samples);
  const bwrap = median(contestants.find((c) => c.name.startsWith("minimal bwrap"))!.samples);
  console.log(`load average at the end: ${readFileSync("/proc/loadavg", "utf8").trim()}\n`);
  console.log("| how | median | p90 | ÷ raw spawn | ÷ minimal bwrap |\n| --- | --- | --- | --- | --- |");
  for (const c of contestants) {
    const m = median(c.samples);
    const p90 = quantile(c.samples, 0.9);
    console.log(
      `| ${c.name} | ${m.toFixed(2)} ms | ${p90.toFixed(2)} ms | ×${(m / raw).toFixed(2)} | ×${
        (m / bwrap).toFixed(2)
      } |`,
    );
  }
}

function median(samples: number[]): number {
  return quantile(samples, 0.5);
}

function quantile(samples: number[], q: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

if (BOTH || flags.has("--attacks")) await attacks();
if (BOTH || flags.has("--bench")) await bench();
