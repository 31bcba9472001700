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

import { BoundedOutput } from "../seam/bounded_output.ts";
import { stripControlSequences } from "../tool/mod.ts";
import type { CallContext } from "./connection.ts";

/** The least time between two notifications of a call, in ms. */
export const PROGRESS_INTERVAL_MS = 100;

/** A `notifications/progress` of the call. */
export interface ProgressNotification {
  method: "notifications/progress";
  params: { progressToken: string | number; progress: number; message?: string };
}

/** What a stream's messages keep: the head live, then the note and the tail at the end (as the result). */
class StreamBound {
  readonly #name: string;
  readonly #output: BoundedOutput;
  readonly #decoder = new TextDecoder();

  constructor(name: string, budget: number) {
    this.#name = name;
    this.#output = new BoundedOutput(budget);
  }

  /** The text of `chunk` to send now (its part within the head), keeping the rest for the tail. */
  take(chunk: Uint8Array): string {
    const head = this.#output.push(chunk);
    // A character cut at the head's end stays in the decoder, never half-sent.
    return head.length === 0 ? "" : this.#decoder.decode(head, { stream: true });
  }

  /** Once the stream is over: a note of what was left out and the tail, or "" when nothing went past the head. */
  end(): string {
    if (!this.#output.overflowed) return "";
    const left = this.#output.leftOut;
    const note = left > 0 ? `\n[... ${left} bytes of ${this.#name} left out ...]\n` : "";
    return note + new TextDecoder().decode(this.#output.tail());
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
