/**
 * What one hook's result decides for one event, as Claude Code reads it
 * (code.claude.com/docs/en/hooks, fetched 2026-10-08, "Exit code output"
 * and "JSON output"):
 *
 * - stdout is JSON when it starts with `{` and ends with `}`; anything else
 *   is plain text;
 * - the answer counts on every exit code; an answer that does not parse or
 *   fails validation is a hook error (on exit 2 the block still holds, with
 *   stderr as its reason);
 * - exit 2 blocks only on events that can be blocked, with the reason of
 *   the answer's blocking decision, else stderr;
 * - each event reads its own decision fields and discards some universal
 *   ones.
 *
 * Also the reading of custom events, in both dialects: every decision field
 * counts and exit 2 is a block, as in 1.0.
 *
 * @module
 */

import { z } from "zod";
import { type DecisionForm, type EventRules, eventRules } from "../events.ts";
import type { HookJsonOutput, HookResult } from "../run/types.ts";
import type { HookVerdict } from "./types.ts";

/** Custom events read every decision form, as 1.0 did. */
const EVERY_FORM: ReadonlySet<DecisionForm> = new Set(["permissionDecision", "permissionRequest", "block", "approve"]);

const record = z.record(z.string(), z.unknown());

/** The types of the fields Claude Code's output schema knows; other fields pass. */
const ANSWER = z.looseObject({
  continue: z.boolean().optional(),
  stopReason: z.string().optional(),
  suppressOutput: z.boolean().optional(),
  systemMessage: z.string().optional(),
  terminalSequence: z.string().optional(),
  decision: z.enum(["approve", "block"]).optional(),
  reason: z.string().optional(),
  hookSpecificOutput: z.looseObject({
    hookEventName: z.string(),
    permissionDecision: z.enum(["allow", "deny", "ask", "defer"]).optional(),
    permissionDecisionReason: z.string().optional(),
    additionalContext: z.string().optional(),
    updatedInput: record.optional(),
    decision: z.looseObject({
      behavior: z.enum(["allow", "deny"]),
      updatedInput: record.optional(),
      updatedPermissions: z.array(z.unknown()).optional(),
      message: z.string().optional(),
      interrupt: z.boolean().optional(),
    }).optional(),
    initialUserMessage: z.string().optional(),
    sessionTitle: z.string().optional(),
    watchPaths: z.array(z.string()).optional(),
    reloadSkills: z.boolean().optional(),
    suppressOriginalPrompt: z.boolean().optional(),
    retry: z.boolean().optional(),
    displayContent: z.string().optional(),
    action: z.enum(["accept", "decline", "cancel"]).optional(),
    content: record.optional(),
    classifierContext: z.string().optional(),
    worktreePath: z.string().optional(),
  }).optional(),
});

/** What Claude Code makes of a hook's stdout. */
type Reading =
  | { kind: "empty" }
  | { kind: "text"; text: string }
  | { kind: "answer"; json: HookJsonOutput }
  | { kind: "error"; message: string };

/**
 * The verdict of `result` for `event` in the Claude Code dialect. With
 * `codexCustom`, the reading of an event Codex does not list: the same,
 * except that only an exit-0 answer counts, as everywhere in Codex.
 */
export function claudeCodeVerdict(result: HookResult, event: string, codexCustom = false): HookVerdict {
  const verdict: HookVerdict = { continue: true, suppressOutput: false };
  const rules = codexCustom ? undefined : eventRules(event, "claude-code");
  // StopFailure: "Claude Code ignores the hook's output and exit code".
  if (rules?.ignoreOutput) return verdict;
  // A timeout, a signal, a failed start: the output is discarded, nothing is decided.
  if (result.exitCode === null) return verdict;

  const read = codexCustom && result.exitCode !== 0 ? { kind: "empty" as const } : readStdout(result.stdout);
  // A result built by hand (no JSON on stdout, but a `json`) is read from its `json`, as 1.0 read it.
  const reading = (read.kind === "empty" || read.kind === "text") && result.json !== undefined
    ? checkAnswer(result.json)
    : read;
  const blocking = result.outcome === "blocking";
  const answer = reading.kind === "answer" ? reading.json : undefined;
  if (answer !== undefined) applyAnswer(verdict, answer, event, rules);
  else if (reading.kind === "error" && !blocking) verdict.error = reading.message;
  else if (reading.kind === "text" && result.exitCode === 0 && rules?.stdoutIsContext) {
    verdict.additionalContext = reading.text;
  }

  if (blocking) {
    const effect = rules?.exit2 ?? "block";
    // "The blocking message is the reason from your JSON's blocking decision when it makes one,
    // and your stderr text otherwise"; an answer that fails validation leaves stderr.
    const reason = (answer === undefined ? undefined : blockingReason(answer)) ?? stderrReason(result);
    if (effect === "block") deny(verdict, reason);
    else if (effect === "feedback") verdict.feedback = reason;
  } else if (rules?.nonZeroBlocks && result.exitCode !== 0) {
    // WorktreeCreate and WorktreeRemove: any nonzero exit fails the action, whatever the JSON says.
    deny(verdict, stderrReason(result));
  }
  return verdict;
}

/**
 * Claude Code's reading of stdout (`Exit code 0`): `{…}` is JSON, which
 * must parse and pass the schema; two or more lines that each parse as JSON
 * are plain text unless one sets a field; everything else, a JSON array
 * included, is plain text.
 */
function readStdout(stdout: string): Reading {
  const text = stdout.trim();
  if (text === "") return { kind: "empty" };
  if (!text.startsWith("{") || !text.endsWith("}")) return { kind: "text", text };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    const lines = text.split("\n").map((line) => line.trim()).filter((line) => line !== "");
    const each = lines.length >= 2 ? lines.map(parseOrUndefined) : [];
    if (each.length > 0 && each.every((value) => value !== undefined)) {
      const setsAField = each.some((value) =>
        typeof value === "object" && value !== null &&
        Object.keys(ANSWER.shape).some((key) => Object.hasOwn(value, key))
      );
      if (!setsAField) return { kind: "text", text };
    }
    return { kind: "error", message: `hook output is not valid JSON (${(error as Error).message})` };
  }
  return checkAnswer(parsed);
}

/** A parsed answer against the output schema. */
function checkAnswer(parsed: unknown): Reading {
  const checked = ANSWER.safeParse(parsed);
  if (!checked.success) {
    const issue = checked.error.issues[0];
    const where = issue.path.length === 0 ? "the answer" : issue.path.join(".");
    return { kind: "error", message: `hook JSON output failed validation: ${where}: ${issue.message}` };
  }
  return { kind: "answer", json: checked.data as HookJsonOutput };
}

function parseOrUndefined(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}

/** The reason a valid answer gives with a blocking decision, if it makes one. */
function blockingReason(json: HookJsonOutput): string | undefined {
  const specific = json.hookSpecificOutput;
  const candidates = [
    json.decision === "block" ? json.reason : undefined,
    specific?.permissionDecision === "deny" ? specific.permissionDecisionReason : undefined,
    specific?.decision?.behavior === "deny" ? specific.decision.message : undefined,
  ];
  return candidates.find((text): text is string => typeof text === "string" && text.trim() !== "")?.trim();
}

/** Trimmed stderr, or what `runHook` says when there is none. */
function stderrReason(result: HookResult): string {
  const stderr = result.stderr.trim();
  if (stderr !== "") return stderr;
  return result.exitCode === 2 ? "exit code 2 (no message on stderr)" : `exit code ${result.exitCode}`;
}

/** A block: `deny` with `reason`, whatever the answer decided ("even a JSON allow can't override it"). */
function deny(verdict: HookVerdict, reason: string): void {
  verdict.permission = "deny";
  verdict.reason = reason;
  delete verdict.updatedInput;
}

/** The fields of a valid answer that `event` reads. */
function applyAnswer(verdict: HookVerdict, json: HookJsonOutput, event: string, rules: EventRules | undefined): void {
  const discards = rules?.discards;
  if (discards === "all") return;
  const forms = rules?.decisions ?? EVERY_FORM;
  // Event-scoped fields count only for the event they name.
  const specific = json.hookSpecificOutput?.hookEventName === event ? json.hookSpecificOutput : undefined;
  const request = specific?.decision;
  if (forms.has("permissionDecision") && specific?.permissionDecision !== undefined) {
    verdict.permission = specific.permissionDecision;
    // "For defer, ignored": the reason, updatedInput and additionalContext.
    if (specific.permissionDecision !== "defer" && specific.permissionDecisionReason !== undefined) {
      verdict.reason = specific.permissionDecisionReason;
    }
  } else if (forms.has("permissionRequest") && request?.behavior !== undefined) {
    verdict.permission = request.behavior;
    if (request.behavior === "deny" && request.message !== undefined) verdict.reason = request.message;
    if (request.behavior === "allow" && request.updatedInput !== undefined) verdict.updatedInput = request.updatedInput;
  } else if (json.decision === "block" && forms.has("block")) {
    verdict.permission = "deny";
    if (json.reason !== undefined) verdict.reason = json.reason;
  } else if (json.decision === "approve" && forms.has("approve")) {
    verdict.permission = "allow";
    if (json.reason !== undefined) verdict.reason = json.reason;
  }
  const deferred = verdict.permission === "defer";
  if (json.continue === false && !discards?.has("continue")) {
    verdict.continue = false;
    if (json.stopReason !== undefined) verdict.stopReason = json.stopReason;
  }
  if (!deferred && specific?.additionalContext !== undefined && rules?.dropsContext !== true) {
    verdict.additionalContext = specific.additionalContext;
  }
  if (!deferred && forms.has("permissionDecision") && specific?.updatedInput !== undefined) {
    verdict.updatedInput = specific.updatedInput;
  }
  if (json.systemMessage !== undefined && !discards?.has("systemMessage")) verdict.systemMessage = json.systemMessage;
  if (json.suppressOutput === true) verdict.suppressOutput = true;
}
