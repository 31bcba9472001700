/**
 * `@dsh/shell/otel`: the spans `traceShell` makes through the real
 * `@opentelemetry/api`, recorded by a tracer written here (the API's
 * `Tracer` and `Span` contracts, nothing of an SDK): one span per command,
 * its name, kind, times, status and the semantic-convention attributes;
 * and the global tracer provider used when no tracer is given.
 */

import { afterEach, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import {
  type Attributes,
  type AttributeValue,
  type Context,
  type Exception,
  type Span,
  type SpanContext,
  SpanKind,
  type SpanOptions,
  type SpanStatus,
  SpanStatusCode,
  type TimeInput,
  trace,
  TraceFlags,
  type Tracer,
} from "@opentelemetry/api";
import { createLocalShell } from "../mod.ts";
import { traceShell } from "../src/otel/mod.ts";
import { rejection } from "./helpers/errors.ts";
import { repositoryRoot } from "./helpers/repository.ts";

/** A span as the test tracer keeps it. */
class RecordedSpan implements Span {
  name: string;
  readonly kind: SpanKind | undefined;
  readonly startTime: TimeInput | undefined;
  readonly attributes: Attributes;
  status: SpanStatus = { code: SpanStatusCode.UNSET };
  endTime: TimeInput | undefined;
  ended = false;
  readonly exceptions: Exception[] = [];

  constructor(name: string, options: SpanOptions | undefined) {
    this.name = name;
    this.kind = options?.kind;
    this.startTime = options?.startTime;
    this.attributes = { ...options?.attributes };
  }

  spanContext(): SpanContext {
    return { traceId: "0af7651916cd43dd8448eb211c80319c", spanId: "b7ad6b7169203331", traceFlags: TraceFlags.SAMPLED };
  }
  setAttribute(key: string, value: AttributeValue): this {
    this.attributes[key] = value;
    return this;
  }
  setAttributes(attributes: Attributes): this {
    Object.assign(this.attributes, attributes);
    return this;
  }
  addEvent(): this {
    return this;
  }
  addLink(): this {
    return this;
  }
  addLinks(): this {
    return this;
  }
  setStatus(status: SpanStatus): this {
    this.status = status;
    return this;
  }
  updateName(name: string): this {
    this.name = name;
    return this;
  }
  end(endTime?: TimeInput): void {
    assert.equal(this.ended, false, `span ${this.name} ended twice`);
    this.ended = true;
    this.endTime = endTime;
  }
  isRecording(): boolean {
    return !this.ended;
  }
  recordException(exception: Exception): void {
    this.exceptions.push(exception);
  }
}

/** A tracer that keeps every span it starts. */
class RecordingTracer implements Tracer {
  readonly spans: RecordedSpan[] = [];

  startSpan(name: string, options?: SpanOptions, _context?: Context): Span {
    const span = new RecordedSpan(name, options);
    this.spans.push(span);
    return span;
  }

  startActiveSpan<F extends (span: Span) => unknown>(name: string, ...rest: unknown[]): ReturnType<F> {
    const fn = rest.at(-1) as F;
    return fn(this.startSpan(name, typeof rest[0] === "object" ? rest[0] as SpanOptions : undefined)) as ReturnType<F>;
  }
}

describe("traceShell: one span per command, with the process conventions", () => {
  afterEach(() => {
    trace.disable();
  });

  it("a run: name, kind, start and end times, process.* attributes; command_args only when asked", async () => {
    const workdir = mkdtempSync(join(tmpdir(), "dsh-otel-"));
    try {
      await using shell = createLocalShell({ workdir, shell: "/bin/bash" });
      const tracer = new RecordingTracer();
      const stop = traceShell(shell, { tracer });
      let pid = 0;
      shell.events.subscribe((event) => {
        if (event.type === "start") pid = event.pid;
      });
      const result = await shell.exec("echo hi; exit 4", { owner: "agent-1", timeoutMs: 9_000 });
      stop();
      assert.equal(tracer.spans.length, 1);
      const [span] = tracer.spans;
      assert.equal(span.name, "run bash");
      assert.equal(span.kind, SpanKind.INTERNAL);
      assert.equal(span.ended, true);
      assert.equal(typeof span.startTime, "number");
      assert.ok((span.endTime as number) - (span.startTime as number) >= 0);
      const { "process.creation.time": created, "process.exit.time": exited, ...rest } = span.attributes;
      assert.match(String(created), /^\d{4}-\d\d-\d\dT.*Z$/);
      assert.match(String(exited), /^\d{4}-\d\d-\d\dT.*Z$/);
      assert.deepEqual(rest, {
        "process.command": "/bin/bash",
        "process.args_count": 3,
        "process.working_directory": workdir,
        "process.pid": pid,
        "process.exit.code": 4,
        "dsh.command.id": 1,
        "dsh.command.kind": "run",
        "dsh.owner": "agent-1",
        "dsh.timeout_ms": 9_000,
        "dsh.sandboxed": false,
        "dsh.end.cause": "exit",
        "dsh.stdout.bytes": 3,
        "dsh.stdout.truncated": false,
        "dsh.stderr.bytes": 0,
        "dsh.stderr.truncated": false,
      });
      assert.ok(pid > 0);
      assert.equal(result.exitCode, 4);
      assert.deepEqual(span.status, { code: SpanStatusCode.UNSET }, "a non-zero exit alone is no error");

      const withArgs = new RecordingTracer();
      const again = traceShell(shell, { tracer: withArgs, commandArgs: true });
      await shell.exec("printf", { args: ["%s", "x"] });
      const masked = new RecordingTracer();
      again();
      const third = traceShell(shell, { tracer: masked, commandArgs: (argv) => argv.map(() => "*") });
      await shell.exec("true");
      third();
      assert.deepEqual(withArgs.spans[0].attributes["process.command_args"], ["printf", "%s", "x"]);
      assert.equal(withArgs.spans[0].name, "run printf");
      assert.deepEqual(masked.spans[0].attributes["process.command_args"], ["*", "*", "*"]);
    } finally {
      rmSync(workdir, { recursive: true, force: true });
    }
  });

  it("ended by us: status ERROR with error.type the cause; a task's kill() the same", async () => {
    await using shell = createLocalShell({ graceMs: 200 });
    const tracer = new RecordingTracer();
    traceShell(shell, { tracer });
    await shell.exec("sleep 5", { timeoutMs: 100 });
    const task = shell.start(shell.resolve({ command: "sleep 6", owner: "o" }));
    task.kill();
    await task.done;
    const [timedOut, killed] = tracer.spans;
    assert.deepEqual(timedOut.status, { code: SpanStatusCode.ERROR, message: "ended by timeout" });
    assert.equal(timedOut.attributes["error.type"], "timeout");
    assert.equal(timedOut.attributes["dsh.signal"], "SIGTERM");
    assert.equal(timedOut.attributes["process.exit.code"], undefined);
    assert.equal(killed.name, "task bash"); // the default shell
    assert.equal(killed.attributes["error.type"], "kill");
    assert.equal(killed.attributes["dsh.task.id"], task.id);
    assert.equal(killed.attributes["dsh.timeout_ms"], undefined);
    assert.equal(killed.attributes["process.pid"], task.pid);
  });

  it("a spawn that fails: one span, ERROR, error.type its code, the exception recorded", async () => {
    await using shell = createLocalShell();
    const tracer = new RecordingTracer();
    traceShell(shell, { tracer });
    const error = await rejection(shell.exec("pwd", { workdir: "/nonexistent" }));
    assert.equal(tracer.spans.length, 1);
    const [span] = tracer.spans;
    assert.equal(span.ended, true);
    assert.equal(span.attributes["error.type"], "ERR_SHELL_SPAWN");
    assert.equal(span.attributes["process.pid"], undefined);
    assert.deepEqual(span.exceptions, [error]);
    assert.equal(span.status.code, SpanStatusCode.ERROR);
  });

  it("no tracer given: the global provider's, named @dsh/shell; unsubscribed, nothing more and open spans ended", async () => {
    const tracer = new RecordingTracer();
    const asked: string[] = [];
    trace.setGlobalTracerProvider({
      getTracer: (name: string) => {
        asked.push(name);
        return tracer;
      },
    });
    await using shell = createLocalShell();
    const stop = traceShell(shell);
    const task = shell.start(shell.resolve({ command: "sleep 5", owner: null }));
    stop();
    assert.deepEqual(asked, ["@dsh/shell"]);
    assert.equal(tracer.spans.length, 1);
    assert.equal(tracer.spans[0].ended, true, "the span still open was ended by stop()");
    assert.equal(shell.events.hasSubscribers, false);
    task.kill();
    await task.done;
    await shell.exec("true");
    assert.equal(tracer.spans.length, 1);
  });
});

describe("@opentelemetry/api is the otel entry's alone", () => {
  it("no module of the library outside src/otel/ imports it: a harness without it loads nothing of it", () => {
    const root = repositoryRoot();
    const importers: string[] = [];
    const check = (path: string): void => {
      if (/from\s+"(npm:)?@opentelemetry\/api/.test(readFileSync(path, "utf8"))) importers.push(relative(root, path));
    };
    const walk = (dir: string): void => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) walk(path);
        else if (entry.name.endsWith(".ts")) check(path);
      }
    };
    check(join(root, "mod.ts"));
    walk(join(root, "src"));
    assert.deepEqual(importers.sort(), ["src/otel/mod.ts"]);
  });
});
