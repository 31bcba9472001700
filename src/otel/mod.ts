/**
 * OpenTelemetry spans for a shell's commands: {@linkcode traceShell} turns
 * `shell.events` into one span per command, through `@opentelemetry/api`
 * (an optional peer dependency of the npm package: install it to use this
 * entry; nothing else of the library imports it, so without it there are
 * no spans and no cost). The spans carry OpenTelemetry's semantic
 * conventions for a process (`process.command`, `process.args_count`,
 * `process.pid`, `process.exit.code`, `process.working_directory`,
 * `process.creation.time`, `process.exit.time`, and `error.type`), and
 * `process.command_args` on request (it is opt-in in the conventions: a
 * command line can hold a secret); the rest is under `dsh.*`.
 *
 * @example
 * ```ts
 * import { createLocalShell } from "@dsh/shell";
 * import { traceShell } from "@dsh/shell/otel";
 * import { trace } from "@opentelemetry/api";
 * import assert from "node:assert/strict";
 * await using shell = createLocalShell();
 * // With no tracer provider registered the API's tracer records nothing: the call is safe either way.
 * const stop = traceShell(shell, { tracer: trace.getTracer("my-harness") });
 * assert.equal((await shell.exec("echo traced")).stdout.text, "traced\n");
 * stop();
 * assert.equal(shell.events.hasSubscribers, false);
 * ```
 *
 * @module
 */

import { SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import type { Shell, ShellEvent } from "../seam/types.ts";
import {
  type CommandArgs,
  endAttributes,
  endFailure,
  errorAttributes,
  spanName,
  startAttributes,
} from "./attributes.ts";

/**
 * The part of an OpenTelemetry `Tracer` that {@linkcode traceShell} uses:
 * every `Tracer` of `@opentelemetry/api` is one. Typed here, narrowly, so
 * that this entry's types do not depend on the API's internals.
 *
 * @example
 * ```ts
 * import type { ShellTracer } from "@dsh/shell/otel";
 * import { trace } from "@opentelemetry/api";
 * const tracer: ShellTracer = trace.getTracer("my-harness");
 * ```
 */
export interface ShellTracer {
  /** Starts a span (`Tracer.startSpan`). */
  startSpan(name: string, options?: {
    kind?: number;
    startTime?: number;
    attributes?: Record<string, string | number | boolean | string[]>;
  }): ShellSpan;
}

/**
 * The part of an OpenTelemetry `Span` that {@linkcode traceShell} uses.
 *
 * @example
 * ```ts
 * import type { ShellSpan } from "@dsh/shell/otel";
 * import { trace } from "@opentelemetry/api";
 * const span: ShellSpan = trace.getTracer("my-harness").startSpan("x");
 * span.end();
 * ```
 */
export interface ShellSpan {
  /** Adds attributes. */
  setAttributes(attributes: Record<string, string | number | boolean | string[]>): unknown;
  /** Sets the status (`SpanStatusCode`). */
  setStatus(status: { code: number; message?: string }): unknown;
  /** Records an exception. */
  recordException(exception: Error): void;
  /** Ends the span, at `endTime` (ms since the epoch). */
  end(endTime?: number): void;
}

/**
 * How {@linkcode traceShell} makes its spans.
 *
 * @example
 * ```ts
 * import type { TraceShellOptions } from "@dsh/shell/otel";
 * // Record the argv, with anything after --token masked.
 * const options: TraceShellOptions = {
 *   commandArgs: (argv) => argv.map((arg, i) => argv[i - 1] === "--token" ? "***" : arg),
 * };
 * ```
 */
export interface TraceShellOptions {
  /** The tracer; default `trace.getTracer("@dsh/shell")`, from the global tracer provider. */
  tracer?: ShellTracer;
  /**
   * `process.command_args`: `false` (default) leaves it out, `true` records
   * the argv as spawned (`[shell, "-c", command]` or `[program, ...args]`),
   * a function records what it returns for the argv (to mask secrets).
   */
  commandArgs?: boolean | ((argv: readonly string[]) => string[]);
}

/**
 * Makes a span of every command `shell` starts from now on, until the
 * returned function is called: started when the command is spawned (a
 * child of the context active in the call to `run()`, `exec()` or
 * `start()`), ended when it settles. Its status is `ERROR`, with
 * `error.type`, when we ended it (`timeout`, `abort`, `close`, `kill`),
 * when a signal of someone else's did (the signal's name), or when it never
 * ran (the error's code, and the error recorded as an exception); a
 * non-zero exit code alone leaves the status unset (`process.exit.code`
 * has it). Spans still open when the function is called are ended then.
 *
 * @example
 * ```ts
 * import { createLocalShell } from "@dsh/shell";
 * import { traceShell } from "@dsh/shell/otel";
 * await using shell = createLocalShell();
 * const stop = traceShell(shell, { commandArgs: true });
 * await shell.exec("true");
 * stop();
 * ```
 */
export function traceShell(shell: Shell, options?: TraceShellOptions): () => void {
  const tracer: ShellTracer = options?.tracer ?? trace.getTracer("@dsh/shell");
  const args: CommandArgs = options?.commandArgs ?? false;
  const open = new Map<number, ShellSpan>();
  const unsubscribe = shell.events.subscribe((event: ShellEvent) => {
    switch (event.type) {
      case "start":
        open.set(
          event.id,
          tracer.startSpan(spanName(event), {
            kind: SpanKind.INTERNAL,
            startTime: event.time,
            attributes: startAttributes(event, args),
          }),
        );
        return;
      case "end": {
        const span = open.get(event.id);
        if (span === undefined) return; // began before we subscribed
        open.delete(event.id);
        span.setAttributes(endAttributes(event));
        const failure = endFailure(event);
        if (failure !== undefined) span.setStatus({ code: SpanStatusCode.ERROR, message: `ended by ${failure}` });
        span.end(event.time);
        return;
      }
      case "error":
        failed(open, tracer, args, event);
        return;
    }
  });
  return () => {
    unsubscribe();
    for (const span of open.values()) span.end();
    open.clear();
  };
}

/** Ends the span of a command that never ran, or makes one when its spawn failed (no start came before). */
function failed(
  open: Map<number, ShellSpan>,
  tracer: ShellTracer,
  args: CommandArgs,
  event: Extract<ShellEvent, { type: "error" }>,
): void {
  let span = open.get(event.id);
  open.delete(event.id);
  span ??= tracer.startSpan(spanName(event), {
    kind: SpanKind.INTERNAL,
    startTime: event.time - event.durationMs,
    attributes: startAttributes(event, args),
  });
  span.setAttributes(errorAttributes(event));
  span.recordException(event.error);
  span.setStatus({ code: SpanStatusCode.ERROR, message: event.error.message });
  span.end(event.time);
}
