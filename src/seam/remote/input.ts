/**
 * A remote command's input before its command has started on the engine:
 * what is written to its open stdin is queued until then (a wrapper the
 * engine refused for want of room is started again, and what it was given
 * is lost), and on a terminal the header waits for the terminal wrapper's
 * ready line.
 *
 * @module
 */

import type { ChildInput } from "../adapter.ts";

/**
 * A remote command's open stdin: what is written before the command has
 * started on the engine is queued, and handed to the wrapper's client, in
 * order, once it has.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { PendingInput } from "./input.ts";
 * const input = new PendingInput();
 * await input.write(new TextEncoder().encode("a"));
 * input.end();
 * const seen: string[] = [];
 * input.attach({ write: async (bytes) => void seen.push(new TextDecoder().decode(bytes)), end: () => seen.push("end") });
 * assert.deepEqual(seen, ["a", "end"]);
 * ```
 */
export class PendingInput implements ChildInput {
  #target: ChildInput | undefined;
  #queue: Uint8Array[] = [];
  #ended = false;

  /** Writes `bytes`, or queues a copy of them until the command has started. */
  write(bytes: Uint8Array): Promise<void> {
    if (this.#target !== undefined) return this.#target.write(bytes);
    // A copy: the caller may reuse its buffer before the command starts.
    this.#queue.push(bytes.slice());
    return Promise.resolve();
  }

  /** Ends the input, or notes that it ends once the command has started. */
  end(): void {
    if (this.#target !== undefined) this.#target.end();
    else this.#ended = true;
  }

  /** From now on writes go to `target`, what was queued first. */
  attach(target: ChildInput): void {
    if (this.#target !== undefined) return;
    this.#target = target;
    for (const bytes of this.#queue) void target.write(bytes);
    this.#queue = [];
    if (this.#ended) target.end();
  }
}

/** What the terminal wrapper says once its terminal is raw: the header may be sent. */
const READY_LINE = "dsh-ready\n";

/**
 * Watches the start of a terminal wrapper's output for its ready line, and
 * calls `onReady` once (bounded).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ReadyLine } from "./input.ts";
 * let ready = 0;
 * const line = new ReadyLine(() => ready++);
 * line.push(new TextEncoder().encode("dsh-re"));
 * line.push(new TextEncoder().encode("ady\r\n"));
 * line.push(new TextEncoder().encode("dsh-ready\n"));
 * assert.equal(ready, 1);
 * ```
 */
export class ReadyLine {
  readonly #onReady: () => void;
  #seen = "";
  #done = false;

  constructor(onReady: () => void) {
    this.#onReady = onReady;
  }

  /** Reads the next chunk of the wrapper's output. */
  push(chunk: Uint8Array): void {
    if (this.#done) return;
    this.#seen = (this.#seen + new TextDecoder().decode(chunk)).slice(-4096);
    // Without stty on this machine the client's own terminal is raw only once the client made it so, and may still
    // turn "\n" into "\r\n" when the line comes (`startProcess`).
    if (!this.#seen.includes(READY_LINE) && !this.#seen.includes(READY_LINE.replace("\n", "\r\n"))) return;
    this.#done = true;
    this.#seen = "";
    this.#onReady();
  }
}
