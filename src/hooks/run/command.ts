/**
 * One hook, start to finish: the request (stdin per dialect, the hook
 * variables, the defaults), the run through the shell, and the protocol that
 * turns the run's exit into a {@linkcode HookResult}.
 *
 * @module
 */

import { ownFields } from "../../seam/own_fields.ts";
import { isAbsolute } from "node:path";
import { hasErrorCode } from "../../seam/error_checks.ts";
import { ShellSpecError } from "../../seam/errors.ts";
import type { EnvPatch, Shell, ShellExecRequest, ShellRunResult } from "../../seam/types.ts";
import { hookEnv, hookVariables } from "./hook_env.ts";
import { parseHookJson } from "./answer.ts";
import { expandPlaceholders } from "./placeholders.ts";
import { failedResult } from "./result.ts";
import type { HookHarnessInfo, HookJsonOutput, HookOutcome, HookResult } from "./types.ts";
import type { HookDialect } from "../settings/types.ts";

/**
 * The bridge's defaults: a hook's timeout (600 s, as in Claude Code and
 * Codex; the shell still caps it at its `maxTimeoutMs`) and its stdout
 * budget (1 MiB, raised from the shell's default so a JSON answer carrying
 * an `updatedInput` or a long `additionalContext` arrives whole).
 *
 * @example
 * ```ts
 * import { HOOK_DEFAULTS } from "@dsh/shell/hooks";
 * import assert from "node:assert/strict";
 * assert.equal(HOOK_DEFAULTS.timeoutMs, 600_000);
 * ```
 */
export const HOOK_DEFAULTS: Readonly<{ timeoutMs: number; stdoutMaxBytes: number }> = Object.freeze({
  timeoutMs: 600_000,
  stdoutMaxBytes: 1024 * 1024,
});

/**
 * What {@linkcode runHook} needs to run one hook.
 *
 * @example
 * ```ts
 * import { createLocalShell } from "@dsh/shell";
 * import { runHook, type RunHookOptions } from "@dsh/shell/hooks";
 * import assert from "node:assert/strict";
 * const options: RunHookOptions = {
 *   command: 'echo "session started in $CLAUDE_PROJECT_DIR"',
 *   payload: { hook_event_name: "SessionStart", source: "startup" },
 *   dialect: "claude-code",
 *   projectDir: "/tmp",
 *   owner: "session-7",
 *   timeoutMs: 5_000,
 * };
 * await using shell = createLocalShell();
 * const result = await runHook(shell, options);
 * assert.equal(result.outcome, "success");
 * assert.equal(result.stdout, "session started in /tmp\n");
 * ```
 */
export interface RunHookOptions {
  /**
   * Shell form: the hook's command line, run as the harness runs it:
   * `/bin/sh -c <command>` in the `claude-code` dialect (dash on Debian: no
   * `[[ ]]`, `echo -e` prints `-e`), `bash -c <command>` in `codex`'s; the
   * Shell's `shell` option does not apply. Exec form (with `args`): the
   * program, a name looked up on `PATH` or a path.
   */
  command: string;
  /**
   * Exec form: run `command` directly with these arguments, no shell.
   * `${NAME}` placeholders of the hook variables (`CLAUDE_PROJECT_DIR`, the
   * plugin variables, `CLAUDE_ENV_FILE`) are substituted into `command` and
   * each argument; nothing else is expanded.
   */
  args?: readonly string[];
  /** The event, sent as JSON on stdin. */
  payload: object;
  /** `"claude-code"`: stdin is the JSON plus `"\n"`; `"codex"`: no newline. */
  dialect: HookDialect;
  /** The project root, given to the hook as `CLAUDE_PROJECT_DIR`; also the default workdir. */
  projectDir: string;
  /** A plugin's root, given as `CLAUDE_PLUGIN_ROOT` and `PLUGIN_ROOT`. */
  pluginRoot?: string;
  /** A plugin's data directory, given as `CLAUDE_PLUGIN_DATA` and `PLUGIN_DATA`. */
  pluginData?: string;
  /** Timeout in ms (default 600 000, capped by the shell's `maxTimeoutMs`). */
  timeoutMs?: number;
  /** Who owns the run, or `null`. */
  owner: string | null;
  /** Aborts the hook: its whole process group is terminated. */
  signal?: AbortSignal;
  /** Working directory (default `projectDir`); relative paths resolve against the shell's workdir. */
  workdir?: string;
  /** Extra environment entries (`undefined` removes one); the hook variables above win over them. */
  env?: EnvPatch;
  /**
   * A file the hook may write `export` lines to, given as `CLAUDE_ENV_FILE`
   * (and `CODEX_ENV_FILE` in the Codex dialect). `dispatchHookEvent` makes
   * a fresh one per hook on the events that have it.
   */
  envFile?: string;
  /**
   * The harness's own values for Claude Code's variables
   * (`CLAUDE_CODE_SESSION_ID`, `CLAUDE_CODE_ENTRYPOINT`, `CLAUDE_PID`); the
   * `claude-code` dialect also sets `CLAUDECODE=1`. Never taken from the
   * ambient environment; ignored in the Codex dialect.
   */
  harness?: HookHarnessInfo;
  /**
   * `false` runs the hook outside the shell's sandbox, when the shell has
   * one. Hooks are the user's own configuration and Claude Code runs them
   * outside its sandbox; without this they are contained like every command.
   */
  sandbox?: false;
}

/**
 * Runs one hook: `payload` as JSON on stdin, `CLAUDE_PROJECT_DIR` (and the
 * plugin variables when given) in the environment, through `shell`, so the
 * credential scrub, `ENV_OVERRIDES`, the process-group kill and the output
 * budgets apply as for every command.
 *
 * The protocol: exit 0 is `success`; exit 2 is `blocking`; any other exit,
 * a signal, a timeout, an abort, or a failure to start is
 * `non-blocking-error`, with a `reason` that says which. Stdout is parsed as
 * JSON when its trimmed text starts with `{` (malformed JSON stays plain
 * text, without `json`):
 *
 * - `claude-code`: on every exit code, as current Claude Code reads it; on
 *   exit 2 the reason of the answer's blocking decision (`block` with
 *   `reason`, `deny` with its reason) wins over stderr as the `reason`;
 * - `codex`: on exit 0 only; exit 2 blocks only with a reason on stderr,
 *   and without one is a `non-blocking-error`, as Codex counts it.
 *
 * Never rejects: a bad option, a closed shell, a missing workdir or an
 * already-aborted signal also come back as `non-blocking-error`.
 *
 * @example
 * ```ts
 * import { createLocalShell } from "@dsh/shell";
 * import { runHook } from "@dsh/shell/hooks";
 * import assert from "node:assert/strict";
 * await using shell = createLocalShell();
 * const result = await runHook(shell, {
 *   command: `grep -q '"rm -rf' && { echo "rm -rf is not allowed here" >&2; exit 2; }; exit 0`,
 *   payload: { hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "rm -rf /" } },
 *   dialect: "claude-code",
 *   projectDir: "/tmp",
 *   owner: null,
 *   timeoutMs: 10_000,
 * });
 * assert.equal(result.outcome, "blocking");
 * assert.equal(result.reason, "rm -rf is not allowed here");
 * ```
 */
export async function runHook(shell: Shell, given: RunHookOptions): Promise<HookResult> {
  const started = Date.now();
  // Own properties only: an `env` planted on Object.prototype must not reach the hook.
  const options = ownFields(given) as RunHookOptions;
  const signal = options?.signal;
  try {
    if (signal?.aborted) return failure(`aborted before the hook started${reasonSuffix(signal.reason)}`, started);
    const spec = shell.resolve(hookRequest(shell, options));
    return settle(await shell.run(spec), signal, options.dialect);
  } catch (error) {
    if (signal?.aborted && error === signal.reason) {
      return failure(`aborted before the hook started${reasonSuffix(signal.reason)}`, started);
    }
    return failure(describeError(error), started);
  }
}

/** The shell request for one hook. Throws {@linkcode ShellSpecError} naming a bad option. */
function hookRequest(shell: Shell, options: RunHookOptions): ShellExecRequest {
  if (options.dialect !== "claude-code" && options.dialect !== "codex") {
    throw new ShellSpecError("dialect", 'must be "claude-code" or "codex"');
  }
  const projectDir = absoluteDir(shell, "projectDir", options.projectDir);
  const pluginRoot = options.pluginRoot === undefined
    ? undefined
    : absoluteDir(shell, "pluginRoot", options.pluginRoot);
  const pluginData = options.pluginData === undefined
    ? undefined
    : absoluteDir(shell, "pluginData", options.pluginData);
  const envFile = options.envFile === undefined ? undefined : absoluteDir(shell, "envFile", options.envFile);
  const locations = { projectDir, pluginRoot, pluginData, envFile };
  const request: ShellExecRequest = {
    command: options.command,
    owner: options.owner,
    workdir: options.workdir ?? projectDir,
    timeoutMs: options.timeoutMs ?? HOOK_DEFAULTS.timeoutMs,
    stdoutMaxBytes: HOOK_DEFAULTS.stdoutMaxBytes,
    stdin: stdinFor(options.payload, options.dialect),
    env: hookEnv(locations, options.env, options.dialect, options.harness),
  };
  if (options.args === undefined) {
    // Shell form, in the harness's own shell: the binaries ignore the Shell's `shell` option, so the bridge does too.
    // An empty or non-string command is left for the seam's check, which names `command`.
    if (typeof options.command === "string" && options.command !== "") {
      request.command = SHELL_FORM[options.dialect];
      request.args = ["-c", options.command];
    }
  } else {
    if (!Array.isArray(options.args)) throw new ShellSpecError("args", "must be an array of strings");
    const variables = hookVariables(locations, options.dialect);
    request.command = expandPlaceholders(options.command, variables);
    request.args = options.args.map((arg, index) => {
      if (typeof arg !== "string") throw new ShellSpecError(`args[${index}]`, "must be a string");
      return expandPlaceholders(arg, variables);
    });
  }
  if (options.signal !== undefined) request.signal = options.signal;
  if (options.sandbox === false) request.sandbox = false;
  return request;
}

/**
 * The program that runs a shell-form hook, `<program> -c <command>`, per
 * dialect, as the binaries do on Linux (measured, `tests/conformance.test.ts`):
 * Claude Code 2.1.328 runs `/bin/sh -c` (dash on Debian), whatever `$SHELL`
 * or the entry's `shell` field says; Codex 0.169.0 runs bash (`bash -c`, not
 * a login shell), whatever `$SHELL` or the user's login shell is.
 */
const SHELL_FORM: Readonly<Record<HookDialect, string>> = Object.freeze({
  "claude-code": "/bin/sh",
  codex: "bash",
});

/**
 * `dir` as an absolute path: a relative one resolves against the shell's
 * workdir, like a request's `workdir`, so the hook variables and the
 * default workdir agree.
 */
function absoluteDir(shell: Shell, field: string, dir: unknown): string {
  if (typeof dir !== "string" || dir === "") throw new ShellSpecError(field, "must be a non-empty string");
  if (dir.includes("\0")) throw new ShellSpecError(field, "must not contain a NUL character");
  return isAbsolute(dir) ? dir : shell.resolve({ command: "true", owner: null, workdir: dir }).workdir;
}

/** The stdin bytes: the payload's JSON, plus `"\n"` for Claude Code. */
function stdinFor(payload: unknown, dialect: HookDialect): string {
  let json: string | undefined;
  try {
    json = JSON.stringify(payload);
  } catch (error) {
    throw new ShellSpecError("payload", `is not JSON-serialisable (${errorMessage(error)})`);
  }
  if (typeof json !== "string" || typeof payload !== "object" || payload === null) {
    throw new ShellSpecError("payload", "must be a JSON-serialisable object");
  }
  return dialect === "claude-code" ? `${json}\n` : json;
}

/** Applies the hook protocol of `dialect` to a finished run. */
function settle(run: ShellRunResult, signal: AbortSignal | undefined, dialect: HookDialect): HookResult {
  if (run.timedOut) return fromRun("non-blocking-error", run, { reason: `timed out after ${run.timeoutMs}ms` });
  if (run.aborted) {
    const reason = signal?.aborted ? "aborted by the caller's signal" : "aborted: the shell was closed";
    return fromRun("non-blocking-error", run, { reason });
  }
  if (run.exitCode === null) {
    return fromRun("non-blocking-error", run, { reason: `killed by signal ${run.signal ?? "(unknown)"}` });
  }
  // A truncated stdout is a head and a tail around a marker line: never the JSON the hook wrote.
  const readsJson = !run.stdout.truncated && (dialect === "claude-code" || run.exitCode === 0);
  const json = readsJson ? parseHookJson(run.stdout.text) : undefined;
  const withJson = json === undefined ? {} : { json };
  if (run.exitCode === 0) return fromRun("success", run, withJson);
  const stderr = run.stderr.text.trim();
  if (run.exitCode === 2) {
    const answered = json === undefined ? undefined : jsonReason(json);
    if (answered !== undefined) return fromRun("blocking", run, { ...withJson, reason: answered });
    if (stderr !== "") return fromRun("blocking", run, { ...withJson, reason: stderr });
    if (dialect === "codex") {
      // Codex: "exited with code 2 but did not write a blocking reason to stderr" is a failure, not a block.
      return fromRun("non-blocking-error", run, { reason: "exit code 2 without a reason on stderr" });
    }
    return fromRun("blocking", run, { ...withJson, reason: "exit code 2 (no message on stderr)" });
  }
  const line = firstLine(stderr);
  return fromRun("non-blocking-error", run, {
    ...withJson,
    reason: `exit code ${run.exitCode}${line ? `: ${line}` : ""}`,
  });
}

/** The reason a JSON answer gives for blocking: `reason`, else `hookSpecificOutput.permissionDecisionReason`. */
function jsonReason(json: HookJsonOutput): string | undefined {
  const candidates = [
    json.reason,
    json.hookSpecificOutput?.permissionDecisionReason,
    json.hookSpecificOutput?.decision?.message,
  ];
  return candidates.find((text): text is string => typeof text === "string" && text.trim() !== "")?.trim();
}

/** A result from a run, its fields in the documented order. */
function fromRun(
  outcome: HookOutcome,
  run: ShellRunResult,
  extra: { json?: HookJsonOutput; reason?: string },
): HookResult {
  return {
    outcome,
    exitCode: run.exitCode,
    stdout: run.stdout.text,
    stderr: run.stderr.text,
    ...(extra.json === undefined ? {} : { json: extra.json }),
    ...(extra.reason === undefined ? {} : { reason: extra.reason }),
    timedOut: run.timedOut,
    durationMs: run.durationMs,
  };
}

/** A result for a hook that never ran (or whose run could not be made). */
const failure = (reason: string, started: number): HookResult => failedResult(reason, started);

/** Why a hook could not be run, in one line. */
function describeError(error: unknown): string {
  if (hasErrorCode(error, "ERR_SHELL_SPAWN", "ERR_SHELL_CLOSED")) return `could not start the hook: ${error.message}`;
  if (hasErrorCode(error, "ERR_SHELL_SPEC")) return `invalid hook run: ${error.message}`;
  return `could not run the hook: ${errorMessage(error)}`;
}

/** `" (<reason>)"` for an abort reason worth showing, else `""`. */
function reasonSuffix(reason: unknown): string {
  if (reason === undefined) return "";
  const text = errorMessage(reason);
  return text === "" ? "" : ` (${text})`;
}

/** An error's message, or the value as text; never throws. */
function errorMessage(error: unknown): string {
  try {
    return error instanceof Error ? error.message : String(error);
  } catch {
    return "(unprintable error)";
  }
}

/** The first non-empty line of `text`, at most 300 characters. */
function firstLine(text: string): string {
  const line = text.split("\n").find((candidate) => candidate.trim() !== "")?.trim() ?? "";
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}
