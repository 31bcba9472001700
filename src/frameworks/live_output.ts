/**
 * A bash call's output while it runs, for a framework that can show it (the
 * AI SDK's preliminary tool results): what the command printed so far, both
 * streams as they came, bounded as the result is (the first half of the
 * budget, then a note of what was left out and the last half), without
 * terminal control sequences.
 *
 * @module
 */

import { BoundedOutput } from "../seam/bounded_output.ts";
import { stripControlSequences } from "../tool/mod.ts";

/** The least time between two snapshots a caller is woken for, in ms. */
export const LIVE_INTERVAL_MS = 100;

/** The output so far of one call, and a wake-up for whoever shows it. */
export class LiveOutput {
  readonly #output: BoundedOutput;
  #changed = false;
  #wake: (() => void) | undefined;

  /** @param budget Bytes the call's result keeps of a stream (`stdoutMaxBytes`). */
  constructor(budget: number) {
    this.#output = new BoundedOutput(budget);
  }

  /** Takes a chunk of either stream (the observer's copy). */
  readonly push = (chunk: Uint8Array): void => {
    this.#output.push(chunk);
    this.#changed = true;
    this.#wake?.();
  };

  /** Resolves once something new has arrived, or `signal` says to stop waiting. */
  changed(signal: AbortSignal): Promise<void> {
    if (this.#changed || signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        this.#wake = undefined;
        signal.removeEventListener("abort", done);
        resolve();
      };
      this.#wake = done;
      signal.addEventListener("abort", done, { once: true });
    });
  }

  /** The output so far as text; marks it as seen. */
  text(): string {
    this.#changed = false;
    const overflowed = this.#output.overflowed;
    // With a tail after it, a character cut at the head's end is left out, not shown as U+FFFD.
    const head = new TextDecoder().decode(this.#output.head(), { stream: overflowed });
    if (!overflowed) return stripControlSequences(head);
    const left = this.#output.leftOut;
    const note = left > 0 ? `\n[... ${left} bytes left out ...]\n` : "";
    return stripControlSequences(head + note + new TextDecoder().decode(this.#output.tail()));
  }
}
