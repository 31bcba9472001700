/**
 * The output part of what a model sees, the same for a finished command
 * (`render`) and for a background task's read (`bash_output`): stdout,
 * then `[stderr]` and stderr, or a line saying there is none.
 *
 * @module
 */

import { stripControlSequences } from "../shared/control_sequences.ts";

/** A stream's text without its one final newline, so sections join with exactly one. */
function body(text: string): string {
  return text.endsWith("\n") ? text.slice(0, -1) : text;
}

/** A stream counts as output when it holds more than whitespace. */
function hasOutput(text: string): boolean {
  return text.trim() !== "";
}

/**
 * The lines of the output: stdout's text when it holds more than
 * whitespace, then `[stderr]` and stderr's text when it does, and `none`
 * when neither does. One final newline of each stream is dropped.
 * Terminal control sequences are removed first, unless `keepControl`.
 */
export function outputSections(stdout: string, stderr: string, none: string, keepControl = false): string[] {
  if (!keepControl) {
    stdout = stripControlSequences(stdout);
    stderr = stripControlSequences(stderr);
  }
  const lines: string[] = [];
  if (hasOutput(stdout)) lines.push(body(stdout));
  if (hasOutput(stderr)) lines.push("[stderr]", body(stderr));
  if (lines.length === 0) lines.push(none);
  return lines;
}
