/**
 * `shell.events`: what an audit log learns of every command — its start
 * (with a pid that really is the command's, read from /proc while the
 * listener runs), its end (who ended it, the exit code or signal, the
 * duration, what was cut and where it was spilled) or its error (a spawn
 * that failed, a sandbox that refused) — for `run`, `exec` and tasks, on
 * this machine and over SSH; and that a listener that throws changes
 * nothing for the command.
 */

import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { createLocalShell, createShell, type Shell, type ShellEvent } from "../mod.ts";
import { sshEngine } from "../src/engines/mod.ts";
import { rejection } from "./helpers/errors.ts";
import { sandboxSkip } from "./helpers/sandbox.ts";
import { SSH_USER, SshDaemon, sshUnavailable } from "./helpers/ssh_daemon.ts";

/** A command's event: what these tests record (the file events are `files.test.ts`'s). */
type CommandEvent = Exclude<ShellEvent, { type: "file" }>;

/** Subscribes a recorder to `shell`: every command event, in order. */
function record(shell: Shell): CommandEvent[] {
  const events: CommandEvent[] = [];
  shell.events.subscribe((event) => {
    if (event.type !== "file") events.push(event);
  });
  return events;
}

/** The event of `type` in `events`, which must be there. */
function one<T extends CommandEvent["type"]>(events: CommandEvent[], type: T): Extract<ShellEvent, { type: T }> {
  const found = events.filter((event) => event.type === type);
  assert.equal(found.length, 1, `one ${type} event in ${JSON.stringify(events.map((e) => e.type))}`);
  return found[0] as Extract<ShellEvent, { type: T }>;
}

describe("shell.events on this machine", () => {
  it("a run: a start whose pid is the running command, then an end with its code and duration, before run() resolves", async () => {
    await using shell = createLocalShell({ shell: "/bin/bash" });
    const order: string[] = [];
    let cmdline = "";
    shell.events.subscribe((event) => {
      order.push(event.type);
      // Synchronous with the start: the process is there to be read.
      if (event.type === "start") cmdline = readFileSync(`/proc/${event.pid}/cmdline`, "utf8");
    });
    const result = await shell.exec("sleep 0.05; exit 7", { owner: "agent-1" });
    order.push("resolved");
    assert.deepEqual(order, ["start", "end", "resolved"]);
    assert.equal(cmdline, "/bin/bash\0-c\0sleep 0.05; exit 7\0");
    assert.equal(result.exitCode, 7);
  });

  it("the fields: the same command in start and end, the argv as spawned, the end's outcome", async () => {
    const workdir = mkdtempSync(join(tmpdir(), "dsh-events-"));
    try {
      await using shell = createLocalShell({ workdir, shell: "/bin/bash" });
      const events = record(shell);
      const result = await shell.exec("printf", { args: ["%s-%s", "a", "b"], owner: "o", timeoutMs: 4_000 });
      const start = one(events, "start");
      const end = one(events, "end");
      const common = {
        id: 1,
        kind: "run",
        owner: "o",
        command: "printf",
        args: ["%s-%s", "a", "b"],
        argv: ["printf", "%s-%s", "a", "b"],
        workdir,
        timeoutMs: 4_000,
        sandboxed: false,
      };
      assert.deepEqual({ ...start, time: 0, pid: 0 }, { ...common, type: "start", time: 0, pid: 0 });
      assert.ok(start.pid > 0);
      assert.deepEqual({ ...end, time: 0 }, {
        ...common,
        type: "end",
        time: 0,
        pid: start.pid,
        exitCode: 0,
        signal: null,
        cause: "exit",
        durationMs: result.durationMs,
        stdout: { totalBytes: 3, truncated: false },
        stderr: { totalBytes: 0, truncated: false },
      });
      assert.ok(end.time >= start.time);
      await shell.exec("true");
      assert.deepEqual(events.map((event) => event.id), [1, 1, 2, 2]);
    } finally {
      rmSync(workdir, { recursive: true, force: true });
    }
  });

  it("who ended it: the timeout, the caller's signal, close(), a task's kill(), or the command itself", async () => {
    const shell = createLocalShell({ graceMs: 200 });
    const events = record(shell);
    const ends = (): Record<string, string> =>
      Object.fromEntries(
        events.flatMap((event) => event.type === "end" ? [[event.taskId ?? event.command, event.cause]] : []),
      );

    await shell.exec("sleep 5", { timeoutMs: 100 });
    const controller = new AbortController();
    const aborted = shell.exec("sleep 6", { signal: controller.signal });
    const killed = shell.start(shell.resolve({ command: "sleep 7", owner: null }));
    const closed = shell.start(shell.resolve({ command: "sleep 8", owner: null }));
    // Its own signal came first, then close(): still "abort".
    const abortedThenClosed = new AbortController();
    const both = shell.start(shell.resolve({ command: "sleep 9", owner: null, signal: abortedThenClosed.signal }));
    await shell.exec("exit 0");
    controller.abort();
    await aborted;
    assert.equal(killed.kill(), true);
    await killed.done;
    abortedThenClosed.abort();
    await both.done;
    await shell.close();
    await closed.done;
    assert.deepEqual(ends(), {
      "sleep 5": "timeout",
      "sleep 6": "abort",
      [killed.id]: "kill",
      [both.id]: "abort",
      [closed.id]: "close",
      "exit 0": "exit",
    });
    const timedOut = events.find((event) => event.type === "end" && event.command === "sleep 5");
    assert.equal(timedOut?.type === "end" && timedOut.signal, "SIGTERM");
    const task = events.find((event) => event.type === "start" && event.taskId === killed.id);
    assert.equal(task?.kind, "task");
    assert.equal(task?.timeoutMs, undefined, "a task has no timeout");
    assert.equal(task?.pid, killed.pid);
  });

  it("truncated and spilled: the end says so per stream, with the spill file that holds the whole stream", async () => {
    const spillDir = mkdtempSync(join(tmpdir(), "dsh-events-spill-"));
    try {
      await using shell = createLocalShell({ maxOutputBytes: 1_000, spillDir });
      const events = record(shell);
      await shell.exec("seq 1 10000; echo small >&2");
      const end = one(events, "end");
      assert.equal(end.stdout.truncated, true);
      assert.equal(end.stdout.totalBytes, 48_894);
      assert.equal(statSync(end.stdout.spillPath ?? "").size, 48_894);
      assert.deepEqual(end.stderr, { totalBytes: 6, truncated: false });
    } finally {
      rmSync(spillDir, { recursive: true, force: true });
    }
  });

  it("a spawn that fails: one error event (no start), with the error run() rejects with; a task's the same", async () => {
    await using shell = createLocalShell();
    const events = record(shell);
    const error = await rejection(shell.exec("pwd", { workdir: "/nonexistent" }));
    assert.deepEqual(events.map((event) => event.type), ["error"]);
    const failed = one(events, "error");
    assert.equal(failed.error, error);
    assert.equal(failed.error.code, "ERR_SHELL_SPAWN");
    assert.equal(failed.pid, null);
    const task = shell.start(shell.resolve({ command: "nonexistent-program-dsh", args: [], owner: null }));
    assert.equal(task.status, "killed");
    const last = events.at(-1);
    assert.equal(last?.type === "error" && last.taskId, task.id);
    assert.equal(events.length, 2);
  });

  it("nothing is refused before the spawn reports: an invalid spec, a closed shell have no events", async () => {
    const shell = createLocalShell();
    const events = record(shell);
    assert.throws(() => shell.resolve({ command: "ls", owner: null, timeoutMs: -1 }));
    await shell.close();
    await rejection(shell.exec("true"));
    assert.deepEqual(events, []);
  });

  it("a listener that throws or rejects: the command, the other listeners and later events go on; onError has it", async () => {
    await using shell = createLocalShell();
    const errors: [string, string][] = [];
    const seen: string[] = [];
    shell.events.subscribe(() => {
      throw new Error("sync");
    }, { onError: (error, event) => errors.push([(error as Error).message, event.type]) });
    shell.events.subscribe(() => Promise.reject(new Error("async")), {
      onError: (error, event) => errors.push([(error as Error).message, event.type]),
    });
    shell.events.subscribe(() => {
      throw new Error("nobody hears");
    }, {
      onError: () => {
        throw new Error("onError throws too");
      },
    });
    shell.events.subscribe((event) => {
      seen.push(event.type);
    });
    const result = await shell.exec("echo fine");
    assert.equal(result.stdout.text, "fine\n");
    await shell.exec("true");
    assert.deepEqual(seen, ["start", "end", "start", "end"]);
    // The rejections are reported a microtask later.
    await new Promise((resolve) => setTimeout(resolve, 0));
    assert.deepEqual(errors.filter(([message]) => message === "sync").map(([, type]) => type), [
      "start",
      "end",
      "start",
      "end",
    ]);
    assert.equal(errors.filter(([message]) => message === "async").length, 4);
  });

  it("unsubscribed, or subscribed while a command runs: no start is seen for what began unwatched", async () => {
    await using shell = createLocalShell();
    const events: CommandEvent[] = [];
    const unsubscribe = shell.events.subscribe((event) => {
      if (event.type !== "file") events.push(event);
    });
    assert.equal(shell.events.hasSubscribers, true);
    unsubscribe();
    assert.equal(shell.events.hasSubscribers, false);
    await shell.exec("true");
    assert.equal(events.length, 0);
    const task = shell.start(shell.resolve({ command: "sleep 0.1", owner: null }));
    shell.events.subscribe((event) => {
      if (event.type !== "file") events.push(event);
    });
    await task.done;
    assert.equal(events.length, 0, "a command launched while nobody listened is not watched");
    assert.throws(() => shell.events.subscribe("nope" as never), TypeError);
  });

  it("watched, a launch is whole: a kept stdin takes writes, and a session carries its state", async () => {
    await using shell = createLocalShell();
    const events = record(shell);
    const task = shell.start(shell.resolve({ command: "cat", owner: null, keepStdin: true }));
    await task.write("typed\n");
    task.closeStdin();
    const result = await task.done;
    assert.equal(result.stdout.text, "typed\n");
    await using session = shell.session({ owner: "agent-1" });
    await session.exec("cd /usr && export MODE=dev");
    const carried = await session.exec('pwd; echo "$MODE"');
    assert.equal(carried.stdout.text, "/usr\ndev\n");
    assert.deepEqual(events.map((event) => `${event.type} ${event.kind}`), [
      "start task",
      "end task",
      "start run",
      "end run",
      "start run",
      "end run",
    ]);
  });

  it("a sandboxed shell: sandboxed and the denied hint on the end; a refusal to start is an error", {
    skip: sandboxSkip(),
  }, async () => {
    const base = mkdtempSync("/var/tmp/dsh-events-sandbox-");
    const root = join(base, "root");
    mkdirSync(root);
    const shell = createLocalShell({ workdir: base, graceMs: 300, sandbox: { writableRoots: [root] } });
    try {
      const events = record(shell);
      await shell.exec("touch /usr/dsh-denied");
      const end = one(events, "end");
      assert.equal(end.sandboxed, true);
      assert.equal(end.sandboxDenied, true);
      rmSync(root, { recursive: true });
      const error = await rejection(shell.exec("echo never"));
      const failed = one(events, "error");
      assert.equal(failed.error, error);
      assert.equal(failed.error.code, "ERR_SHELL_SANDBOX");
    } finally {
      await shell.close();
      rmSync(base, { recursive: true, force: true });
    }
  });
});

const sshMissing = sshUnavailable();
const REQUIRED = process.env.DSH_REQUIRE_ENGINES === "1";

describe("shell.events on the SSH engine", { skip: !REQUIRED && sshMissing }, () => {
  let sshd: SshDaemon;
  before(async () => {
    sshd = await SshDaemon.start();
  });
  after(async () => {
    await sshd?.stop();
  });

  it("start (pid 0: not known yet), then an end with the session's pid over there and the cause", async () => {
    const engine = sshEngine({
      host: "127.0.0.1",
      port: sshd.port,
      user: SSH_USER,
      identityFile: sshd.identityFile,
      knownHostsFile: sshd.knownHostsFile,
    });
    await using shell = createShell(engine, { workdir: "/", graceMs: 300 });
    const events = record(shell);
    // The pid a remote command is known by is its session's leader over there (the wrapper), as a task's `pid`.
    const result = await shell.exec("cut -d' ' -f6 /proc/$$/stat; exit 3");
    const start = one(events, "start");
    const end = one(events, "end");
    assert.equal(start.pid, 0);
    assert.equal(end.pid, Number(result.stdout.text.trim()));
    assert.deepEqual([end.exitCode, end.cause, end.argv.slice(1)], [3, "exit", [
      "-c",
      "cut -d' ' -f6 /proc/$$/stat; exit 3",
    ]]);
    await shell.exec("sleep 5", { timeoutMs: 200 });
    const last = events.at(-1);
    assert.equal(last?.type === "end" && last.cause, "timeout");
  });
});
