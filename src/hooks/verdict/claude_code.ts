/**
 * What one hook's result decides for one event, as Claude Code reads it:
 * the JSON answer on every exit code (fields of a wrong type were already
 * dropped one by one), exit 2 per event, plain stdout as context on the
 * events that take it. Also the reading of custom events, in both dialects.
 *
 * @module
 */

import { type DecisionForm, eventRules } from "../events.ts";
import type { HookJsonOutput, HookResult, HookVerdict } from "../types.ts";

/** Custom events read every decision form, as 1.0 did. */
const EVERY_FORM: ReadonlySet<DecisionForm> = new Set(["permissionDecision", "permissionRequest", "block", "approve"]);

/** The verdict of `result` for `event` in the Claude Code dialect (and for custom events in either). */
export function claudeCodeVerdict(result: HookResult, event: string, known = true): HookVerdict {
  const verdict: HookVerdict = { continue: true, suppressOutput: false };
  const rules = known ? eventRules(event, "claude-code") : undefined;
  // StopFailure: "Output and exit code are ignored".
  if (rules?.ignoreOutput) return verdict;

  if (result.json !== undefined) {
    applyAnswer(verdict, result.json, event, rules?.decisions ?? EVERY_FORM);
  } else if (result.outcome === "success" && rules?.stdoutIsContext) {
    const text = result.stdout.trim();
    if (text !== "") verdict.additionalContext = text;
  }

  if (result.outcome === "blocking") {
    const effect = rules?.exit2 ?? "block";
    if (effect === "block") deny(verdict, result.reason);
    else if (effect === "feedback" && result.reason !== undefined) verdict.feedback = result.reason;
  } else if (rules?.nonZeroBlocks && result.exitCode !== null && result.exitCode !== 0) {
    // WorktreeCreate: "Any non-zero exit code causes worktree creation to fail".
    deny(verdict, result.reason);
  }
  return verdict;
}

/** A block: `deny`, with the hook's reason replacing any the answer gave. */
function deny(verdict: HookVerdict, reason: string | undefined): void {
  verdict.permission = "deny";
  if (reason !== undefined) verdict.reason = reason;
  else delete verdict.reason;
  delete verdict.updatedInput;
}

/** The fields of a JSON answer that `event` reads. */
function applyAnswer(
  verdict: HookVerdict,
  json: HookJsonOutput,
  event: string,
  forms: ReadonlySet<DecisionForm>,
): void {
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
  if (json.continue === false) {
    verdict.continue = false;
    if (json.stopReason !== undefined) verdict.stopReason = json.stopReason;
  }
  if (!deferred && specific?.additionalContext !== undefined) verdict.additionalContext = specific.additionalContext;
  if (!deferred && forms.has("permissionDecision") && specific?.updatedInput !== undefined) {
    verdict.updatedInput = specific.updatedInput;
  }
  if (json.systemMessage !== undefined) verdict.systemMessage = json.systemMessage;
  if (json.suppressOutput === true) verdict.suppressOutput = true;
}
