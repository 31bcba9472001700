/**
 * One start of a command's wrapper on the engine (a command may make more
 * than one: `busy_retry.ts`): the request the wrappers made (`../wrapper.ts`)
 * sent in the header (`header.ts`) through the engine's link, the command's
 * stdin after it (on a terminal, once the engine's terminal is raw:
 * `input.ts`), and the wrapper's first line read (`frames.ts`). What the
 * command makes of the answer is `command.ts`'s.
 *
 * @module
 */

import type { ChildExit, SpawnRequest, TerminalSize } from "../adapter.ts";
import { concatBytes } from "../capture/bytes.ts";
import type { EngineFailure, EngineProcess } from "../engine.ts";
import { drainAfterExit } from "../settle/drain.ts";
import { type FrameListener, WrapperFrames } from "./frames.ts";
import { commandHeader } from "./header.ts";
import { ReadyLine } from "./input.ts";
import { TERMINAL_WRAPPER_ARGV, WRAPPER_ARGV } from "./scripts.ts";
import type { Supervisor } from "./supervisor.ts";

/** What one start sends, besides the request itself. */
export interface AttemptOptions {
  /** The mark the supervisor must follow (the terminal's). */
  readonly mark: string | undefined;
  /** On a terminal, the size its header carries; undefined on pipes. */
  readonly size: TerminalSize | undefined;
  /** A session's command: the wrapper opens fd 9 on its state file. */
  readonly state: boolean;
  /** Its stdin stays open after the request's own bytes (`keepStdin`, a terminal). */
  readonly keepStdin: boolean;
  /** How long the wrapper drains its output copies, and the client's drain is waited for, after an exit. */
  readonly graceMs: number;
}

/** One wrapper started on the engine. */
export class WrapperAttempt {
  /** Its client here. */
  readonly process: EngineProcess;
  /** The environment it was sent (the command's), which a session's state is read against. */
  readonly env: Readonly<Record<string, string>>;
  /** The terminal's size its header carries (the wrapper sets it before the command runs). */
  readonly size: TerminalSize | undefined;
  /** Its client's end: exited, and drained within `graceMs`. */
  readonly drained: Promise<boolean>;
  /** Settles once the wrapper has said which session it is or why it refused, or its client has ended without. */
  readonly answered: Promise<void>;
  /** How its client exited, once it has. */
  exit: ChildExit | undefined;
  readonly #frames: WrapperFrames;

  /**
   * Starts the wrapper. Throws the link's `ShellEngineError` when its client
   * cannot be started.
   *
   * @param request What the wrappers made of the command's request: a command line is `<shell> -c <line>`.
   * @param commandLine Whether it is a command line (else the argv form).
   */
  constructor(
    supervisor: Supervisor,
    request: SpawnRequest,
    commandLine: boolean,
    options: AttemptOptions,
    listener: Pick<FrameListener, "started" | "refused">,
  ) {
    const { size } = options;
    this.env = request.env;
    this.size = size;
    const header = commandHeader({
      env: request.env,
      mark: options.mark,
      ...(size === undefined ? {} : { size }),
      state: options.state,
      workdir: request.cwd,
      recordDir: supervisor.recordDir,
      stdin: request.stdin !== undefined || options.keepStdin,
      graceMs: options.graceMs,
      run: commandLine
        ? { shell: request.program, command: request.args[1] }
        : { argv: [request.program, ...request.args] },
    });
    let answer = (): void => {};
    const answered = new Promise<void>((resolve) => answer = resolve);
    const frames = new WrapperFrames(header.nonce, {
      started: (sid) => {
        listener.started(sid);
        answer();
      },
      refused: (reason) => {
        listener.refused(reason);
        answer();
      },
      // On a terminal everything after the first line is the command's, and it is all stdout.
      stderr: size === undefined ? request.onStderr : request.onStdout,
    });
    this.#frames = frames;
    let process: EngineProcess;
    if (size === undefined) {
      const bytes = request.stdin;
      process = supervisor.link.run(
        WRAPPER_ARGV,
        bytes === undefined ? header.bytes : concatBytes([header.bytes, bytes]),
        {
          onStdout: request.onStdout,
          onStderr: (chunk) => frames.push(chunk),
        },
        options.keepStdin ? { keepStdin: true } : undefined,
      );
    } else {
      // The header is typed into the engine's terminal only once the wrapper has made it raw and said so: before
      // that, the terminal would echo it and act on its control characters. The request's stdin is the command's
      // input queue's (`command.ts`), typed once the command has started.
      const ready = new ReadyLine(() => void process.input?.write(header.bytes));
      process = supervisor.link.run(TERMINAL_WRAPPER_ARGV, new Uint8Array(0), {
        onStdout: (chunk) => {
          ready.push(chunk);
          frames.push(chunk);
        },
        // The local client runs on a terminal of its own: nothing comes apart.
        onStderr: (chunk) => frames.push(chunk),
      }, { keepStdin: true, terminal: size });
    }
    this.process = process;
    process.exited.then((exit) => this.exit = exit);
    process.drained.then(() => frames.end());
    this.drained = drainAfterExit(process, options.graceMs);
    this.answered = Promise.race([answered, this.drained]).then(() => {});
  }

  /** How its client ended, with what it said itself (outside the wrapper's frames). */
  failure(exit: ChildExit): EngineFailure {
    return { code: exit.code, signal: exit.signal, stderr: this.#frames.clientText };
  }
}
