/**
 * The bash tool's descriptions: what the model reads to decide how to call
 * it. There are two, because the behaviour differs: without a session
 * every call is a fresh shell and nothing carries over; in a session (the
 * MCP server's, an adapter's `session`) `cd` and `export` do. The numbers
 * are the library's defaults (`DEFAULTS`); a harness that configures its
 * shell otherwise can pass its own description.
 *
 * Each line is one claim, and `tests/descriptions.test.ts` runs each.
 *
 * @module
 */

import { DEFAULTS } from "../../seam/defaults.ts";

/** The lines both descriptions share, after what differs. */
const COMMON_TAIL: readonly string[] = [
  "stdin is /dev/null: never run interactive commands (editors, pagers, prompts, REPLs, `git rebase -i`). " +
  "Feed input with a pipe or a heredoc (`cmd <<'EOF'` ... `EOF`) and use non-interactive flags (--yes, --no-edit).",
  "Credentials of the host environment (API keys, tokens) are removed from the commands' environment.",
  `\`timeout\` is in milliseconds: default ${DEFAULTS.timeoutMs}, at most ${DEFAULTS.maxTimeoutMs} (larger values ` +
  "are capped). On timeout the whole process tree is killed (SIGTERM, then SIGKILL).",
  "The result is stdout, then a `[stderr]` line and stderr; `(no output)` when there is none.",
  `Each stream keeps about ${DEFAULTS.maxOutputBytes} bytes: longer output keeps its head and tail around a ` +
  "marker, and a `[stdout truncated: ...; full output: PATH]` line names a file with the complete stream. " +
  "grep, head or tail that file instead of running the command again.",
  "Status lines follow when they apply: `[timed out after Nms]`, `[aborted]`, `[killed by signal: SIGX]`, " +
  "`[exit code: N]` (nonzero only). `[error] ...` means the call could not run (e.g. a missing workdir).",
  "Set `run_in_background: true` for servers, watchers and other long-running commands (without a trailing &): " +
  "the call returns at once with `started background task <id>` and no timeout applies. " +
  "Read its output later with bash_output and stop it with kill_shell, passing the id as `task_id`.",
  "`description`: what the command does in 5-10 words, for the user; it does not affect the run.",
];

/** The description of the bash tool without a session: each call a fresh shell. */
export const DESCRIPTION: string = [
  "Runs a bash command and returns its output.",
  "Each call is a fresh `bash -c <command>` process in its own process group: nothing carries over between calls " +
  "(cd, variables, functions, jobs), so chain dependent steps in one command with && or ;.",
  "Set environment variables in the command itself: `VAR=value cmd`, or `export VAR=value; cmd`.",
  "Use `workdir` to run in another directory instead of starting the command with cd.",
  ...COMMON_TAIL,
].join("\n");

/** The description of the bash tool in a session: `cd` and `export` carry over to the next call. */
export const SESSION_DESCRIPTION: string = [
  "Runs a bash command and returns its output.",
  "Calls share one session, as in a terminal: the working directory (`cd`) and exported variables (`export`) " +
  "carry over to the next call. Each call is still a fresh `bash -c <command>` process in its own process group: " +
  "unexported variables, functions, aliases, shell options and jobs do not carry over.",
  "A call that is killed (timeout, cancellation) changes nothing; one that exits, with any code, does.",
  "`export VAR=value` keeps a variable for later calls; `VAR=value cmd` sets it for that command only.",
  "`workdir` runs the call in another directory, and later calls go on from there, as after a cd.",
  ...COMMON_TAIL,
].join("\n");
