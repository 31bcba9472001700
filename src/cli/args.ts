/**
 * A small argument parser for the CLI: flags with values, repeatable
 * flags, boolean switches and `--` before the command. No dependency, and
 * every mistake is a {@linkcode UsageError} that names the flag.
 *
 * @module
 */

import { ShellError } from "../seam/errors.ts";

/** A mistake in how the CLI was called: reported as one line, exit code 64. */
export class UsageError extends ShellError {
  /** The code of this class in the library's error family. */
  readonly code = "ERR_CLI_USAGE" as const;
  /**
   * Creates the error.
   *
   * @param message What is wrong, naming the flag or argument.
   */
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

/** What a subcommand accepts. */
export interface FlagSpec {
  /** Flags that take a value, given once (`--timeout 5000` or `--timeout=5000`). */
  values?: readonly string[];
  /** Flags that take a value and may be repeated (`--env A=1 --env B=2`). */
  lists?: readonly string[];
  /** Flags without a value (`--json`). */
  switches?: readonly string[];
}

/** The parsed arguments of one subcommand. */
export interface ParsedArgs {
  /** Values of single-value flags, by flag name without dashes. */
  values: Map<string, string>;
  /** Values of repeatable flags, in order. */
  lists: Map<string, string[]>;
  /** Switches that were given. */
  switches: Set<string>;
  /** Arguments that are not flags, before `--`. */
  positionals: string[];
  /** Everything after `--`, or undefined when there was no `--`. */
  rest: string[] | undefined;
}

/** Parses `args` against `spec`; throws {@linkcode UsageError} on an unknown flag or a missing value. */
export function parseArgs(args: readonly string[], spec: FlagSpec): ParsedArgs {
  const parsed: ParsedArgs = {
    values: new Map(),
    lists: new Map(),
    switches: new Set(),
    positionals: [],
    rest: undefined,
  };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--") {
      parsed.rest = args.slice(i + 1);
      break;
    }
    if (arg.startsWith("-") && !arg.startsWith("--") && arg !== "-") {
      if (arg === "-h" && spec.switches?.includes("help")) {
        parsed.switches.add("help");
        continue;
      }
      throw new UsageError(shortOption(arg, spec));
    }
    if (!arg.startsWith("--") || arg === "-") {
      parsed.positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf("=");
    const name = arg.slice(2, eq === -1 ? undefined : eq);
    const inline = eq === -1 ? undefined : arg.slice(eq + 1);
    if (spec.switches?.includes(name)) {
      if (inline !== undefined) throw new UsageError(`--${name} takes no value`);
      parsed.switches.add(name);
      continue;
    }
    const isList = spec.lists?.includes(name) ?? false;
    if (!isList && !spec.values?.includes(name)) throw new UsageError(`unknown option --${name}`);
    let value = inline;
    if (value === undefined) {
      // `--timeout -- ls` lacks the value: "--", or another of the command's flags, is not one.
      const next = args[i + 1];
      if (next === undefined || next === "--" || isFlagOf(next, spec)) {
        throw new UsageError(`--${name} needs a value${next === undefined ? "" : ` before ${next}`}`);
      }
      value = next;
      i++;
    }
    if (isList) parsed.lists.set(name, [...parsed.lists.get(name) ?? [], value]);
    else if (parsed.values.has(name)) throw new UsageError(`--${name} was given twice`);
    else parsed.values.set(name, value);
  }
  return parsed;
}

/** Whether `arg` is one of the flags `spec` knows (`--json`, `--env=A=1`). */
function isFlagOf(arg: string, spec: FlagSpec): boolean {
  if (!arg.startsWith("--")) return false;
  const eq = arg.indexOf("=");
  const name = arg.slice(2, eq === -1 ? undefined : eq);
  return [...spec.values ?? [], ...spec.lists ?? [], ...spec.switches ?? []].includes(name);
}

/** The mistake of a one-dash option (`-t`): the options are long; the ones it may have meant. */
function shortOption(arg: string, spec: FlagSpec): string {
  const letter = arg.slice(1, 2);
  const meant = [...spec.values ?? [], ...spec.lists ?? [], ...spec.switches ?? []]
    .filter((name) => name.startsWith(letter))
    .map((name) => `--${name}`);
  const hint = meant.length === 0 ? "see --help" : `did you mean ${meant.join(" or ")}?`;
  return `unknown option ${arg}: the options are long ones (--name); ${hint}`;
}

/** Turns `--env K=V` values into an env record; `K=` sets an empty value. */
export function parseEnvFlags(values: readonly string[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const entry of values) {
    const eq = entry.indexOf("=");
    if (eq <= 0) throw new UsageError(`--env needs NAME=VALUE, got ${JSON.stringify(entry)}`);
    Object.defineProperty(env, entry.slice(0, eq), {
      value: entry.slice(eq + 1),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return env;
}

/** Parses a positive number of milliseconds given to `flag`. */
export function parseMs(value: string, flag: string): number {
  const ms = Number(value);
  if (value.trim() === "" || !Number.isFinite(ms) || ms <= 0) {
    throw new UsageError(`${flag} needs a positive number of milliseconds, got ${JSON.stringify(value)}`);
  }
  return ms;
}
