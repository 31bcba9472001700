/**
 * The runner of `http` hooks (Claude Code's `type: "http"`): the event
 * POSTed as JSON to the hook's URL, and the answer turned into the same
 * {@linkcode HookResult} a command hook gives, so the verdict phase reads
 * it unchanged. As Claude Code 2.1.328 does it (measured,
 * `tests/conformance.test.ts`):
 *
 * - the body is the payload's JSON (no newline), `content-type:
 *   application/json`, and the entry's `headers`, each `$NAME` or `${NAME}`
 *   in a value replaced by the variable's value when `allowedEnvVars`
 *   lists it, and by `""` when it does not;
 * - a 2xx answer is read as a command hook's stdout on exit 0 would be,
 *   except that a body which is not a JSON object is not context: it is a
 *   non-blocking error;
 * - any other status, a connection failure, the `timeout` and an abort are
 *   non-blocking errors.
 *
 * The request leaves from the host (with `fetch`), never through the
 * Shell: like the harness's own, it is not sandboxed and goes to the URL
 * as given. Redirects are not followed (a 3xx is a non-blocking error), so
 * the headers reach no other address: Claude Code 2.1.328 does not follow
 * a 307 either (measured). An answer is read up to
 * {@linkcode HTTP_BODY_MAX_BYTES}: Claude Code read and obeyed one past
 * 1 MiB (measured), so the command hooks' 1 MiB stdout budget would let a
 * deny through that the harness honours.
 *
 * @module
 */

import type { EnvPatch } from "../../seam/types.ts";
import { stdoutShape } from "./answer.ts";
import { answeredResult, failedResult } from "./result.ts";
import { HOOK_DEFAULTS } from "./command.ts";
import type { HookResult } from "./types.ts";

/** The longest `http` answer read (10 MiB); a longer one is a non-blocking error. */
const HTTP_BODY_MAX_BYTES = 10 * 1024 * 1024;

/** What {@linkcode runHttpHook} needs. */
export interface RunHttpHookOptions {
  /** Where the event is POSTed. */
  readonly url: string;
  /** Extra request headers; values may name variables (`$NAME`, `${NAME}`). */
  readonly headers?: Readonly<Record<string, string>>;
  /** The variables a header value may name; every other name becomes `""`. */
  readonly allowedEnvVars?: readonly string[];
  /** The event, sent as the body. */
  readonly payload: object;
  /** Timeout in ms (default 600 000). */
  readonly timeoutMs?: number;
  /** Aborts the request. */
  readonly signal?: AbortSignal;
  /**
   * Where header variables are read from: what a command hook would get
   * from the caller and the bridge (the caller's `env`, the hook
   * variables), never the host's ambient environment.
   */
  readonly env: EnvPatch;
}

/** A `$NAME` or `${NAME}` reference in a header value. */
const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)/g;

/**
 * POSTs the event and reads the answer. Never rejects: every failure is a
 * `non-blocking-error` result with a `reason`.
 */
export async function runHttpHook(options: RunHttpHookOptions): Promise<HookResult> {
  const started = Date.now();
  const timeoutMs = options.timeoutMs ?? HOOK_DEFAULTS.timeoutMs;
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(), timeoutMs);
  const signals = options.signal === undefined ? [timeout.signal] : [timeout.signal, options.signal];
  const failed = (reason: string, timedOut = false): HookResult => failedResult(reason, started, timedOut);
  try {
    if (options.signal?.aborted) return failed("aborted before the hook started");
    let response: Response;
    let body: { text: string; truncated: boolean };
    try {
      response = await fetch(options.url, {
        method: "POST",
        headers: { ...interpolated(options), "content-type": "application/json" },
        body: JSON.stringify(options.payload),
        redirect: "manual",
        signal: AbortSignal.any(signals),
      });
      body = await readBody(response, HTTP_BODY_MAX_BYTES);
    } catch (error) {
      if (timeout.signal.aborted) return failed(`timed out after ${timeoutMs}ms`, true);
      if (options.signal?.aborted) return failed("aborted by the caller's signal");
      return failed(`could not reach the hook at ${options.url}: ${describe(error)}`);
    }
    if (response.status < 200 || response.status > 299) {
      const line = body.text.split("\n").find((text) => text.trim() !== "")?.trim().slice(0, 300);
      return failed(`HTTP ${response.status}${line === undefined ? "" : `: ${line}`}`);
    }
    if (body.truncated) return failed(`the response is longer than ${HTTP_BODY_MAX_BYTES} bytes`);
    const shape = stdoutShape(body.text);
    if (shape.kind === "text") return failed("the response is not a JSON object");
    return answeredResult(body.text, started);
  } finally {
    clearTimeout(timer);
  }
}

/** The entry's headers with their variables replaced; only `allowedEnvVars` are read. */
function interpolated(options: RunHttpHookOptions): Record<string, string> {
  const allowed = new Set(options.allowedEnvVars ?? []);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(options.headers ?? {})) {
    headers[name] = value.replace(REFERENCE, (_, braced: string | undefined, bare: string | undefined) => {
      const variable = (braced ?? bare) as string;
      const found = allowed.has(variable) && Object.hasOwn(options.env, variable) ? options.env[variable] : undefined;
      return found ?? "";
    });
  }
  return headers;
}

/** The response body as text, at most `limit` bytes of it. */
async function readBody(response: Response, limit: number): Promise<{ text: string; truncated: boolean }> {
  if (response.body === null) return { text: "", truncated: false };
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      return { text: "", truncated: true };
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return { text: new TextDecoder().decode(bytes), truncated: false };
}

/** An error in one line, with its cause (fetch puts the socket's error there). */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as { cause?: unknown }).cause;
  return cause instanceof Error ? `${error.message} (${cause.message})` : error.message;
}
