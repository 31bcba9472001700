/**
 * The framework adapters with the real packages: the Vercel AI SDK's
 * `tool()`s (`@dsh/shell/ai`) and the OpenAI Agents SDK's function tools
 * (`@dsh/shell/openai-agents`), each called the way the framework calls
 * it, without a model.
 */

import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { Agent, type Model, type ModelRequest, type ModelResponse, run, RunContext, Usage } from "@openai/agents";
import { asSchema, generateText, isStepCount, type ToolSet } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { createLocalShell, type Shell } from "../mod.ts";
import { aiSdkTools } from "../src/frameworks/ai.ts";
import { openAIAgentsTools } from "../src/frameworks/openai_agents.ts";
import {
  bashOutputTool,
  bashSessionTool,
  bashTool,
  execCommandTool,
  killShellTool,
  writeStdinTool,
} from "../src/tool/mod.ts";
import { freshDir, removeDir } from "./helpers/dirs.ts";
import { runningWithEnv } from "./helpers/proc.ts";
import { eventually } from "./helpers/wait.ts";

const OWN = [bashTool, bashOutputTool, killShellTool, execCommandTool, writeStdinTool];
const NAMES = ["bash", "bash_output", "kill_shell", "exec_command", "write_stdin"];

/** The model's two bash calls: a cd and an export, then what the next call sees of them. */
const SESSION_CALLS = [{ command: "cd sub && export STAGE=built" }, { command: 'pwd; echo "${STAGE-none}"' }];

/** A mock AI SDK model that makes the two calls of SESSION_CALLS, one per step, then answers "done". */
function mockAiModel(): MockLanguageModelV4 {
  const usage = {
    inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: 1, text: 1, reasoning: undefined },
  };
  return new MockLanguageModelV4({
    doGenerate: [
      ...SESSION_CALLS.map((input, index) => ({
        content: [{
          type: "tool-call" as const,
          toolCallId: `call-${index}`,
          toolName: "bash",
          input: JSON.stringify(input),
        }],
        finishReason: { unified: "tool-calls" as const, raw: undefined },
        usage,
        warnings: [],
      })),
      {
        content: [{ type: "text" as const, text: "done" }],
        finishReason: { unified: "stop" as const, raw: undefined },
        usage,
        warnings: [],
      },
    ],
  });
}

/** A fake Agents SDK model: the two calls of SESSION_CALLS, one per turn, then "done"; it keeps what it was sent. */
class FakeAgentsModel implements Model {
  readonly requests: ModelRequest[] = [];
  getResponse(request: ModelRequest): Promise<ModelResponse> {
    this.requests.push(request);
    const turn = this.requests.length - 1;
    const call = SESSION_CALLS[turn];
    const output: ModelResponse["output"] = call === undefined
      ? [{
        type: "message",
        role: "assistant",
        status: "completed",
        content: [{ type: "output_text", text: "done" }],
      }]
      : [{
        type: "function_call",
        callId: `call-${turn}`,
        name: "bash",
        arguments: JSON.stringify(call),
        status: "completed",
      }];
    return Promise.resolve({ usage: new Usage(), output });
  }
  getStreamedResponse(): AsyncIterable<never> {
    throw new Error("not streamed");
  }
}

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

  it("AI SDK: the five tools carry ./tool's descriptions and schemas", async () => {
    // Typed as the SDK's own ToolSet: what generateText({ tools }) takes.
    const tools = aiSdkTools(shell, { owner: "chat-1" }) satisfies ToolSet;
    assert.deepEqual(Object.keys(tools), NAMES);
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
    assert.deepEqual(agent.tools.map((tool) => tool.name), NAMES);
    assert.deepEqual(
      tools.map((tool) => [tool.type, tool.name, tool.strict]),
      NAMES.map((name) => ["function", name, false]),
    );
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

  it("AI SDK, in generateText with the SDK's mock model: with a session cd and export carry over, and it says so", async () => {
    mkdirSync(join(dir, "sub"), { recursive: true });
    await using session = shell.session({ owner: "chat-s" });
    const results = async (tools: ToolSet): Promise<{ texts: string[]; offered: MockLanguageModelV4 }> => {
      const model = mockAiModel();
      const result = await generateText({ model, tools, prompt: "build it", stopWhen: isStepCount(5) });
      assert.equal(result.text, "done");
      const texts = result.steps.flatMap((step) =>
        step.toolResults.map((tool) => (tool.output as { text: string }).text)
      );
      return { texts, offered: model };
    };
    const kept = await results(aiSdkTools(shell, { owner: "chat-s", session }));
    assert.deepEqual(kept.texts, ["(no output)", `${join(dir, "sub")}\nbuilt`]);
    const offered = kept.offered.doGenerateCalls[0].tools ?? [];
    assert.deepEqual(offered.map((tool) => tool.name), NAMES);
    assert.equal((offered[0] as { description?: string }).description, bashSessionTool.description);
    // Without a session each call is a fresh shell, and the description the model got says so.
    const fresh = await results(aiSdkTools(shell, { owner: "chat-f" }));
    assert.deepEqual(fresh.texts, ["(no output)", `${dir}\nnone`]);
    assert.equal(
      (fresh.offered.doGenerateCalls[0].tools?.[0] as { description?: string }).description,
      bashTool.description,
    );
  });

  it("AI SDK, stream: true: bash yields the output while the command runs, then the outcome the model is shown", async () => {
    const { bash } = aiSdkTools(shell, { owner: "chat-live", stream: true });
    const gate = join(dir, `gate-${randomUUID()}`);
    mkdirSync(gate);
    const outputs: { text: string; running?: unknown }[] = [];
    // "second" is printed only once "first" was yielded: live output, not a replay at the end.
    const command = `printf '\\033[1mfirst\\033[0m\\n'; while [ -d ${gate} ]; do sleep 0.02; done; echo second`;
    for await (const output of bash.execute({ command }, callOptions())) {
      outputs.push(output);
      if (output.text === "first\n") removeDir(gate);
    }
    assert.ok(outputs.some((output) => output.text === "first\n" && output.running === true), JSON.stringify(outputs));
    assert.deepEqual(outputs.at(-1), {
      text: "first\nsecond",
      isError: false,
      exitCode: 0,
      signal: null,
      timedOut: false,
      aborted: false,
    });
    // In a whole generateText run the model is shown the outcome, not a preliminary output.
    const model = mockAiModel();
    const result = await generateText({
      model,
      tools: aiSdkTools(shell, { owner: "chat-live", stream: true }),
      prompt: "build it",
      stopWhen: isStepCount(5),
    });
    const texts = result.steps.flatMap((step) =>
      step.toolResults.map((tool) => (tool.output as { text: string }).text)
    );
    assert.deepEqual(texts, ["(no output)", `${dir}\nnone`]);
    assert.throws(() => aiSdkTools(shell, { owner: "x", stream: "yes" as unknown as boolean }), /^TypeError: stream:/);
  });

  it("AI SDK: exec_command and write_stdin drive a program on a terminal", async () => {
    const { exec_command, write_stdin } = aiSdkTools(shell, { owner: "chat-x" });
    const started = await exec_command.execute({
      cmd: 'read -p "name? " n; echo "hi $n"',
      tty: true,
      yield_time_ms: 200,
    }, callOptions());
    assert.equal(typeof started.sessionId, "number");
    const answered = await write_stdin.execute(
      { session_id: started.sessionId, chars: "Ada\n", yield_time_ms: 10_000 },
      callOptions(),
    );
    assert.match(answered.text, /hi Ada/);
    assert.equal(answered.exitCode, 0);
  });

  it("OpenAI Agents, in a full run with a fake model: with a session cd and export carry over, and it says so", async () => {
    mkdirSync(join(dir, "sub"), { recursive: true });
    await using session = shell.session({ owner: "run-s" });
    const outputs = async (
      tools: ReturnType<typeof openAIAgentsTools>,
    ): Promise<{ texts: string[]; model: FakeAgentsModel }> => {
      const model = new FakeAgentsModel();
      const agent = new Agent({ name: "builder", instructions: "build", model, tools });
      const result = await run(agent, "build it", { maxTurns: 5 });
      assert.equal(result.finalOutput, "done");
      const texts = result.newItems.filter((item) => item.type === "tool_call_output_item")
        .map((item) => String((item as { output: unknown }).output));
      return { texts, model };
    };
    const kept = await outputs(openAIAgentsTools(shell, { owner: "run-s", session }));
    assert.deepEqual(kept.texts, ["(no output)", `${join(dir, "sub")}\nbuilt`]);
    const offered = kept.model.requests[0].tools as { name: string; description?: string }[];
    assert.deepEqual(offered.map((tool) => tool.name), NAMES);
    assert.equal(offered[0].description, bashSessionTool.description);
    const fresh = await outputs(openAIAgentsTools(shell, { owner: "run-f" }));
    assert.deepEqual(fresh.texts, ["(no output)", `${dir}\nnone`]);
    assert.equal((fresh.model.requests[0].tools as { description?: string }[])[0].description, bashTool.description);
  });

  it("both refuse a session of another owner", () => {
    const session = shell.session({ owner: "someone" });
    assert.throws(() => aiSdkTools(shell, { owner: "chat-1", session }), /^TypeError: session: /);
    assert.throws(() => openAIAgentsTools(shell, { owner: "run-1", session }), /^TypeError: session: /);
  });

  it("both refuse a missing owner", () => {
    assert.throws(() => aiSdkTools(shell, {} as { owner: string }), /^TypeError: owner: is required/);
    assert.throws(() => openAIAgentsTools(shell, {} as { owner: string }), /^TypeError: owner: is required/);
  });
});
