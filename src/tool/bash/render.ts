/**
 * From a run's result to the text the model sees.
 *
 * @module
 */

import type { CollectedOutput, ShellRunResult } from "../../seam/types.ts";
import { outputSections } from "./output_sections.ts";
import type { RenderOptions } from "./types.ts";

/** `[stdout truncated: N bytes in all; full output: PATH]`, or `… full output unavailable]`. */
function truncationNote(name: "stdout" | "stderr", stream: CollectedOutput): string {
  const where = stream.spillPath === undefined ? "full output unavailable" : `full output: ${stream.spillPath}`;
  return `[${name} truncated: ${stream.totalBytes} bytes in all; ${where}]`;
}

/**
 * The line a model sees when a sandboxed command failed with what reads like
 * a refusal: it says where the limits are, so that the model does not retry
 * the same write, and that it is a guess.
 */
export const SANDBOX_NOTE: string =
  "[sandbox: this looks refused by the sandbox: outside the shell's working directory and its writable roots files are read-only, whatever workdir a call names, and the network may be off]";

/**
 * Renders a result as the model sees it, line by line:
 *
 * 1. stdout's text, when it holds more than whitespace;
 * 2. `[stderr]` and stderr's text, when it does;
 * 3. `(no output)` when neither does;
 * 4. then, one line each when they apply and in this order:
 *    `[stdout truncated: N bytes in all; full output: PATH]` (or
 *    `full output unavailable` when no spill file was kept), the same for
 *    stderr, `[timed out after Nms]`, `[aborted]`,
 *    `[killed by signal: SIGX]` (whenever a signal ended the command, also
 *    after a timeout or an abort: it tells whether SIGKILL was needed),
 *    `[exit code: N]` (nonzero only), on a sandboxed run whose output
 *    reads like a refusal the `[sandbox: …]` line of
 *    {@link SANDBOX_NOTE}, and last, on a session's command whose state
 *    the session did not all take, `[session: …]` with its `sessionNote`
 *    (one line).
 *
 * Sections are separated by exactly one newline, also when a stream does
 * not end with one; the text has no final newline. Terminal control
 * sequences (colors, cursor moves, OSC titles and clipboard writes, other
 * control characters but `\t`, `\n`, `\r`) are removed from the output,
 * unless `options.keepControlSequences`; the result keeps them.
 */
export function render(result: ShellRunResult, options: RenderOptions = {}): string {
  const keep = options.keepControlSequences === true;
  const lines = outputSections(result.stdout.text, result.stderr.text, "(no output)", keep);
  if (result.stdout.truncated) lines.push(truncationNote("stdout", result.stdout));
  if (result.stderr.truncated) lines.push(truncationNote("stderr", result.stderr));
  if (result.timedOut) lines.push(`[timed out after ${result.timeoutMs}ms]`);
  if (result.aborted) lines.push("[aborted]");
  if (result.signal !== null) lines.push(`[killed by signal: ${result.signal}]`);
  if (result.exitCode !== null && result.exitCode !== 0) lines.push(`[exit code: ${result.exitCode}]`);
  if (result.sandbox?.denied) lines.push(SANDBOX_NOTE);
  // One line whatever it holds: the model reads what the session did not take, never a line that looks like output.
  if (result.sessionNote !== undefined) lines.push(`[session: ${result.sessionNote.replace(/[\r\n]+/g, " ")}]`);
  return lines.join("\n");
}
