/**
 * `dsh-shell run`: one command through the library, its output printed and
 * its exit status passed through.
 *
 * @module
 */

import process from "node:process";
import { createLocalShell } from "../local_shell.ts";
import type { ShellObserver, ShellRunResult } from "../seam/types.ts";
import { parseArgs, parseEnvFlags, parseMs, UsageError } from "./args.ts";
import { runExitCode } from "./exit_codes.ts";
import { RUN_HELP } from "./help.ts";
import { type CliOutput, readInput } from "./io.ts";

/** Runs `dsh-shell run` with `args` (after the subcommand); resolves with the exit code. */
export async function runCommand(args: readonly string[], output: CliOutput): Promise<number> {
  const parsed = parseArgs(args, {
    values: ["stdin", "timeout", "workdir"],
    lists: ["env"],
    switches: ["json", "help", "no-spill"],
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
  const json = parsed.switches.has("json");
  // Printed live, the whole output reaches the terminal: no spill file to keep. With --json the result keeps head and
  // tail, and the complete stream in a spill file unless --no-spill.
  await using shell = createLocalShell(!json || parsed.switches.has("no-spill") ? { maxSpillBytes: 0 } : {});
  // Ctrl-C reaches this process, not the command's own process group: pass it on as an abort.
  const interrupt = new AbortController();
  const onSignal = (): void => interrupt.abort();
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  // Printed as it arrives, as a shell would: all of it, whatever the library keeps of it for the result.
  const live = json ? undefined : new LiveOutput(output);
  try {
    const result = await shell.run(shell.resolve({ ...request, signal: interrupt.signal }), live);
    if (live === undefined) output.out(`${JSON.stringify(result, null, 2)}\n`);
    else {
      live.flush();
      const note = endNote(result);
      if (note !== undefined) output.err(`dsh-shell run: ${note}\n`);
    }
    return result.aborted ? 130 : runExitCode(result);
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}

/**
 * The command's output passed on as it arrives: each stream decoded on its
 * own, a character split across two chunks kept until its end comes.
 */
class LiveOutput implements ShellObserver {
  readonly #output: CliOutput;
  readonly #stdout = new TextDecoder();
  readonly #stderr = new TextDecoder();

  constructor(output: CliOutput) {
    this.#output = output;
  }

  onStdout(chunk: Uint8Array): void {
    this.#output.out(this.#stdout.decode(chunk, { stream: true }));
  }

  onStderr(chunk: Uint8Array): void {
    this.#output.err(this.#stderr.decode(chunk, { stream: true }));
  }

  /** Writes what a stream's last chunk left undecoded (an incomplete character, as U+FFFD). */
  flush(): void {
    const out = this.#stdout.decode();
    const err = this.#stderr.decode();
    if (out !== "") this.#output.out(out);
    if (err !== "") this.#output.err(err);
  }
}

/**
 * What ended the command when it did not end by itself, for stderr: the
 * exit code alone (124, 130, 128+n) would leave a user guessing.
 */
function endNote(result: ShellRunResult): string | undefined {
  if (result.timedOut) {
    return `timed out after ${result.timeoutMs}ms; the command's whole process group was killed (exit 124)`;
  }
  if (result.aborted) return "interrupted; the command's whole process group was killed";
  if (result.signal !== null) return `the command was killed by ${result.signal}`;
  return undefined;
}
