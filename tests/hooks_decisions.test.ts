/**
 * What a hook decides, per dialect and event: JSON on every exit code
 * (claude-code) against JSON on exit 0 only (codex); exit 2 per event;
 * defer and its rank; PermissionRequest's decision object; the decision
 * fields each event reads; plain stdout as context; Codex's strict
 * validation. Table rules are checked on results built here; the protocol
 * is checked on real hooks in sh, python3 and node.
 */

import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { createLocalShell, type Shell } from "../mod.ts";
import { dispatchHookEvent, type HookDialect, type HookResult, readHookVerdict } from "../src/hooks/mod.ts";
import { freshDir, removeDir } from "./helpers/dirs.ts";
import { answer, settingsWith } from "./helpers/hooks.ts";

/** A result as `runHook` would give it for `exitCode`, `stdout` and `stderr` in `dialect`. */
function ran(exitCode: number, stdout = "", stderr = "", dialect: HookDialect = "claude-code"): HookResult {
  let json: HookResult["json"];
  try {
    const parsed = JSON.parse(stdout.trim());
    if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) json = parsed;
  } catch {
    json = undefined;
  }
  const jsonCounts = dialect === "claude-code" || exitCode === 0;
  const trimmed = stderr.trim();
  return {
    outcome: exitCode === 0 ? "success" : exitCode === 2 && trimmed !== "" ? "blocking" : "non-blocking-error",
    exitCode,
    stdout,
    stderr,
    ...(jsonCounts && json !== undefined ? { json } : {}),
    ...(exitCode === 0 ? {} : { reason: exitCode === 2 ? trimmed : `exit code ${exitCode}` }),
    timedOut: false,
    durationMs: 1,
  };
}

const specific = (event: string, fields: Record<string, unknown>): string =>
  JSON.stringify({ hookSpecificOutput: { hookEventName: event, ...fields } });

describe("exit code 2, per event (claude-code)", () => {
  const BLOCKS = [
    "PreToolUse",
    "PreModelSwitch",
    "UserPromptSubmit",
    "UserPromptExpansion",
    "Stop",
    "SubagentStop",
    "TeammateIdle",
    "TaskCreated",
    "TaskCompleted",
    "ConfigChange",
    "PostToolBatch",
    "PreCompact",
    "Elicitation",
    "ElicitationResult",
    "WorktreeCreate",
    "WorktreeRemove",
  ];
  const DOES_NOT = [
    "PermissionRequest",
    "PostModelSwitch",
    "StopFailure",
    "PermissionDenied",
    "Notification",
    "SubagentStart",
    "SessionStart",
    "Setup",
    "SessionEnd",
    "CwdChanged",
    "DirectoryAdded",
    "FileChanged",
    "PostCompact",
    "InstructionsLoaded",
    "MessageDisplay",
  ];

  it("blocks where the reference says it can, with stderr as the reason", () => {
    for (const event of BLOCKS) {
      const verdict = readHookVerdict(ran(2, "", "not now\n"), event);
      assert.equal(verdict.permission, "deny", event);
      assert.equal(verdict.reason, "not now", event);
    }
  });

  it("decides nothing where it cannot; after a tool ran it is feedback for the model", () => {
    for (const event of DOES_NOT) {
      assert.deepEqual(readHookVerdict(ran(2, "", "noted\n"), event), { continue: true, suppressOutput: false }, event);
    }
    for (const event of ["PostToolUse", "PostToolUseFailure"]) {
      assert.deepEqual(readHookVerdict(ran(2, "", "lint failed\n"), event), {
        continue: true,
        suppressOutput: false,
        feedback: "lint failed",
      });
    }
  });

  it("WorktreeCreate and WorktreeRemove: any nonzero exit fails the action, whatever the JSON says", () => {
    assert.equal(readHookVerdict(ran(1, "", "svn: no repo"), "WorktreeCreate").permission, "deny");
    const allow = JSON.stringify({ decision: "approve" });
    assert.deepEqual(readHookVerdict(ran(3, allow, "busy"), "WorktreeRemove"), {
      continue: true,
      suppressOutput: false,
      permission: "deny",
      reason: "busy",
    });
    assert.equal(readHookVerdict(ran(1, "", "x"), "SessionEnd").permission, undefined);
  });

  it("PermissionRequest: exit 2 is not honored; only the decision object denies", () => {
    assert.equal(readHookVerdict(ran(2, "", "no"), "PermissionRequest").permission, undefined);
    const denied = JSON.stringify({
      hookSpecificOutput: { hookEventName: "PermissionRequest", decision: { behavior: "deny", message: "m" } },
    });
    assert.equal(readHookVerdict(ran(2, denied, "no"), "PermissionRequest").permission, "deny");
  });

  it("StopFailure ignores output and exit code", () => {
    const json = JSON.stringify({ continue: false, systemMessage: "x", decision: "block", reason: "r" });
    assert.deepEqual(readHookVerdict(ran(0, json), "StopFailure"), { continue: true, suppressOutput: false });
  });

  it("a custom event keeps the 1.0 reading: exit 2 is deny", () => {
    assert.equal(readHookVerdict(ran(2, "", "no"), "MyHarnessEvent").permission, "deny");
  });
});

describe("decision fields per event", () => {
  it("defer: ranks between deny and ask; its reason, input and context are ignored (2.1.89)", () => {
    const verdict = readHookVerdict(
      ran(
        0,
        specific("PreToolUse", {
          permissionDecision: "defer",
          permissionDecisionReason: "ignored",
          updatedInput: { command: "x" },
          additionalContext: "ignored too",
        }),
      ),
      "PreToolUse",
    );
    assert.deepEqual(verdict, { continue: true, suppressOutput: false, permission: "defer" });
  });

  it("PermissionRequest reads decision.behavior, message and updatedInput", () => {
    const deny = readHookVerdict(
      ran(0, specific("PermissionRequest", { decision: { behavior: "deny", message: "not in prod" } })),
      "PermissionRequest",
    );
    assert.equal(deny.permission, "deny");
    assert.equal(deny.reason, "not in prod");
    const allow = readHookVerdict(
      ran(0, specific("PermissionRequest", { decision: { behavior: "allow", updatedInput: { command: "ls" } } })),
      "PermissionRequest",
    );
    assert.equal(allow.permission, "allow");
    assert.deepEqual(allow.updatedInput, { command: "ls" });
    // A permissionDecision is PreToolUse's field, not PermissionRequest's.
    assert.equal(
      readHookVerdict(ran(0, specific("PermissionRequest", { permissionDecision: "deny" })), "PermissionRequest")
        .permission,
      undefined,
    );
  });

  it("top-level block counts where the event takes it; approve only on PreToolUse (deprecated)", () => {
    const block = JSON.stringify({ decision: "block", reason: "r" });
    for (
      const event of [
        "UserPromptSubmit",
        "PostToolUse",
        "Stop",
        "ConfigChange",
        "PreCompact",
        "PreToolUse",
        "TaskCreated",
      ]
    ) {
      assert.equal(readHookVerdict(ran(0, block), event).permission, "deny", event);
    }
    for (const event of ["Notification", "SessionStart", "SubagentStart", "TaskCompleted"]) {
      assert.equal(readHookVerdict(ran(0, block), event).permission, undefined, event);
    }
    const approve = JSON.stringify({ decision: "approve" });
    assert.equal(readHookVerdict(ran(0, approve), "PreToolUse").permission, "allow");
    assert.equal(readHookVerdict(ran(0, approve), "Stop").permission, undefined);
  });

  it("plain stdout is context on UserPromptSubmit, UserPromptExpansion and SessionStart; not Setup", () => {
    for (const event of ["UserPromptSubmit", "UserPromptExpansion", "SessionStart"]) {
      assert.equal(readHookVerdict(ran(0, " hint \n"), event).additionalContext, "hint", event);
    }
    for (const event of ["Setup", "PreToolUse", "SubagentStart", "Stop"]) {
      assert.equal(readHookVerdict(ran(0, "hint"), event).additionalContext, undefined, event);
    }
  });
});

describe("claude-code: reading stdout and validating the answer (current reference)", () => {
  it("{…} must parse: a parse failure is a hook error and not context (2.1.248); other text is plain", () => {
    const broken = readHookVerdict(ran(0, "{ not json }"), "UserPromptSubmit");
    assert.equal(broken.additionalContext, undefined);
    assert.match(broken.error ?? "", /^hook output is not valid JSON/);
    assert.equal(readHookVerdict(ran(0, "{ starts only"), "UserPromptSubmit").additionalContext, "{ starts only");
    assert.equal(readHookVerdict(ran(0, "[1, 2]"), "UserPromptSubmit").additionalContext, "[1, 2]");
  });

  it("several JSON lines are plain text, unless one sets a field", () => {
    assert.equal(readHookVerdict(ran(0, '{"a":1}\n{"b":2}'), "SessionStart").additionalContext, '{"a":1}\n{"b":2}');
    assert.match(readHookVerdict(ran(0, '{"a":1}\n{"continue":false}'), "SessionStart").error ?? "", /not valid JSON/);
  });

  it("an answer with a wrong-typed known field fails validation: a hook error, nothing applies", () => {
    const answer = JSON.stringify({ systemMessage: 5, decision: "block", reason: "r" });
    const verdict = readHookVerdict(ran(0, answer), "Stop");
    assert.deepEqual(verdict, {
      continue: true,
      suppressOutput: false,
      error: "hook JSON output failed validation: systemMessage: Invalid input: expected string, received number",
    });
    // On exit 2 the block holds, with stderr as the reason (2.1.214).
    const blocked = readHookVerdict(ran(2, answer, "from stderr\n"), "Stop");
    assert.equal(blocked.permission, "deny");
    assert.equal(blocked.reason, "from stderr");
    assert.equal(blocked.error, undefined);
    // hookSpecificOutput needs its hookEventName.
    const unnamed = JSON.stringify({ hookSpecificOutput: { additionalContext: "c" } });
    assert.match(
      readHookVerdict(ran(0, unnamed), "Stop").error ?? "",
      /^hook JSON output failed validation: hookSpecificOutput\.hookEventName: /,
    );
  });

  it("exit 2 blocks even over a JSON allow; the reason is the blocking decision's, else stderr", () => {
    const allow = specific("PreToolUse", { permissionDecision: "allow", permissionDecisionReason: "fine" });
    assert.deepEqual(readHookVerdict(ran(2, allow, "stop\n"), "PreToolUse"), {
      continue: true,
      suppressOutput: false,
      permission: "deny",
      reason: "stop",
    });
  });

  it("each event discards what the reference says: Setup everything, Notification its message, TaskCreated continue", () => {
    const everything = JSON.stringify({
      continue: false,
      systemMessage: "m",
      hookSpecificOutput: { hookEventName: "Setup", additionalContext: "c" },
    });
    assert.deepEqual(readHookVerdict(ran(0, everything), "Setup"), { continue: true, suppressOutput: false });
    const universal = JSON.stringify({ continue: false, systemMessage: "m" });
    assert.deepEqual(readHookVerdict(ran(0, universal), "Notification"), { continue: true, suppressOutput: false });
    assert.equal(readHookVerdict(ran(0, universal), "TaskCreated").continue, true);
    // Measured (Claude Code 2.1.328, conformance_events): a TaskCreated context reaches no model.
    const created = JSON.stringify({ hookSpecificOutput: { hookEventName: "TaskCreated", additionalContext: "c" } });
    assert.equal(readHookVerdict(ran(0, created), "TaskCreated").additionalContext, undefined);
    assert.equal(readHookVerdict(ran(0, universal), "CwdChanged").systemMessage, "m");
    assert.equal(readHookVerdict(ran(0, universal), "Stop").continue, false);
  });

  it("PostModelSwitch takes plain stdout as context; PreModelSwitch reads permissionDecision", () => {
    assert.equal(readHookVerdict(ran(0, "now on opus"), "PostModelSwitch").additionalContext, "now on opus");
    const deny = specific("PreModelSwitch", { permissionDecision: "deny", permissionDecisionReason: "too costly" });
    assert.equal(readHookVerdict(ran(0, deny), "PreModelSwitch").permission, "deny");
  });
});

describe("codex: JSON on exit 0 only, validated strictly", () => {
  const codex = (exitCode: number, stdout: string, event: string, stderr = "") =>
    readHookVerdict(ran(exitCode, stdout, stderr, "codex"), event, "codex");

  it("a deny needs a reason; ask, bare allow, approve and stop fields on PreToolUse make the hook Failed", () => {
    assert.deepEqual(
      codex(0, specific("PreToolUse", { permissionDecision: "deny", permissionDecisionReason: " no " }), "PreToolUse"),
      {
        continue: true,
        suppressOutput: false,
        permission: "deny",
        reason: "no",
      },
    );
    const failed: [Record<string, unknown>, string][] = [
      [
        { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "ask" } },
        "unsupported permissionDecision:ask",
      ],
      [
        { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "allow" } },
        "unsupported permissionDecision:allow",
      ],
      [
        { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny" } },
        "permissionDecision:deny without a non-empty permissionDecisionReason",
      ],
      [
        { hookSpecificOutput: { hookEventName: "PreToolUse", updatedInput: {} } },
        "updatedInput without permissionDecision:allow",
      ],
      [{ decision: "approve" }, "unsupported decision:approve"],
      [{ decision: "block", reason: " " }, "decision:block without a non-empty reason"],
      [{ reason: "why" }, "reason without decision"],
      [{ continue: false }, "unsupported continue:false"],
      [{ suppressOutput: true }, "unsupported suppressOutput"],
    ];
    for (const [json, error] of failed) {
      const verdict = codex(0, JSON.stringify(json), "PreToolUse");
      assert.equal(verdict.permission, undefined, JSON.stringify(json));
      assert.match(
        verdict.error ?? "",
        new RegExp(`^PreToolUse hook returned ${error.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`),
      );
    }
  });

  it("allow with updatedInput rewrites the input and approves nothing", () => {
    const verdict = codex(
      0,
      specific("PreToolUse", { permissionDecision: "allow", updatedInput: { command: "ls -l" } }),
      "PreToolUse",
    );
    assert.deepEqual(verdict, { continue: true, suppressOutput: false, updatedInput: { command: "ls -l" } });
  });

  it("an unknown or wrong-typed field, or a missing hookEventName, makes the whole answer invalid", () => {
    const invalid = [
      { systemMessage: "hi", extra: true },
      { systemMessage: 5 },
      { hookSpecificOutput: { additionalContext: "no event name" } },
      { hookSpecificOutput: { hookEventName: "Nonsense", additionalContext: "x" } },
    ];
    for (const json of invalid) {
      const verdict = codex(0, JSON.stringify(json), "SessionStart");
      assert.deepEqual(verdict, {
        continue: true,
        suppressOutput: false,
        error: "hook returned invalid session-start JSON output",
      }, JSON.stringify(json));
    }
    // The same answers in the Claude Code dialect: each wrong field is dropped, the rest counts.
    assert.equal(
      readHookVerdict(ran(0, JSON.stringify({ systemMessage: "hi", extra: true })), "SessionStart").systemMessage,
      "hi",
    );
  });

  it("JSON-looking stdout that does not parse is an error, not context; Stop's plain stdout is an error", () => {
    assert.equal(codex(0, "{ broken", "SessionStart").error, "hook returned invalid session-start JSON output");
    assert.equal(codex(0, "[1, 2]", "UserPromptSubmit").additionalContext, undefined);
    assert.equal(readHookVerdict(ran(0, "{ broken"), "SessionStart").additionalContext, "{ broken");
    assert.equal(codex(0, "all done", "Stop").error, "hook returned invalid stop hook JSON output");
    assert.equal(codex(0, "branch: main", "SubagentStart").additionalContext, "branch: main");
    assert.equal(codex(0, "ignored", "PreToolUse").additionalContext, undefined);
  });

  it("block needs a non-empty reason on UserPromptSubmit, Stop and PostToolUse", () => {
    for (const event of ["UserPromptSubmit", "Stop", "PostToolUse"]) {
      assert.equal(
        codex(0, JSON.stringify({ decision: "block" }), event).error,
        `${event} hook returned decision:block without a non-empty reason`,
      );
      assert.equal(codex(0, JSON.stringify({ decision: "block", reason: "r" }), event).permission, "deny");
    }
  });

  it("PermissionRequest: updatedInput, updatedPermissions and interrupt fail closed; deny has a default message", () => {
    const request = (decision: Record<string, unknown>) =>
      codex(0, specific("PermissionRequest", { decision }), "PermissionRequest");
    assert.match(request({ behavior: "allow", updatedInput: {} }).error ?? "", /unsupported updatedInput$/);
    assert.match(request({ behavior: "allow", updatedPermissions: [] }).error ?? "", /unsupported updatedPermissions$/);
    assert.match(request({ behavior: "deny", interrupt: true }).error ?? "", /unsupported interrupt:true$/);
    assert.equal(request({ behavior: "allow" }).permission, "allow");
    assert.equal(request({ behavior: "deny" }).reason, "PermissionRequest hook denied approval");
  });

  it("exit 2: a block with stderr, feedback after PostToolUse, a failure on SessionStart; JSON on exit 1 is ignored", () => {
    assert.equal(codex(2, "", "PreToolUse", "no\n").permission, "deny");
    assert.equal(codex(2, "", "PostToolUse", "lint\n").feedback, "lint");
    assert.equal(codex(2, "", "SessionStart", "x\n").error, "hook exited with code 2");
    const deny = JSON.stringify({ decision: "block", reason: "r" });
    assert.equal(codex(1, deny, "PreToolUse").permission, undefined);
    assert.equal(codex(2, deny, "PreToolUse", "").permission, undefined, "exit 2 without stderr: failed");
  });
});

describe("decisions, run for real", () => {
  let dir: string;
  let shell: Shell;
  before(() => {
    dir = freshDir("dsh-decisions-");
    shell = createLocalShell({ graceMs: 300, timeoutMs: 20_000 });
  });
  after(async () => {
    await shell.close();
    removeDir(dir);
  });

  const TOOL = { hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "rm -rf /" } };
  const deny = {
    hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: "no rm" },
  };

  const dispatch = (
    dialect: HookDialect,
    entries: Record<string, unknown>[],
    event = "PreToolUse",
    payload: object = TOOL,
  ) =>
    dispatchHookEvent(shell, settingsWith(event, entries, dialect), { event, payload, projectDir: dir, owner: null });

  it("claude-code: exit 1 with a deny answer blocks (sh, python3, node); codex lets it through", async () => {
    const entries = [
      { command: answer(deny, 1) },
      { command: "python3", args: ["-c", `import json, sys; print(json.dumps(${JSON.stringify(deny)})); sys.exit(1)`] },
      { command: "node", args: ["-e", `console.log(JSON.stringify(${JSON.stringify(deny)})); process.exit(1)`] },
    ];
    const claude = await dispatch("claude-code", entries);
    assert.equal(claude.blocked, true);
    // One reason shown, that of the deny that finished last (here all three give the same).
    assert.deepEqual(claude.reasons, ["no rm"]);
    assert.deepEqual(claude.results.map((entry) => entry.result.outcome), Array(3).fill("non-blocking-error"));
    const codex = await dispatch("codex", entries);
    assert.equal(codex.blocked, false);
    assert.equal("permission" in codex, false);
  });

  it("claude-code: on exit 2 the answer's reason wins; an invalid answer falls back to stderr and still blocks", async () => {
    const result = await dispatch("claude-code", [
      { command: `${answer(deny)}; echo stderr reason >&2; exit 2` },
      { command: `echo '{"hookSpecificOutput": 7'; echo 'from stderr' >&2; exit 2` },
    ]);
    assert.equal(result.blocked, true);
    // The model sees one reason (see "claude-code 2.1.328: with several denies ..."); each verdict keeps its own.
    assert.deepEqual(result.results.map((entry) => entry.verdict.reason), ["no rm", "from stderr"]);
  });

  it("claude-code 2.1.328: with several denies the model sees one reason, the deny that finished last", async () => {
    // Measured with the binary: each deny it reads replaces the one before, whatever its kind. The half-second
    // sleeps set which hook ends last; they are what is tested, not a wait.
    const slowStderr = await dispatch("claude-code", [
      { command: "sleep 0.5; echo 'stderr reason' >&2; exit 2" },
      { command: answer(deny) },
    ]);
    assert.equal(slowStderr.blocked, true);
    assert.deepEqual(slowStderr.reasons, ["stderr reason"]);
    assert.deepEqual(slowStderr.results.map((entry) => entry.verdict.reason), ["stderr reason", "no rm"]);
    const slowJson = await dispatch("claude-code", [
      { command: "echo 'stderr reason' >&2; exit 2" },
      { command: `sleep 0.5; ${answer(deny)}` },
    ]);
    assert.deepEqual(slowJson.reasons, ["no rm"]);
    const twoStderr = await dispatch("claude-code", [
      { command: "sleep 0.5; echo one >&2; exit 2" },
      { command: "echo two >&2; exit 2" },
    ]);
    assert.deepEqual(twoStderr.reasons, ["one"]);
  });

  it("deny > defer > ask > allow across hooks", async () => {
    const decide = (permissionDecision: string) =>
      answer({
        hookSpecificOutput: {
          hookEventName: "PreToolUse",
          permissionDecision,
          permissionDecisionReason: permissionDecision,
        },
      });
    const ranks: [string[], string][] = [
      [["allow", "ask", "defer"], "defer"],
      [["defer", "deny", "ask"], "deny"],
      [["allow", "ask"], "ask"],
    ];
    for (const [decisions, winner] of ranks) {
      const result = await dispatch("claude-code", decisions.map((decision) => ({ command: decide(decision) })));
      assert.equal(result.permission, winner, decisions.join(","));
      assert.equal(result.blocked, winner === "deny");
    }
  });

  it("exit 2 after a tool ran is feedback, not a block; codex needs stderr for it", async () => {
    const payload = { hook_event_name: "PostToolUse", tool_name: "Write", tool_input: { file_path: "/x" } };
    for (const dialect of ["claude-code", "codex"] as const) {
      const result = await dispatch(
        dialect,
        [{ command: "echo 'lint: 3 errors' >&2; exit 2" }],
        "PostToolUse",
        payload,
      );
      assert.equal(result.blocked, false, dialect);
      assert.deepEqual(result.feedback, ["lint: 3 errors"], dialect);
    }
  });

  it("codex refuses an ask (the hook counts as failed, the call proceeds); the entry says why", async () => {
    const ask = {
      hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "ask", permissionDecisionReason: "sure?" },
    };
    const result = await dispatch("codex", [{ command: answer(ask) }]);
    assert.equal(result.permission, undefined);
    assert.equal(result.results[0].result.outcome, "success");
    assert.equal(result.results[0].verdict.error, "PreToolUse hook returned unsupported permissionDecision:ask");
  });

  it("codex 0.169.0: a PreToolUse deny and any context count whatever event their hookEventName names", async () => {
    const elsewhere = {
      hookSpecificOutput: {
        hookEventName: "PostToolUse",
        permissionDecision: "deny",
        permissionDecisionReason: "no rm",
      },
    };
    const result = await dispatch("codex", [{ command: answer(elsewhere) }]);
    assert.equal(result.blocked, true);
    assert.deepEqual(result.reasons, ["no rm"]);
    // Its context escapes the scoping too (measured on PostToolUse: it reached the model); Claude Code drops it.
    const context = { hookSpecificOutput: { hookEventName: "PostToolUse", additionalContext: "x" } };
    assert.deepEqual((await dispatch("codex", [{ command: answer(context) }])).additionalContext, ["x"]);
    assert.deepEqual((await dispatch("claude-code", [{ command: answer(context) }])).additionalContext, []);
  });

  it("codex 0.169.0: PreModelRequest and SessionEnd are Codex events that cannot block", async () => {
    const guards = [{ command: "echo 'no' >&2; exit 2" }, { command: answer({ decision: "block", reason: "no" }) }];
    for (const event of ["PreModelRequest", "SessionEnd"]) {
      const result = await dispatch("codex", guards, event, { hook_event_name: event });
      assert.equal(result.blocked, false, event);
      assert.equal("permission" in result, false, event);
      assert.equal(result.results[0].verdict.error, "hook exited with code 2", event);
      assert.match(result.results[1].verdict.error ?? "", /^hook returned invalid .* JSON output$/, event);
    }
    // Claude Code's SessionEnd cannot block either; an event neither harness has still keeps the 1.0 reading.
    assert.equal(
      (await dispatch("claude-code", guards, "SessionEnd", { hook_event_name: "SessionEnd" })).blocked,
      false,
    );
    assert.equal((await dispatch("codex", guards, "MyEvent", { hook_event_name: "MyEvent" })).blocked, true);
  });
});
