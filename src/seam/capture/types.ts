/**
 * The shapes of a command's output: each stream as the capture keeps it
 * ({@linkcode CollectedOutput}, built by `collector.ts`) and the caller's
 * view of it as it arrives ({@linkcode ShellObserver}, fed by
 * `output_events.ts`). Re-exported by `../types.ts`, the root's source.
 *
 * @module
 */

/**
 * One captured stream. `text` is the whole stream when it fit its budget,
 * otherwise its head and tail around a marker line.
 *
 * @example
 * ```ts
 * import { type CollectedOutput, createLocalShell } from "@dsh/shell";
 * import assert from "node:assert/strict";
 * import { mkdtempSync, readFileSync, rmSync } from "node:fs";
 * import { tmpdir } from "node:os";
 * import { join } from "node:path";
 * function describe(output: CollectedOutput): string {
 *   if (!output.truncated) return `${output.totalBytes} bytes`;
 *   return `${output.totalBytes} bytes, truncated; full stream: ${output.spillPath ?? "not kept"}`;
 * }
 * const spillDir = mkdtempSync(join(tmpdir(), "spill-")); // spill files are kept: put them where we clean up
 * await using shell = createLocalShell({ maxOutputBytes: 1_000, spillDir });
 * const result = await shell.run(shell.resolve({ command: "seq 1 10000", owner: null }));
 * assert.match(describe(result.stdout), /^48894 bytes, truncated; full stream: .+\/stdout-.+\.log$/);
 * assert.equal(readFileSync(result.stdout.spillPath ?? "", "utf8").length, 48_894);
 * rmSync(spillDir, { recursive: true });
 * ```
 */
export interface CollectedOutput {
  /** The text (UTF-8), possibly truncated in the middle. */
  text: string;
  /** True when bytes were left out of `text`. */
  truncated: boolean;
  /** How many bytes the stream had in all. */
  totalBytes: number;
  /** A file holding the complete stream, when one was kept. */
  spillPath?: string;
}

/**
 * Sees a command's output as it arrives, next to the capture (which it does
 * not change): each chunk in order, as a copy it may keep. An observer that
 * throws is not called again, and what it threw is on the result as
 * `observerError`; the command and its capture go on.
 *
 * @example
 * ```ts
 * import { createLocalShell, type ShellObserver } from "@dsh/shell";
 * import assert from "node:assert/strict";
 * const lines: string[] = [];
 * const decoder = new TextDecoder();
 * const observer: ShellObserver = { onStdout: (chunk) => lines.push(decoder.decode(chunk, { stream: true })) };
 * await using shell = createLocalShell();
 * const result = await shell.run(shell.resolve({ command: "echo one; echo two", owner: null }), observer);
 * assert.equal(lines.join(""), "one\ntwo\n");
 * assert.equal(result.stdout.text, "one\ntwo\n"); // captured all the same
 * ```
 */
export interface ShellObserver {
  /** Receives each stdout chunk, in order, as its own copy. */
  onStdout?(chunk: Uint8Array): void;
  /** Receives each stderr chunk, in order, as its own copy. */
  onStderr?(chunk: Uint8Array): void;
}
