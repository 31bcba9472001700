/**
 * The CLI's help texts, one per subcommand.
 *
 * @module
 */

/** `dsh-shell --help`. */
export const MAIN_HELP = `dsh-shell — run commands and hooks the way an agent harness does

Usage:
  dsh-shell run [options] -- COMMAND     run a command: scrubbed env, own process group, bounded output
  dsh-shell env [--env K=V]...           show where each variable of a command's environment comes from
  dsh-shell hook EVENT --settings FILE   run the hooks of a settings.json for one event, as a harness would
  dsh-shell hook EVENT --plugin-root DIR run a plugin's hooks/hooks.json for one event
  dsh-shell mcp [options]                serve nine tools as an MCP server on stdio (or --http): bash,
                                         bash_output, kill_shell, Read, Write, Edit (Claude Code's) and
                                         exec_command, write_stdin, apply_patch (Codex's)
  dsh-shell --version                    print the version (also -V)

Run 'dsh-shell <command> --help' for the options of each command.

Exit codes: run passes the command's own code through (124 on timeout, 128+n after signal n);
hook exits 2 when the event is blocked; 64 means a usage mistake; 125 means dsh-shell itself failed.
`;

/** `dsh-shell run --help`. */
export const RUN_HELP = `Usage: dsh-shell run [options] -- COMMAND

Runs COMMAND as 'bash -c COMMAND' in its own process group, with the credential-scrubbed environment,
and prints its stdout and stderr as they arrive, all of them.
A timeout, an interruption or a killing signal is said on stderr after the output.

Options:
  --stdin FILE|-     give the command FILE (or this process's stdin) on its stdin; otherwise stdin is /dev/null
  --env K=V          set a variable for the command (repeatable); it wins over the scrub
  --timeout MS       kill the command's whole process group after MS milliseconds (default 120000)
  --workdir DIR      run in DIR (default: the current directory)
  --json             print the result as JSON instead, once the command ends (a long output keeps its
                     head and tail, the full stream in a spill file)
  --no-spill         with --json: keep no spill file, only the head and tail
  --help             show this help

Exit code: the command's own; 124 when it timed out; 128+n when signal n ended it; 130 when interrupted;
125 when it could not be started; 64 on a usage mistake.

Example:
  dsh-shell run --env GREETING=hi -- 'echo "$GREETING from $(pwd)"'
`;

/** `dsh-shell env --help`. */
export const ENV_HELP = `Usage: dsh-shell env [--env K=V]... [--json]

Shows the environment a command would get: every variable with its source (ambient, override, env)
and every dropped one with its reason (credential-name, credential-value, managed, removed).
Values are never printed.

Options:
  --env K=V     an explicit variable, as 'dsh-shell run --env' would pass it (repeatable)
  --json        print the explanation as JSON
  --help        show this help
`;

/** `dsh-shell hook --help`. */
export const HOOK_HELP = `Usage: dsh-shell hook EVENT (--settings FILE | --plugin-root DIR) [options]

Runs every hook that FILE (a Claude Code settings.json or a Codex hooks.json) and/or the plugin in DIR
(its hooks/hooks.json) configure for EVENT, as a harness would: matchers and if filters select them, the
foreground ones run in parallel with the event payload as JSON on stdin, the background ones (async) are
awaited and reported apart. Prints each hook's result, the merged decision, the env file's variables and
any warnings. Exits 2 when the event is blocked (a hook denied it, or exited 2 where that blocks), 0 otherwise.

Options:
  --settings FILE                 a settings file
  --plugin-root DIR               a plugin: loads DIR/hooks/hooks.json; its hooks get CLAUDE_PLUGIN_ROOT=DIR
                                  (with --settings, both run: the settings' hooks first)
  --plugin-data DIR               the plugin's data directory: CLAUDE_PLUGIN_DATA for its hooks
  --dialect claude-code|codex     whose rules apply: stdin, matchers, exit codes, JSON (default claude-code)
  --match NAME                    what matchers test, e.g. the tool name (default: the payload's field for EVENT)
  --payload FILE|-                the event payload as JSON (default: {"hook_event_name": EVENT})
  --project-dir DIR               CLAUDE_PROJECT_DIR for the hooks, and their workdir (default: the current directory)
  --env K=V                       a variable for every hook (repeatable); the hook variables win over it
  --json                          print the dispatch result as JSON (background hooks with their outcome)
  --help                          show this help

Examples:
  dsh-shell hook PreToolUse --settings .claude/settings.json --payload event.json
  dsh-shell hook PreToolUse --plugin-root ~/.claude/plugins/git-guard --payload event.json
`;

/** `dsh-shell mcp --help`. */
export const MCP_HELP = `Usage: dsh-shell mcp [options]

Serves the shell as a Model Context Protocol server on stdin/stdout (one connection, one owner) with nine
tools by default: bash, bash_output and kill_shell (Claude Code's; the connection's bash calls share one
session, so cd and export carry over), Read, Write and Edit (Claude Code's file tools), and exec_command,
write_stdin and apply_patch (Codex's), until the client closes stdin or the server gets SIGTERM; then every
command it started is killed. On Linux every command runs in
a bubblewrap sandbox: writable only in the workdir (and --writable-root), no network. Without bubblewrap it
exits at once, unless --no-sandbox.

Options:
  --workdir DIR          where commands start and what the sandbox lets them write (default: the current directory)
  --no-sandbox           run commands unsandboxed, with this user's rights
  --network none|host    the sandbox's network (default none)
  --writable-root DIR    another directory the sandbox lets commands write (repeatable)
  --tools claude|codex|all  which tools to offer: claude is bash, bash_output, kill_shell, Read, Write, Edit; codex
                         is exec_command, write_stdin, apply_patch; all (the default) is the nine
  --timeout MS           the default foreground timeout of a bash call (default 120000)
  --shell PROGRAM        the shell commands run in, as 'PROGRAM -c COMMAND' (default bash; sh for an image without it)
  --structured           also answer with structuredContent and list an outputSchema (default: the text only,
                         which is what Claude Code and Codex then show the model)
  --keep-control-sequences  keep terminal control sequences (colors, OSC) in what the model is shown
                         (default: removed; the spill files keep them)
  --engine docker:CONTAINER  run commands in a running container (--workdir required; --docker-host URL)
  --engine ssh:USER@HOST     run commands on a host over OpenSSH (--workdir required; --ssh-port N,
                             --ssh-identity FILE, --ssh-known-hosts FILE)
  --http HOST:PORT       serve Streamable HTTP at http://HOST:PORT/mcp instead of stdio, until SIGTERM; each MCP
                         session is one owner (HOST 127.0.0.1 unless given; port 0 picks one, printed on stderr)
  --token-file FILE      with --http, required: the bearer token (at least 32 bytes) every request must carry
  --idle-timeout MS      with --http: end a session with no request for this long (default 1800000)
  --max-sessions N       with --http: the most sessions open at once; past it, 503 (default 16)
  --allowed-host HOST    with --http: another Host header to answer to, as a proxy in front sends it (repeatable)
  --help                 show this help

Exit code: 0 once the client has gone; 64 on a usage mistake; 125 when the server cannot start (no bubblewrap).
`;
