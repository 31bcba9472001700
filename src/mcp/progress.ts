/**
 * Progress notifications for a call that asked for them (a
 * `progressToken`): the call's output, decoded, as the messages of
 * `notifications/progress`, the byte count so far as their `progress`.
 *
 * Bounded as the result is: of each stream the messages carry at most the
 * head the result keeps, then, once the call is over, the tail it keeps
 * after a note of how much was left out between — never more than
 * `budget` bytes of a stream, however much the command prints. At most
 * one notification per {@linkcode PROGRESS_INTERVAL_MS} (the last, sent
 * before the call answers, may come sooner), and never more than one sent
 * at a time: a transport that is slow to take them (a full pipe) holds the
 * next one back instead of piling up listeners.
 *
 * @module
 */

import { stripControlSequences } from "../tool/mod.ts";
import type { CallContext } from "./connection.ts";

/** The least time between two notifications of a call, in ms. */
export const PROGRESS_INTERVAL_MS = 100;

/** A `notifications/progress` of the call. */
export interface ProgressNotification {
  method: "notifications/progress";
  params: { progressToken: string | number; progress: number; message?: string };
}

/** What a stream's messages keep: the first half of the budget live, the last half at the end (as the collector). */
class StreamBound {
  readonly #name: string;
  readonly #headLimit: number;
  readonly #tailLimit: number;
  readonly #decoder = new TextDecoder();
  #headBytes = 0;
  #total = 0;
  #tail: Uint8Array[] = [];
  #tailBytes = 0;

  constructor(name: string, budget: number) {
    this.#name = name;
    this.#headLimit = Math.floor(budget / 2);
    this.#tailLimit = budget - this.#headLimit;
  }

  /** The text of `chunk` to send now (its part within the head), keeping the rest for the tail. */
  take(chunk: Uint8Array): string {
    this.#total += chunk.length;
    const room = this.#headLimit - this.#headBytes;
    const head = chunk.subarray(0, Math.max(0, room));
    this.#headBytes += head.length;
    const rest = chunk.subarray(head.length);
    if (rest.length > 0) this.#keepTail(rest);
    // A character cut at the head's end stays in the decoder, never half-sent.
    return head.length === 0 ? "" : this.#decoder.decode(head, { stream: true });
  }

  /** Once the stream is over: a note of what was left out and the tail, or "" when nothing was. */
  end(): string {
    if (this.#tailBytes === 0) return "";
    const tail = new Uint8Array(this.#tailBytes);
    let at = 0;
    for (const part of this.#tail) {
      tail.set(part, at);
      at += part.length;
    }
    const left = this.#total - this.#headBytes - tail.length;
    // The tail starts where a ring cut it: skip the continuation bytes of a character whose start went.
    let start = 0;
    while (start < tail.length && start < 3 && (tail[start] & 0xc0) === 0x80) start++;
    const note = left > 0 ? `\n[... ${left} bytes of ${this.#name} left out ...]\n` : "";
    return note + new TextDecoder().decode(tail.subarray(start));
  }

  #keepTail(bytes: Uint8Array): void {
    // A copy: the runtime may reuse the chunk's memory once the listener returns.
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

/**
 * The output listeners that report a call's output as progress, and
 * `end()`, which sends what is left (the tails, a note of what was left
 * out) and resolves once it is sent; after it the listeners are silent: a
 * background task goes on printing after its call has answered, and
 * progress for an answered request is a protocol error. Notifications that
 * cannot be sent (the client left) are dropped.
 *
 * @param budget Bytes of each stream the call's result keeps (`stdoutMaxBytes`).
 * @param keepControl Whether the messages keep terminal control sequences.
 */
export function progressListeners(
  token: string | number,
  budget: number,
  keepControl: boolean,
  send: (notification: ProgressNotification) => Promise<void>,
): { listeners: Pick<CallContext, "onStdout" | "onStderr">; end(): Promise<void> } {
  const streams = { stdout: new StreamBound("stdout", budget), stderr: new StreamBound("stderr", budget) };
  let bytes = 0;
  let reported = 0;
  let pending = "";
  let ended = false;
  let lastSentAt = -Infinity;
  let timer: ReturnType<typeof setTimeout> | undefined;
  // The one send in flight (or the last one): the next waits for it.
  let sending: Promise<void> = Promise.resolve();

  const flush = (): Promise<void> => {
    sending = sending.then(async () => {
      if (pending === "" && bytes === reported) return;
      const message = keepControl ? pending : stripControlSequences(pending);
      pending = "";
      reported = bytes;
      lastSentAt = performance.now();
      const params: ProgressNotification["params"] = { progressToken: token, progress: bytes };
      if (message !== "") params.message = message;
      await send({ method: "notifications/progress", params }).catch(() => {});
    });
    return sending;
  };

  const schedule = (): void => {
    if (timer !== undefined) return;
    const wait = Math.max(0, lastSentAt + PROGRESS_INTERVAL_MS - performance.now());
    timer = setTimeout(() => {
      timer = undefined;
      void flush().then(() => {
        // What arrived while that one was being sent waits its turn.
        if (!ended && (pending !== "" || bytes !== reported)) schedule();
      });
    }, wait);
  };

  const report = (stream: StreamBound) => (chunk: Uint8Array): void => {
    if (ended) return;
    bytes += chunk.length;
    pending += stream.take(chunk);
    schedule();
  };

  return {
    listeners: { onStdout: report(streams.stdout), onStderr: report(streams.stderr) },
    end: async () => {
      if (ended) return;
      ended = true;
      clearTimeout(timer);
      timer = undefined;
      pending += streams.stdout.end() + streams.stderr.end();
      await flush();
    },
  };
}
