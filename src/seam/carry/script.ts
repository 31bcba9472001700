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
import { STATE_END } from "../wrapper.ts";

export { STATE_END } from "../wrapper.ts";

/** Where the trap writes: a file on this host, or an fd the wrapper opened on one (inside the sandbox). */
export type StateTarget = { readonly path: string } | { readonly fd: number };

/** Every first character a shell variable's name can have: bash lists the variables by prefix (`${!A@}`). */
const NAME_STARTS = [..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_"];

/**
 * bash's exported environment written with its builtins alone: no process
 * is started (a `cat` is a fork and an exec, about half a fresh spawn's
 * cost). Each variable bash would put in a child's environment: exported
 * (`x`), no array (`a`, `A`: bash exports none), no name reference, set.
 * `set +aeux` first: `-a` would export the loop's own variable, `-u` stop at
 * an exported but unset one, `-e` and `-x` do what the command asked of its
 * own lines. The loop ends on `.` (no name): a dump that stopped short of it
 * (a failed write, a loop variable the command made read-only) has no end
 * mark, as a failed `cat` leaves none. `${!name@a}` needs bash 4.4; an older bash reads the environment
 * as every other shell does. A variable whose name is no shell name (`A-B`,
 * passed on by bash from its own environment) is not listed: such names are
 * never taken as unset from a dump (`state.ts`).
 */
const BASH_DUMP = "set +aeux; if ((BASH_VERSINFO[0] * 100 + BASH_VERSINFO[1] >= 404)); then " +
  `for __dsh_name in ${NAME_STARTS.map((first) => `"\${!${first}@}"`).join(" ")} .; do ` +
  '[ "$__dsh_name" = . ] && break; ' +
  "[[ ${!__dsh_name@a} == *x* && ${!__dsh_name@a} != *[aA]* && ! -R $__dsh_name && -n ${!__dsh_name+set} ]] || " +
  'continue; printf \'%s=%s\\0\' "$__dsh_name" "${!__dsh_name}" || break; done; ' +
  '[ "$__dsh_name" = . ]; else command -p cat /proc/self/environ; fi';

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
