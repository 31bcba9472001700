/**
 * Progress notifications for a call that asked for them (a
 * `progressToken`): each chunk of output, decoded, as the message of one
 * `notifications/progress`, the byte count so far as its `progress`.
 *
 * @module
 */

import type { CallContext } from "./connection.ts";

/** A `notifications/progress` of the call. */
export interface ProgressNotification {
  method: "notifications/progress";
  params: { progressToken: string | number; progress: number; message: string };
}

/**
 * The output listeners that report a call's output as progress, and
 * `end()`, after which they are silent: a background task goes on printing
 * after its call has answered, and progress for an answered request is a
 * protocol error. Notifications that cannot be sent (the client left) are
 * dropped.
 */
export function progressListeners(
  token: string | number,
  send: (notification: ProgressNotification) => Promise<void>,
): { listeners: Pick<CallContext, "onStdout" | "onStderr">; end(): void } {
  let bytes = 0;
  let ended = false;
  // One decoder per stream: a character cut between two chunks of a stream is decoded once its end arrives.
  const report = (): (chunk: Uint8Array) => void => {
    const decoder = new TextDecoder();
    return (chunk) => {
      if (ended) return;
      bytes += chunk.length;
      const message = decoder.decode(chunk, { stream: true });
      send({ method: "notifications/progress", params: { progressToken: token, progress: bytes, message } })
        .catch(() => {});
    };
  };
  return {
    listeners: { onStdout: report(), onStderr: report() },
    end: () => void (ended = true),
  };
}
