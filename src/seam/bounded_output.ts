/**
 * A stream's output bounded as a call's result bounds it, for the views
 * that show it before the result exists (MCP progress, a framework's live
 * output): the first half of a byte budget as it comes, the last half
 * once it is asked for, and how much was left out between.
 *
 * @module
 */

import { concatBytes } from "./capture/bytes.ts";
import { TailRing } from "./capture/tail_ring.ts";
import { boundaryStartOffset } from "./capture/utf8.ts";

/**
 * The head (first half of the budget) and the tail (last half) of one
 * stream, or of both streams taken as one.
 *
 * @example Forty bytes into a budget of ten
 * ```ts
 * import assert from "node:assert/strict";
 * import { BoundedOutput } from "./bounded_output.ts";
 *
 * const output = new BoundedOutput(10);
 * const bytes = new TextEncoder().encode("0123456789".repeat(4));
 * assert.equal(new TextDecoder().decode(output.push(bytes)), "01234");
 * assert.equal(new TextDecoder().decode(output.head()), "01234");
 * assert.equal(new TextDecoder().decode(output.tail()), "56789");
 * assert.equal(output.leftOut, 30);
 * ```
 */
export class BoundedOutput {
  readonly #headLimit: number;
  readonly #tailLimit: number;
  #head: Uint8Array[] = [];
  #headBytes = 0;
  #tail: TailRing | undefined;
  #total = 0;

  /** @param budget Bytes of the stream the result keeps (`stdoutMaxBytes`): half for the head, half for the tail. */
  constructor(budget: number) {
    this.#headLimit = Math.floor(budget / 2);
    this.#tailLimit = budget - this.#headLimit;
  }

  /**
   * Takes a chunk (copied: a runtime may reuse its memory once the
   * listener returns) and returns the part of it the head kept, possibly
   * empty; the rest goes to the tail.
   */
  push(chunk: Uint8Array): Uint8Array {
    this.#total += chunk.length;
    const room = Math.max(0, this.#headLimit - this.#headBytes);
    const head = chunk.slice(0, room);
    if (head.length > 0) {
      this.#head.push(head);
      this.#headBytes += head.length;
    }
    if (chunk.length > head.length && this.#tailLimit > 0) {
      this.#tail ??= new TailRing(this.#tailLimit);
      this.#tail.write(chunk.subarray(head.length));
    }
    return head;
  }

  /** Whether anything went past the head. */
  get overflowed(): boolean {
    return this.#total > this.#headBytes;
  }

  /** The head's bytes, in one array (not to be changed: with one chunk it is that chunk). */
  head(): Uint8Array {
    return concatBytes(this.#head);
  }

  /**
   * The tail's bytes, starting on a character boundary: the continuation
   * bytes of a character whose start the ring cut off are skipped.
   */
  tail(): Uint8Array {
    const held = this.#tail?.toBytes() ?? new Uint8Array(0);
    return held.subarray(boundaryStartOffset(held));
  }

  /** How many bytes neither the head nor the ring holds. */
  get leftOut(): number {
    return this.#total - this.#headBytes - (this.#tail?.size ?? 0);
  }
}
