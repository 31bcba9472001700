/**
 * `dsh-shell hook`: one event dispatched through a settings file and/or a
 * plugin's `hooks/hooks.json`, as a harness would, with each hook's result,
 * the merged decision and the background hooks' outcomes printed.
 *
 * @module
 */

import process from "node:process";
import { join, resolve } from "node:path";
import {
  dispatchHookEvent,
  type HookBackgroundResult,
  type HookDialect,
  type HookDispatchResult,
  type HookSettings,
  type HookWarning,
  parseHookSettings,
} from "../hooks/mod.ts";
import { createLocalShell } from "../local_shell.ts";
import { parseArgs, parseEnvFlags, UsageError } from "./args.ts";
import { EXIT_BLOCKED } from "./exit_codes.ts";
import { HOOK_HELP } from "./help.ts";
import { type CliOutput, parseJson, readInput } from "./io.ts";

const DIALECTS = ["claude-code", "codex"] as const;

/** Runs `dsh-shell hook` with `args`; resolves with 2 when the event is blocked, else 0. */
export async function hookCommand(args: readonly string[], output: CliOutput): Promise<number> {
  const parsed = parseArgs(args, {
    values: ["settings", "dialect", "match", "payload", "project-dir", "plugin-root", "plugin-data"],
    lists: ["env"],
    switches: ["json", "help"],
  });
  if (parsed.switches.has("help")) {
    output.out(HOOK_HELP);
    return 0;
  }
  const [event, extra] = parsed.positionals;
  if (event === undefined) {
    throw new UsageError("missing the EVENT: dsh-shell hook EVENT --settings FILE (or --plugin-root DIR)");
  }
  if (extra !== undefined || parsed.rest !== undefined) {
    throw new UsageError(`unexpected argument ${JSON.stringify(extra ?? "--")}`);
  }
  const dialect = parsed.values.get("dialect") ?? "claude-code";
  if (!(DIALECTS as readonly string[]).includes(dialect)) {
    throw new UsageError(`--dialect must be claude-code or codex, got ${JSON.stringify(dialect)}`);
  }
  const layers = await loadSettings(parsed.values, dialect as HookDialect);
  const payloadSource = parsed.values.get("payload");
  const payload = payloadSource === undefined
    ? { hook_event_name: event }
    : parseJson(await readInput(payloadSource, "--payload"), "--payload", payloadSource);
  if (typeof payload !== "object" || payload === null || Array.isArray(payload)) {
    throw new UsageError("--payload must hold a JSON object");
  }
  const env = parseEnvFlags(parsed.lists.get("env") ?? []);
  const match = parsed.values.get("match");
  await using shell = createLocalShell();
  const interrupt = new AbortController();
  const onSignal = (): void => interrupt.abort();
  process.once("SIGINT", onSignal);
  try {
    const result = await dispatchHookEvent(shell, layers, {
      event,
      payload: payload as Record<string, unknown>,
      projectDir: resolve(parsed.values.get("project-dir") ?? process.cwd()),
      owner: null,
      signal: interrupt.signal,
      backgroundSignal: interrupt.signal,
      env,
      ...(match === undefined ? {} : { matchTarget: match }),
    });
    // The background hooks end before the shell closes: their outcome is part of the report.
    const background = await Promise.all(result.background.map((run) => run.done));
    const warnings = [...layers.flatMap((layer) => layer.warnings ?? []), ...result.warnings];
    output.out(
      parsed.switches.has("json")
        ? `${JSON.stringify(jsonReport(result, background, warnings), null, 2)}\n`
        : describe(event, result, background, warnings),
    );
    return result.blocked ? EXIT_BLOCKED : 0;
  } finally {
    process.off("SIGINT", onSignal);
  }
}

/** `--settings FILE` and/or `--plugin-root DIR` (its `hooks/hooks.json`), in that order. */
async function loadSettings(values: Map<string, string>, dialect: HookDialect): Promise<HookSettings[]> {
  const settingsFile = values.get("settings");
  const pluginRoot = values.get("plugin-root");
  const pluginData = values.get("plugin-data");
  if (settingsFile === undefined && pluginRoot === undefined) {
    throw new UsageError("--settings FILE or --plugin-root DIR is required");
  }
  if (pluginData !== undefined && pluginRoot === undefined) throw new UsageError("--plugin-data needs --plugin-root");
  const layers: HookSettings[] = [];
  if (settingsFile !== undefined) {
    const json = parseJson(await readInput(settingsFile, "--settings"), "--settings", settingsFile);
    layers.push(parseHookSettings(json, { dialect }));
  }
  if (pluginRoot !== undefined) {
    const root = resolve(pluginRoot);
    const file = join(root, "hooks", "hooks.json");
    const json = parseJson(await readInput(file, "--plugin-root"), "--plugin-root", file);
    layers.push(parseHookSettings(json, {
      dialect,
      pluginRoot: root,
      ...(pluginData === undefined ? {} : { pluginData: resolve(pluginData) }),
    }));
  }
  return layers;
}

/** The `--json` report: the dispatch result, with the background outcomes and every warning. */
function jsonReport(
  dispatch: HookDispatchResult,
  background: readonly HookBackgroundResult[],
  warnings: readonly HookWarning[],
): unknown {
  return {
    ...dispatch,
    background: dispatch.background.map((run, index) => ({
      command: run.command,
      ...(run.args === undefined ? {} : { args: run.args }),
      rewake: run.rewake,
      ...background[index],
    })),
    warnings,
  };
}

/** The human-readable report: warnings, each hook, the merged decision, then the background hooks. */
function describe(
  event: string,
  dispatch: HookDispatchResult,
  background: readonly HookBackgroundResult[],
  warnings: readonly HookWarning[],
): string {
  const lines = warnings.map((warning) => `warning: ${warning.field}: ${warning.message}`);
  if (lines.length > 0) lines.push("");
  const count = dispatch.results.length;
  lines.push(`${event}: ${count} hook${count === 1 ? "" : "s"} ran`);
  dispatch.results.forEach(({ command, args, result, verdict }, index) => {
    const exit = result.timedOut ? "timed out" : `exit ${result.exitCode ?? "none"}`;
    lines.push(
      ``,
      `[${index + 1}] ${label(command, args)}`,
      `    ${result.outcome} (${exit}, ${ms(result.durationMs)})`,
    );
    if (result.reason !== undefined) lines.push(`    reason: ${oneLine(result.reason)}`);
    if (verdict.error !== undefined) lines.push(`    refused: ${oneLine(verdict.error)}`);
    if (result.json !== undefined) lines.push(`    json: ${JSON.stringify(result.json)}`);
    else if (result.stdout.trim() !== "") lines.push(...indent("stdout", result.stdout));
    if (result.outcome !== "blocking" && result.stderr.trim() !== "") lines.push(...indent("stderr", result.stderr));
  });
  lines.push("", `decision: ${dispatch.permission ?? "none"}${dispatch.blocked ? " (blocked)" : ""}`);
  for (const reason of dispatch.reasons) lines.push(`  reason: ${oneLine(reason)}`);
  if (dispatch.stop !== undefined) lines.push(`stop: ${dispatch.stop.reason ?? "(no reason given)"}`);
  for (const context of dispatch.additionalContext) lines.push(`context: ${oneLine(context)}`);
  for (const feedback of dispatch.feedback) lines.push(`feedback: ${oneLine(feedback)}`);
  for (const message of dispatch.systemMessages) lines.push(`system message: ${oneLine(message)}`);
  if (dispatch.envFile !== undefined) {
    // Names only: a value written to the env file may be a secret.
    const names = Object.keys(dispatch.envFile.env);
    lines.push(`env file: ${names.length === 0 ? "(sets nothing)" : `sets ${names.join(", ")}`}`);
  }
  dispatch.background.forEach((run, index) => {
    const ended = background[index];
    const { result } = ended;
    if (index === 0) {
      lines.push("", `background: ${dispatch.background.length} hook${dispatch.background.length === 1 ? "" : "s"}`);
    }
    lines.push(``, `[b${index + 1}] ${label(run.command, run.args)}${run.rewake ? " (asyncRewake)" : ""}`);
    lines.push(`    ${result.outcome} (exit ${result.exitCode ?? "none"}, ${ms(result.durationMs)})`);
    if (ended.rewake !== undefined) lines.push(`    rewake: ${oneLine(ended.rewake)}`);
    if (ended.additionalContext !== undefined) lines.push(`    context: ${oneLine(ended.additionalContext)}`);
    if (ended.systemMessage !== undefined) lines.push(`    system message: ${oneLine(ended.systemMessage)}`);
    if (ended.error !== undefined) lines.push(`    error: ${oneLine(ended.error)}`);
  });
  return `${lines.join("\n")}\n`;
}

/** Shell form as written; exec form as its argv in JSON, the way Dockerfiles write exec form. */
function label(command: string, args: readonly string[] | undefined): string {
  return args === undefined ? command : JSON.stringify([command, ...args]);
}

function ms(durationMs: number): string {
  return `${Math.round(durationMs)} ms`;
}

function oneLine(text: string): string {
  return text.trim().replace(/\s*\n\s*/g, " ⏎ ");
}

function indent(label: string, text: string): string[] {
  const body = text.trimEnd().split("\n");
  return [`    ${label}:`, ...body.map((line) => `      ${line}`)];
}
