/**
 * Spill files: the complete stream of a command whose output passed its
 * in-memory budget, written to a private file the caller can read later.
 *
 * @module
 */

import { closeSync, lstatSync, mkdirSync, mkdtempSync, openSync, unlinkSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Where spill files go: a directory, resolved lazily at the first spill. */
export class SpillDirectory {
  #configured: string | undefined;
  #resolved: string | undefined;

  /**
   * @param configured The caller's `spillDir`, or `undefined` for a private
   *   0700 directory created under the OS temp dir at the first spill.
   */
  constructor(configured: string | undefined) {
    this.#configured = configured;
  }

  /** The directory path, creating it on first use. Throws when unusable. */
  path(): string {
    if (this.#resolved !== undefined) return this.#resolved;
    if (this.#configured === undefined) {
      // mkdtemp creates the directory with mode 0700 and an unpredictable name.
      this.#resolved = mkdtempSync(join(tmpdir(), "dsh-shell-"));
    } else {
      mkdirSync(this.#configured, { recursive: true, mode: 0o700 });
      const stat = lstatSync(this.#configured);
      if (!stat.isDirectory()) throw new Error(`spillDir is not a directory: ${this.#configured}`);
      this.#resolved = this.#configured;
    }
    return this.#resolved;
  }
}

function randomName(label: string): string {
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  return `${label}-${hex}.log`;
}

/** One open spill file, written synchronously so chunk memory can be reused at once. */
export class SpillFile {
  /** The file's absolute path. */
  readonly path: string;
  #fd: number | undefined;

  /**
   * Creates the file exclusively (never following or reusing an existing
   * path) with mode 0600.
   */
  constructor(directory: string, label: string) {
    this.path = join(directory, randomName(label));
    this.#fd = openSync(this.path, "wx", 0o600);
  }

  /** Appends `bytes` completely. */
  write(bytes: Uint8Array): void {
    if (this.#fd === undefined) return;
    let offset = 0;
    while (offset < bytes.length) {
      offset += writeSync(this.#fd, bytes, offset, bytes.length - offset);
    }
  }

  /** Closes the file and keeps it. */
  close(): void {
    if (this.#fd === undefined) return;
    closeSync(this.#fd);
    this.#fd = undefined;
  }

  /** Closes the file and deletes it. */
  discard(): void {
    this.close();
    try {
      unlinkSync(this.path);
    } catch {
      // Already gone: nothing to discard.
    }
  }
}
