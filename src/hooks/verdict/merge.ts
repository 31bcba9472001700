/**
 * Merging the verdicts of one event's hooks into one decision.
 *
 * @module
 */

import type { HookPermission } from "../run/types.ts";
import type { HookDialect } from "../settings/types.ts";
import type { HookDispatchResult, HookVerdict } from "./types.ts";

/** The strength of each permission: the strongest one wins. */
const RANK: Readonly<Record<HookPermission, number>> = { allow: 1, ask: 2, defer: 3, deny: 4 };

/** The merged decision of an event: everything of the dispatch result that comes from the verdicts. */
export type MergedVerdicts = Pick<
  HookDispatchResult,
  "permission" | "reasons" | "blocked" | "stop" | "toolOutput" | "additionalContext" | "systemMessages" | "feedback"
>;

/**
 * Merges `verdicts`, given in configuration order:
 *
 * - permission: `deny` > `defer` > `ask` > `allow`; only the reasons given with the
 *   winning permission are kept, in order (empty reasons are left out), except
 *   for a deny: the one reason the harness's model sees (see `denyReason`);
 * - the first `continue: false` stops, with its `stopReason`; the first
 *   `toolOutput` (Codex `PostToolUse`) replaces the tool's output;
 * - every `additionalContext`, `systemMessage` and `feedback`, in order (empty ones left out);
 *   Claude Code's contexts in the order the hooks finished (`finished`: indexes into `verdicts`).
 */
export function mergeVerdicts(
  verdicts: readonly HookVerdict[],
  dialects: readonly HookDialect[],
  finished: readonly number[] = verdicts.map((_, index) => index),
): MergedVerdicts {
  let permission: HookPermission | undefined;
  for (const verdict of verdicts) {
    if (verdict.permission !== undefined && (permission === undefined || RANK[verdict.permission] > RANK[permission])) {
      permission = verdict.permission;
    }
  }
  const given = verdicts
    .filter((verdict) => permission !== undefined && verdict.permission === permission)
    .map((verdict) => verdict.reason)
    .filter(nonEmpty);
  const reasons = permission === "deny" ? denyReason(verdicts, dialects, finished) : given;
  const stopper = verdicts.find((verdict) => !verdict.continue);
  const merged: MergedVerdicts = {
    reasons,
    blocked: permission === "deny",
    additionalContext: contextOrder(verdicts, dialects, finished).map((verdict) => verdict.additionalContext)
      .filter(nonEmpty),
    systemMessages: verdicts.map((verdict) => verdict.systemMessage).filter(nonEmpty),
    feedback: verdicts.map((verdict) => verdict.feedback).filter(nonEmpty),
  };
  if (permission !== undefined) merged.permission = permission;
  if (stopper !== undefined) merged.stop = stopper.stopReason === undefined ? {} : { reason: stopper.stopReason };
  const replacer = verdicts.find((verdict) => verdict.toolOutput !== undefined);
  if (replacer?.toolOutput !== undefined) merged.toolOutput = replacer.toolOutput;
  return merged;
}

/**
 * The verdicts in the order their contexts reach the model: Claude Code
 * 2.1.328 joins them in the order the hooks finished (measured), Codex in
 * configuration order. Mixed settings follow Claude Code's order.
 */
function contextOrder(
  verdicts: readonly HookVerdict[],
  dialects: readonly HookDialect[],
  finished: readonly number[],
): readonly HookVerdict[] {
  if (dialects.every((dialect) => dialect === "codex") || finished.length !== verdicts.length) return verdicts;
  return finished.map((index) => verdicts[index]);
}

/**
 * The reason the model sees when hooks deny, as measured: one reason in
 * both. Codex 0.169.0 shows the first deny in configuration order; Claude
 * Code 2.1.328 the deny that finished last (each deny it reads replaces the
 * one before, whatever its kind: exit 2's stderr or a JSON reason).
 * `finished` holds the hooks' indexes in the order they ended. Every hook's
 * reason stays in its own verdict.
 */
function denyReason(
  verdicts: readonly HookVerdict[],
  dialects: readonly HookDialect[],
  finished: readonly number[],
): string[] {
  const denies = verdicts.flatMap((verdict, index) =>
    verdict.permission === "deny" && nonEmpty(verdict.reason) ? [{ reason: verdict.reason, index }] : []
  );
  if (denies.length === 0) return [];
  if (dialects[denies[0].index] === "codex") return [denies[0].reason];
  const last = denies.reduce((latest, deny) =>
    finished.indexOf(deny.index) > finished.indexOf(latest.index) ? deny : latest
  );
  return [last.reason];
}

function nonEmpty(text: string | undefined): text is string {
  return text !== undefined && text.trim() !== "";
}
