/**
 * The tool's description: what the model reads to decide how to call it.
 * The numbers are the library's defaults (`DEFAULTS`); a harness that
 * configures its shell otherwise can pass its own description.
 *
 * @module
 */

import { DEFAULTS } from "../seam/defaults.ts";

/** The description of the bash tool, written for the model. */
export const DESCRIPTION: string = [
  "Runs a bash command and returns its output.",
  "Each call is a fresh `bash -c <command>` process in its own process group: nothing carries over between calls " +
  "(cd, variables, functions, jobs), so chain dependent steps in one command with && or ;.",
  "stdin is /dev/null: never run interactive commands (editors, pagers, prompts, REPLs, `git rebase -i`). " +
  "Feed input with a pipe or a heredoc (`cmd <<'EOF'` ... `EOF`) and use non-interactive flags (--yes, --no-edit).",
  "Set environment variables in the command itself: `VAR=value cmd`, or `export VAR=value; cmd`. " +
  "Credentials of the host environment are removed.",
  "Use `workdir` to run in another directory instead of starting the command with cd.",
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
].join("\n");
