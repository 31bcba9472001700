/**
 * What bounds each owner's private `/tmp` (`SandboxPolicy.tmpMaxBytes`): a
 * tmpfs of that size per owner, which must outlive one command (an owner's
 * commands pass files to each other through `/tmp`) and yet end with the
 * shell. bubblewrap's own `--size … --tmpfs` would last one command only,
 * and the host's mount table is no place for it (an ordinary user cannot
 * mount there, and a host that dies would leave the mounts behind). So one
 * small process per sandboxed shell, the holder, keeps a user and mount
 * namespace of its own (bubblewrap with `--dev-bind / /`: the host's tree
 * as it is, devices included); each owner's tmpfs is mounted at that
 * owner's directory in it, and every command's bubblewrap starts inside it
 * (`nsenter`), so its `--bind <owner dir> /tmp` takes the tmpfs. The holder
 * is root of its namespace, mapped to the host user: the commands'
 * bubblewrap maps the command back to the host user's uid and gid
 * (`--uid`, `--gid`), so files keep their owner on the host.
 *
 * The holder is started like the watchdog, on a stdin pipe from the host
 * that nothing is written to: the end of the pipe (`close()`, or the host's
 * death, however it dies) ends it, and with it the namespace and every
 * owner's tmpfs (nothing of it was ever on the host's disk).
 *
 * @module
 */

import { readFileSync } from "node:fs";
import type { ProcessAdapter, WatchdogHandle } from "../adapter.ts";
import { ShellSandboxError } from "../errors.ts";
import { exitedWithin } from "../guard/watchdog.ts";

/** How long the set-up waits for the holder to say it is there. */
const READY_WAIT_SECONDS = 10;

/**
 * The holder's script, for `/bin/sh` on the watchdog's pipe. The holder
 * opens the ready FIFO read-write (an open that never blocks, and keeps the
 * line in it until the host reads it), writes its pid there, and reads its
 * stdin to the end. A bubblewrap that cannot start says `failed` there
 * instead, with its reason in the error file.
 */
const HOLDER_SCRIPT = `
trap '' INT HUP
"$DSH_HOLDER_BWRAP" --unshare-user --uid 0 --gid 0 --dev-bind / / -- /bin/sh -c \\
  'exec 3<>"$1" && echo "$$" >&3 && while read -r _; do :; done' dsh-tmp-holder "$DSH_HOLDER_READY" \\
  2>"$DSH_HOLDER_ERRORS" && exit 0
exec 3<>"$DSH_HOLDER_READY"
echo failed >&3
while read -r _; do :; done
`;

/** The programs the holder and its users need, found outside the writable directories. */
export interface HolderPrograms {
  /** bubblewrap. */
  readonly bwrap: string;
  /** bash: reads the ready FIFO with a time limit (`read -t`). */
  readonly bash: string;
  /** util-linux's `nsenter`: enters the holder's namespaces. */
  readonly nsenter: string;
  /** util-linux's `mount`. */
  readonly mount: string;
  /** coreutils' `mkfifo`. */
  readonly mkfifo: string;
}

/** The holder of one sandboxed shell: see the module's comment. */
export class TmpHolder {
  readonly #adapter: ProcessAdapter;
  readonly #programs: HolderPrograms;
  readonly #handle: WatchdogHandle;
  /** The host pid of the process whose namespaces are entered. */
  readonly #pid: number;
  readonly #maxBytes: number;

  private constructor(
    adapter: ProcessAdapter,
    programs: HolderPrograms,
    handle: WatchdogHandle,
    pid: number,
    maxBytes: number,
  ) {
    this.#adapter = adapter;
    this.#programs = programs;
    this.#handle = handle;
    this.#pid = pid;
    this.#maxBytes = maxBytes;
  }

  /**
   * Starts the holder and waits (synchronously, at most 10 s) until it is
   * there; `dir` is the sandbox's private directory, where its FIFO and
   * error file go. Throws {@linkcode ShellSandboxError} with bubblewrap's
   * reason when it cannot start; nothing is left running then.
   */
  static start(adapter: ProcessAdapter, programs: HolderPrograms, dir: string, maxBytes: number): TmpHolder {
    if (adapter.probe === undefined) {
      throw new ShellSandboxError(`the ${adapter.name} adapter cannot set the sandbox up (it has no probe())`);
    }
    const ready = `${dir}/holder.ready`;
    const errors = `${dir}/holder.err`;
    const made = adapter.probe({ program: programs.mkfifo, args: ["-m", "600", ready], cwd: "/", env: {} });
    if (made.code !== 0) throw new ShellSandboxError(`the sandbox's /tmp could not be set up (${made.stderr.trim()})`);
    const env = { DSH_HOLDER_BWRAP: programs.bwrap, DSH_HOLDER_READY: ready, DSH_HOLDER_ERRORS: errors };
    let handle: WatchdogHandle;
    try {
      handle = adapter.spawnWatchdog(HOLDER_SCRIPT, env);
    } catch (error) {
      throw new ShellSandboxError(`the sandbox's /tmp could not be set up (${String(error)})`, { cause: error });
    }
    // The line comes back on stderr, the one output a probe keeps.
    const read = adapter.probe({
      program: programs.bash,
      args: [
        "--norc",
        "-p",
        "-c",
        `exec 3<>"$1" && IFS= read -r -t ${READY_WAIT_SECONDS} line <&3 && printf '%s' "$line" >&2`,
        "dsh-tmp-ready",
        ready,
      ],
      cwd: "/",
      env: {},
    });
    const pid = Number(read.stderr);
    if (read.code !== 0 || !Number.isSafeInteger(pid) || pid <= 1) {
      handle.close();
      const reason = read.code === 0 ? errorsOf(errors) : "it did not start within 10 s";
      throw new ShellSandboxError(`the sandbox's /tmp could not be set up (${reason}); no command runs`);
    }
    return new TmpHolder(adapter, programs, handle, pid, maxBytes);
  }

  /**
   * The argv that runs what follows it in the holder's namespaces, as the
   * holder's root: `nsenter` keeps the caller's credentials (the host user
   * is that root there) and execs, so the pid stays the session leader's.
   */
  enterArgs(): string[] {
    return [this.#programs.nsenter, "--preserve-credentials", "--user", "--mount", "--target", String(this.#pid), "--"];
  }

  /**
   * Mounts an owner's tmpfs, of the policy's size, on the directory `dir`
   * in the holder's namespace. Throws {@linkcode ShellSandboxError} when it
   * cannot: no command of that owner may run with an unbounded `/tmp`.
   */
  mountTmp(dir: string): void {
    const outcome = this.#adapter.probe!({
      program: this.#programs.nsenter,
      args: [
        ...this.enterArgs().slice(1),
        this.#programs.mount,
        "-t",
        "tmpfs",
        "-o",
        `size=${this.#maxBytes},mode=0700`,
        "dsh-tmp",
        dir,
      ],
      cwd: "/",
      env: {},
    });
    if (outcome.code !== 0) {
      throw new ShellSandboxError(
        `an owner's /tmp could not be bounded to ${this.#maxBytes} bytes (${outcome.stderr.trim()}); nothing runs`,
      );
    }
  }

  /**
   * Ends the holder (closes its pipe) and waits for it, once no command
   * runs in its namespaces; SIGKILLs its group after 2 s. The timers keep
   * the event loop open meanwhile, which the holder's own exit does not.
   */
  async close(): Promise<void> {
    this.#handle.close();
    if (await exitedWithin(this.#handle, 2_000)) return;
    this.#adapter.signalGroup(this.#handle.pid, "SIGKILL");
    await exitedWithin(this.#handle, 1_000);
  }
}

/** What the holder's bubblewrap said: the last line of its error file. */
function errorsOf(file: string): string {
  let text = "";
  try {
    text = readFileSync(file, "utf8");
  } catch {
    // No file: nothing said.
  }
  const lines = text.split("\n").map((line) => line.trim()).filter((line) => line !== "");
  return lines.at(-1) ?? "bubblewrap failed without a message";
}
