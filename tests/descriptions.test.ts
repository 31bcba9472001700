/**
 * What the model is told is what happens: every line of the bash tool's two
 * descriptions is a claim, and each claim is run here through the surface
 * that offers it — `bashTool` through `executeBashTool` without a session,
 * `bashSessionTool` through the MCP server (one session per connection) —
 * and so is every line of `bash_output`'s, `kill_shell`'s,
 * `exec_command`'s and `write_stdin`'s, through their `execute…` functions.
 * A line with no check fails the first test of its description, so a new
 * claim cannot go untested.
 */

import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { mkdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { createLocalShell, type Shell } from "../mod.ts";
import { DEFAULTS } from "../src/seam/defaults.ts";
import { createMcpServer } from "../src/mcp/mod.ts";
import {
  bashOutputTool,
  bashSessionTool,
  bashTool,
  execCommandTool,
  executeBashOutputTool,
  executeBashTool,
  executeExecCommandTool,
  executeKillShellTool,
  executeWriteStdinTool,
  killShellTool,
  writeStdinTool,
} from "../src/tool/mod.ts";
import { EXEC_YIELD_TIME_MS, MAX_YIELD_TIME_MS, WRITE_YIELD_TIME_MS } from "../src/tool/unified_exec/input_schema.ts";
import { freshDir, removeDir } from "./helpers/dirs.ts";
import { connectInMemory } from "./helpers/mcp.ts";
import { runningWithEnv } from "./helpers/proc.ts";
import { eventually } from "./helpers/wait.ts";

/** One call of a surface: the text the model is shown and whether it is an error. */
type Call = (input: Record<string, unknown>) => Promise<{ text: string; isError: boolean }>;

/** A surface the model calls `bash` through, and the owner its tasks belong to. */
interface Surface {
  readonly call: Call;
  readonly owner: string;
}

/** A claim: the start of its line in the description, and its check. */
interface Claim {
  readonly line: string;
  check(surface: Surface): Promise<void>;
}

let shell: Shell;
let dir: string;
const SECRET = `sk-ant-api03-Xy${randomUUID().replaceAll("-", "")}Q9`;

before(() => {
  dir = freshDir("dsh-descriptions-");
  mkdirSync(join(dir, "sub"));
  // The ambient environment holds a credential by name and one by value: neither may reach a command.
  shell = createLocalShell({
    workdir: dir,
    graceMs: 500,
    ambientEnv: { PATH: "/usr/local/bin:/usr/bin:/bin", GITHUB_TOKEN: "ghp_secret", NOTES: SECRET },
  });
});
after(async () => {
  await shell.close();
  removeDir(dir);
});

/** The claims both descriptions make, checked on either surface. */
const COMMON: readonly Claim[] = [
  {
    line: "Runs a bash command and returns its output.",
    async check({ call }) {
      const { text } = await call({ command: 'echo "${BASH_VERSION:+bash} $(basename "$(readlink /proc/$$/exe)")"' });
      assert.equal(text, "bash bash");
    },
  },
  {
    line: "stdin is /dev/null",
    async check({ call }) {
      // A command that reads stdin gets its end at once; a heredoc feeds it instead.
      const read = await call({ command: "cat; readlink /proc/$$/fd/0; cat <<'EOF'\nfed\nEOF" });
      assert.equal(read.text, "/dev/null\nfed");
    },
  },
  {
    line: "Credentials of the host environment",
    async check({ call }) {
      const { text } = await call({ command: 'echo "${GITHUB_TOKEN-gone} ${NOTES-gone}"; env' });
      assert.equal(text.split("\n")[0], "gone gone");
      assert.equal(text.includes(SECRET) || text.includes("ghp_secret"), false);
    },
  },
  {
    line: "`timeout` is in milliseconds",
    async check({ call }) {
      const mark = randomUUID();
      const killed = await call({ command: `export DESC_MARK=${mark}; sleep 300 & sleep 301`, timeout: 300 });
      assert.match(killed.text, /\[timed out after 300ms\]/);
      assert.equal(killed.isError, true);
      assert.ok(await eventually(() => runningWithEnv("DESC_MARK", mark).length === 0), "the whole tree is gone");
      // The default and the cap: what the shell ran with, through the same tool call.
      const context = { owner: "caps" };
      const plain = await executeBashTool(shell, { command: "true" }, context);
      assert.equal(plain.result?.timeoutMs, DEFAULTS.timeoutMs);
      const capped = await executeBashTool(shell, { command: "true", timeout: 10 * DEFAULTS.maxTimeoutMs }, context);
      assert.equal(capped.result?.timeoutMs, DEFAULTS.maxTimeoutMs);
    },
  },
  {
    line: "The result is stdout, then a `[stderr]` line and stderr",
    async check({ call }) {
      assert.equal((await call({ command: "echo err >&2; echo out" })).text, "out\n[stderr]\nerr");
      assert.equal((await call({ command: "true" })).text, "(no output)");
    },
  },
  {
    line: "Each stream keeps about",
    async check({ call }) {
      const { text } = await call({ command: "seq 1 100000" });
      const note = /\[stdout truncated: (\d+) bytes in all; full output: (\S+)\]$/.exec(text);
      assert.ok(note, text.slice(-300));
      assert.ok(text.startsWith("1\n2\n3\n") && text.includes("\n99999\n100000\n"), "head and tail");
      assert.ok(Buffer.byteLength(text) < DEFAULTS.maxOutputBytes + 1_000, "about maxOutputBytes");
      assert.equal(statSync(note[2]).size, Number(note[1]));
      assert.equal(readFileSync(note[2], "utf8").split("\n").length, 100_001, "the file has every line");
    },
  },
  {
    line: "Status lines follow when they apply",
    async check({ call }) {
      const exited = await call({ command: "exit 3" });
      assert.deepEqual([exited.text, exited.isError], ["(no output)\n[exit code: 3]", true]);
      assert.equal((await call({ command: "kill -KILL $$" })).text, "(no output)\n[killed by signal: SIGKILL]");
      const missing = await call({ command: "true", workdir: join(dir, "no-such-dir") });
      assert.match(missing.text, /^\[error\] .*no-such-dir/);
      assert.equal(missing.isError, true);
    },
  },
  {
    line: "Set `run_in_background: true`",
    async check({ call, owner }) {
      const started = await call({ command: "echo up; sleep 300", run_in_background: true, timeout: 100 });
      const id = /^started background task (\S+)/.exec(started.text)?.[1] ?? "";
      const task = shell.task(id, owner);
      await task.waitForOutput();
      // The timeout did not apply: it still runs well past 100 ms, once it has printed.
      await new Promise((resolve) => setTimeout(resolve, 300));
      const read = await executeBashOutputTool(shell, { task_id: id }, { owner });
      assert.equal(read.text, "up\n[status: running]");
      const killed = await executeKillShellTool(shell, { task_id: id }, { owner });
      assert.match(killed.text, /^killed background task/);
      assert.equal(task.status, "killed");
    },
  },
  {
    line: "`description`: what the command does",
    async check({ call }) {
      const plain = await call({ command: "echo same" });
      const described = await call({ command: "echo same", description: "Print a word" });
      assert.deepEqual([described.text, described.isError], [plain.text, plain.isError]);
    },
  },
];

/** The claims of `bashTool`'s description alone (no session). */
const FRESH: readonly Claim[] = [
  {
    line: "Each call is a fresh `bash -c <command>` process in its own process group: nothing carries over",
    async check({ call }) {
      await call({ command: "cd sub; export STAGE=one; X=2; f() { :; }; alias l=ls" });
      const { text } = await call({ command: 'pwd; echo "${STAGE-none} ${X-none}"; type f l 2>&1 | wc -l' });
      assert.equal(text, `${dir}\nnone none\n2`);
      const group = await call({ command: 'test "$(ps -o pgid= -p $$ | tr -d " ")" = "$$" && echo leader' });
      assert.equal(group.text, "leader");
    },
  },
  {
    line: "Set environment variables in the command itself",
    async check({ call }) {
      const { text } = await call({ command: "A=1 sh -c 'echo $A'; export B=2; sh -c 'echo $B'" });
      assert.equal(text, "1\n2");
    },
  },
  {
    line: "Use `workdir` to run in another directory",
    async check({ call }) {
      assert.equal((await call({ command: "pwd", workdir: "sub" })).text, join(dir, "sub"));
      assert.equal((await call({ command: "pwd" })).text, dir);
    },
  },
];

/** The claims of `bashSessionTool`'s description alone (the MCP server's `bash`). */
const SESSION: readonly Claim[] = [
  {
    line: "Calls share one session, as in a terminal",
    async check({ call }) {
      await call({ command: "cd sub; export STAGE=one; X=2; f() { :; }; alias l=ls; set -u" });
      const { text } = await call({ command: 'pwd; echo "${STAGE-none} ${X-none} $-"; type f l 2>&1 | wc -l' });
      const [cwd, vars, count] = text.split("\n");
      assert.equal(cwd, join(dir, "sub"), "cd carried over");
      assert.equal(vars.split(" ").slice(0, 2).join(" "), "one none", "export did, a plain variable did not");
      assert.equal(vars.split(" ")[2].includes("u"), false, "set -u did not");
      assert.equal(count, "2", "neither the function nor the alias");
      const group = await call({ command: 'test "$(ps -o pgid= -p $$ | tr -d " ")" = "$$" && echo leader' });
      assert.equal(group.text, "leader");
      await call({ command: `cd ${dir}` });
    },
  },
  {
    line: "A call that is killed (timeout, cancellation) changes nothing",
    async check({ call }) {
      await call({ command: "cd /; export KILLED=yes; sleep 30", timeout: 300 });
      await call({ command: "cd sub; export EXITED=yes; exit 7" });
      assert.equal((await call({ command: 'pwd; echo "${KILLED-no} ${EXITED-no}"' })).text, `${dir}/sub\nno yes`);
      await call({ command: `cd ${dir}` });
    },
  },
  {
    line: "`export VAR=value` keeps a variable for later calls",
    async check({ call }) {
      await call({ command: "export KEPT=1; ONCE=1 sh -c 'echo $ONCE'" });
      assert.equal((await call({ command: 'echo "${KEPT-no} ${ONCE-no}"' })).text, "1 no");
    },
  },
  {
    line: "`workdir` runs the call in another directory, and later calls go on from there",
    async check({ call }) {
      assert.equal((await call({ command: "pwd", workdir: "sub" })).text, join(dir, "sub"));
      assert.equal((await call({ command: "pwd" })).text, join(dir, "sub"));
      await call({ command: `cd ${dir}` });
    },
  },
];

/** Checks that every line of `description` is claimed, and runs each claim on the surface `connect` makes. */
function claims(name: string, description: string, all: readonly Claim[], connect: () => Promise<Surface>): void {
  describe(name, () => {
    it("every line of the description has a check", () => {
      for (const line of description.split("\n")) {
        const matching = all.filter((claim) => line.startsWith(claim.line));
        assert.equal(matching.length, 1, `no single check for: ${line}`);
      }
      assert.equal(all.length, description.split("\n").length, "a check for a line that is not there");
    });
    for (const claim of all) {
      it(claim.line, async () => await claim.check(await connect()));
    }
  });
}

claims("bashTool (no session), through executeBashTool", bashTool.description, [...FRESH, ...COMMON], () => {
  const owner = `fresh-${randomUUID()}`;
  return Promise.resolve({ owner, call: (input) => executeBashTool(shell, input, { owner }) });
});

claims(
  "bashSessionTool, through the MCP server's bash",
  bashSessionTool.description,
  [...SESSION, ...COMMON],
  async () => {
    const owner = `mcp-${randomUUID()}`;
    const client = await connectInMemory(createMcpServer(shell, { owner, tools: "claude" }));
    const { tools } = await client.listTools();
    assert.equal(tools[0].description, bashSessionTool.description);
    return {
      owner,
      call: async (input) => {
        const result = await client.callTool({ name: "bash", arguments: input });
        return { text: (result.content as { text: string }[])[0].text, isError: result.isError === true };
      },
    };
  },
);

/** The owner of the task tools' claims, and a bash call as that owner. */
const TASKS_OWNER = `tasks-${randomUUID()}`;
/** Starts `command` as a background task of TASKS_OWNER; its id. */
async function startBackgroundBash(command: string): Promise<string> {
  const started = await executeBashTool(shell, { command, run_in_background: true }, { owner: TASKS_OWNER });
  const id = /^started background task (\S+)/.exec(started.text)?.[1];
  assert.ok(id, started.text);
  return id;
}
/** A call of `bash_output` or `kill_shell` as TASKS_OWNER: its text. */
async function taskCall(tool: "bash_output" | "kill_shell", task_id: string): Promise<string> {
  const run = tool === "bash_output" ? executeBashOutputTool : executeKillShellTool;
  return (await run(shell, { task_id }, { owner: TASKS_OWNER })).text;
}
/** No surface of its own: the task and unified tools are called directly. */
const DIRECT = (): Promise<Surface> =>
  Promise.resolve({ owner: TASKS_OWNER, call: () => Promise.reject(new Error("not a bash surface")) });

claims("bash_output", bashOutputTool.description, [
  {
    line: "Reads the output of a background task",
    async check() {
      const id = await startBackgroundBash("echo started");
      await shell.task(id, TASKS_OWNER).done;
      assert.equal(await taskCall("bash_output", id), "started\n[status: completed; exit code: 0]");
    },
  },
  {
    line: "- `task_id` is the id from `started background task <id>`.",
    async check() {
      const id = await startBackgroundBash("true");
      assert.doesNotMatch(await taskCall("bash_output", id), /^\[error\]/);
      assert.match(await taskCall("bash_output", `${id}x`), /^\[error\] no background task/);
    },
  },
  {
    line: "- Returns only what the task printed since the previous bash_output call",
    async check() {
      const id = await startBackgroundBash("echo out; echo err >&2");
      await shell.task(id, TASKS_OWNER).done;
      assert.equal(await taskCall("bash_output", id), "out\n[stderr]\nerr\n[status: completed; exit code: 0]");
      assert.equal(await taskCall("bash_output", id), "(no new output)\n[status: completed; exit code: 0]");
    },
  },
  {
    line: "- The last line is the task's status",
    async check() {
      const running = await startBackgroundBash("sleep 300");
      assert.match(await taskCall("bash_output", running), /\n\[status: running\]$/);
      await taskCall("kill_shell", running);
      assert.match(await taskCall("bash_output", running), /\n\[status: killed; signal: SIGTERM\]$/);
      const failed = await startBackgroundBash("exit 3");
      await shell.task(failed, TASKS_OWNER).done;
      assert.match(await taskCall("bash_output", failed), /\n\[status: completed; exit code: 3\]$/);
    },
  },
  {
    line: "- It returns at once and does not wait for output.",
    async check() {
      const id = await startBackgroundBash("sleep 300");
      // The task prints nothing for minutes: the read answers while it runs.
      assert.equal(await taskCall("bash_output", id), "(no new output)\n[status: running]");
      await taskCall("kill_shell", id);
    },
  },
  {
    line: "- About",
    async check() {
      const id = await startBackgroundBash("seq 1 100000");
      await shell.task(id, TASKS_OWNER).done;
      const text = await taskCall("bash_output", id);
      const note = /\[stdout truncated: [^\]]*; full output: (\S+)\]/.exec(text);
      assert.ok(note, text.slice(-300));
      assert.ok(Buffer.byteLength(text) < DEFAULTS.maxOutputBytes + 1_000, "about maxOutputBytes");
      assert.ok(text.includes("\n100000\n"), "the newest part is shown");
      assert.equal(readFileSync(note[1], "utf8").split("\n").length, 100_001, "the file has every line");
    },
  },
  {
    line: "- Stop a task you no longer need with kill_shell.",
    async check() {
      const id = await startBackgroundBash("sleep 300");
      assert.match(await taskCall("kill_shell", id), /^killed background task/);
      assert.equal(shell.task(id, TASKS_OWNER).status, "killed");
    },
  },
], DIRECT);

claims("kill_shell", killShellTool.description, [
  {
    line: "Stops a background task",
    async check() {
      const mark = randomUUID();
      const id = await startBackgroundBash(`export DESC_MARK=${mark}; sleep 300 & sleep 301`);
      assert.ok(await eventually(() => runningWithEnv("DESC_MARK", mark).length === 2), "both sleepers run");
      await taskCall("kill_shell", id);
      assert.ok(await eventually(() => runningWithEnv("DESC_MARK", mark).length === 0), "the whole tree is gone");
    },
  },
  {
    line: "- `task_id` is the id from `started background task <id>`.",
    async check() {
      const id = await startBackgroundBash("sleep 300");
      assert.match(await taskCall("kill_shell", `${id}x`), /^\[error\] no background task/);
      assert.match(await taskCall("kill_shell", id), /^killed background task/);
    },
  },
  {
    line: "- The task's processes get SIGTERM, then SIGKILL about",
    async check() {
      // The shell's defaults, whose grace the description states.
      assert.match(killShellTool.description, new RegExp(`about ${DEFAULTS.graceMs / 1000} seconds later`));
      const stubborn = createLocalShell({ workdir: dir });
      try {
        const started = await executeBashTool(stubborn, {
          command: "trap '' TERM; echo ready; while :; do sleep 0.05; done",
          run_in_background: true,
        }, { owner: "stubborn" });
        const task = stubborn.task(started.taskId ?? "", "stubborn");
        await task.waitForOutput();
        const text = (await executeKillShellTool(stubborn, { task_id: task.id }, { owner: "stubborn" })).text;
        assert.equal(task.status, "killed", "the call returned once the task had ended");
        assert.match(text, /^killed background task \S+\n\[status: killed; signal: SIGKILL\]/);
      } finally {
        await stubborn.close();
      }
    },
  },
  {
    line: "- A task that had already ended keeps its status",
    async check() {
      const mark = randomUUID();
      const id = await startBackgroundBash(`export DESC_MARK=${mark}; sleep 300 & echo done`);
      await shell.task(id, TASKS_OWNER).done;
      assert.ok(await eventually(() => runningWithEnv("DESC_MARK", mark).length === 1), "the sleeper it left runs");
      const text = await taskCall("kill_shell", id);
      assert.match(text, /had already ended; what it left running was killed\n\[status: completed; exit code: 0\]/);
      assert.ok(await eventually(() => runningWithEnv("DESC_MARK", mark).length === 0), "what it left is gone");
    },
  },
  {
    line: "- What the task printed before it ended can still be read with bash_output.",
    async check() {
      const id = await startBackgroundBash("echo kept; sleep 300");
      await shell.task(id, TASKS_OWNER).waitForOutput();
      await taskCall("kill_shell", id);
      assert.equal(await taskCall("bash_output", id), "kept\n[status: killed; signal: SIGTERM]");
    },
  },
  {
    line: "- Use it for servers, watchers and other background tasks you no longer need",
    async check() {
      const id = await startBackgroundBash("while :; do echo tick; sleep 0.05; done");
      await shell.task(id, TASKS_OWNER).waitForOutput();
      assert.match(await taskCall("kill_shell", id), /^killed background task/);
    },
  },
], DIRECT);

/** An `exec_command` or `write_stdin` call as TASKS_OWNER. */
function unified(tool: "exec_command" | "write_stdin", input: Record<string, unknown>) {
  const run = tool === "exec_command" ? executeExecCommandTool : executeWriteStdinTool;
  return run(shell, input, { owner: TASKS_OWNER });
}
/** What an answer says after `Output:`. */
function outputOf(text: string): string {
  return text.slice(text.indexOf("\nOutput:\n") + "\nOutput:\n".length);
}

claims("exec_command", execCommandTool.description, [
  {
    line: "Runs a command line (`bash -c <cmd>`)",
    async check() {
      const ended = await unified("exec_command", { cmd: 'echo "${BASH_VERSION:+bash}"' });
      assert.equal(outputOf(ended.text), "bash\n");
      const running = await unified("exec_command", { cmd: "sleep 300", yield_time_ms: 100 });
      assert.match(running.text, /^Process running with session ID \d+$/m);
      assert.match(
        execCommandTool.description,
        new RegExp(`default ${EXEC_YIELD_TIME_MS}, at most ${MAX_YIELD_TIME_MS}`),
      );
      // The sleeper is left to the shell's close(), as a harness would leave it to its own.
    },
  },
  {
    line: "- The answer starts with `Wall time: <s> seconds`",
    async check() {
      const ended = await unified("exec_command", { cmd: "echo hi; exit 4" });
      assert.match(ended.text, /^Wall time: [\d.]+ seconds\nProcess exited with code 4\nOutput:\nhi\n$/);
      const running = await unified("exec_command", { cmd: "echo up; sleep 300", yield_time_ms: 300 });
      assert.match(running.text, /^Wall time: [\d.]+ seconds\nProcess running with session ID \d+\nOutput:\n/);
    },
  },
  {
    line: "- A program still running stays alive",
    async check() {
      const gate = join(dir, `gate-${randomUUID()}`);
      mkdirSync(gate);
      const started = await unified("exec_command", {
        cmd: `while [ -d ${gate} ]; do sleep 0.02; done; echo later`,
        yield_time_ms: 100,
      });
      assert.equal(typeof started.sessionId, "number");
      removeDir(gate);
      const later = await unified("write_stdin", { session_id: started.sessionId, yield_time_ms: 10_000 });
      assert.equal(outputOf(later.text), "later\n");
    },
  },
  {
    line: "- With `tty: true` it runs on a terminal",
    async check() {
      const onTty = await unified("exec_command", { cmd: "test -t 0 && echo tty; echo err >&2", tty: true });
      assert.match(outputOf(onTty.text), /tty\r?\nerr/);
      const interrupted = await unified("exec_command", { cmd: "sleep 300", tty: true, yield_time_ms: 100 });
      const after = await unified("write_stdin", {
        session_id: interrupted.sessionId,
        chars: "\u0003",
        yield_time_ms: 10_000,
      });
      assert.match(after.text, /^Process (exited with code 130|ended by signal SIGINT)/m);
      // Without a terminal: no input at all (cat reads its end at once).
      const noInput = await unified("exec_command", { cmd: "cat; echo read-nothing" });
      assert.equal(outputOf(noInput.text), "read-nothing\n");
    },
  },
  {
    line: "- Each call is a fresh process: `cd` and `export` do not carry over",
    async check() {
      await unified("exec_command", { cmd: "cd sub; export STAGE=one" });
      const next = await unified("exec_command", { cmd: 'pwd; echo "${STAGE-none}"' });
      assert.equal(outputOf(next.text), `${dir}\nnone\n`);
    },
  },
  {
    line: "- Output over `max_output_tokens` keeps its start and its end",
    async check() {
      const long = await unified("exec_command", { cmd: "seq 1 10000", max_output_tokens: 100 });
      const output = outputOf(long.text);
      assert.ok(output.startsWith("1\n2\n3\n") && output.endsWith("\n9999\n10000\n"), output);
      assert.match(output, /\[\.\.\. \d+ bytes \(about \d+ tokens\) cut \.\.\.\]/);
      assert.ok(!output.includes("\n5000\n"), "the middle is cut out");
    },
  },
], DIRECT);

claims("write_stdin", writeStdinTool.description, [
  {
    line: "Types `chars` into a program that exec_command left running",
    async check() {
      const started = await unified("exec_command", { cmd: "cat", tty: true, yield_time_ms: 100 });
      const echoed = await unified("write_stdin", {
        session_id: started.sessionId,
        chars: "ping\n",
        yield_time_ms: 2_000,
      });
      assert.match(outputOf(echoed.text), /ping/);
      assert.match(
        writeStdinTool.description,
        new RegExp(`default ${WRITE_YIELD_TIME_MS}, at most ${MAX_YIELD_TIME_MS}`),
      );
      await unified("write_stdin", { session_id: started.sessionId, chars: "\u0004", yield_time_ms: 10_000 });
    },
  },
  {
    line: "- `chars` is typed as is",
    async check() {
      const started = await unified("exec_command", { cmd: "cat >/dev/null; echo eof", tty: true, yield_time_ms: 100 });
      const polled = await unified("write_stdin", { session_id: started.sessionId });
      assert.equal(polled.isError, false);
      assert.match(polled.text, /^Process running with session ID/m);
      const ended = await unified("write_stdin", {
        session_id: started.sessionId,
        chars: "x\n\u0004",
        yield_time_ms: 10_000,
      });
      assert.match(ended.text, /^Process exited with code 0$/m);
      assert.match(outputOf(ended.text), /eof/);
    },
  },
  {
    line: "- Typing needs a program started with `tty: true`; any program can be polled.",
    async check() {
      const started = await unified("exec_command", { cmd: "echo up; sleep 300", yield_time_ms: 100 });
      const typed = await unified("write_stdin", { session_id: started.sessionId, chars: "y\n" });
      assert.equal(typed.isError, true);
      assert.match(typed.text, /stdin is closed for this session; rerun exec_command with tty=true/);
      const polled = await unified("write_stdin", { session_id: started.sessionId, yield_time_ms: 0 });
      assert.equal(polled.isError, false);
    },
  },
  {
    line: "- The answer has the same form as exec_command's",
    async check() {
      const started = await unified("exec_command", {
        cmd: "read line; echo got $line",
        tty: true,
        yield_time_ms: 100,
      });
      const done = await unified("write_stdin", {
        session_id: started.sessionId,
        chars: "it\n",
        yield_time_ms: 10_000,
      });
      assert.match(done.text, /^Wall time: [\d.]+ seconds\nProcess exited with code 0\nOutput:\n/);
      const gone = await unified("write_stdin", { session_id: started.sessionId });
      assert.equal(gone.isError, true);
      assert.match(gone.text, /no running program with session ID/);
    },
  },
], DIRECT);
