/**
 * Terminal control sequences out of the text a model is shown: a colored
 * `ls`, a progress bar's cursor moves, a title, an OSC 52 clipboard write
 * mean nothing to a model (and some mean something to the terminal of
 * whoever reads the transcript). The raw bytes stay where they were
 * captured: observers, results, spill files.
 *
 * @module
 */

// ESC [ … final (CSI), ESC ] … BEL/ST (OSC: titles, hyperlinks, the clipboard), ESC P/X/^/_ … ST (DCS, SOS, PM, APC),
// and the 8-bit forms of each (U+009B, U+009D, U+0090 …) once decoded; an unterminated string runs to the end of the
// text. Then the other ESC sequences (ESC 7, ESC ( B, …), and last every other C0 and C1 control but \t \n \r.
const SEQUENCES = new RegExp(
  [
    "(?:\\x1b\\[|\\x9b)[\\x30-\\x3f]*[\\x20-\\x2f]*[\\x40-\\x7e]?",
    "(?:\\x1b[\\]PX^_]|[\\x90\\x98\\x9d-\\x9f])[^\\x07\\x1b\\x9c]*(?:\\x07|\\x1b\\\\|\\x9c)?",
    "\\x1b[\\x20-\\x2f]*[\\x30-\\x7e]?",
    "[\\x00-\\x08\\x0b\\x0c\\x0e-\\x1f\\x7f-\\x9f]",
  ].join("|"),
  "g",
);

/** Any control character but \t, \n and \r: a text without one has nothing to remove. */
// deno-lint-ignore no-control-regex -- control characters are what it looks for
const ANY_CONTROL = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]/;

/**
 * `text` without terminal control sequences (CSI, OSC, DCS/SOS/PM/APC,
 * other escape sequences) and without C0/C1 control characters other
 * than `\t`, `\n` and `\r`: what the tools do to the text they give the
 * model, for a harness that shows the model other output (a log, a
 * file).
 *
 * @example
 * ```ts
 * import { stripControlSequences } from "@dsh/shell/tool";
 * import assert from "node:assert/strict";
 * const painted = "\x1b[1;31merror\x1b[0m: \x1b]52;c;cm0gLXJmIH4=\x07disk full\r\n";
 * assert.equal(stripControlSequences(painted), "error: disk full\r\n");
 * ```
 */
export function stripControlSequences(text: string): string {
  // Most output has no control character at all: skip the replace.
  return ANY_CONTROL.test(text) ? text.replace(SEQUENCES, "") : text;
}
