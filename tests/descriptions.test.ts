/**
 * What the model is told is what happens: every line of the bash tool's two
 * descriptions is a claim, and each claim is run here through the surface
 * that offers it — `bashTool` through `executeBashTool` without a session,
 * `bashSessionTool` through the MCP server (one session per connection).
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
  bashSessionTool,
  bashTool,
  execCommandTool,
  executeBashOutputTool,
  executeBashTool,
  executeExecCommandTool,
  executeKillShellTool,
} from "../src/tool/mod.ts";
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

describe("exec_command: what its description says of state", () => {
  it("each call is a fresh process: cd and export do not carry over", async () => {
    assert.match(execCommandTool.description, /`cd` and `export` do not carry over/);
    const context = { owner: `exec-${randomUUID()}` };
    await executeExecCommandTool(shell, { cmd: "cd sub; export STAGE=one" }, context);
    const next = await executeExecCommandTool(shell, { cmd: 'pwd; echo "${STAGE-none}"' }, context);
    assert.match(next.text, new RegExp(`Output:\\n${dir}\\nnone\\n$`));
  });
});
