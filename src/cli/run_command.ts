/**
 * `dsh-shell run`: one command through the library, its output printed and
 * its exit status passed through.
 *
 * @module
 */

import process from "node:process";
import { createLocalShell } from "../local_shell.ts";
import { parseArgs, parseEnvFlags, parseMs, UsageError } from "./args.ts";
import { runExitCode } from "./exit_codes.ts";
import { RUN_HELP } from "./help.ts";
import { type CliOutput, readInput } from "./io.ts";

/** Runs `dsh-shell run` with `args` (after the subcommand); resolves with the exit code. */
export async function runCommand(args: readonly string[], output: CliOutput): Promise<number> {
  const parsed = parseArgs(args, {
    values: ["stdin", "timeout", "workdir"],
    lists: ["env"],
    switches: ["json", "help"],
  });
  if (parsed.switches.has("help")) {
    output.out(RUN_HELP);
    return 0;
  }
  if (parsed.positionals.length > 0) {
    throw new UsageError(`unexpected argument ${JSON.stringify(parsed.positionals[0])}: put the command after --`);
  }
  if (parsed.rest === undefined || parsed.rest.join("").trim() === "") {
    throw new UsageError("missing the command: dsh-shell run [options] -- COMMAND");
  }
  const stdinSource = parsed.values.get("stdin");
  const timeout = parsed.values.get("timeout");
  const workdir = parsed.values.get("workdir");
  const request = {
    command: parsed.rest.join(" "),
    owner: null,
    env: parseEnvFlags(parsed.lists.get("env") ?? []),
    ...(timeout === undefined ? {} : { timeoutMs: parseMs(timeout, "--timeout") }),
    ...(workdir === undefined ? {} : { workdir }),
    ...(stdinSource === undefined ? {} : { stdin: await readInput(stdinSource, "--stdin") }),
  };
  await using shell = createLocalShell();
  // Ctrl-C reaches this process, not the command's own process group: pass it on as an abort.
  const interrupt = new AbortController();
  const onSignal = (): void => interrupt.abort();
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  try {
    const result = await shell.run(shell.resolve({ ...request, signal: interrupt.signal }));
    if (parsed.switches.has("json")) output.out(`${JSON.stringify(result, null, 2)}\n`);
    else {
      output.out(result.stdout.text);
      output.err(result.stderr.text);
    }
    return result.aborted ? 130 : runExitCode(result);
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}
