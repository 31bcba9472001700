/**
 * A bash call's output while it runs, for a framework that can show it (the
 * AI SDK's preliminary tool results): what the command printed so far, both
 * streams as they came, bounded as the result is (the first half of the
 * budget, then a note of what was left out and the last half), without
 * terminal control sequences.
 *
 * @module
 */

import { stripControlSequences } from "../tool/mod.ts";

/** The least time between two snapshots a caller is woken for, in ms. */
export const LIVE_INTERVAL_MS = 100;

/** The output so far of one call, and a wake-up for whoever shows it. */
export class LiveOutput {
  readonly #headLimit: number;
  readonly #tailLimit: number;
  #head: Uint8Array[] = [];
  #headBytes = 0;
  #tail: Uint8Array[] = [];
  #tailBytes = 0;
  #total = 0;
  #changed = false;
  #wake: (() => void) | undefined;

  /** @param budget Bytes the call's result keeps of a stream (`stdoutMaxBytes`). */
  constructor(budget: number) {
    this.#headLimit = Math.floor(budget / 2);
    this.#tailLimit = budget - this.#headLimit;
  }

  /** Takes a chunk of either stream (the observer's copy). */
  readonly push = (chunk: Uint8Array): void => {
    this.#total += chunk.length;
    const room = Math.max(0, this.#headLimit - this.#headBytes);
    if (room > 0) {
      const head = chunk.slice(0, room);
      this.#head.push(head);
      this.#headBytes += head.length;
    }
    const rest = chunk.subarray(Math.min(room, chunk.length));
    if (rest.length > 0) this.#keepTail(rest);
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
    const decoder = new TextDecoder();
    const head = decoder.decode(concat(this.#head, this.#headBytes), { stream: this.#tailBytes > 0 });
    if (this.#tailBytes === 0) return stripControlSequences(head);
    const tail = concat(this.#tail, this.#tailBytes);
    let start = 0;
    while (start < tail.length && start < 3 && (tail[start] & 0xc0) === 0x80) start++;
    const left = this.#total - this.#headBytes - this.#tailBytes;
    const note = left > 0 ? `\n[... ${left} bytes left out ...]\n` : "";
    return stripControlSequences(head + note + new TextDecoder().decode(tail.subarray(start)));
  }

  #keepTail(bytes: Uint8Array): void {
    this.#tail.push(bytes.slice(Math.max(0, bytes.length - this.#tailLimit)));
    this.#tailBytes += Math.min(bytes.length, this.#tailLimit);
    while (this.#tail.length > 1 && this.#tailBytes - this.#tail[0].length >= this.#tailLimit) {
      this.#tailBytes -= this.#tail.shift()!.length;
    }
    const over = this.#tailBytes - this.#tailLimit;
    if (over > 0) {
      this.#tail[0] = this.#tail[0].subarray(over);
      this.#tailBytes -= over;
    }
  }
}

function concat(parts: Uint8Array[], length: number): Uint8Array {
  const all = new Uint8Array(length);
  let at = 0;
  for (const part of parts) {
    all.set(part, at);
    at += part.length;
  }
  return all;
}
