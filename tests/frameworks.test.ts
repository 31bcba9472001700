/**
 * The framework adapters with the real packages: the Vercel AI SDK's
 * `tool()`s (`@dsh/shell/ai`) and the OpenAI Agents SDK's function tools
 * (`@dsh/shell/openai-agents`), each called the way the framework calls
 * it, without a model.
 */

import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { Agent, RunContext } from "@openai/agents";
import { asSchema, type ToolSet } from "ai";
import { createLocalShell, type Shell } from "../mod.ts";
import { aiSdkTools } from "../src/frameworks/ai.ts";
import { openAIAgentsTools } from "../src/frameworks/openai_agents.ts";
import { bashOutputTool, bashTool, killShellTool } from "../src/tool/mod.ts";
import { freshDir, removeDir } from "./helpers/dirs.ts";
import { runningWithEnv } from "./helpers/proc.ts";
import { eventually } from "./helpers/wait.ts";

const OWN = [bashTool, bashOutputTool, killShellTool];

/** The AI SDK's per-call options, as `generateText` passes them. */
function callOptions(abortSignal?: AbortSignal): { toolCallId: string; messages: []; context: Record<string, never> } {
  return { toolCallId: `call-${randomUUID()}`, messages: [], context: {}, ...(abortSignal ? { abortSignal } : {}) };
}

describe("the framework adapters, with the real packages", () => {
  let shell: Shell;
  let dir: string;
  before(() => {
    dir = freshDir("dsh-frameworks-");
    shell = createLocalShell({ workdir: dir, graceMs: 500 });
  });
  after(async () => {
    await shell.close();
    removeDir(dir);
  });

  it("AI SDK: the three tools carry ./tool's descriptions and schemas", async () => {
    // Typed as the SDK's own ToolSet: what generateText({ tools }) takes.
    const tools = aiSdkTools(shell, { owner: "chat-1" }) satisfies ToolSet;
    assert.deepEqual(Object.keys(tools), ["bash", "bash_output", "kill_shell"]);
    for (const [index, tool] of Object.values(tools).entries()) {
      assert.equal(tool.description, OWN[index].description);
      assert.deepEqual(await asSchema(tool.inputSchema).jsonSchema, OWN[index].inputSchema);
    }
  });

  it("AI SDK: execute runs the call as the owner; toModelOutput shows the text, as an error when it is one", async () => {
    const { bash, bash_output, kill_shell } = aiSdkTools(shell, { owner: "chat-1" });
    const ok = await bash.execute({ command: "echo hi" }, callOptions());
    assert.deepEqual(ok, { text: "hi", isError: false, exitCode: 0, signal: null, timedOut: false, aborted: false });
    const failed = await bash.execute({ command: "exit 5" }, callOptions());
    const shown = await bash.toModelOutput?.({ toolCallId: "c", input: {}, output: failed });
    assert.deepEqual(shown, { type: "error-text", value: "(no output)\n[exit code: 5]" });
    const refused = await bash.execute({ cmd: "ls" }, callOptions());
    assert.equal(refused.isError, true);
    assert.match(refused.text, /^cmd is not an input of the bash tool/);
    const started = await bash.execute({ command: "echo up; sleep 60", run_in_background: true }, callOptions());
    const taskId = started.taskId ?? "";
    await shell.task(taskId, "chat-1").waitForOutput();
    const other = aiSdkTools(shell, { owner: "chat-2" });
    assert.equal((await other.bash_output.execute({ task_id: taskId }, callOptions())).isError, true);
    assert.equal((await bash_output.execute({ task_id: taskId }, callOptions())).text, "up\n[status: running]");
    const killed = await kill_shell.execute({ task_id: taskId }, callOptions());
    assert.match(killed.text, /^killed background task/);
  });

  it("AI SDK: the abortSignal kills the command's group", async () => {
    const { bash } = aiSdkTools(shell, { owner: "chat-1" });
    const mark = randomUUID();
    const abort = new AbortController();
    const call = bash.execute(
      { command: `export AI_TEST_MARK=${mark}; sleep 300 & sleep 301` },
      callOptions(abort.signal),
    );
    assert.ok(await eventually(() => runningWithEnv("AI_TEST_MARK", mark).length === 2));
    abort.abort();
    const outcome = await call;
    assert.deepEqual([outcome.isError, outcome.aborted], [true, true]);
    assert.ok(await eventually(() => runningWithEnv("AI_TEST_MARK", mark).length === 0));
  });

  it("OpenAI Agents: function tools with ./tool's names, descriptions and schemas, invoked as the runner does", async () => {
    const tools = openAIAgentsTools(shell, { owner: "run-1" });
    // What the SDK's Agent takes, as it is.
    const agent = new Agent({ name: "shell-user", instructions: "run commands", tools });
    assert.deepEqual(agent.tools.map((tool) => tool.name), ["bash", "bash_output", "kill_shell"]);
    assert.deepEqual(tools.map((tool) => [tool.type, tool.name, tool.strict]), [
      ["function", "bash", false],
      ["function", "bash_output", false],
      ["function", "kill_shell", false],
    ]);
    for (const [index, tool] of tools.entries()) {
      assert.equal(tool.description, OWN[index].description);
      assert.deepEqual(tool.parameters, OWN[index].inputSchema);
    }
    const [bash, bashOutput] = tools;
    const context = new RunContext();
    assert.equal(await bash.invoke(context, JSON.stringify({ command: "echo hi; exit 2" })), "hi\n[exit code: 2]");
    const refused = await bash.invoke(context, JSON.stringify({ command: "ls", stdin: "x" }));
    assert.match(String(refused), /^stdin is not an input of the bash tool/);
    const started = String(
      await bash.invoke(context, JSON.stringify({ command: "sleep 60", run_in_background: true })),
    );
    const taskId = /^started background task (\S+)/.exec(started)?.[1] ?? "";
    const stranger = openAIAgentsTools(shell, { owner: "run-2" })[1];
    assert.match(
      String(await stranger.invoke(context, JSON.stringify({ task_id: taskId }))),
      /^\[error\] no background/,
    );
    assert.equal(
      await bashOutput.invoke(context, JSON.stringify({ task_id: taskId })),
      "(no new output)\n[status: running]",
    );
  });

  it("OpenAI Agents: the run's signal kills the command's group", async () => {
    const [bash] = openAIAgentsTools(shell, { owner: "run-1" });
    const mark = randomUUID();
    const abort = new AbortController();
    const call = bash.invoke(
      new RunContext(),
      JSON.stringify({ command: `export AGENTS_TEST_MARK=${mark}; sleep 300 & sleep 301` }),
      { signal: abort.signal },
    );
    assert.ok(await eventually(() => runningWithEnv("AGENTS_TEST_MARK", mark).length === 2));
    abort.abort();
    await call.catch(() => {});
    assert.ok(await eventually(() => runningWithEnv("AGENTS_TEST_MARK", mark).length === 0));
  });

  it("both refuse a missing owner", () => {
    assert.throws(() => aiSdkTools(shell, {} as { owner: string }), /^TypeError: owner: is required/);
    assert.throws(() => openAIAgentsTools(shell, {} as { owner: string }), /^TypeError: owner: is required/);
  });
});
