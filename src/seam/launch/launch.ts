/**
 * The one launch pipeline, for every command on every transport: bounded
 * collectors and output events for its output, the transport's start, the
 * deadline (timeout and abort signals) wired to the transport's
 * termination, the settle (`settle/settle.ts`), and what the shell and its
 * task see (`Launched`): the result, `stop()`, the open stdin, the
 * terminal's size and a session's state.
 *
 * Where the command runs is the transport's (`transport.ts`): the local
 * process group (`spawn/process_group.ts`) or a remote link
 * (`remote/command.ts`).
 *
 * @module
 */

import type { BackendContext, Launched } from "../backend.ts";
import { OutputCollector } from "../capture/collector.ts";
import { OutputEvents } from "../capture/output_events.ts";
import { ownValue } from "../own_fields.ts";
import { settle } from "../settle/settle.ts";
import { Deadline } from "../terminate/deadline.ts";
import type { Transport } from "../transport.ts";
import type { ShellObserver } from "../capture/types.ts";
import type { ShellExecSpec } from "../types.ts";

/**
 * Starts `spec` on `transport`. Throws what a command that cannot start at
 * all throws at once (the transport's `ShellSpawnError` or
 * `ShellSpecError`); every later outcome settles `result`.
 *
 * @param timeoutMs The timeout to enforce, or undefined for none (tasks).
 * @param carry A session's command: its state is left for `Launched.state` (a command line only).
 */
export function launch(
  spec: ShellExecSpec,
  transport: Transport,
  shell: BackendContext,
  timeoutMs: number | undefined,
  observer?: ShellObserver,
  carry?: boolean,
): Launched {
  const { options, host } = shell;
  const startedAt = performance.now();
  const collector = (budget: number, label: string): OutputCollector =>
    new OutputCollector({
      budget,
      maxSpillBytes: options.maxSpillBytes,
      spillDirectory: () => transport.spillDirectory(spec.owner),
      label,
    });
  const stdout = collector(spec.stdoutMaxBytes, "stdout");
  const stderr = collector(options.maxOutputBytes, "stderr");
  const events = new OutputEvents(observer);
  // Only a command line can change a directory or an environment that outlives its program.
  const carrying = carry === true && ownValue(spec, "args") === undefined;
  const running = transport.start({
    spec,
    carry: carrying,
    stdout: (chunk) => {
      stdout.write(chunk);
      events.stdout(chunk);
    },
    stderr: (chunk) => {
      stderr.write(chunk);
      events.stderr(chunk);
    },
  });
  const signals = [ownValue(spec, "signal"), shell.closeSignal];
  const counting = running.counting;
  const deadline = new Deadline(
    counting === undefined ? timeoutMs : undefined,
    signals,
    host.abortListeners,
    () => running.terminate(),
  );
  counting?.then(() => deadline.arm(timeoutMs));
  let endingSurvivors = false;
  const result = settle({
    running,
    deadline,
    startedAt,
    timeoutMs: timeoutMs ?? spec.timeoutMs,
    stdout,
    stderr,
    events,
  });
  return {
    get pid(): number {
      return running.pid;
    },
    stdout,
    stderr,
    result,
    events,
    state: carrying ? () => running.state?.() ?? Promise.resolve({ change: undefined }) : undefined,
    input: running.input,
    resize: running.resize,
    stop: (cause) => {
      // Until the result settles the deadline ends the whole session, also once the leader has exited and only a
      // backgrounded child holds the pipes: that cuts the drain short.
      if (deadline.fire(cause)) return true;
      // Settled: what the command left running (a survivor) is still the caller's to end; the result stays as it is.
      if (deadline.cause !== undefined || endingSurvivors || !running.endSurvivors()) return false;
      endingSurvivors = true;
      return true;
    },
  };
}
