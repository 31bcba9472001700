/**
 * The MCP server over Streamable HTTP (`serveHttp`, `dsh-shell mcp --http`),
 * attacked: a missing, wrong or short token, a token in the URL, a foreign
 * Origin or Host, another session's task ids, a thousand requests at once,
 * a body past the bound, a client that stops reading, and the ends of a
 * session (DELETE, idle, SIGTERM, SIGKILL of the server). What the tools
 * answer is `./tool`'s; the SDK's own HTTP client drives the happy path.
 * Every "nothing ran" is checked on the OS: the file is not there, the
 * process is gone.
 */

import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";
import { randomBytes, randomUUID } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { connect as netConnect } from "node:net";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client";
// Deno does not find the types of the SDK's wildcard exports; the same file, named for it.
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { createLocalShell, type Shell } from "../mod.ts";
import { type McpHttpServer, serveHttp } from "../src/mcp/mod.ts";
import { dshShell, spawnCli } from "./helpers/cli.ts";
import { freshDir, removeDir } from "./helpers/dirs.ts";
import { MCP_TOOL_NAMES, taskIdOf, textOf } from "./helpers/mcp.ts";
import { runningWithEnv } from "./helpers/proc.ts";
import { repositoryRoot } from "./helpers/repository.ts";
import { sandboxSkip } from "./helpers/sandbox.ts";
import { appeared, eventually } from "./helpers/wait.ts";

/** A fresh token of 64 bytes (hex). */
function newToken(): string {
  return randomBytes(32).toString("hex");
}

/** The SDK's client over Streamable HTTP with the token header; and its transport (for DELETE). */
async function connect(
  url: URL,
  token: string,
): Promise<{ client: Client; transport: StreamableHTTPClientTransport; sessionId: string }> {
  const transport = new StreamableHTTPClientTransport(url, {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: "dsh-tests", version: "1.0.0" });
  await client.connect(transport);
  assert.ok(transport.sessionId);
  return { client, transport, sessionId: transport.sessionId };
}

let requestIds = 1000;

/** A `tools/call` message for `bash`. */
function bashCall(command: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    jsonrpc: "2.0",
    id: requestIds++,
    method: "tools/call",
    params: { name: "bash", arguments: { command }, ...extra },
  };
}

/** POSTs `message` raw (fetch), with `headers` on top of what a client sends; the status and the body's text. */
async function post(
  url: URL | string,
  message: unknown,
  headers: Record<string, string>,
): Promise<{ status: number; text: string }> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream", ...headers },
    body: JSON.stringify(message),
  });
  return { status: response.status, text: await response.text() };
}

/** The headers a session's request carries. */
function sessionHeaders(sessionId: string, token?: string): Record<string, string> {
  return {
    "Mcp-Session-Id": sessionId,
    "Mcp-Protocol-Version": "2025-06-18",
    ...(token === undefined ? {} : { Authorization: `Bearer ${token}` }),
  };
}

/** A raw request with headers fetch would not let a caller set (Host); resolves with the status. */
function rawStatus(url: URL, headers: Record<string, string>, body = "{}"): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, { method: "POST", headers }, (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    request.once("error", reject);
    request.end(body);
  });
}

/** A request on a connection of its own, closed after the answer; the status, headers and body. */
function rawRequest(
  url: URL,
  headers: Record<string, string>,
  body: string,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, {
      method: "POST",
      agent: false,
      headers: {
        Connection: "close",
        "Content-Type": "application/json",
        Accept: "application/json, text/event-stream",
        ...headers,
      },
    }, (response) => {
      let text = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => text += chunk);
      response.once("end", () => resolve({ status: response.statusCode ?? 0, headers: response.headers, text }));
    });
    request.once("error", reject);
    request.end(body);
  });
}

const INITIALIZE = {
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
};

describe("serveHttp", () => {
  let dir: string;
  let shell: Shell;
  let server: McpHttpServer;
  const token = newToken();
  before(async () => {
    dir = freshDir("dsh-mcp-http-");
    shell = createLocalShell({ workdir: dir, graceMs: 500 });
    server = await serveHttp(shell, { token });
  });
  after(async () => {
    await server.close();
    await shell.close();
    removeDir(dir);
  });

  it("listens on 127.0.0.1 at /mcp; the SDK's client runs bash, and cd and export carry over in its session", async () => {
    assert.equal(server.url.hostname, "127.0.0.1");
    assert.equal(server.url.pathname, "/mcp");
    const { client } = await connect(server.url, token);
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((tool) => tool.name), MCP_TOOL_NAMES);
    mkdirSync(join(dir, "sub"), { recursive: true });
    const first = await client.callTool({
      name: "bash",
      arguments: { command: "cd sub && export GREETING=hi; echo ok" },
    });
    assert.deepEqual([textOf(first), first.isError], ["ok", false]);
    const second = await client.callTool({ name: "bash", arguments: { command: 'echo "$PWD $GREETING"' } });
    assert.equal(textOf(second), `${join(dir, "sub")} hi`);
    assert.equal(server.sessions >= 1, true);
    await client.close();
  });

  it("no token, a wrong one, a short one, another scheme, a token in the URL: 401, and the command never ran", async () => {
    const { client, sessionId } = await connect(server.url, token);
    const target = join(dir, `touched-${randomUUID()}`);
    const wrong = newToken();
    const attempts: [string, URL | string, Record<string, string>][] = [
      ["no token", server.url, sessionHeaders(sessionId)],
      ["a wrong token", server.url, sessionHeaders(sessionId, wrong)],
      ["a short token (the right one's first half)", server.url, sessionHeaders(sessionId, token.slice(0, 32))],
      ["the right one and more", server.url, sessionHeaders(sessionId, `${token}x`)],
      ["an empty token", server.url, { ...sessionHeaders(sessionId), Authorization: "Bearer " }],
      ["Basic", server.url, { ...sessionHeaders(sessionId), Authorization: `Basic ${token}` }],
      ["in the query string", `${server.url.href}?token=${token}`, sessionHeaders(sessionId)],
      ["as access_token", `${server.url.href}?access_token=${token}`, sessionHeaders(sessionId)],
    ];
    for (const [what, url, headers] of attempts) {
      const { status } = await post(url, bashCall(`touch ${target}`), headers);
      assert.equal(status, 401, what);
    }
    // Nothing ran: the same call with the token does write the file, so the call itself was a good one.
    assert.equal(existsSync(target), false, "a refused request ran its command");
    const { status } = await post(server.url, bashCall(`touch ${target}`), sessionHeaders(sessionId, token));
    assert.equal(status, 200);
    assert.equal(existsSync(target), true);
    // Opening a session needs the token too.
    assert.equal((await post(server.url, INITIALIZE, {})).status, 401);
    await client.close();
  });

  it("a foreign Origin or Host is 403 (DNS rebinding), with the right token, and nothing runs", async () => {
    const { client, sessionId } = await connect(server.url, token);
    const target = join(dir, `rebound-${randomUUID()}`);
    for (const origin of ["http://evil.example", "null", `http://localhost:${Number(server.url.port) + 1}`]) {
      const headers = { ...sessionHeaders(sessionId, token), Origin: origin };
      assert.equal((await post(server.url, bashCall(`touch ${target}`), headers)).status, 403, origin);
    }
    const headers = {
      ...sessionHeaders(sessionId, token),
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
    };
    const call = JSON.stringify(bashCall(`touch ${target}`));
    assert.equal(await rawStatus(server.url, { ...headers, Host: `evil.example:${server.url.port}` }, call), 403);
    assert.equal(await rawStatus(server.url, { ...headers, Host: "evil.example" }, call), 403);
    assert.equal(existsSync(target), false);
    // The server's own origin is fine, as is localhost for a loopback server.
    const own = { ...sessionHeaders(sessionId, token), Origin: `http://localhost:${server.url.port}` };
    assert.equal((await post(server.url, bashCall("true"), own)).status, 200);
    await client.close();
  });

  it("a session is an owner: another session's task ids reach nothing, even with the token", async () => {
    const first = await connect(server.url, token);
    const second = await connect(server.url, token);
    const started = await first.client.callTool({
      name: "bash",
      arguments: { command: "sleep 60", run_in_background: true },
    });
    const taskId = taskIdOf(started);
    for (const name of ["bash_output", "kill_shell"]) {
      const foreign = await second.client.callTool({ name, arguments: { task_id: taskId } });
      assert.equal(foreign.isError, true, name);
      assert.match(textOf(foreign), /^\[error\] no background task/, name);
    }
    const own = await first.client.callTool({ name: "bash_output", arguments: { task_id: taskId } });
    assert.deepEqual([textOf(own), own.isError], ["(no new output)\n[status: running]", false]);
    // The session id is what names a session: a request with the first's id and no token is still 401.
    assert.equal((await post(server.url, bashCall("true"), sessionHeaders(first.sessionId))).status, 401);
    await first.transport.terminateSession();
    await Promise.all([first.client.close(), second.client.close()]);
  });

  it("a thousand requests at once: each answered as it should be, and the server serves on", async () => {
    const { client, sessionId } = await connect(server.url, token);
    const ping = (id: number) => ({ jsonrpc: "2.0", id, method: "ping" });
    const requests: Promise<[string, number, string]>[] = [];
    for (let i = 0; i < 1000; i++) {
      const kind = i % 10 < 6 ? "unauthorized" : i % 10 < 9 ? "ping" : "bash";
      const message = kind === "bash" ? bashCall(`echo n${i}`) : ping(10_000 + i);
      const headers = sessionHeaders(sessionId, kind === "unauthorized" ? undefined : token);
      requests.push(post(server.url, message, headers).then(({ status, text }) => [kind, status, text]));
    }
    for (const [kind, status, text] of await Promise.all(requests)) {
      if (kind === "unauthorized") assert.equal(status, 401);
      else {
        assert.equal(status, 200, kind);
        assert.match(text, kind === "ping" ? /"result":\{\}/ : /"text":"n\d+"/);
      }
    }
    const after = await client.callTool({ name: "bash", arguments: { command: "echo still here" } });
    assert.equal(textOf(after), "still here");
    await client.close();
  });

  it("a body past the bound is 413, declared or not, and runs nothing", async () => {
    const bounded = await serveHttp(shell, { token, maxBodyBytes: 64 * 1024 });
    try {
      const { client, sessionId } = await connect(bounded.url, token);
      const target = join(dir, `large-${randomUUID()}`);
      const large = JSON.stringify(bashCall(`touch ${target} # ${"x".repeat(100 * 1024)}`));
      const headers = {
        ...sessionHeaders(sessionId, token),
        "Content-Type": "application/json",
        Accept: "application/json, text/event-stream",
      };
      // Declared: refused from the header. Chunked: refused once the bound is passed.
      assert.equal(await rawStatus(bounded.url, { ...headers, "Content-Length": String(large.length) }, large), 413);
      assert.equal(await rawStatus(bounded.url, { ...headers, "Transfer-Encoding": "chunked" }, large), 413);
      assert.equal(existsSync(target), false);
      const fine = await client.callTool({ name: "bash", arguments: { command: "echo fine" } });
      assert.equal(textOf(fine), "fine");
      await client.close();
    } finally {
      await bounded.close();
    }
  });

  it("a slow client holds no connection: headers or a body that never end are dropped", async () => {
    const strict = await serveHttp(shell, { token, requestTimeoutMs: 300 });
    try {
      const port = Number(strict.url.port);
      const host = strict.url.host;
      const starts = [
        "", // a connection that says nothing
        `POST /mcp HTTP/1.1\r\nHost: ${host}\r\n`, // headers that never end
        `POST /mcp HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\n` +
        "Content-Length: 1000\r\n\r\n{", // a body that never ends
      ];
      const ends = await Promise.all(starts.map(async (start) => {
        const socket = netConnect(port, "127.0.0.1");
        // A reset instead of a clean close is a close too.
        socket.on("error", () => {});
        let received = "";
        socket.setEncoding("utf8");
        socket.on("data", (chunk: string) => received += chunk);
        socket.once("connect", () => socket.write(start));
        // The server must close it: the test's own timeout is the only other way out.
        await new Promise((resolve) => socket.once("close", resolve));
        return received.split("\r\n")[0];
      }));
      assert.deepEqual(ends, ["", "", "HTTP/1.1 408 Request Timeout"]);
      assert.ok(await eventually(() => strict.connections === 0), `${strict.connections} connections left`);
    } finally {
      await strict.close();
    }
  });

  it("a client that stops reading a stream has it closed, and holds nothing", async () => {
    // A shell that keeps all of a large output, so the answer is larger than the socket's buffers.
    await using big = createLocalShell({ workdir: dir, maxOutputBytes: 64 * 1024 * 1024 });
    const stalling = await serveHttp(big, { token, stalledReadTimeoutMs: 300 });
    try {
      // The session is opened on a connection of its own that then closes, so the stalled one is the only one left.
      const opened = await rawRequest(stalling.url, { Authorization: `Bearer ${token}` }, JSON.stringify(INITIALIZE));
      assert.equal(opened.status, 200);
      const sessionId = opened.headers["mcp-session-id"] as string;
      assert.ok(await eventually(() => stalling.connections === 0), "the opening connection stayed open");
      const done = join(dir, `produced-${randomUUID()}`);
      const body = JSON.stringify(bashCall(`head -c 40000000 /dev/zero | tr '\\0' a; touch ${done}`));
      const socket = netConnect(Number(stalling.url.port), "127.0.0.1");
      // A reset instead of a clean close is a close too.
      socket.on("error", () => {});
      await new Promise((resolve) => socket.once("connect", resolve));
      socket.pause(); // and never read
      socket.write(
        `POST /mcp HTTP/1.1\r\nHost: ${stalling.url.host}\r\nAuthorization: Bearer ${token}\r\n` +
          `Mcp-Session-Id: ${sessionId}\r\nMcp-Protocol-Version: 2025-06-18\r\nContent-Type: application/json\r\n` +
          `Accept: application/json, text/event-stream\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
      );
      assert.ok(await appeared(done, 30_000), "the command did not finish");
      // The server gives up on the stream (and its queued bytes) and closes the connection.
      assert.ok(await eventually(() => stalling.connections === 0, 20_000), `${stalling.connections} open`);
      // What the client gets once it reads again is what the sockets held when the server gave up: not the answer.
      let received = 0;
      socket.on("data", (chunk: Buffer) => received += chunk.length);
      socket.resume();
      await new Promise((resolve) => socket.once("close", resolve));
      assert.ok(received < 40_000_000, `${received} bytes: the whole answer was kept for a client that did not read`);
      const other = await connect(stalling.url, token);
      assert.equal(textOf(await other.client.callTool({ name: "bash", arguments: { command: "echo ok" } })), "ok");
      await other.client.close();
    } finally {
      await stalling.close();
    }
  });

  it("DELETE ends the session and everything it started", async () => {
    const { client, transport, sessionId } = await connect(server.url, token);
    const mark = randomUUID();
    await client.callTool({
      name: "bash",
      arguments: { command: `export MCP_HTTP_MARK=${mark}; sleep 300 & sleep 301`, run_in_background: true },
    });
    // A foreground call too, running when the DELETE comes.
    const foreground = client.callTool({
      name: "bash",
      arguments: { command: `export MCP_HTTP_MARK=${mark}; sleep 302` },
    }).catch((error: Error) => error);
    assert.ok(await eventually(() => runningWithEnv("MCP_HTTP_MARK", mark).length === 3), "the sleepers run");
    await transport.terminateSession();
    // Killed before the answer; a process SIGKILLed a moment before may still be on its way out.
    assert.ok(await eventually(() => runningWithEnv("MCP_HTTP_MARK", mark).length === 0), "outlived the DELETE");
    await foreground;
    assert.equal((await post(server.url, bashCall("true"), sessionHeaders(sessionId, token))).status, 404);
    await client.close();
  });

  it("an idle session is ended, with what it started; a session with a call under way is not idle", async () => {
    const idle = await serveHttp(shell, { token, idleTimeoutMs: 200 });
    try {
      const { client } = await connect(idle.url, token);
      const mark = randomUUID();
      // The call outlasts the idle timeout many times over: it is activity, and ends by itself.
      const busy = await client.callTool({
        name: "bash",
        arguments: { command: `export MCP_HTTP_MARK=${mark}; sleep 1; echo busy` },
      });
      assert.equal(textOf(busy), "busy");
      await client.callTool({
        name: "bash",
        arguments: { command: `export MCP_HTTP_MARK=${mark}; sleep 300`, run_in_background: true },
      });
      assert.equal(idle.sessions, 1);
      assert.ok(await eventually(() => idle.sessions === 0, 10_000), "the idle session was not ended");
      assert.ok(await eventually(() => runningWithEnv("MCP_HTTP_MARK", mark).length === 0), "its task outlived it");
      await client.close().catch(() => {});
    } finally {
      await idle.close();
    }
  });

  it("past maxSessions a new session is 503; one ended makes room", async () => {
    const capped = await serveHttp(shell, { token, maxSessions: 2 });
    try {
      const first = await connect(capped.url, token);
      const second = await connect(capped.url, token);
      const refused = await post(capped.url, INITIALIZE, { Authorization: `Bearer ${token}` });
      assert.equal(refused.status, 503);
      await assert.rejects(connect(capped.url, token));
      await first.transport.terminateSession();
      const third = await connect(capped.url, token);
      await Promise.all([first.client.close(), second.client.close(), third.client.close()]);
    } finally {
      await capped.close();
    }
  });

  it("a burst of initializes at once opens no more sessions than the cap", async () => {
    const capped = await serveHttp(shell, { token, maxSessions: 3 });
    try {
      const statuses = await Promise.all(
        Array.from({ length: 20 }, () => post(capped.url, INITIALIZE, { Authorization: `Bearer ${token}` })),
      );
      const counts = statuses.reduce<Record<number, number>>((all, { status }) => {
        all[status] = (all[status] ?? 0) + 1;
        return all;
      }, {});
      assert.deepEqual(counts, { 200: 3, 503: 17 });
      assert.equal(capped.sessions, 3);
    } finally {
      await capped.close();
    }
  });

  it("refuses a bad option by name, never quoting the token", async () => {
    await assert.rejects(serveHttp(shell, { token: "short" }), /^ShellSpecError: token: must be at least 32 bytes/);
    const spaced = `${newToken()} x`;
    await assert.rejects(serveHttp(shell, { token: spaced }), (error: Error) => !error.message.includes(spaced));
    await assert.rejects(serveHttp(shell, { token, maxSessions: 0 }), /maxSessions/);
    await assert.rejects(serveHttp(shell, { token, port: 70000 }), /port/);
    await assert.rejects(
      serveHttp(shell, { token, tools: "bogus" as unknown as "all" }),
      /^ShellSpecError: tools: /,
    );
    await assert.rejects(
      serveHttp(shell, { token, owner: "x" } as unknown as Parameters<typeof serveHttp>[1]),
      /owner/,
    );
  });
});

/** Starts `dsh-shell mcp --http 127.0.0.1:0 …` in `cwd`; its URL (from the stderr line) and the child. */
async function startCli(
  args: string[],
  cwd: string,
): Promise<
  { url: URL; child: ReturnType<typeof spawnCli>; exited: Promise<{ code: number | null; signal: string | null }> }
> {
  const child = spawnCli(["mcp", "--http", "127.0.0.1:0", "--workdir", cwd, ...args]);
  child.stdin.end();
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    child.once("close", (code, signal) => resolve({ code, signal }))
  );
  let stderr = "";
  child.stderr.setEncoding("utf8");
  const line = await new Promise<string>((resolve, reject) => {
    child.stderr.on("data", (chunk: string) => {
      stderr += chunk;
      if (stderr.includes("\n")) resolve(stderr.slice(0, stderr.indexOf("\n")));
    });
    child.once("close", () => reject(new Error(`the server ended: ${stderr}`)));
  });
  const match = /^dsh-shell mcp: listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)$/.exec(line);
  assert.ok(match, line);
  return { url: new URL(match[1]), child, exited };
}

const noSandbox = sandboxSkip();

describe("dsh-shell mcp --http", () => {
  let dir: string;
  let tokenFile: string;
  const token = newToken();
  before(() => {
    dir = freshDir("dsh-mcp-http-cli-");
    tokenFile = join(dir, "token");
    writeFileSync(tokenFile, `${token}\n`, { mode: 0o600 });
  });
  after(() => removeDir(dir));

  /** A fresh workdir for one server. */
  function workdir(): string {
    const path = join(dir, randomUUID());
    mkdirSync(path);
    return path;
  }

  it("sandboxed by default; the token is in no command's environment; SIGTERM ends everything", {
    skip: noSandbox,
  }, async () => {
    const cwd = workdir();
    const server = await startCli(["--token-file", tokenFile], cwd);
    const { client } = await connect(server.url, token);
    // Outside the workdir and outside /tmp (the sandbox's /tmp is its own).
    const outside = join(repositoryRoot(), `mcp-http-outside-${randomUUID()}`);
    const result = await client.callTool({
      name: "bash",
      arguments: { command: `touch ${outside} 2>/dev/null || echo refused; env` },
    });
    assert.ok(textOf(result).startsWith("refused\n"), textOf(result).slice(0, 300));
    assert.equal(textOf(result).includes(token), false, "the token reached a command");
    for (const file of ["cmdline", "environ"]) {
      const text = readFileSync(`/proc/${server.child.pid}/${file}`, "latin1");
      assert.equal(text.includes(token), false, `the token is in the server's ${file}`);
    }
    assert.equal(existsSync(outside), false);
    const mark = randomUUID();
    await client.callTool({
      name: "bash",
      arguments: { command: `export MCP_HTTP_MARK=${mark}; sleep 300`, run_in_background: true },
    });
    assert.ok(await eventually(() => runningWithEnv("MCP_HTTP_MARK", mark).length === 1), "the sleeper runs");
    // By pid: under Deno, ChildProcess.kill("SIGTERM") was seen to end the server by the signal although it handles it.
    process.kill(server.child.pid ?? 0, "SIGTERM");
    assert.deepEqual(await server.exited, { code: 0, signal: null });
    assert.deepEqual(runningWithEnv("MCP_HTTP_MARK", mark), [], "a process outlived SIGTERM");
    await client.close().catch(() => {});
  });

  it("SIGKILL of the server: the watchdog ends its sessions' commands", async () => {
    const server = await startCli(["--token-file", tokenFile, "--no-sandbox"], workdir());
    const { client } = await connect(server.url, token);
    const mark = randomUUID();
    await client.callTool({
      name: "bash",
      arguments: { command: `export MCP_HTTP_MARK=${mark}; sleep 300 & sleep 301`, run_in_background: true },
    });
    assert.ok(await eventually(() => runningWithEnv("MCP_HTTP_MARK", mark).length === 2), "the sleepers run");
    server.child.kill("SIGKILL");
    assert.equal((await server.exited).signal, "SIGKILL");
    assert.ok(
      await eventually(() => runningWithEnv("MCP_HTTP_MARK", mark).length === 0, 10_000),
      "the commands outlived their server",
    );
    await client.close().catch(() => {});
  });

  it("--max-sessions caps the sessions: past it, 503", async () => {
    const server = await startCli(["--token-file", tokenFile, "--no-sandbox", "--max-sessions", "1"], workdir());
    const first = await connect(server.url, token);
    assert.equal((await post(server.url, INITIALIZE, { Authorization: `Bearer ${token}` })).status, 503);
    await first.client.close();
    process.kill(server.child.pid ?? 0, "SIGTERM");
    assert.deepEqual(await server.exited, { code: 0, signal: null });
  });

  it("each flag's mistake is one line on stderr naming the flag, exit 64, nothing served", async () => {
    const short = join(dir, "short-token");
    writeFileSync(short, "too short\n");
    const cases: [string[], RegExp][] = [
      [["--http", "nowhere"], /^dsh-shell mcp: --http needs HOST:PORT/],
      [["--http", "127.0.0.1:70000", "--token-file", tokenFile], /^dsh-shell mcp: --http needs HOST:PORT/],
      [["--http", "127.0.0.1:0"], /^dsh-shell mcp: --token-file FILE is required with --http/],
      [["--http", "127.0.0.1:0", "--token-file", join(dir, "missing")], /^dsh-shell mcp: --token-file: cannot read/],
      [["--http", "127.0.0.1:0", "--token-file", short], /^dsh-shell mcp: --token-file: the token must be at least 32/],
      [["--token-file", tokenFile], /^dsh-shell mcp: --token-file is an option of --http/],
      [["--http", "127.0.0.1:0", "--token-file", tokenFile, "--max-sessions", "0"], /^dsh-shell mcp: --max-sessions /],
      [
        ["--http", "127.0.0.1:0", "--token-file", tokenFile, "--idle-timeout", "soon"],
        /^dsh-shell mcp: --idle-timeout /,
      ],
    ];
    for (const [args, expected] of cases) {
      const run = await dshShell(["mcp", "--no-sandbox", ...args]);
      assert.equal(run.code, 64, args.join(" "));
      assert.match(run.stderr, expected);
      assert.equal(run.stderr.split("\n").length, 2, run.stderr);
      assert.equal(run.stderr.includes("too short"), false, "the token was quoted");
    }
  });
});
