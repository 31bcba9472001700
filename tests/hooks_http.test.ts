/**
 * Claude Code's `http` hooks through the bridge, against a loopback
 * server in this process, and `prompt`/`agent` hooks through the
 * harness's `modelHook`. What Claude Code 2.1.328 itself does with the
 * same hooks is measured in `tests/conformance.test.ts`.
 */

import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createLocalShell, type Shell } from "../mod.ts";
import { dispatchHookEvent, type HookModelRequest, HookSettingsError, parseHookSettings } from "../src/hooks/mod.ts";
import { freshDir, removeDir } from "./helpers/dirs.ts";

/** What the server got for one request. */
interface Got {
  readonly path: string;
  readonly method: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** How the server answers a path. */
interface Reply {
  readonly status: number;
  readonly body?: string;
  readonly headers?: Record<string, string>;
  /** Never answers: the request hangs until the client gives up. */
  readonly hang?: boolean;
}

const PRE_TOOL_USE = {
  session_id: "s-1",
  cwd: "/tmp",
  hook_event_name: "PreToolUse",
  tool_name: "Bash",
  tool_input: { command: "rm -rf build" },
};

const deny = (reason: string): string =>
  JSON.stringify({
    hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: reason },
  });

describe("http hooks", () => {
  let shell: Shell;
  let dir: string;
  let server: Server;
  let base: string;
  const got: Got[] = [];
  const replies = new Map<string, Reply>();

  before(async () => {
    dir = freshDir("dsh-hooks-http-");
    shell = createLocalShell({ graceMs: 300 });
    server = createServer((request, response) => {
      let body = "";
      request.setEncoding("utf8");
      request.on("data", (chunk: string) => body += chunk);
      request.on("end", () => {
        got.push({ path: request.url ?? "", method: request.method ?? "", headers: request.headers, body });
        const reply = replies.get(request.url ?? "") ?? { status: 404 };
        if (reply.hang === true) return;
        response.writeHead(reply.status, reply.headers ?? {});
        response.end(reply.body ?? "");
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await shell.close();
    removeDir(dir);
  });

  /** Dispatches `event` to one http hook at `path` (answering `reply`), with `extra` entry fields. */
  async function dispatch(
    path: string,
    reply: Reply,
    extra: Record<string, unknown> = {},
    event = "PreToolUse",
    payload: object = PRE_TOOL_USE,
  ) {
    replies.set(path, reply);
    const settings = parseHookSettings({
      hooks: { [event]: [{ hooks: [{ type: "http", url: `${base}${path}`, ...extra }] }] },
    }, { dialect: "claude-code" });
    const outcome = await dispatchHookEvent(shell, settings, {
      event,
      payload,
      projectDir: dir,
      owner: null,
      env: { TEAM_TOKEN: "t0k3n", OTHER: "not listed" },
    });
    return { outcome, request: got.filter((request) => request.path === path).at(-1) };
  }

  it("POSTs the payload's JSON (no newline) with the headers, variables only from allowedEnvVars", async () => {
    const { outcome, request } = await dispatch("/post", { status: 200, body: "" }, {
      headers: {
        Authorization: "Bearer $TEAM_TOKEN",
        "X-Braced": "a-${TEAM_TOKEN}-b",
        "X-Unlisted": "[$OTHER][${PATH}]",
        "X-Project": "$CLAUDE_PROJECT_DIR",
      },
      allowedEnvVars: ["TEAM_TOKEN", "PATH", "CLAUDE_PROJECT_DIR"],
    });
    assert.ok(request !== undefined, "the hook was not called");
    assert.equal(request.method, "POST");
    assert.equal(request.body, JSON.stringify(PRE_TOOL_USE));
    assert.equal(request.headers["content-type"], "application/json");
    assert.equal(request.headers.authorization, "Bearer t0k3n");
    assert.equal(request.headers["x-braced"], "a-t0k3n-b");
    // OTHER is not listed; PATH is listed but is the host's, which the bridge never reads.
    assert.equal(request.headers["x-unlisted"], "[][]");
    assert.equal(request.headers["x-project"], dir);
    assert.equal(outcome.results[0].type, "http");
    assert.equal(outcome.results[0].command, `${base}/post`);
    assert.equal(outcome.results[0].result.outcome, "success");
    assert.equal(outcome.blocked, false);
  });

  it("a 2xx JSON answer is read as a command hook's stdout: a deny blocks with its reason", async () => {
    const { outcome } = await dispatch("/deny", { status: 200, body: deny("no rm over http") });
    assert.equal(outcome.blocked, true);
    assert.deepEqual(outcome.reasons, ["no rm over http"]);
  });

  it("a non-2xx answer is a non-blocking error, whatever its body says", async () => {
    const { outcome } = await dispatch("/500", { status: 500, body: deny("ignored") });
    assert.equal(outcome.blocked, false);
    assert.equal(outcome.results[0].result.outcome, "non-blocking-error");
    assert.match(outcome.results[0].result.reason ?? "", /^HTTP 500: /);
  });

  it("a redirect is not followed: the headers reach no other address", async () => {
    replies.set("/target", { status: 200, body: deny("followed") });
    const { outcome } = await dispatch("/redirect", { status: 307, headers: { location: `${base}/target` } }, {
      headers: { Authorization: "Bearer $TEAM_TOKEN" },
      allowedEnvVars: ["TEAM_TOKEN"],
    });
    assert.equal(outcome.blocked, false);
    assert.match(outcome.results[0].result.reason ?? "", /^HTTP 307/);
    assert.equal(got.some((request) => request.path === "/target"), false);
  });

  it("a 2xx body that is not a JSON object is no context (as Claude Code): a non-blocking error", async () => {
    const payload = { session_id: "s-1", cwd: "/tmp", hook_event_name: "UserPromptSubmit", prompt: "hi" };
    const { outcome } = await dispatch("/plain", { status: 200, body: "plain text" }, {}, "UserPromptSubmit", payload);
    assert.deepEqual(outcome.additionalContext, []);
    assert.equal(outcome.results[0].result.outcome, "non-blocking-error");
    const json = JSON.stringify({
      hookSpecificOutput: { hookEventName: "UserPromptSubmit", additionalContext: "from http" },
    });
    const context = await dispatch("/context", { status: 200, body: json }, {}, "UserPromptSubmit", payload);
    assert.deepEqual(context.outcome.additionalContext, ["from http"]);
  });

  it("a connection failure is a non-blocking error", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const settings = parseHookSettings({
      hooks: { PreToolUse: [{ hooks: [{ type: "http", url: `http://127.0.0.1:${port}/gone` }] }] },
    }, { dialect: "claude-code" });
    const outcome = await dispatchHookEvent(shell, settings, {
      event: "PreToolUse",
      payload: PRE_TOOL_USE,
      projectDir: dir,
      owner: null,
    });
    assert.equal(outcome.blocked, false);
    assert.match(outcome.results[0].result.reason ?? "", /^could not reach the hook at http:\/\/127\.0\.0\.1:/);
  });

  it("the timeout applies: a hook that never answers is given up after it", async () => {
    const started = Date.now();
    const { outcome } = await dispatch("/hang", { status: 200, hang: true }, { timeout: 0.3 });
    const took = Date.now() - started;
    assert.equal(outcome.results[0].result.timedOut, true);
    assert.equal(outcome.results[0].result.reason, "timed out after 300ms");
    assert.ok(took < 5_000, `took ${took}ms`);
  });

  it("an answer past 1 MiB is read (Claude Code 2.1.328 obeys it), one past 10 MiB is not", async () => {
    const { outcome } = await dispatch("/long", { status: 200, body: deny("x".repeat(1_100_000)) });
    assert.equal(outcome.blocked, true);
    const { outcome: huge } = await dispatch("/huge", { status: 200, body: deny("x".repeat(10_500_000)) });
    assert.equal(huge.blocked, false);
    assert.match(huge.results[0].result.reason ?? "", /longer than 10485760 bytes/);
  });

  it("settings: url, headers and allowedEnvVars are checked; SessionStart and the Codex dialect skip http", () => {
    const parse = (
      entry: Record<string, unknown>,
      event = "PreToolUse",
      dialect: "claude-code" | "codex" = "claude-code",
    ) => parseHookSettings({ hooks: { [event]: [{ hooks: [{ type: "http", ...entry }] }] } }, { dialect });
    assert.throws(() => parse({}), (error: unknown) => error instanceof HookSettingsError && /url/.test(error.field));
    assert.throws(() => parse({ url: "file:///etc/passwd" }), /must be an http: or https: URL/);
    assert.throws(() => parse({ url: base, headers: { A: 1 } }), /headers: must be an object of strings/);
    assert.throws(() => parse({ url: base, allowedEnvVars: "A" }), /allowedEnvVars/);
    const parsed = parse({ url: base, headers: { A: "$B" }, allowedEnvVars: ["B"], timeout: 2 });
    assert.deepEqual(parsed.events.PreToolUse[0].hooks[0], {
      type: "http",
      command: base,
      headers: { A: "$B" },
      allowedEnvVars: ["B"],
      timeoutMs: 2_000,
    });
    const sessionStart = parse({ url: base }, "SessionStart");
    assert.deepEqual(sessionStart.events.SessionStart[0].hooks, []);
    assert.deepEqual(sessionStart.skipped, [{ path: "hooks.SessionStart[0].hooks[0]", type: "http" }]);
    assert.match(sessionStart.warnings?.[0].message ?? "", /does not run http hooks on SessionStart/);
    const codex = parse({ url: base }, "PreToolUse", "codex");
    assert.deepEqual(codex.skipped, [{ path: "hooks.PreToolUse[0].hooks[0]", type: "http" }]);
  });
});

describe("prompt and agent hooks", () => {
  let shell: Shell;
  before(() => {
    shell = createLocalShell({ graceMs: 300 });
  });
  after(async () => {
    await shell.close();
  });

  const settings = parseHookSettings({
    hooks: {
      Stop: [{
        hooks: [
          { type: "prompt", prompt: "Is the work done? $ARGUMENTS", model: "fast-model" },
          { type: "agent", prompt: "Check the tests", timeout: 5 },
        ],
      }],
    },
  }, { dialect: "claude-code" });
  const payload = { session_id: "s-1", hook_event_name: "Stop", stop_hook_active: false };

  it("go to modelHook with the event; { ok: false, reason } blocks with the reason", async () => {
    const asked: HookModelRequest[] = [];
    const outcome = await dispatchHookEvent(shell, settings, {
      event: "Stop",
      payload,
      projectDir: "/tmp",
      owner: null,
      modelHook: (request) => {
        asked.push(request);
        return Promise.resolve(request.type === "agent" ? { ok: false, reason: "tests fail" } : { ok: true });
      },
    });
    assert.deepEqual(
      asked.map(({ type, prompt, model, event, timeoutMs }) => ({ type, prompt, model, event, timeoutMs })),
      [
        {
          type: "prompt",
          prompt: "Is the work done? $ARGUMENTS",
          model: "fast-model",
          event: "Stop",
          timeoutMs: 30_000,
        },
        { type: "agent", prompt: "Check the tests", model: undefined, event: "Stop", timeoutMs: 5_000 },
      ],
    );
    assert.deepEqual(asked[0].payload, payload);
    assert.equal(outcome.blocked, true);
    assert.deepEqual(outcome.reasons, ["tests fail"]);
    assert.deepEqual(outcome.results.map((entry) => entry.type), ["prompt", "agent"]);
  });

  it("a modelHook that throws or answers no object is a non-blocking error", async () => {
    const outcome = await dispatchHookEvent(shell, settings, {
      event: "Stop",
      payload,
      projectDir: "/tmp",
      owner: null,
      modelHook: (request) =>
        request.type === "prompt" ? Promise.reject(new Error("model offline")) : Promise.resolve(null as never),
    });
    assert.equal(outcome.blocked, false);
    assert.deepEqual(outcome.results.map((entry) => entry.result.reason), [
      "the model hook failed: model offline",
      "the model hook's answer is not an object",
    ]);
  });

  it("a modelHook past the timeout is given up, and its signal aborted", async () => {
    const quick = parseHookSettings({
      hooks: { Stop: [{ hooks: [{ type: "prompt", prompt: "slow", timeout: 0.2 }] }] },
    }, { dialect: "claude-code" });
    let aborted = false;
    const outcome = await dispatchHookEvent(shell, quick, {
      event: "Stop",
      payload,
      projectDir: "/tmp",
      owner: null,
      modelHook: (request) =>
        new Promise((resolve) => {
          request.signal.addEventListener("abort", () => {
            aborted = true;
            resolve({ ok: false, reason: "too late" });
          });
        }),
    });
    assert.equal(outcome.blocked, false);
    assert.equal(outcome.results[0].result.timedOut, true);
    assert.equal(aborted, true);
  });

  it("without modelHook they are skipped with a warning; the Codex dialect skips them at parsing", async () => {
    const outcome = await dispatchHookEvent(shell, settings, {
      event: "Stop",
      payload,
      projectDir: "/tmp",
      owner: null,
    });
    assert.deepEqual(outcome.results, []);
    assert.deepEqual(
      outcome.warnings.map((warning) => warning.field),
      [
        "settings.events.Stop[0].hooks[0]",
        "settings.events.Stop[0].hooks[1]",
      ].map((field) => field.replace("settings.events.", "hooks.")),
    );
    assert.match(outcome.warnings[0].message, /no modelHook/);
    const codex = parseHookSettings({ hooks: { Stop: [{ hooks: [{ type: "prompt", prompt: "p" }] }] } }, {
      dialect: "codex",
    });
    assert.deepEqual(codex.skipped, [{ path: "hooks.Stop[0].hooks[0]", type: "prompt" }]);
  });
});
