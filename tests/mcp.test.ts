/**
 * The MCP server (`@dsh/shell/mcp`, `dsh-shell mcp`) driven by the
 * official SDK's client: in memory against `createMcpServer`, and over
 * stdio against the CLI, sandboxed as it is by default. What the tools
 * answer is `./tool`'s; what is checked here is what MCP adds: the
 * listing, the result's shape, one owner per connection, cancellation,
 * progress, and that nothing is left running when the connection ends.
 */

import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";
import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createLocalShell, type Shell } from "../mod.ts";
import { createMcpServer, SERVER_INFO } from "../src/mcp/mod.ts";
import { bashOutputTool, bashSessionTool, execCommandTool, killShellTool, writeStdinTool } from "../src/tool/mod.ts";
import { dshShell } from "./helpers/cli.ts";
import { DockerDaemon, dockerUnavailable } from "./helpers/docker_daemon.ts";
import { freshDir, removeDir } from "./helpers/dirs.ts";
import { connectInMemory, connectStdio, MCP_TOOL_NAMES, taskIdOf, textOf } from "./helpers/mcp.ts";
import { runningWithEnv } from "./helpers/proc.ts";
import { repositoryRoot } from "./helpers/repository.ts";
import { sandboxSkip } from "./helpers/sandbox.ts";
import { LOGIN_ENV, SSH_USER, SshDaemon, sshUnavailable } from "./helpers/ssh_daemon.ts";
import { eventually } from "./helpers/wait.ts";

/** A command whose processes (a background sleeper and the foreground one) carry a fresh marker; and the marker. */
function marked(command: string): { command: string; mark: string } {
  const mark = randomUUID();
  return { command: `export MCP_TEST_MARK=${mark}; ${command}`, mark };
}

/** The running program's id an `exec_command` result names, read from its text. */
function sessionIdOf(result: Record<string, unknown>): number | undefined {
  const match = /^Process running with session ID (\d+)$/m.exec(textOf(result));
  return match === null ? undefined : Number(match[1]);
}

describe("createMcpServer, in memory", () => {
  let shell: Shell;
  let dir: string;
  before(() => {
    dir = freshDir("dsh-mcp-");
    shell = createLocalShell({ workdir: dir, graceMs: 500 });
  });
  after(async () => {
    await shell.close();
    removeDir(dir);
  });

  it("lists ./tool's three tools with their very descriptions and schemas, and honest annotations", async () => {
    const client = await connectInMemory(createMcpServer(shell, { openWorld: false, tools: "claude" }));
    // The claude set's first three: bash and its companions (the file tools follow, tested in files_tools.test.ts).
    const tools = (await client.listTools()).tools.slice(0, 3);
    assert.deepEqual(tools.map((tool) => tool.name), ["bash", "bash_output", "kill_shell"]);
    for (
      const [listed, own] of tools.map((tool, i) =>
        [tool, [bashSessionTool, bashOutputTool, killShellTool][i]] as const
      )
    ) {
      assert.equal(listed.description, own.description);
      assert.deepEqual(listed.inputSchema, own.inputSchema);
    }
    assert.deepEqual(tools.map((tool) => tool.annotations), [
      { title: "Bash", readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
      { title: "Background task output", readOnlyHint: true, openWorldHint: false },
      {
        title: "Kill background task",
        readOnlyHint: false,
        destructiveHint: true,
        idempotentHint: true,
        openWorldHint: false,
      },
    ]);
    const open = await connectInMemory(createMcpServer(shell, { tools: "claude" }));
    assert.equal((await open.listTools()).tools[0].annotations?.openWorldHint, true);
    assert.deepEqual(client.getServerVersion(), SERVER_INFO);
    await Promise.all([client.close(), open.close()]);
  });

  it("says the package's version", () => {
    const config = JSON.parse(readFileSync(join(repositoryRoot(), "deno.json"), "utf8")) as { version: string };
    assert.equal(SERVER_INFO.version, config.version);
  });

  it("answers a call with the tool's text as content and its outcome as isError, and nothing else", async () => {
    const client = await connectInMemory(createMcpServer(shell, { tools: "claude" }));
    const { tools } = await client.listTools();
    // A client that sees an outputSchema or a structuredContent shows the model the JSON instead of the text.
    assert.deepEqual(tools.filter((tool) => "outputSchema" in tool), []);
    const ok = await client.callTool({ name: "bash", arguments: { command: "echo hello; echo oops >&2" } });
    assert.deepEqual(ok, { content: [{ type: "text", text: "hello\n[stderr]\noops" }], isError: false });
    const failed = await client.callTool({ name: "bash", arguments: { command: "exit 4" } });
    assert.deepEqual(failed, { content: [{ type: "text", text: "(no output)\n[exit code: 4]" }], isError: true });
    const refused = await client.callTool({ name: "bash", arguments: { command: "ls", env: { A: "1" } } });
    assert.equal(refused.isError, true);
    assert.match(textOf(refused), /^env is not an input of the bash tool/);
    assert.equal("structuredContent" in refused, false);
    await assert.rejects(client.callTool({ name: "exec_command", arguments: { cmd: "ls" } }), (error: Error) => {
      // Said once: the client puts "MCP error -32602: " before the server's message.
      assert.equal(error.message, 'MCP error -32602: unknown tool "exec_command"');
      return true;
    });
    await client.close();
  });

  it("structured: true adds structuredContent, and an outputSchema the SDK's client checks it against", async () => {
    const client = await connectInMemory(createMcpServer(shell, { structured: true }));
    const { tools } = await client.listTools();
    assert.equal(tools.filter((tool) => tool.outputSchema?.type === "object").length, tools.length);
    const ok = await client.callTool({ name: "bash", arguments: { command: "echo hello; echo oops >&2" } });
    assert.equal(textOf(ok), "hello\n[stderr]\noops");
    assert.deepEqual(ok.structuredContent, {
      text: "hello\n[stderr]\noops",
      isError: false,
      exitCode: 0,
      signal: null,
      timedOut: false,
      aborted: false,
    });
    const refused = await client.callTool({ name: "bash", arguments: { command: "ls", env: { A: "1" } } });
    assert.deepEqual(refused.structuredContent, { text: textOf(refused), isError: true });
    const started = await client.callTool({ name: "exec_command", arguments: { cmd: "sleep 30", yield_time_ms: 0 } });
    assert.equal((started.structuredContent as { sessionId?: number }).sessionId, sessionIdOf(started));
    await client.close();
  });

  it("keeps two connections' owners apart: one cannot read or kill the other's task", async () => {
    const first = await connectInMemory(createMcpServer(shell));
    const second = await connectInMemory(createMcpServer(shell));
    const started = await first.callTool({
      name: "bash",
      arguments: { command: "echo mine; sleep 60", run_in_background: true },
    });
    const taskId = taskIdOf(started);
    assert.match(textOf(started), new RegExp(`^started background task ${taskId}`));
    const unknown = await second.callTool({ name: "bash_output", arguments: { task_id: "t-no-such-task" } });
    const foreign = await second.callTool({ name: "bash_output", arguments: { task_id: taskId } });
    assert.equal(foreign.isError, true);
    assert.equal(textOf(foreign), textOf(unknown).replace("t-no-such-task", taskId));
    const notKilled = await second.callTool({ name: "kill_shell", arguments: { task_id: taskId } });
    assert.equal(notKilled.isError, true);
    const owned = await first.callTool({ name: "kill_shell", arguments: { task_id: taskId } });
    assert.equal(owned.isError, false);
    assert.match(textOf(owned), new RegExp(`^killed background task ${taskId}`));
    await Promise.all([first.close(), second.close()]);
  });

  it("the connection's default owner is its own, new for each server", async () => {
    const first = await connectInMemory(createMcpServer(shell));
    const second = await connectInMemory(createMcpServer(shell));
    const started = await first.callTool({ name: "bash", arguments: { command: "sleep 60", run_in_background: true } });
    const taskId = taskIdOf(started);
    const [task] = shell.tasks(null).filter((task) => task.id === taskId);
    assert.equal(task, undefined, "not an unowned task");
    const read = await second.callTool({ name: "bash_output", arguments: { task_id: taskId } });
    assert.equal(read.isError, true);
    await first.close();
    await second.close();
  });

  it("a background task is read with bash_output, and ends when its connection closes", async () => {
    const { command, mark } = marked("echo listening; sleep 300");
    const server = createMcpServer(shell, { owner: "conn-bg" });
    const client = await connectInMemory(server);
    const started = await client.callTool({ name: "bash", arguments: { command, run_in_background: true } });
    const taskId = taskIdOf(started);
    const task = shell.task(taskId, "conn-bg");
    await task.waitForOutput();
    const read = await client.callTool({ name: "bash_output", arguments: { task_id: taskId } });
    assert.deepEqual([textOf(read), read.isError], ["listening\n[status: running]", false]);
    assert.ok(await eventually(() => runningWithEnv("MCP_TEST_MARK", mark).length > 0));
    await client.close();
    await task.done;
    assert.equal(task.status, "killed");
    assert.ok(await eventually(() => runningWithEnv("MCP_TEST_MARK", mark).length === 0), "the task's group is gone");
  });

  it("notifications/cancelled aborts the call's command: its whole group is killed", async () => {
    const client = await connectInMemory(createMcpServer(shell));
    const { command, mark } = marked("sleep 300 & sleep 301");
    const cancel = new AbortController();
    const call = client.callTool({ name: "bash", arguments: { command } }, undefined, { signal: cancel.signal });
    assert.ok(await eventually(() => runningWithEnv("MCP_TEST_MARK", mark).length === 2), "both sleepers run");
    cancel.abort("the user pressed Esc");
    await assert.rejects(call);
    assert.ok(await eventually(() => runningWithEnv("MCP_TEST_MARK", mark).length === 0), "the group is gone");
    await client.close();
  });

  it("a progressToken gets the output as progress notifications while the command runs", async () => {
    const client = await connectInMemory(createMcpServer(shell));
    const messages: string[] = [];
    const progress: number[] = [];
    const gate = join(dir, `gate-${randomUUID()}`);
    mkdirSync(gate);
    // The second line is printed only once the first arrived as progress: streaming, not a replay at the end.
    const call = client.callTool(
      { name: "bash", arguments: { command: `echo first; while [ -d ${gate} ]; do sleep 0.02; done; echo second` } },
      undefined,
      {
        onprogress: (note) => {
          messages.push(note.message ?? "");
          progress.push(note.progress);
          if (messages.join("") === "first\n") removeDir(gate);
        },
      },
    );
    const result = await call;
    assert.equal(textOf(result), "first\nsecond");
    assert.equal(messages.join(""), "first\nsecond\n");
    assert.deepEqual(progress, [...progress].sort((a, b) => a - b));
    assert.equal(progress.at(-1), "first\nsecond\n".length);
    await client.close();
  });

  it("offers both tool sets by default, and the codex set alone on request, with ./tool's very definitions", async () => {
    const all = await connectInMemory(createMcpServer(shell));
    assert.deepEqual((await all.listTools()).tools.map((tool) => tool.name), MCP_TOOL_NAMES);
    const codex = await connectInMemory(createMcpServer(shell, { tools: "codex" }));
    const { tools } = await codex.listTools();
    assert.deepEqual(tools.map((tool) => tool.name), ["exec_command", "write_stdin", "apply_patch"]);
    assert.deepEqual(tools.slice(0, 2).map((tool) => tool.inputSchema), [
      execCommandTool.inputSchema,
      writeStdinTool.inputSchema,
    ]);
    await assert.rejects(codex.callTool({ name: "bash", arguments: { command: "ls" } }), /unknown tool/);
    await Promise.all([all.close(), codex.close()]);
  });

  it("one connection's bash calls share a session: cd and export carry over; another connection's do not", async () => {
    mkdirSync(join(dir, "sub"), { recursive: true });
    const first = await connectInMemory(createMcpServer(shell));
    const second = await connectInMemory(createMcpServer(shell));
    await first.callTool({ name: "bash", arguments: { command: "cd sub && export STAGE=one" } });
    const carried = await first.callTool({ name: "bash", arguments: { command: 'pwd; echo "${STAGE-none}"' } });
    assert.equal(textOf(carried), `${join(dir, "sub")}\none`);
    const apart = await second.callTool({ name: "bash", arguments: { command: 'pwd; echo "${STAGE-none}"' } });
    assert.equal(textOf(apart), `${dir}\nnone`);
    // A call its timeout killed changes nothing.
    await first.callTool({ name: "bash", arguments: { command: "cd /; export STAGE=two; sleep 30", timeout: 300 } });
    const kept = await first.callTool({ name: "bash", arguments: { command: 'pwd; echo "$STAGE"' } });
    assert.equal(textOf(kept), `${join(dir, "sub")}\none`);
    // One big export: the model reads that it was not carried, and bash still works on this connection (on 7888e55
    // every later call was a spawn error, E2BIG).
    const big = await first.callTool({
      name: "bash",
      arguments: { command: "export BIG=$(head -c 200000 /dev/zero | tr '\\0' x); echo set" },
    });
    assert.match(textOf(big), /^set\n\[session: session variables not carried .*: BIG \(200005 bytes, [^\n]*\]$/);
    const after = await first.callTool({ name: "bash", arguments: { command: 'echo "${BIG-unset} $STAGE"' } });
    assert.equal(textOf(after), "unset one");
    await Promise.all([first.close(), second.close()]);
  });

  it("exec_command keeps a terminal program alive and write_stdin answers its prompt", async () => {
    const client = await connectInMemory(createMcpServer(shell));
    const started = await client.callTool({
      name: "exec_command",
      arguments: { cmd: 'read -p "name? " name; echo "hi $name"', tty: true, yield_time_ms: 200 },
    });
    const sessionId = sessionIdOf(started);
    assert.equal(typeof sessionId, "number");
    assert.match(textOf(started), new RegExp(`Process running with session ID ${sessionId}`));
    const answered = await client.callTool({
      name: "write_stdin",
      arguments: { session_id: sessionId, chars: "Ada\n", yield_time_ms: 10_000 },
    });
    assert.match(textOf(answered), /^Process exited with code 0$/m);
    assert.match(textOf(answered), /hi Ada/);
    // Another connection is another owner: the id is unknown there.
    const other = await connectInMemory(createMcpServer(shell));
    const stranger = await other.callTool({ name: "write_stdin", arguments: { session_id: sessionId } });
    assert.equal(stranger.isError, true);
    await Promise.all([client.close(), other.close()]);
  });

  it("refuses invalid options, naming the field", () => {
    assert.throws(() => createMcpServer(shell, { tools: "vim" as "all" }), /^ShellSpecError: tools: /);
    assert.throws(() => createMcpServer(shell, { owner: "" }), /^ShellSpecError: owner: /);
    assert.throws(() => createMcpServer(shell, { openWorld: "no" as unknown as boolean }), /openWorld/);
    assert.throws(
      () => createMcpServer(shell, { structured: 1 as unknown as boolean }),
      /^ShellSpecError: structured: /,
    );
  });
});

const noSandbox = sandboxSkip();

describe("dsh-shell mcp over stdio, sandboxed (the default)", { skip: noSandbox }, () => {
  let dir: string;
  before(() => {
    dir = freshDir("dsh-mcp-stdio-");
  });
  after(() => removeDir(dir));

  /** A fresh workdir for one server. */
  function workdir(): string {
    const path = join(dir, randomUUID());
    mkdirSync(path);
    return path;
  }

  it("lists the tools and runs bash in the workdir, inside the sandbox", async () => {
    const cwd = workdir();
    const server = await connectStdio([], cwd);
    const { tools } = await server.client.listTools();
    assert.deepEqual(tools.map((tool) => tool.name), MCP_TOOL_NAMES);
    assert.equal(tools[0].annotations?.openWorldHint, false, "network none: a closed world");
    const result = await server.client.callTool({
      name: "bash",
      arguments: { command: `pwd; touch ${join(repositoryRoot(), "mcp-outside")} 2>/dev/null || echo refused` },
    });
    assert.equal(textOf(result), `${cwd}\nrefused`);
    assert.equal(existsSync(join(repositoryRoot(), "mcp-outside")), false);
    await server.client.close();
    assert.deepEqual(await server.exited, { code: 0, signal: null });
  });

  it("a background task, read with bash_output; closing stdin ends it and the server, nothing left", async () => {
    const server = await connectStdio([], workdir());
    const { command, mark } = marked("echo up; sleep 300 & sleep 301");
    const started = await server.client.callTool({ name: "bash", arguments: { command, run_in_background: true } });
    const taskId = taskIdOf(started);
    assert.ok(await eventually(() => runningWithEnv("MCP_TEST_MARK", mark).length === 2), "both sleepers run");
    // Over MCP there is no event for "the task printed": poll, as a model would.
    let read = "";
    for (const deadline = Date.now() + 10_000; !read.startsWith("up") && Date.now() < deadline;) {
      read = textOf(await server.client.callTool({ name: "bash_output", arguments: { task_id: taskId } }));
      if (!read.startsWith("up")) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.equal(read, "up\n[status: running]");
    await server.client.close(); // closes the server's stdin, and nothing else
    assert.deepEqual(await server.exited, { code: 0, signal: null });
    assert.deepEqual(runningWithEnv("MCP_TEST_MARK", mark), [], "nothing the server started runs");
  });

  it("two connections are two owners: one's task id means nothing to the other", async () => {
    const [first, second] = await Promise.all([connectStdio([], workdir()), connectStdio([], workdir())]);
    const started = await first.client.callTool({
      name: "bash",
      arguments: { command: "sleep 60", run_in_background: true },
    });
    const taskId = taskIdOf(started);
    const foreign = await second.client.callTool({ name: "bash_output", arguments: { task_id: taskId } });
    assert.equal(foreign.isError, true);
    assert.match(textOf(foreign), /^\[error\] no background task/);
    const own = await first.client.callTool({ name: "bash_output", arguments: { task_id: taskId } });
    assert.deepEqual([textOf(own), own.isError], ["(no new output)\n[status: running]", false]);
    await Promise.all([first.client.close(), second.client.close()]);
    assert.deepEqual(await Promise.all([first.exited, second.exited]), [{ code: 0, signal: null }, {
      code: 0,
      signal: null,
    }]);
  });

  it("answers with the text alone; --structured adds structuredContent and outputSchema", async () => {
    const plain = await connectStdio([], workdir());
    assert.equal((await plain.client.listTools()).tools.some((tool) => "outputSchema" in tool), false);
    const text = await plain.client.callTool({ name: "bash", arguments: { command: "echo hi" } });
    assert.deepEqual(text, { content: [{ type: "text", text: "hi" }], isError: false });
    const structured = await connectStdio(["--structured"], workdir());
    assert.ok((await structured.client.listTools()).tools.every((tool) => tool.outputSchema !== undefined));
    const data = await structured.client.callTool({ name: "bash", arguments: { command: "echo hi" } });
    assert.deepEqual(data.structuredContent, {
      text: "hi",
      isError: false,
      exitCode: 0,
      signal: null,
      timedOut: false,
      aborted: false,
    });
    await Promise.all([plain.client.close(), structured.client.close()]);
    assert.deepEqual(await Promise.all([plain.exited, structured.exited]), [{ code: 0, signal: null }, {
      code: 0,
      signal: null,
    }]);
  });

  it("progress is bounded: seq 1 2000000 sends at most what the result keeps, one per 100 ms, no warning", async () => {
    const server = await connectStdio([], workdir());
    const messages: string[] = [];
    let notes = 0;
    const started = performance.now();
    const result = await server.client.callTool({ name: "bash", arguments: { command: "seq 1 2000000" } }, undefined, {
      onprogress: (note) => {
        notes++;
        messages.push(note.message ?? "");
      },
      timeout: 120_000,
    });
    const elapsed = performance.now() - started;
    const sent = messages.join("");
    // 14.9 MB printed; the result keeps about 64 000 bytes of it, and so do the messages: its head, a note, its tail.
    assert.ok(Buffer.byteLength(sent) <= 64_000 + 100, `${Buffer.byteLength(sent)} bytes sent as progress`);
    assert.ok(sent.startsWith("1\n2\n3\n"), sent.slice(0, 20));
    assert.ok(sent.endsWith("\n1999999\n2000000\n"), sent.slice(-40));
    const left = /\n\[\.\.\. (\d+) bytes of stdout left out \.\.\.\]\n/.exec(sent);
    assert.ok(left, "a note of what was left out");
    assert.equal(Buffer.byteLength(sent) - left[0].length + Number(left[1]), 14_888_896, "head + left out + tail");
    assert.ok(notes <= Math.ceil(elapsed / 100) + 2, `${notes} notifications in ${Math.round(elapsed)} ms`);
    assert.match(textOf(result), /^1\n2\n3\n/);
    await server.client.close();
    assert.deepEqual(await server.exited, { code: 0, signal: null });
    assert.doesNotMatch(server.stderr(), /MaxListenersExceeded|Warning/);
  });

  it("--network host makes bash an open-world tool", async () => {
    const server = await connectStdio(["--network", "host"], workdir());
    const { tools } = await server.client.listTools();
    assert.deepEqual(tools.map((tool) => tool.annotations?.openWorldHint), [
      ...[true, false, false],
      ...[false, false, false], // the file tools reach the shell's files, never the network
      ...[true, true, false],
    ]);
    await server.client.close();
    assert.deepEqual(await server.exited, { code: 0, signal: null });
  });

  it("SIGTERM ends a call in flight and the server, nothing left", async () => {
    const server = await connectStdio([], workdir());
    const { command, mark } = marked("sleep 300 & sleep 301");
    const call = server.client.callTool({ name: "bash", arguments: { command } });
    call.catch(() => {});
    assert.ok(await eventually(() => runningWithEnv("MCP_TEST_MARK", mark).length === 2), "both sleepers run");
    // By pid: under Deno, ChildProcess.kill("SIGTERM") was seen to end the server by the signal although it handles it.
    process.kill(server.child.pid ?? 0, "SIGTERM");
    assert.deepEqual(await server.exited, { code: 0, signal: null }, server.stderr());
    assert.deepEqual(runningWithEnv("MCP_TEST_MARK", mark), [], "nothing the server started runs");
  });

  it("notifications/cancelled kills the call's group; the server goes on", async () => {
    const server = await connectStdio([], workdir());
    const { command, mark } = marked("sleep 300 & sleep 301");
    const cancel = new AbortController();
    const call = server.client.callTool({ name: "bash", arguments: { command } }, undefined, {
      signal: cancel.signal,
    });
    assert.ok(await eventually(() => runningWithEnv("MCP_TEST_MARK", mark).length === 2), "both sleepers run");
    cancel.abort();
    await assert.rejects(call);
    assert.ok(await eventually(() => runningWithEnv("MCP_TEST_MARK", mark).length === 0), "the group is gone");
    const next = await server.client.callTool({ name: "bash", arguments: { command: "echo still here" } });
    assert.equal(textOf(next), "still here");
    await server.client.close();
    assert.deepEqual(await server.exited, { code: 0, signal: null });
  });
});

const requireEngines = process.env.DSH_REQUIRE_ENGINES === "1";

describe("dsh-shell mcp --engine ssh:USER@HOST", { skip: !requireEngines && sshUnavailable() }, () => {
  let sshd: SshDaemon;
  let dir: string;
  before(async () => {
    sshd = await SshDaemon.start();
    dir = freshDir("dsh-mcp-ssh-");
  });
  after(async () => {
    await sshd?.stop();
    removeDir(dir);
  });

  it("runs the calls on the host, as its user; closing stdin leaves nothing running there", async () => {
    const server = await connectStdio([
      "--engine",
      `ssh:${SSH_USER}@127.0.0.1`,
      "--ssh-port",
      String(sshd.port),
      "--ssh-identity",
      sshd.identityFile,
      "--ssh-known-hosts",
      sshd.knownHostsFile,
      "--workdir",
      "/",
    ], dir);
    const { tools } = await server.client.listTools();
    assert.equal(tools[0].annotations?.openWorldHint, true, "another host: an open world");
    // sshd sets the marker in every login: only a command that went through it prints it.
    const result = await server.client.callTool({
      name: "bash",
      arguments: { command: 'echo "$ENGINE_LOGIN_MARKER"; id -un' },
    });
    assert.equal(textOf(result), `${LOGIN_ENV.ENGINE_LOGIN_MARKER}\n${SSH_USER}`);
    const started = await server.client.callTool({
      name: "bash",
      arguments: { command: "sleep 300", run_in_background: true },
    });
    assert.equal(started.isError, false, textOf(started));
    assert.ok(
      await eventually(() => sshd.ours().some((proc) => proc.comm === "sleep")),
      "the sleeper runs on the host",
    );
    await server.client.close();
    assert.deepEqual(await server.exited, { code: 0, signal: null }, server.stderr());
    assert.ok(await eventually(() => sshd.ours().length === 0), `left on the host: ${JSON.stringify(sshd.ours())}`);
  });
});

describe("dsh-shell mcp --engine docker:CONTAINER", { skip: !requireEngines && dockerUnavailable() }, () => {
  let docker: DockerDaemon;
  let container: string;
  let dir: string;
  before(async () => {
    docker = await DockerDaemon.start();
    container = docker.run(`dsh-mcp-${process.pid}`, { FOO: "from-the-image" });
    dir = freshDir("dsh-mcp-docker-");
  });
  after(async () => {
    await docker?.stop();
    removeDir(dir);
  });

  it("runs the calls in the container; closing stdin leaves nothing running there", async () => {
    const server = await connectStdio(
      ["--engine", `docker:${container}`, "--docker-host", docker.host, "--workdir", "/work", "--shell", "sh"],
      dir,
    );
    // Only the container's environment has FOO.
    const result = await server.client.callTool({ name: "bash", arguments: { command: 'echo "$FOO"; pwd' } });
    assert.equal(textOf(result), "from-the-image\n/work");
    const started = await server.client.callTool({
      name: "bash",
      arguments: { command: "sleep 300", run_in_background: true },
    });
    assert.equal(started.isError, false, textOf(started));
    assert.ok(await eventually(() => docker.ours(container).some((proc) => proc.comm === "sleep")), "it runs there");
    await server.client.close();
    assert.deepEqual(await server.exited, { code: 0, signal: null }, server.stderr());
    assert.ok(await eventually(() => docker.ours(container).length === 0), JSON.stringify(docker.ours(container)));
  });
});

describe("dsh-shell mcp: mistakes are one line on stderr", () => {
  it("fails closed without bubblewrap: exits at once, saying so", async () => {
    const cwd = freshDir("dsh-mcp-nobwrap-");
    const empty = join(cwd, "empty-path");
    mkdirSync(empty);
    try {
      const run = await dshShell(["mcp", "--workdir", cwd], { env: { PATH: empty } });
      assert.equal(run.code, 125);
      assert.equal(run.stdout, "");
      assert.equal(run.stderr.split("\n").length, 2, run.stderr);
      assert.match(run.stderr, /^dsh-shell mcp: ShellSandboxError: .*bubblewrap/);
    } finally {
      removeDir(cwd);
    }
  });

  for (
    const [args, message] of [
      [["--tools", "vim"], /^dsh-shell mcp: --tools must be claude, codex or all/],
      [["--network", "lan"], /^dsh-shell mcp: --network must be none or host/],
      [["--no-sandbox", "--network", "host"], /sandbox options: they mean nothing with --no-sandbox/],
      [["--engine", "docker:box"], /^dsh-shell mcp: --engine docker: needs --workdir DIR/],
      [["--engine", "ssh:nobody", "--workdir", "/srv"], /needs USER@HOST/],
      [["--engine", "k8s:pod", "--workdir", "/srv"], /--engine must be docker:CONTAINER or ssh:USER@HOST/],
      [["--engine", "docker:box", "--workdir", "/srv", "--network", "host"], /with --engine the docker side is/],
      [["--ssh-port", "22"], /--ssh-port is an option of --engine ssh/],
      [["--engine", "ssh:me@host", "--workdir", "/srv", "--ssh-port", "0"], /--ssh-port must be a port number/],
      [["--timeout", "soon"], /--timeout needs a positive number/],
    ] as const
  ) {
    it(`${args.join(" ")}: exit 64`, async () => {
      const run = await dshShell(["mcp", ...args]);
      assert.equal(run.code, 64, run.stderr);
      assert.equal(run.stdout, "");
      assert.equal(run.stderr.split("\n").length, 2, run.stderr);
      assert.match(run.stderr, message);
    });
  }
});
