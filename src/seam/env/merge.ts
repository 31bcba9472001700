/**
 * Builds a child process's environment from the ambient one, in the fixed
 * order scrub → {@linkcode ENV_OVERRIDES} → `env` → `dshEnv`, and explains
 * the result without revealing any value.
 *
 * @module
 */

import { isCredentialName, isCredentialValue } from "./credential.ts";
import { AmbientMemo } from "./ambient_memo.ts";
import { ownValue } from "../own_fields.ts";

/**
 * The prefix of the managed channel. Ambient entries with it (matched
 * case-insensitively) are always scrubbed; only `dshEnv` or an explicit
 * `env` entry can set one.
 *
 * @example
 * ```ts
 * import { DSH_ENV_PREFIX } from "@dsh/shell/seam";
 * import assert from "node:assert/strict";
 * assert.equal(`${DSH_ENV_PREFIX}SESSION`, "DSH_SESSION");
 * ```
 */
export const DSH_ENV_PREFIX = "DSH_" as const;

/**
 * Entries set on every child after the scrub, so commands run by an agent
 * never colour, page or prompt: `NO_COLOR=1`, `TERM=dumb`, `PAGER=cat`,
 * `GIT_PAGER=cat`, `GIT_TERMINAL_PROMPT=0`. An explicit `env` entry can
 * replace or remove one.
 *
 * @example
 * ```ts
 * import { ENV_OVERRIDES } from "@dsh/shell/seam";
 * import assert from "node:assert/strict";
 * assert.equal(ENV_OVERRIDES.GIT_PAGER, "cat");
 * ```
 */
export const ENV_OVERRIDES: Readonly<Record<string, string>> = Object.freeze({
  NO_COLOR: "1",
  TERM: "dumb",
  PAGER: "cat",
  GIT_PAGER: "cat",
  GIT_TERMINAL_PROMPT: "0",
});

/**
 * Where a final variable came from: the scrubbed ambient environment,
 * {@linkcode ENV_OVERRIDES}, the caller's `env`, or the managed `dshEnv`.
 *
 * @example
 * ```ts
 * import { type EnvSource, explainEnv } from "@dsh/shell/seam";
 * import assert from "node:assert/strict";
 * const { entries } = explainEnv({ ambient: { HOME: "/home/u", GIT_PAGER: "less" }, env: { LANG: "C" } });
 * const sources = new Map<string, EnvSource>(entries.map(({ name, source }) => [name, source]));
 * assert.equal(sources.get("HOME"), "ambient");
 * assert.equal(sources.get("GIT_PAGER"), "override"); // the ambient "less" is replaced
 * assert.equal(sources.get("LANG"), "env");
 * ```
 */
export type EnvSource = "ambient" | "override" | "env" | "dshEnv";

/**
 * Why a variable is missing from the final environment: its name or value
 * is credential-shaped, it is in the managed `DSH_*` channel, or `env`
 * removed it with `undefined`.
 *
 * @example
 * ```ts
 * import { type EnvDropReason, explainEnv } from "@dsh/shell/seam";
 * import assert from "node:assert/strict";
 * const { dropped } = explainEnv({
 *   ambient: { NPM_TOKEN: "x", DATABASE_URL: "postgres://app:hunter2@db/app", DSH_X: "1", EDITOR: "vim" },
 *   env: { EDITOR: undefined },
 * });
 * const reasons = new Map<string, EnvDropReason>(dropped.map(({ name, reason }) => [name, reason]));
 * assert.equal(reasons.get("NPM_TOKEN"), "credential-name");
 * assert.equal(reasons.get("DATABASE_URL"), "credential-value");
 * assert.equal(reasons.get("DSH_X"), "managed");
 * assert.equal(reasons.get("EDITOR"), "removed");
 * ```
 */
export type EnvDropReason =
  | "credential-name"
  | "credential-value"
  | "managed"
  | "removed";

/**
 * The layers of a child environment. None of them is modified, so
 * `process.env` can be passed as `ambient` directly.
 *
 * @example
 * ```ts
 * import { type EnvInput, mergeEnv } from "@dsh/shell/seam";
 * import assert from "node:assert/strict";
 * const input: EnvInput = {
 *   ambient: { PATH: "/usr/bin", EDITOR: "vim" },
 *   env: { EDITOR: undefined },
 *   dshEnv: { DSH_SESSION: "s1" },
 * };
 * const env = mergeEnv(input);
 * assert.equal(env.PATH, "/usr/bin");
 * assert.equal(env.DSH_SESSION, "s1");
 * assert.equal("EDITOR" in env, false);
 * assert.equal(input.ambient.EDITOR, "vim"); // the input is not modified
 * ```
 */
export interface EnvInput {
  /** The environment the scrub starts from; `undefined` values are absent. */
  ambient: Readonly<Record<string, string | undefined>>;
  /** Explicit entries merged after the scrub; `undefined` removes one. */
  env?: Readonly<Record<string, string | undefined>>;
  /**
   * The managed channel, merged last. Names are not checked here (that is
   * `resolve()`'s job); an `undefined` value slipped past the types is
   * ignored rather than set as the string `"undefined"`.
   */
  dshEnv?: Readonly<Record<string, string>>;
}

/**
 * What {@linkcode explainEnv} reports: names with their provenance, never a
 * value. Both lists are sorted by name (UTF-16 code-unit order), and a name
 * appears at most once across the two.
 *
 * @example
 * ```ts
 * import { type EnvExplanation, explainEnv } from "@dsh/shell/seam";
 * import assert from "node:assert/strict";
 * const report: EnvExplanation = explainEnv({ ambient: { NPM_TOKEN: "npm_secret" } });
 * assert.deepEqual(report.dropped, [{ name: "NPM_TOKEN", reason: "credential-name" }]);
 * assert.equal(JSON.stringify(report).includes("npm_secret"), false); // names only: safe to log
 * ```
 */
export interface EnvExplanation {
  /** Every variable of the final environment and the layer that set it. */
  entries: { name: string; source: EnvSource }[];
  /** Every variable left out of the final environment, and why. */
  dropped: { name: string; reason: EnvDropReason }[];
}

/*
 * The one implementation of the merge. Maps (not objects) so that names
 * such as `__proto__` or `constructor` are ordinary keys. Invariant: a name
 * is in at most one of `kept` and `dropped`; a later layer that sets a name
 * takes it out of `dropped`, which is what makes the explanation describe
 * the final environment rather than the history.
 */
interface EnvPlan {
  kept: Map<string, { value: string; source: EnvSource }>;
  dropped: Map<string, EnvDropReason>;
}

const MANAGED_NAME = new RegExp(`^${DSH_ENV_PREFIX}`, "i");

function scrubReason(name: string, value: string): EnvDropReason | undefined {
  // Managed first: `DSH_TOKEN` is dropped because it is ours, whatever else.
  if (MANAGED_NAME.test(name)) return "managed";
  if (isCredentialName(name)) return "credential-name";
  if (isCredentialValue(value)) return "credential-value";
  return undefined;
}

function set(
  plan: EnvPlan,
  name: string,
  value: string,
  source: EnvSource,
): void {
  plan.kept.set(name, { value, source });
  plan.dropped.delete(name);
}

/** Step 1: the ambient entries (names and their values, in order) with the scrub's verdict on each. */
function scrubbed(names: readonly string[], values: readonly (string | undefined)[]): EnvPlan {
  const plan: EnvPlan = { kept: new Map(), dropped: new Map() };
  for (let i = 0; i < names.length; i++) {
    const name = names[i];
    const value = values[i];
    // An undefined ambient value is an absent variable, not a dropped one.
    if (value === undefined) continue;
    const reason = scrubReason(name, value);
    if (reason === undefined) set(plan, name, value, "ambient");
    else plan.dropped.set(name, reason);
  }
  return plan;
}

/** Step 1 of `ambient`, read the way `Object.entries` reads it. */
function scrubbedEntries(ambient: EnvInput["ambient"]): EnvPlan {
  const names = Object.keys(ambient);
  return scrubbed(names, names.map((name) => ambient[name]));
}

/** Step 2, on `plan` itself. */
function withOverrides(plan: EnvPlan): EnvPlan {
  for (const [name, value] of Object.entries(ENV_OVERRIDES)) {
    set(plan, name, value, "override");
  }
  return plan;
}

/** Steps 3 and 4, on `plan` itself. */
function withLayers(plan: EnvPlan, input: EnvInput): EnvPlan {
  for (const [name, value] of Object.entries(ownValue(input, "env") ?? {})) {
    if (value !== undefined) set(plan, name, value, "env");
    // Removing a name the scrub already dropped keeps the scrub's reason:
    // that is why it is missing, and the removal changed nothing.
    else if (plan.kept.delete(name)) plan.dropped.set(name, "removed");
  }
  for (const [name, value] of Object.entries(ownValue(input, "dshEnv") ?? {})) {
    if (value !== undefined) set(plan, name, value, "dshEnv");
  }
  return plan;
}

function planEnv(input: EnvInput): EnvPlan {
  return withLayers(withOverrides(scrubbedEntries(ownValue(input, "ambient") as EnvInput["ambient"])), input);
}

function byName(a: [string, unknown], b: [string, unknown]): number {
  return a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0;
}

function toObject(plan: EnvPlan): Record<string, string> {
  // fromEntries defines own data properties, so `__proto__` stays a key.
  return Object.fromEntries(
    [...plan.kept].sort(byName).map(([name, { value }]) => [name, value]),
  );
}

/**
 * Drops from an ambient environment every credential-shaped entry (by name
 * or by value, see {@linkcode isCredentialName} and
 * {@linkcode isCredentialValue}), every `DSH_*` entry (prefix matched
 * case-insensitively) and every `undefined` value. This is step 1 of
 * {@linkcode mergeEnv} alone; the input is not modified.
 *
 * @param ambient The environment to scrub, e.g. `process.env`.
 * @returns A new object with the surviving entries, sorted by name.
 *
 * @example
 * ```ts
 * import { scrubEnv } from "@dsh/shell/seam";
 * import assert from "node:assert/strict";
 * assert.deepEqual(scrubEnv({ PATH: "/usr/bin", NPM_TOKEN: "x", dsh_x: "1" }), { PATH: "/usr/bin" });
 * ```
 */
export function scrubEnv(
  ambient: Readonly<Record<string, string | undefined>>,
): Record<string, string> {
  return toObject(scrubbedEntries(ambient));
}

/**
 * Builds a child environment in exactly this order:
 *
 * 1. {@linkcode scrubEnv} of `ambient`;
 * 2. {@linkcode ENV_OVERRIDES};
 * 3. `env`: wins even on a credential-shaped or `DSH_*` name; `undefined`
 *    removes the entry;
 * 4. `dshEnv`, last, so an ordinary entry never displaces a managed value.
 *
 * No input is modified.
 *
 * @param input The ambient environment and the caller's layers.
 * @returns A new object holding the complete child environment, sorted by name.
 *
 * @example
 * ```ts
 * import { mergeEnv } from "@dsh/shell/seam";
 * import assert from "node:assert/strict";
 * const env = mergeEnv({
 *   ambient: { PATH: "/usr/bin", GITHUB_TOKEN: "x", TERM: "xterm" },
 *   env: { PAGER: undefined },
 *   dshEnv: { DSH_SESSION: "s1" },
 * });
 * assert.deepEqual(env, {
 *   DSH_SESSION: "s1",
 *   GIT_PAGER: "cat",
 *   GIT_TERMINAL_PROMPT: "0",
 *   NO_COLOR: "1",
 *   PATH: "/usr/bin",
 *   TERM: "dumb",
 * });
 * ```
 */
export function mergeEnv(input: EnvInput): Record<string, string> {
  return toObject(planEnv(input));
}

/**
 * Steps 1 and 2 for one ambient environment, as the memo keeps them. Never
 * changed once built: the plan is copied before `env` and `dshEnv` go on it.
 */
interface ScrubbedAmbient {
  /** The scrubbed ambient entries with the overrides on them. */
  readonly plan: EnvPlan;
  /** The child environment when there is no `env` and no `dshEnv`: the plan as a sorted object. */
  readonly bare: Readonly<Record<string, string>>;
}

/** The scrub of each ambient environment as last read: the host process's (`host.ts`), used by every spawn. */
export type ScrubMemo = AmbientMemo<ScrubbedAmbient>;

/** A new, empty {@linkcode ScrubMemo}. Internal: not exported from the package. */
export function newScrubMemo(): ScrubMemo {
  return new AmbientMemo((names, values): ScrubbedAmbient => {
    const plan = withOverrides(scrubbed(names, values));
    return { plan, bare: toObject(plan) };
  });
}

/**
 * {@linkcode mergeEnv} with the scrub of the ambient environment
 * remembered: what every spawn uses, with the host process's memo
 * (`host.ts`). The ambient environment is still read in full each time,
 * and the scrub runs again whenever any of it changed. Returns a new
 * object each time (the caller may change it). `source` is what the scrub
 * is remembered under when `input.ambient` is a new copy at each read
 * (see `env/ambient_source.ts`). Internal: not exported from the package.
 */
export function mergeEnvWith(input: EnvInput, memo: ScrubMemo, source?: object): Record<string, string> {
  const ambient = ownValue(input, "ambient") as EnvInput["ambient"];
  const { plan, bare } = memo.get(ambient, source ?? ambient);
  if (ownValue(input, "env") === undefined && ownValue(input, "dshEnv") === undefined) return { ...bare };
  return toObject(withLayers({ kept: new Map(plan.kept), dropped: new Map(plan.dropped) }, input));
}

/**
 * Explains {@linkcode mergeEnv} for debugging: each final variable with the
 * layer that set it, and each variable left out with the reason. It holds
 * names only, never a value, so it is safe to log.
 *
 * Each name appears at most once across `entries` and `dropped`, and the
 * report describes the final environment:
 *
 * - a name set by a later layer shows only that layer as its source, even
 *   when an earlier layer's entry was scrubbed (an ambient `DSH_FOO`
 *   replaced by `dshEnv` is an entry with source `dshEnv`, not `managed`);
 * - an override replaced by `env` has source `env`;
 * - `removed` means `env` removed an entry that ambient (after the scrub)
 *   or the overrides had set; removing a name that was scrubbed keeps the
 *   scrub's reason, and removing a name that never existed reports nothing;
 * - an ambient entry whose value is `undefined` is absent, not dropped;
 * - a `DSH_*` ambient name reports `managed` even when it is also
 *   credential-shaped; otherwise a credential name is reported before a
 *   credential value.
 *
 * @param input The same input as {@linkcode mergeEnv}.
 * @returns A plain, JSON-serialisable report, sorted by name.
 *
 * @example
 * ```ts
 * import { explainEnv } from "@dsh/shell/seam";
 * import assert from "node:assert/strict";
 * const report = explainEnv({ ambient: { HOME: "/home/u", NPM_TOKEN: "x" } });
 * assert.ok(report.entries.some((entry) => entry.name === "HOME" && entry.source === "ambient"));
 * assert.deepEqual(report.dropped, [{ name: "NPM_TOKEN", reason: "credential-name" }]);
 * ```
 */
export function explainEnv(input: EnvInput): EnvExplanation {
  const plan = planEnv(input);
  return {
    entries: [...plan.kept].sort(byName).map(([name, { source }]) => ({
      name,
      source,
    })),
    dropped: [...plan.dropped].sort(byName).map(([name, reason]) => ({
      name,
      reason,
    })),
  };
}
