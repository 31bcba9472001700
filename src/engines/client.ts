/**
 * The local clients of the Docker and SSH engines (`docker exec`, `ssh`),
 * started through the runtime's adapter: each leads a session of its own
 * here, and `abandon()` SIGKILLs it only while it has not been seen to exit
 * (after that its pid may be someone else's).
 *
 * @module
 */

import type { ProcessAdapter, TerminalSize } from "../seam/adapter.ts";
import type { EngineChannel, EngineOutput, EngineProcess } from "../seam/engine.ts";
import { ShellEngineError } from "../seam/errors.ts";

/** A client to start: the program and its arguments, with exactly `env`. */
export interface ClientCommand {
  readonly program: string;
  readonly args: readonly string[];
  readonly env: Record<string, string>;
}

/** Who a client works for, for its error when it cannot start. */
export interface ClientOwner {
  readonly engine: string;
  readonly target: string;
  readonly adapter: ProcessAdapter;
}

/** Starts a client whose stdin stays open (the supervisor's). */
export function startChannel(owner: ClientOwner, command: ClientCommand, output: EngineOutput): EngineChannel {
  const spawnChannel = owner.adapter.spawnChannel;
  if (spawnChannel === undefined) {
    throw new ShellEngineError(owner.engine, owner.target, `the ${owner.adapter.name} adapter cannot start channels`);
  }
  const channel = attempt(
    owner,
    command,
    () => spawnChannel({ program: command.program, args: command.args, cwd: "/", env: command.env, ...output }),
  );
  let running = true;
  channel.exited.then(() => running = false);
  return {
    exited: channel.exited,
    drained: channel.drained,
    write: (bytes) => channel.write(bytes),
    end: () => channel.end(),
    abandon: () => {
      if (running) owner.adapter.signalGroup(channel.pid, "SIGKILL");
    },
  };
}

/**
 * How a client on a terminal starts: its terminal made raw and 0 × 0 first,
 * then the client in the same process.
 *
 * Raw: a client makes its terminal raw itself, but only once its session is
 * open (ssh's multiplexed client when its master says so), and under load
 * the engine's side can answer before that. Meanwhile the terminal was
 * cooked: the wrapper's first line, `<nonce> s <sid>\r\n`, came through as
 * `…\r\r\n` (`onlcr`), was not read as a start, and a command that ran and
 * exited 0 was reported as an engine error (seen in CI, on a command that
 * ended fast); the header typed after `dsh-ready` was echoed, and a Ctrl-C
 * typed then would have signalled the client here. Raw from the start, the
 * terminal passes every byte as it is, both ways, whenever the client gets
 * round to it.
 *
 * 0 × 0: a client reads its terminal's size and sends it to the engine's
 * side at its start and on each SIGWINCH (Docker's CLI at its start with a
 * request that can land late, after a later size set there, and only then
 * listens for SIGWINCH); with 0 × 0 both `docker` and `ssh` send none, so
 * the size of the engine's terminal is the wrapper's and the supervisor's
 * alone (`remote/command.ts`). Without `stty` the client starts all the
 * same, at the adapter's size, and makes its terminal raw when it does.
 */
const RAW_ZERO_SIZE_THEN_EXEC = 'stty raw -echo rows 0 cols 0 2>/dev/null; exec "$0" "$@"';

/**
 * Starts a client for one command: `stdin` is written to it and closed, or
 * kept open after it (`keepStdin`); with `terminal`, the client runs on a
 * local pseudo-terminal (its input kept open), which it finds raw and 0 × 0:
 * the size of the engine's terminal is not the client's to set.
 */
export function startProcess(
  owner: ClientOwner,
  command: ClientCommand,
  stdin: Uint8Array,
  output: EngineOutput,
  options: { readonly keepStdin?: boolean; readonly terminal?: TerminalSize } = {},
): EngineProcess {
  const onTerminal = options.terminal !== undefined;
  const child = attempt(
    owner,
    command,
    () =>
      owner.adapter.spawn({
        program: onTerminal ? "/bin/sh" : command.program,
        args: onTerminal ? ["-c", RAW_ZERO_SIZE_THEN_EXEC, command.program, ...command.args] : command.args,
        cwd: "/",
        env: command.env,
        stdin,
        keepStdin: options.keepStdin === true,
        terminal: options.terminal,
        ...output,
      }),
  );
  let running = true;
  child.exited.then(() => running = false);
  return {
    exited: child.exited,
    drained: child.drained,
    releaseOutput: () => child.releaseOutput(),
    input: child.input,
    abandon: () => {
      if (running) owner.adapter.signalGroup(child.pid, "SIGKILL");
    },
  };
}

function attempt<T>(owner: ClientOwner, command: ClientCommand, start: () => T): T {
  try {
    return start();
  } catch (error) {
    throw new ShellEngineError(
      owner.engine,
      owner.target,
      `cannot start its client "${command.program}": not found on PATH or not executable ` +
        `(PATH=${command.env.PATH ?? ""})`,
      { cause: error },
    );
  }
}

/** The first non-empty lines of a client's stderr, for a message. */
export function firstLines(text: string, lines = 2): string {
  return text.split("\n").map((line) => line.trim()).filter((line) => line !== "").slice(0, lines).join(" / ");
}

/** The harness's variables a client may read for its own configuration (never passed to a command). */
export function clientEnv(
  names: readonly string[],
  ambient: Record<string, string | undefined>,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of names) {
    const value = ambient[name];
    if (value !== undefined) env[name] = value;
  }
  env.PATH ??= "/usr/local/bin:/usr/bin:/bin";
  return env;
}
