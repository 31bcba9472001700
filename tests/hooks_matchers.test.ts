/**
 * Matchers, rule by rule, in both dialects: Claude Code's exact set (lists
 * with `|` or `,`, hyphens, spaces), its narrow set for FileChanged and
 * StopFailure, Codex's literal-is-exact rule, the field each event's
 * matchers test, events without matcher support, and an invalid regex
 * disabling only its group.
 */

import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { createLocalShell, type Shell } from "../mod.ts";
import {
  dispatchHookEvent,
  HOOK_MATCH_FIELDS,
  type HookDialect,
  type HookSettings,
  HookSettingsError,
  parseHookSettings,
} from "../src/hooks/mod.ts";
import { compileMatcher } from "../src/hooks/settings/matcher.ts";
import { freshDir, removeDir } from "./helpers/dirs.ts";
import { answer } from "./helpers/hooks.ts";

/** Which of `names` the matcher `pattern` accepts. */
function accepted(pattern: string, dialect: HookDialect, names: string[], event = "PreToolUse"): string[] {
  const test = compileMatcher(pattern, dialect, event);
  return names.filter((name) => test([name]));
}

describe("matchers (compiled)", () => {
  const TOOLS = ["Edit", "Write", "NotebookEdit", "MultiEdit", "Bash", "BashOutput"];

  it("claude-code: comma and pipe lists of exact names, with whitespace trimmed (2.1.191)", () => {
    assert.deepEqual(accepted("Edit, Write", "claude-code", TOOLS), ["Edit", "Write"]);
    assert.deepEqual(accepted("Edit,Write", "claude-code", TOOLS), ["Edit", "Write"]);
    assert.deepEqual(accepted(" Edit | Write ", "claude-code", TOOLS), ["Edit", "Write"]);
    assert.deepEqual(accepted("Bash", "claude-code", TOOLS), ["Bash"]);
  });

  it("claude-code: hyphenated names are exact (2.1.195): code-reviewer is not senior-code-reviewer", () => {
    const agents = ["code-reviewer", "senior-code-reviewer", "code-reviewer-2"];
    assert.deepEqual(accepted("code-reviewer", "claude-code", agents, "SubagentStart"), ["code-reviewer"]);
    // mcp__brave-search is an exact string that names no tool; the documented form is a regex.
    const tools = ["mcp__brave-search__web", "mcp__brave-search"];
    assert.deepEqual(accepted("mcp__brave-search", "claude-code", tools), ["mcp__brave-search"]);
    assert.deepEqual(accepted("mcp__brave-search__.*", "claude-code", tools), ["mcp__brave-search__web"]);
  });

  it("claude-code: any other character makes an unanchored JavaScript regex", () => {
    assert.deepEqual(accepted("Edit.*", "claude-code", TOOLS), ["Edit", "NotebookEdit", "MultiEdit"]);
    assert.deepEqual(accepted("^Notebook", "claude-code", TOOLS), ["NotebookEdit"]);
    assert.deepEqual(accepted("^my-plugin:reviewer$", "claude-code", ["my-plugin:reviewer", "x"]), [
      "my-plugin:reviewer",
    ]);
  });

  it("claude-code: FileChanged and StopFailure keep the narrow set: only | separates, - and , are regex", () => {
    const errors = ["rate_limit", "overloaded", "server_error"];
    assert.deepEqual(accepted("rate_limit|overloaded", "claude-code", errors, "StopFailure"), [
      "rate_limit",
      "overloaded",
    ]);
    // A comma keeps it on the regex path, where "rate_limit, overloaded" matches neither name.
    assert.deepEqual(accepted("rate_limit, overloaded", "claude-code", errors, "StopFailure"), []);
    const files = ["Makefile", "Makefile.bak", "my-file", "xmy-file"];
    assert.deepEqual(accepted("Makefile", "claude-code", files, "FileChanged"), ["Makefile"]);
    // "my-file" is a regex for FileChanged, so it also matches inside "xmy-file".
    assert.deepEqual(accepted("my-file", "claude-code", files, "FileChanged"), ["my-file", "xmy-file"]);
    assert.deepEqual(accepted("my-file", "claude-code", files, "Notification"), ["my-file"]);
  });

  it("codex: a pattern of letters, digits, _ and | is exact; anything else a regex", () => {
    assert.deepEqual(accepted("Bash", "codex", TOOLS), ["Bash"]);
    assert.deepEqual(accepted("Edit|Write", "codex", TOOLS), ["Edit", "Write"]);
    assert.deepEqual(accepted("^Bash", "codex", TOOLS), ["Bash", "BashOutput"]);
    assert.deepEqual(accepted("mcp__memory", "codex", ["mcp__memory__create_entities"]), []);
    // Codex has no comma or hyphen in its exact set: these are regexes.
    assert.deepEqual(accepted("code-reviewer", "codex", ["senior-code-reviewer"], "SubagentStart"), [
      "senior-code-reviewer",
    ]);
    assert.deepEqual(accepted("Edit, Write", "codex", TOOLS), []);
  });

  it("codex 0.169.0: Rust inline flags (?i) and simple (?i:…) groups work; what cannot be translated throws", () => {
    assert.deepEqual(accepted("(?i)bash", "codex", TOOLS), ["Bash", "BashOutput"]);
    assert.deepEqual(accepted("(?i)^bash$", "codex", TOOLS), ["Bash"]);
    assert.deepEqual(accepted("(?is)^edit$", "codex", TOOLS), ["Edit"]);
    assert.deepEqual(accepted("^(?i:multi)Edit$", "codex", [...TOOLS, "MULTIEdit", "MultiEDIT"]), [
      "MultiEdit",
      "MULTIEdit",
    ]);
    assert.deepEqual(accepted("^(?:Edit|Write)$", "codex", TOOLS), ["Edit", "Write"], "a plain group is no flag");
    // Claude Code's matchers are JavaScript: (?i) stays invalid there.
    assert.throws(() => compileMatcher("(?i)bash", "claude-code"), SyntaxError);
    for (const untranslatable of ["(?x)bash", "(?U)a+", "a(?i)b", "(?-i)Bash", "(?i:[a-z]+)", "(?i:\\w)"]) {
      assert.throws(() => compileMatcher(untranslatable, "codex", "PreToolUse", "at.matcher"), (error) => {
        assert.ok(error instanceof HookSettingsError, untranslatable);
        assert.equal(error.code, "ERR_HOOK_SETTINGS");
        assert.equal(error.field, "at.matcher");
        assert.match(error.message, /^at\.matcher: Rust inline flag syntax the bridge cannot translate: /);
        return true;
      });
    }
    // parseHookSettings disables the group with a warning naming the matcher once, as for an invalid regex.
    const settings = parseHookSettings({
      hooks: { PreToolUse: [{ matcher: "(?x)bash", hooks: [{ type: "command", command: "true" }] }] },
    }, { dialect: "codex" });
    assert.deepEqual(settings.warnings, [{
      field: "hooks.PreToolUse[0].matcher",
      message: 'invalid regular expression "(?x)bash": Rust inline flag syntax the bridge cannot translate: ' +
        '"(?x)bash"; this group is disabled',
    }]);
  });

  it("match-all patterns; nothing else matches without a target; any of several targets", () => {
    for (const dialect of ["claude-code", "codex"] as const) {
      for (const pattern of ["", "*"]) assert.equal(compileMatcher(pattern, dialect)([]), true);
      assert.equal(compileMatcher(undefined, dialect)([]), true);
      assert.equal(compileMatcher("Bash", dialect)([]), false);
      assert.equal(compileMatcher("^Write$", dialect)(["apply_patch", "Write"]), true);
    }
  });

  it("an invalid regex throws when compiled (parseHookSettings turns it into a warning)", () => {
    assert.throws(() => compileMatcher("Bash(", "claude-code"), SyntaxError);
  });
});

describe("matchers (dispatched)", () => {
  let dir: string;
  let shell: Shell;
  before(() => {
    dir = freshDir("dsh-matchers-");
    shell = createLocalShell({ graceMs: 300, timeoutMs: 20_000 });
  });
  after(async () => {
    await shell.close();
    removeDir(dir);
  });

  /** Settings for `event` with a group per matcher, each answering with its matcher as a system message. */
  const groupsFor = (event: string, matchers: (string | undefined)[], dialect: HookDialect): HookSettings =>
    parseHookSettings({
      hooks: {
        [event]: matchers.map((matcher) => ({
          ...(matcher === undefined ? {} : { matcher }),
          hooks: [{ type: "command", command: answer({ systemMessage: matcher ?? "(none)" }) }],
        })),
      },
    }, { dialect });

  const ran = async (
    settings: HookSettings,
    event: string,
    payload: Record<string, unknown>,
    matchTarget?: string | string[],
  ): Promise<string[]> =>
    // Which groups ran, from each hook's own answer (StopFailure ignores output, so not the merged messages).
    (await dispatchHookEvent(shell, settings, {
      event,
      payload: { hook_event_name: event, ...payload },
      projectDir: dir,
      owner: null,
      ...(matchTarget === undefined ? {} : { matchTarget }),
    })).results.map((entry) => String(entry.result.json?.systemMessage));

  it("claude-code: each event's matchers test the field the reference names", async () => {
    const cases: [string, string, string][] = [
      ["Setup", "trigger", "init"],
      ["ConfigChange", "source", "project_settings"],
      ["DirectoryAdded", "source", "slash_command"],
      ["StopFailure", "error", "rate_limit"],
      ["InstructionsLoaded", "load_reason", "session_start"],
      ["UserPromptExpansion", "command_name", "deploy"],
      ["Elicitation", "mcp_server_name", "my-server"],
      ["ElicitationResult", "mcp_server_name", "my-server"],
      ["Notification", "notification_type", "idle_prompt"],
      ["SubagentStop", "agent_type", "Explore"],
      ["PreCompact", "trigger", "auto"],
      ["PostCompact", "trigger", "manual"],
      ["SessionEnd", "reason", "logout"],
      ["PermissionDenied", "tool_name", "Bash"],
    ];
    for (const [event, field, value] of cases) {
      assert.equal(HOOK_MATCH_FIELDS[event], field, event);
      const settings = groupsFor(event, [value, "other_value", undefined], "claude-code");
      assert.deepEqual(await ran(settings, event, { [field]: value }), [value, "(none)"], event);
    }
  });

  it("claude-code: FileChanged tests the basename of file_path", async () => {
    const settings = groupsFor("FileChanged", [".envrc", "Makefile"], "claude-code");
    assert.deepEqual(await ran(settings, "FileChanged", { file_path: `${dir}/sub/.envrc`, event: "change" }), [
      ".envrc",
    ]);
  });

  it("events without matcher support ignore the matcher, even a caller's matchTarget, and an invalid one", async () => {
    const noMatchers: [HookDialect, string][] = [
      ["claude-code", "UserPromptSubmit"],
      ["claude-code", "Stop"],
      ["claude-code", "PostToolBatch"],
      ["claude-code", "CwdChanged"],
      ["claude-code", "WorktreeRemove"],
      ["codex", "UserPromptSubmit"],
      ["codex", "Stop"],
    ];
    for (const [dialect, event] of noMatchers) {
      const settings = groupsFor(event, ["^hello", "[", undefined], dialect);
      assert.deepEqual(settings.warnings, [], `${dialect} ${event}: no warning for the invalid one`);
      assert.deepEqual(await ran(settings, event, {}, "nothing"), ["^hello", "[", "(none)"], `${dialect} ${event}`);
    }
  });

  it("codex: the events Codex matches on, with their fields; Claude-only events are custom there", async () => {
    const subagent = groupsFor("SubagentStart", ["Explore", "Plan"], "codex");
    assert.deepEqual(await ran(subagent, "SubagentStart", { agent_type: "Plan" }), ["Plan"]);
    const compact = groupsFor("PreCompact", ["manual", "auto"], "codex");
    assert.deepEqual(await ran(compact, "PreCompact", { trigger: "auto" }), ["auto"]);
    // Notification is not a Codex event: without a matchTarget every group runs.
    const custom = groupsFor("Notification", ["idle_prompt", "auth_success"], "codex");
    assert.deepEqual(await ran(custom, "Notification", { notification_type: "idle_prompt" }), [
      "idle_prompt",
      "auth_success",
    ]);
    assert.deepEqual(await ran(custom, "Notification", {}, "auth_success"), ["auth_success"]);
  });

  it("codex: a tool's aliases as matchTarget; each group runs once however many aliases it matches", async () => {
    const settings = groupsFor("PreToolUse", ["^apply_patch$", "^Write$", "apply_patch|Write|Edit", "Bash"], "codex");
    assert.deepEqual(
      await ran(settings, "PreToolUse", { tool_name: "apply_patch" }, ["apply_patch", "Write", "Edit"]),
      [
        "^apply_patch$",
        "^Write$",
        "apply_patch|Write|Edit",
      ],
    );
  });

  it("codex 0.169.0: a (?i)bash matcher runs its group for Bash; (?x) disables its group with a warning", async () => {
    const settings = groupsFor("PreToolUse", ["(?i)bash", "(?x) bash"], "codex");
    assert.deepEqual(settings.warnings?.map((warning) => warning.field), ["hooks.PreToolUse[1].matcher"]);
    assert.deepEqual(await ran(settings, "PreToolUse", { tool_name: "Bash" }), ["(?i)bash"]);
  });

  it("an invalid regex disables only its group, in both dialects; settings built by hand warn at dispatch", async () => {
    for (const dialect of ["claude-code", "codex"] as const) {
      const settings = groupsFor("PreToolUse", ["Bash", "[unclosed", "*"], dialect);
      assert.equal(settings.warnings?.[0]?.field, "hooks.PreToolUse[1].matcher");
      assert.deepEqual(await ran(settings, "PreToolUse", { tool_name: "Bash" }), ["Bash", "*"], dialect);
    }
    const byHand: HookSettings = {
      dialect: "claude-code",
      events: {
        PreToolUse: [{ matcher: "(", hooks: [{ command: "echo never" }] }, { hooks: [{ command: "true" }] }],
      },
      skipped: [],
    };
    const result = await dispatchHookEvent(shell, byHand, {
      event: "PreToolUse",
      payload: { hook_event_name: "PreToolUse", tool_name: "Bash" },
      projectDir: dir,
      owner: null,
    });
    assert.deepEqual(result.results.map((entry) => entry.command), ["true"]);
    assert.equal(result.warnings.length, 1);
    assert.equal(result.warnings[0].field, "settings.events.PreToolUse[0].matcher");
    assert.match(result.warnings[0].message, /this group is disabled/);
  });
});
