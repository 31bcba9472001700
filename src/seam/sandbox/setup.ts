/**
 * A sandboxed shell's start: find bubblewrap and bash, make the private
 * state directory with the seccomp program in it, decide what the commands
 * must not see, and set the sandbox up once for real (`probe.ts`). What it returns is all a launch needs.
 *
 * @module
 */

import { tmpdir } from "node:os";
import process from "node:process";
import { ShellSandboxError } from "../errors.ts";
import type { ProcessAdapter } from "../adapter.ts";
import type { SpillDirectory } from "../capture/spill.ts";
import type { ProcTable } from "../session/proc_table.ts";
import type { ResolvedSandbox } from "./policy.ts";
import type { SandboxWrapper } from "./launcher.ts";
import { findBash, findBwrap, findDash, probeSandbox } from "./probe.ts";
import { findOnPath } from "./lookup.ts";
import { startingPoint } from "./placement.ts";
import { hostSeccompArch, seccompProgram } from "./seccomp.ts";
import { sandboxFailure, SandboxState } from "./state.ts";
import { TmpHolder } from "./tmp_holder.ts";

/** A sandboxed shell's sandbox: the policy, its private files, and what commands must not see. */
export interface ShellSandbox {
  /** The policy, with bubblewrap's absolute path. */
  readonly policy: ResolvedSandbox;
  /**
   * The shell program, found once on `PATH` outside the writable
   * directories: a `sandbox: false` request runs it on the host.
   */
  readonly shell: string;
  /** Owners' `/tmp` directories, status files, the seccomp program, the watchdog's record. */
  readonly state: SandboxState;
  /** The wrapper that opens bubblewrap's fds and closes the rest. */
  readonly wrapper: SandboxWrapper;
  /** The library's own directories on the host as they are now, masked wherever a command could see them. */
  hidden(): string[];
  /** Every real path masked so far (see `SandboxPlacement.masked`). */
  readonly masked: Set<string>;
  /** The spill directory (the one `hidden()` names): each owner's subdirectory is shown to that owner read-only. */
  readonly spill: SpillDirectory;
  /** What keeps each owner's `/tmp` bounded; ended by `close()` once no command runs. */
  readonly holder: TmpHolder;
}

/**
 * Sets up the sandbox of a new shell whose default workdir is `workdir`.
 * Throws `ShellSandboxError` when it cannot be set up; nothing is left
 * behind then.
 */
export function setUpSandbox(
  adapter: ProcessAdapter,
  table: ProcTable,
  resolved: ResolvedSandbox,
  options: { readonly workdir: string; readonly shell: string },
  spill: SpillDirectory,
): ShellSandbox {
  const writable = resolved.writableRoots;
  const policy: ResolvedSandbox = { ...resolved, bwrapPath: findBwrap(resolved.bwrapPath, writable) };
  const shell = options.shell.includes("/") ? options.shell : findOnPath(options.shell, writable) ?? options.shell;
  const bash = findBash(writable);
  const tools = ["nsenter", "mount", "mkfifo"].map((name) => {
    const found = findOnPath(name, writable);
    if (found !== undefined) return found;
    throw new ShellSandboxError(
      `${name} was not found on PATH outside the writable directories: the sandbox needs it to bound each ` +
        "owner's /tmp (Debian/Ubuntu: apt-get install util-linux coreutils)",
    );
  });
  const state = new SandboxState(tmpdir(), seccompProgram(hostSeccompArch(), policy.network));
  let holder: TmpHolder | undefined;
  try {
    const [nsenter, mount, mkfifo] = tools;
    holder = TmpHolder.start(
      adapter,
      { bwrap: policy.bwrapPath, bash, nsenter, mount, mkfifo },
      state.dir,
      policy.tmpMaxBytes,
    );
    const started = holder;
    state.bound = (dir) => started.mountTmp(dir);
    const ids = { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 };
    const wrapper: SandboxWrapper = {
      bash,
      dash: findDash(writable),
      seccompPath: state.seccompPath,
      enter: { argv: holder.enterArgs(), ...ids },
    };
    // The spill directory holds every command's complete output: it is made now, so that it is masked from the
    // first command on (a workdir or writable root may contain it), and asked again at each spawn (a deleted one
    // is made again under a new name).
    spill.path();
    const hidden = (): string[] => [state.dir, ...(spill.current === undefined ? [] : [spill.current])];
    const masked = new Set<string>();
    const placement = {
      workdir: startingPoint(policy, options.workdir),
      ownerTmp: state.ownerTmp(null),
      hidden: hidden(),
      masked,
    };
    probeSandbox(adapter, table, policy, placement, state.statusPath(), wrapper);
    return { policy, shell, state, wrapper, hidden, masked, spill, holder };
  } catch (error) {
    // Its pipe closes; it ends on its own, and nothing of it is on the disk.
    void holder?.close();
    state.dispose();
    throw sandboxFailure(error);
  }
}
