/**
 * `dsh-shell hook`: one event dispatched through a settings file, as a
 * harness would, with each hook's result and the merged decision printed.
 *
 * @module
 */

import process from "node:process";
import { resolve } from "node:path";
import { dispatchHookEvent, type HookDispatchResult, parseHookSettings } from "../hooks/mod.ts";
import { createLocalShell } from "../local_shell.ts";
import { parseArgs, UsageError } from "./args.ts";
import { EXIT_BLOCKED } from "./exit_codes.ts";
import { HOOK_HELP } from "./help.ts";
import { type CliOutput, parseJson, readInput } from "./io.ts";

const DIALECTS = ["claude-code", "codex"] as const;

/** Runs `dsh-shell hook` with `args`; resolves with 2 when the event is blocked, else 0. */
export async function hookCommand(args: readonly string[], output: CliOutput): Promise<number> {
  const parsed = parseArgs(args, {
    values: ["settings", "dialect", "match", "payload", "project-dir"],
    switches: ["json", "help"],
  });
  if (parsed.switches.has("help")) {
    output.out(HOOK_HELP);
    return 0;
  }
  const [event, extra] = parsed.positionals;
  if (event === undefined) throw new UsageError("missing the EVENT: dsh-shell hook EVENT --settings FILE");
  if (extra !== undefined || parsed.rest !== undefined) {
    throw new UsageError(`unexpected argument ${JSON.stringify(extra ?? "--")}`);
  }
  const settingsFile = parsed.values.get("settings");
  if (settingsFile === undefined) throw new UsageError("--settings FILE is required");
  const dialect = parsed.values.get("dialect") ?? "claude-code";
  if (!(DIALECTS as readonly string[]).includes(dialect)) {
    throw new UsageError(`--dialect must be claude-code or codex, got ${JSON.stringify(dialect)}`);
  }
  const settings = parseHookSettings(
    parseJson(await readInput(settingsFile, "--settings"), "--settings", settingsFile),
    { dialect: dialect as (typeof DIALECTS)[number] },
  );
  const payloadSource = parsed.values.get("payload");
  const payload = payloadSource === undefined
    ? { hook_event_name: event }
    : parseJson(await readInput(payloadSource, "--payload"), "--payload", payloadSource);
  if (typeof payload !== "object" || payload === null || Array.isArray(payload)) {
    throw new UsageError("--payload must hold a JSON object");
  }
  const match = parsed.values.get("match");
  await using shell = createLocalShell();
  const interrupt = new AbortController();
  const onSignal = (): void => interrupt.abort();
  process.once("SIGINT", onSignal);
  try {
    const result = await dispatchHookEvent(shell, settings, {
      event,
      payload: payload as Record<string, unknown>,
      projectDir: resolve(parsed.values.get("project-dir") ?? process.cwd()),
      owner: null,
      signal: interrupt.signal,
      ...(match === undefined ? {} : { matchTarget: match }),
    });
    output.out(parsed.switches.has("json") ? `${JSON.stringify(result, null, 2)}\n` : describe(event, result));
    return result.blocked ? EXIT_BLOCKED : 0;
  } finally {
    process.off("SIGINT", onSignal);
  }
}

/** The human-readable report: each hook, then the merged decision. */
function describe(event: string, dispatch: HookDispatchResult): string {
  const lines = [`${event}: ${dispatch.results.length} hook${dispatch.results.length === 1 ? "" : "s"} ran`];
  dispatch.results.forEach(({ command, result }, index) => {
    const exit = result.timedOut ? "timed out" : `exit ${result.exitCode ?? "none"}`;
    lines.push(``, `[${index + 1}] ${command}`, `    ${result.outcome} (${exit}, ${Math.round(result.durationMs)} ms)`);
    if (result.reason !== undefined) lines.push(`    reason: ${oneLine(result.reason)}`);
    if (result.json !== undefined) lines.push(`    json: ${JSON.stringify(result.json)}`);
    else if (result.stdout.trim() !== "") lines.push(...indent("stdout", result.stdout));
    if (result.outcome !== "blocking" && result.stderr.trim() !== "") lines.push(...indent("stderr", result.stderr));
  });
  lines.push("", `decision: ${dispatch.permission ?? "none"}${dispatch.blocked ? " (blocked)" : ""}`);
  for (const reason of dispatch.reasons) lines.push(`  reason: ${oneLine(reason)}`);
  if (dispatch.stop !== undefined) lines.push(`stop: ${dispatch.stop.reason ?? "(no reason given)"}`);
  for (const context of dispatch.additionalContext) lines.push(`context: ${oneLine(context)}`);
  for (const message of dispatch.systemMessages) lines.push(`system message: ${oneLine(message)}`);
  return `${lines.join("\n")}\n`;
}

function oneLine(text: string): string {
  return text.trim().replace(/\s*\n\s*/g, " ⏎ ");
}

function indent(label: string, text: string): string[] {
  const body = text.trimEnd().split("\n");
  return [`    ${label}:`, ...body.map((line) => `      ${line}`)];
}
