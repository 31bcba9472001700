/**
 * The {@linkcode HookResult}s every runner builds the same way: a hook that
 * failed without output, and a hook that answered with a text read as a
 * command hook's stdout on exit 0 (the `http` and model runners).
 *
 * @module
 */

import { parseHookJson } from "./answer.ts";
import type { HookResult } from "./types.ts";

/** A `non-blocking-error` with no output, started at `started` (ms since the epoch). */
export function failedResult(reason: string, started: number, timedOut = false): HookResult {
  return {
    outcome: "non-blocking-error",
    exitCode: null,
    stdout: "",
    stderr: "",
    reason,
    timedOut,
    durationMs: Math.max(0, Date.now() - started),
  };
}

/** A `success` whose `stdout` is `text`, read as a command hook's stdout on exit 0 would be. */
export function answeredResult(text: string, started: number): HookResult {
  const json = parseHookJson(text);
  return {
    outcome: "success",
    exitCode: 0,
    stdout: text,
    stderr: "",
    ...(json === undefined ? {} : { json }),
    timedOut: false,
    durationMs: Math.max(0, Date.now() - started),
  };
}
