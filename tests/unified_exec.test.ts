/**
 * The unified-exec tools (`exec_command`, `write_stdin`, Codex's names):
 * the answer's form, a program kept running and read by polls, typing into
 * a terminal's program (a prompt answered, Ctrl-C), the owner check, the
 * output cap, bad inputs, and the program's end when the call's signal
 * aborts or the shell closes — checked in /proc.
 */

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import {
  execCommandTool,
  executeExecCommandTool,
  executeWriteStdinTool,
  unifiedExecTools,
  writeStdinTool,
} from "../src/tool/mod.ts";
import { createLocalShell } from "../mod.ts";
import { shQuote } from "./helpers/bash.ts";
import { runningWithEnv } from "./helpers/proc.ts";
import { withShell } from "./helpers/shell.ts";
import { appeared, eventually } from "./helpers/wait.ts";

const POLL_MS = 15_000;
const context = { owner: "agent-1" };

/** The lines of an answer before `Output:`, and the output after it. */
function parts(text: string): { head: string[]; output: string } {
  const at = text.indexOf("\nOutput:\n");
  assert.ok(at >= 0, `no Output: section in ${JSON.stringify(text)}`);
  return { head: text.slice(0, at).split("\n"), output: text.slice(at + "\nOutput:\n".length) };
}

/**
 * The output of `first` and of polls after it, until it matches `pattern`
 * (a loaded machine may start a program later than a yield): the polls wait
 * for it, never the test's timing.
 */
async function programOutputUntil(
  shell: Parameters<typeof executeWriteStdinTool>[0],
  first: { text: string; sessionId?: number },
  pattern: RegExp,
): Promise<string> {
  let seen = parts(first.text).output;
  const deadline = Date.now() + POLL_MS;
  while (!pattern.test(seen) && Date.now() < deadline) {
    const next = await executeWriteStdinTool(shell, { session_id: first.sessionId, yield_time_ms: 100 }, context);
    assert.equal(next.isError, false, next.text);
    seen += parts(next.text).output;
  }
  assert.match(seen, pattern);
  return seen;
}

describe("exec_command", () => {
  it("answers a program that ended in Codex's form, its stdout and stderr in the order they came", async () => {
    await withShell({}, async (shell) => {
      const outcome = await executeExecCommandTool(shell, {
        // Two pipes have no order of their own: the order is the host's reading. The pauses leave the host time to
        // read each line before the next is written (0.05 s and none were too short at load 30); nothing in the
        // command can learn that the host has read a line, so a pause is all there is.
        cmd: "echo one; sleep 0.5; echo two >&2; sleep 0.5; echo three; exit 3",
        yield_time_ms: 10_000,
      }, context);
      const { head, output } = parts(outcome.text);
      assert.match(head[0], /^Wall time: \d+\.\d{4} seconds$/);
      assert.equal(head[1], "Process exited with code 3");
      assert.equal(head.length, 2);
      assert.equal(output, "one\ntwo\nthree\n");
      assert.equal(outcome.exitCode, 3);
      assert.equal(outcome.sessionId, undefined);
      assert.equal(outcome.isError, false);
    });
  });

  it("keeps a program that is still running for write_stdin polls, and forgets it once it has said it ended", async () => {
    await withShell({}, async (shell, dir) => {
      const go = join(dir, "go");
      const started = await executeExecCommandTool(shell, {
        cmd: `echo first; while [ ! -e ${shQuote(go)} ]; do sleep 0.02; done; echo second`,
        yield_time_ms: 300,
      }, context);
      const id = started.sessionId;
      assert.equal(typeof id, "number");
      assert.match(started.text, new RegExp(`^Process running with session ID ${id}$`, "m"));
      assert.equal(await programOutputUntil(shell, started, /first\n/), "first\n");
      const quiet = await executeWriteStdinTool(shell, { session_id: id, yield_time_ms: 50 }, context);
      assert.equal(parts(quiet.text).output, "");
      assert.equal(quiet.sessionId, id);
      writeFileSync(go, "");
      const last = await executeWriteStdinTool(shell, { session_id: id, yield_time_ms: 10_000 }, context);
      assert.equal(parts(last.text).output, "second\n");
      assert.equal(last.exitCode, 0);
      assert.equal(last.sessionId, undefined);
      const gone = await executeWriteStdinTool(shell, { session_id: id }, context);
      assert.equal(gone.isError, true);
      assert.match(gone.text, /no running program with session ID/);
    });
  });

  it("Wall time is the call's own time, not the program's age (as Codex counts it)", async () => {
    await withShell({}, async (shell) => {
      const started = await executeExecCommandTool(shell, { cmd: "sleep 30", yield_time_ms: 300 }, context);
      const wall = (text: string): number => Number(/^Wall time: ([\d.]+) seconds$/m.exec(text)?.[1]);
      const before = performance.now();
      const polled = await executeWriteStdinTool(shell, { session_id: started.sessionId, yield_time_ms: 0 }, context);
      const outside = (performance.now() - before) / 1000;
      // The program has run for 0.3 s and more; this call took what it took, which is all its answer may count.
      assert.ok(wall(polled.text) <= outside + 0.0001, `${wall(polled.text)} s said, ${outside} s taken`);
    });
  });

  it("without a terminal the program has no input, and typing into it is refused in Codex's words", async () => {
    await withShell({}, async (shell) => {
      const started = await executeExecCommandTool(shell, {
        cmd: "[ -t 0 ] && echo tty || echo no-tty; cat; echo eof; sleep 30",
        yield_time_ms: 300,
      }, context);
      assert.equal(await programOutputUntil(shell, started, /eof\n/), "no-tty\neof\n");
      const typed = await executeWriteStdinTool(shell, { session_id: started.sessionId, chars: "x\n" }, context);
      assert.equal(typed.isError, true);
      assert.equal(
        typed.text,
        "[error] stdin is closed for this session; rerun exec_command with tty=true to keep stdin open",
      );
    });
  });
});

describe("write_stdin on a terminal", () => {
  it("answers a python3 prompt, and the program sees a terminal", async () => {
    await withShell({}, async (shell) => {
      const started = await executeExecCommandTool(shell, {
        cmd: `python3 -c 'import os, sys; print("tty", os.isatty(0)); n = input("name? "); print("hi", n)'`,
        tty: true,
        yield_time_ms: 1_000,
      }, context);
      assert.match(await programOutputUntil(shell, started, /name\? $/), /tty True\r?\nname\? $/);
      const answered = await executeWriteStdinTool(shell, {
        session_id: started.sessionId,
        chars: "Ada\n",
        yield_time_ms: 10_000,
      }, context);
      assert.equal(answered.exitCode, 0);
      // The terminal echoes what was typed, then the program's answer.
      assert.match(parts(answered.text).output, /Ada\r?\nhi Ada\r?\n$/);
    });
  });

  it('"\\u0003" is Ctrl-C: it interrupts the foreground program', async () => {
    await withShell({}, async (shell) => {
      const started = await executeExecCommandTool(shell, {
        cmd: `python3 -c '
import time
try:
    print("ready", flush=True)
    time.sleep(100)
except KeyboardInterrupt:
    print("interrupted")
'`,
        tty: true,
        yield_time_ms: 1_000,
      }, context);
      await programOutputUntil(shell, started, /ready/);
      const stopped = await executeWriteStdinTool(shell, {
        session_id: started.sessionId,
        chars: "\u0003",
        yield_time_ms: 10_000,
      }, context);
      assert.match(parts(stopped.text).output, /interrupted/);
      assert.equal(stopped.exitCode, 0);
    });
  });
});

describe("owners, caps and inputs", () => {
  it("another owner's program gets the same answer as an unknown one", async () => {
    await withShell({}, async (shell) => {
      const started = await executeExecCommandTool(shell, { cmd: "sleep 30", yield_time_ms: 0 }, context);
      const stranger = await executeWriteStdinTool(shell, { session_id: started.sessionId, chars: "" }, {
        owner: "agent-2",
      });
      const unknown = await executeWriteStdinTool(shell, { session_id: 1 }, { owner: "agent-2" });
      assert.equal(stranger.isError, true);
      assert.equal(stranger.text, unknown.text.replace("session ID 1 ", `session ID ${started.sessionId} `));
      assert.equal((await executeWriteStdinTool(shell, { session_id: started.sessionId }, context)).isError, false);
    });
  });

  it("each shell has its own programs: one's id is unknown to another, whose programs outlive the first's close()", async () => {
    const mark = `unified-shells-${process.pid}-${Date.now()}`;
    await withShell({}, async (one) => {
      await withShell({}, async (two) => {
        // The same owner on both: what keeps the programs apart is the shell.
        const start = (shell: typeof one, name: string) =>
          executeExecCommandTool(
            shell,
            { cmd: `export MARK=${mark}-${name}; exec cat`, tty: true, yield_time_ms: 0 },
            context,
          );
        const first = await start(one, "one");
        let second = await start(two, "two");
        // Ids are random: two equal ones would prove nothing, so start another (and leave the first to close()).
        while (second.sessionId === first.sessionId) second = await start(two, "two");
        assert.ok(first.sessionId !== undefined && second.sessionId !== undefined, `${first.text}\n${second.text}`);
        assert.ok(await eventually(() => runningWithEnv("MARK", `${mark}-one`).length === 1, POLL_MS));
        assert.ok(await eventually(() => runningWithEnv("MARK", `${mark}-two`).length >= 1, POLL_MS));

        for (const [shell, id] of [[two, first.sessionId], [one, second.sessionId]] as const) {
          const unknown = await executeWriteStdinTool(shell, { session_id: 1 }, context);
          const across = await executeWriteStdinTool(shell, { session_id: id, chars: "typed\n" }, context);
          assert.equal(across.isError, true, across.text);
          assert.equal(across.text, unknown.text.replace("session ID 1 ", `session ID ${id} `));
        }

        await one.close();
        assert.deepEqual(runningWithEnv("MARK", `${mark}-one`), []);
        assert.ok(runningWithEnv("MARK", `${mark}-two`).length >= 1, "the other shell's program still runs");
        const typed = await executeWriteStdinTool(two, {
          session_id: second.sessionId,
          chars: "ping\n",
          yield_time_ms: 0,
        }, context);
        assert.equal(typed.isError, false, typed.text);
        assert.equal(typed.sessionId, second.sessionId);
        await programOutputUntil(two, typed, /ping/);
      });
    });
  });

  it("a shell's ended programs are its own to forget: another's, however many, do not push them out", async () => {
    /** Starts `sleep 60` as a program of `shell`, ends it behind the tool's back, and returns its id, unanswered. */
    const endedProgram = async (shell: Parameters<typeof executeExecCommandTool>[0]): Promise<number> => {
      const started = await executeExecCommandTool(shell, { cmd: "sleep 60", yield_time_ms: 0 }, context);
      assert.ok(started.sessionId !== undefined, started.text);
      const [task] = shell.tasks(context.owner).filter((task) => task.status === "running");
      task.kill();
      await task.done;
      return started.sessionId;
    };
    await withShell({}, async (one) => {
      await withShell({}, async (two) => {
        const mine = await endedProgram(one);
        // A shell keeps 64 ended programs nobody read again for a last answer, and forgets the oldest past that when
        // it starts another: here the other shell fills its own 64, then starts one more.
        for (let i = 0; i < 64; i++) await endedProgram(two);
        await executeExecCommandTool(two, { cmd: "true", yield_time_ms: 0 }, context);
        const last = await executeWriteStdinTool(one, { session_id: mine }, context);
        assert.equal(last.isError, false, last.text);
        // SIGKILL only if a loaded machine kept sleep from dying of its SIGTERM within the grace.
        assert.match(last.text, /^Process ended by signal SIG(TERM|KILL) \(stopped\)$/m);
      });
    });
  });

  it("max_output_tokens keeps the start and the end of long output, and says how long it was", async () => {
    await withShell({}, async (shell) => {
      const outcome = await executeExecCommandTool(shell, {
        cmd: "echo START; head -c 100000 /dev/zero | tr '\\0' x; echo; echo END",
        max_output_tokens: 100,
      }, context);
      const { head, output } = parts(outcome.text);
      assert.ok(head.includes(`Original token count: ${Math.ceil((6 + 100_001 + 4) / 4)}`), head.join("|"));
      assert.ok(output.startsWith("START\nxxx"));
      assert.ok(output.endsWith("xxx\nEND\n"));
      assert.ok(new TextEncoder().encode(output).length < 100 * 4 + 100);
      assert.match(output, /\[\.\.\. \d+ bytes \(about \d+ tokens\) cut \.\.\.\]/);
    });
  });

  it("refuses bad inputs by name, and the definitions say what they take", async () => {
    await withShell({}, async (shell) => {
      const wrongName = await executeExecCommandTool(shell, { command: "ls" }, context);
      assert.equal(wrongName.isError, true);
      assert.match(wrongName.text, /^command is not an input of the exec_command tool: the command line is `cmd`/);
      const noCmd = await executeExecCommandTool(shell, { cmd: "" }, context);
      assert.match(noCmd.text, /^cmd: must be a non-empty string/);
      const badId = await executeWriteStdinTool(shell, { session_id: "12" }, context);
      assert.match(badId.text, /^session_id: must be the number/);
      const badYield = await executeExecCommandTool(shell, { cmd: "true", yield_time_ms: -1 }, context);
      assert.match(badYield.text, /^yield_time_ms: must be a number of milliseconds/);
      assert.deepEqual(unifiedExecTools.map((tool) => tool.name), ["exec_command", "write_stdin"]);
      assert.deepEqual(Object.keys(execCommandTool.inputSchema.properties), [
        "cmd",
        "workdir",
        "tty",
        "yield_time_ms",
        "max_output_tokens",
      ]);
      assert.deepEqual(Object.keys(writeStdinTool.inputSchema.properties), [
        "session_id",
        "chars",
        "yield_time_ms",
        "max_output_tokens",
      ]);
    });
  });
});

describe("a program's end", () => {
  it("the call's signal, when it aborts, ends the program and everything it started", async () => {
    await withShell({}, async (shell, dir) => {
      const mark = `unified-abort-${process.pid}-${Date.now()}`;
      const up = join(dir, "up");
      const turn = new AbortController();
      const started = await executeExecCommandTool(shell, {
        cmd: `export MARK=${mark}; sleep 60 & touch ${shQuote(up)}; sleep 60`,
        tty: true,
        yield_time_ms: 0,
      }, { owner: "agent-1", signal: turn.signal });
      assert.ok(await appeared(up, POLL_MS));
      // `up` says both sleeps were forked, not that they exec'd: a forked bash child's environ does not yet hold the
      // exported MARK (bash keeps it in its own tables until exec), so wait until both carry it.
      assert.ok(await eventually(() => runningWithEnv("MARK", mark).length >= 2, POLL_MS), "both sleeps run");
      turn.abort();
      assert.ok(await eventually(() => runningWithEnv("MARK", mark).length === 0, POLL_MS), "nothing left running");
      // Its processes gone is not yet its end seen: the call waits for that (it returns once the program has ended).
      const last = await executeWriteStdinTool(
        shell,
        { session_id: started.sessionId, yield_time_ms: POLL_MS },
        context,
      );
      assert.match(last.text, /^Process ended by signal SIG(TERM|KILL|HUP) \(stopped\)$/m);
    });
  });

  it("close() of the shell ends every program the tools left running", async () => {
    const mark = `unified-close-${process.pid}-${Date.now()}`;
    const shell = createLocalShell({ graceMs: 300 });
    for (const tty of [true, false, true]) {
      await executeExecCommandTool(shell, { cmd: `export MARK=${mark}; sleep 60`, tty, yield_time_ms: 0 }, context);
    }
    assert.ok(await eventually(() => runningWithEnv("MARK", mark).length >= 3, POLL_MS));
    await shell.close();
    assert.deepEqual(runningWithEnv("MARK", mark), []);
  });
});
