/**
 * A sandboxed shell's private files on the host: one directory (0700,
 * unpredictable name) holding each owner's `/tmp`, the status files
 * bubblewrap writes, the seccomp program it reads, and the watchdog's
 * record. Commands never see it; it is removed by `close()`.
 *
 * @module
 */

import { mkdirSync, mkdtempSync, rmdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isShellError, type ShellError, ShellSandboxError } from "../errors.ts";

/** The private directory of one sandboxed shell. */
export class SandboxState {
  /** The directory itself. */
  readonly dir: string;
  /** The seccomp program bubblewrap reads (`seccomp.ts`): written once, read-only (0400). */
  readonly seccompPath: string;
  /** Owner → the name of its `/tmp` directory; unowned commands share one (the `null` key). */
  readonly #owners = new Map<string | null, string>();
  #statusFiles = 0;

  /** Makes an owner's new `/tmp` directory bounded (`tmp_holder.ts`) before any command uses it. */
  bound: ((dir: string) => void) | undefined;

  /**
   * @param parent Where the directory is made (the OS temp dir).
   * @param seccomp The seccomp program, written to {@linkcode seccompPath}.
   */
  constructor(parent: string, seccomp: Uint8Array) {
    try {
      this.dir = mkdtempSync(join(parent, "dsh-sandbox-"));
    } catch (error) {
      throw sandboxFailure(error);
    }
    this.seccompPath = join(this.dir, "seccomp.bpf");
    try {
      writeFileSync(this.seccompPath, seccomp, { mode: 0o400, flag: "wx" });
    } catch (error) {
      this.dispose();
      throw sandboxFailure(error);
    }
  }

  /**
   * The host directory mounted at `/tmp` for `owner`'s commands, made at
   * the first use: shared by that owner's commands, private from the others
   * and from the host. The directory name is a counter, not the owner,
   * which may hold any character.
   */
  ownerTmp(owner: string | null): string {
    return join(this.dir, this.ownerName(owner));
  }

  /**
   * The name standing for `owner` on the host (its `/tmp` directory's, and
   * its spill files' subdirectory's): a counter, never the owner itself.
   * Makes the owner's `/tmp` directory at the first use.
   */
  ownerName(owner: string | null): string {
    let name = this.#owners.get(owner);
    if (name === undefined) {
      name = `owner-${this.#owners.size}`;
      const dir = join(this.dir, name);
      try {
        mkdirSync(dir, { mode: 0o700 });
      } catch (error) {
        throw sandboxFailure(error);
      }
      // Only once bounded is it the owner's: a failed mount is tried again at the next command, never skipped.
      try {
        this.bound?.(dir);
      } catch (error) {
        rmdirSync(dir);
        throw sandboxFailure(error);
      }
      this.#owners.set(owner, name);
    }
    return name;
  }

  /** A fresh path for one command's status file (the wrapper creates it). */
  statusPath(): string {
    return join(this.dir, `status-${this.#statusFiles++}.jsonl`);
  }

  /** Removes everything (at `close()`, once no command runs). */
  dispose(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/**
 * A failure of the sandbox's own directories as the family's: an error of
 * the family as it is, the runtime's (a full disk, say) as the cause of a
 * `ShellSandboxError` with its message.
 */
export function sandboxFailure(error: unknown): ShellError {
  if (isShellError(error)) return error;
  return new ShellSandboxError(error instanceof Error ? error.message : String(error), { cause: error });
}
