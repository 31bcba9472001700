/**
 * `dsh-shell env`: the `explainEnv` table for this process's environment.
 *
 * @module
 */

import process from "node:process";
import { explainEnv } from "../seam/mod.ts";
import { parseArgs, parseEnvFlags, UsageError } from "./args.ts";
import { ENV_HELP } from "./help.ts";
import type { CliOutput } from "./io.ts";

/** Runs `dsh-shell env` with `args`; resolves with the exit code. */
export function envCommand(args: readonly string[], output: CliOutput): Promise<number> {
  const parsed = parseArgs(args, { lists: ["env"], switches: ["json", "help"] });
  if (parsed.switches.has("help")) {
    output.out(ENV_HELP);
    return Promise.resolve(0);
  }
  if (parsed.positionals.length > 0 || parsed.rest !== undefined) {
    throw new UsageError(`unexpected argument ${JSON.stringify(parsed.positionals[0] ?? "--")}`);
  }
  const explanation = explainEnv({ ambient: process.env, env: parseEnvFlags(parsed.lists.get("env") ?? []) });
  if (parsed.switches.has("json")) {
    output.out(`${JSON.stringify(explanation, null, 2)}\n`);
    return Promise.resolve(0);
  }
  const width = Math.max(4, ...[...explanation.entries, ...explanation.dropped].map((e) => e.name.length)) + 2;
  output.out(`${"NAME".padEnd(width)}SOURCE\n`);
  for (const { name, source } of explanation.entries) output.out(`${name.padEnd(width)}${source}\n`);
  if (explanation.dropped.length > 0) {
    output.out(`\n${"DROPPED".padEnd(width)}REASON\n`);
    for (const { name, reason } of explanation.dropped) output.out(`${name.padEnd(width)}${reason}\n`);
  }
  return Promise.resolve(0);
}
