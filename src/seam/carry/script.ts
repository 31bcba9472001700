/**
 * The lines put in front of a session's command line so that, when it
 * exits, the shell writes down the state the session takes over: the
 * directory it ended in and its exported environment.
 *
 * An `EXIT` trap is the one place a POSIX shell runs on every way out that
 * leaves it a say: the end of the script, `exit N`, `set -e`, a syntax
 * error further down. What it writes is `pwd`'s line, a NUL, the shell's
 * exported environment, and an end mark, so a dump cut short (no `cat` on
 * the `PATH` the command left, a full disk) is seen as none. bash writes its
 * environment as its `export -p` listing, after a record of its own
 * (`dsh-export-p`), which the host parses (`export_list.ts`); any other
 * shell through a `cat` of `/proc/self/environ` (as the kernel gives it to a
 * child: NUL-separated, any byte but NUL in a value). The trap adds no
 * `exit`: the shell then exits with the status the command left (POSIX,
 * "trap").
 *
 * @module
 */

import { shellQuote } from "../shell_quote.ts";
import { STATE_END } from "../wrapper.ts";

export { STATE_END } from "../wrapper.ts";

/** Where the trap writes: a file on this host, or an fd the wrapper opened on one (inside the sandbox). */
export type StateTarget = { readonly path: string } | { readonly fd: number };

/**
 * The record a bash dump puts before its environment (`state.ts` reads what
 * follows as `export -p`'s listing, not as `NAME=value` entries).
 */
export const EXPORT_LISTING = "dsh-export-p";

/**
 * bash's exported environment written by one builtin, `export -p`, which
 * lists every exported variable as bash would read it back
 * (`declare -x NAME="value"`); the host parses that (`export_list.ts`). No
 * process is started (a `cat` is a fork and an exec, about half a fresh
 * spawn's cost), and nothing loops in bash: listing the variables by prefix
 * and printing each with `printf` took 1 to 2 ms a command, `export -p`
 * about 0.1 ms. It runs in the C locale (`LC_ALL=C`, for that builtin
 * alone): every byte from 0x80 is then written as an octal escape, so that
 * no locale whose characters end in a `\` or a `"` byte (Big5, GBK,
 * Shift_JIS) can make a value's quoting read differently byte by byte. A
 * command that made `LC_ALL` read-only (which would keep its locale) has
 * its environment read through a `cat`, as an older bash (before 4.4: no
 * `${LC_ALL@a}`) and every other shell. No `set` is needed: `export -p`
 * expands nothing, `-e` does not end an `if`'s test, and `set -a` does not
 * export the one-builtin `LC_ALL`.
 */
const BASH_DUMP = "if ((BASH_VERSINFO[0] * 100 + BASH_VERSINFO[1] >= 404)) && [[ ${LC_ALL+${LC_ALL@a}} != *r* ]]; " +
  `then printf '${EXPORT_LISTING}\\0' && LC_ALL=C export -p && printf '\\0'; else command -p cat /proc/self/environ; fi`;

/**
 * bash only: `trap` as the command sees it lists every trap but the
 * library's (`trap`, `trap -p`), and does the rest as the builtin does. The
 * listing is bash's own, from a command substitution (which shows the
 * shell's traps), without the one line that holds the end mark; no process
 * is started. POSIX shells find their special builtins before functions, so
 * this is for bash, whose `trap -p` a model reads.
 */
const BASH_TRAP = "trap() { if [[ $# == 0 || $1 == -p ]]; then local __dsh_t __dsh_l __dsh_o=; " +
  '__dsh_t=$(builtin trap "$@"); while IFS= read -r __dsh_l; do ' +
  `[[ -z $__dsh_l || $__dsh_l == *${STATE_END}*" EXIT" ]] || __dsh_o+=$__dsh_l$'\\n'; done <<< "$__dsh_t"; ` +
  'printf %s "$__dsh_o"; else builtin trap "$@"; fi; }; ';

/**
 * The prelude for `target`: one line's beginning, which the command's own
 * text follows unchanged on the same line, so that `$LINENO` counts from
 * the command's first line and it runs as it would with `<shell> -c` alone
 * (a syntax error on that line then sets no trap: the command ran nothing,
 * so the session stays as it was either way).
 *
 * @param shell The program that runs the command line: bash (by its file name) writes its environment with its
 *   own builtins, and hides the trap from `trap -p`; any other shell writes it through a `cat`.
 */
export function statePrelude(target: StateTarget, shell?: string): string {
  const into = "path" in target ? `>${shellQuote(target.path)}` : `>&${target.fd}`;
  const bash = shell !== undefined && /(^|\/)bash$/.test(shell);
  // `command -p`: the standard PATH, so a command that emptied or changed its own still has its environment read.
  const environment = bash ? BASH_DUMP : "command -p cat /proc/self/environ";
  const dump = `{ pwd; printf '\\0'; ${environment} && printf '${STATE_END}\\0'; } ${into} 2>/dev/null`;
  return `trap ${shellQuote(dump)} EXIT; ${bash ? BASH_TRAP : ""}`;
}
