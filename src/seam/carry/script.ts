/**
 * The lines put in front of a session's command line so that, when it
 * exits, the shell writes down the state the session takes over: the
 * directory it ended in and its exported environment.
 *
 * An `EXIT` trap is the one place a POSIX shell runs on every way out that
 * leaves it a say: the end of the script, `exit N`, `set -e`, a syntax
 * error further down. What it writes is `pwd`'s line, a NUL, the shell's
 * exported environment as the kernel gives it to a child
 * (`/proc/self/environ` of a `cat`: NUL-separated, any byte but NUL in a
 * value), and an end mark, so a dump cut short (no `cat` on the `PATH` the
 * command left, a full disk) is seen as none. The trap adds no `exit`: the
 * shell then exits with the status the command left (POSIX, "trap").
 *
 * @module
 */

import { shellQuote } from "../shell_quote.ts";

/** The last entry of a complete state dump. */
export const STATE_END = "dsh-state-end";

/** Where the trap writes: a file on this host, or an fd the wrapper opened on one (inside the sandbox). */
export type StateTarget = { readonly path: string } | { readonly fd: number };

/**
 * The prelude for `target`, ending in a newline: the command's own text
 * follows it unchanged, so it runs as it would with `<shell> -c` alone.
 */
export function statePrelude(target: StateTarget): string {
  const into = "path" in target ? `>${shellQuote(target.path)}` : `>&${target.fd}`;
  // `command -p`: the standard PATH, so a command that emptied or changed its own still has its environment read.
  const dump =
    `{ pwd; printf '\\0'; command -p cat /proc/self/environ && printf '${STATE_END}\\0'; } ${into} 2>/dev/null`;
  return `trap ${shellQuote(dump)} EXIT\n`;
}
