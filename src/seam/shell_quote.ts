/**
 * Quoting for a POSIX shell, shared by the remote wrapper's header and the
 * engines' command lines (ssh passes its command to a remote shell).
 *
 * @module
 */

/**
 * `value` as one single-quoted shell word: every byte as it is, a `'`
 * closed, escaped and reopened.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { shellQuote } from "./shell_quote.ts";
 * assert.equal(shellQuote("it's $HOME"), `'it'\\''s $HOME'`);
 * ```
 */
export function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}
