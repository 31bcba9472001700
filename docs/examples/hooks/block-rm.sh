#!/usr/bin/env bash
# PreToolUse, matcher "Bash": refuses `rm -rf` (and -fr, -Rf, -rfv, ...).
# Exit 2 blocks the tool call; what this prints on stderr is the reason the model is given.
#
# No jq on purpose: it is not installed on every fresh machine. The event arrives as JSON on
# stdin; grep and sed are enough to pick out tool_input.command. (A command holding an escaped
# quote is cut at that quote, which still shows an `rm -rf` before it. This is a guard rail,
# not a sandbox: `rm -r -f` or a script that deletes things gets through.)
set -u

input=$(cat)
command=$(printf '%s\n' "$input" | sed -n 's/.*"command"[[:space:]]*:[[:space:]]*"\([^"]*\)".*/\1/p')

if printf '%s\n' "$command" | grep -Eq '(^|[;&|[:space:]])rm[[:space:]]+-[A-Za-z]*([rR][A-Za-z]*f|f[A-Za-z]*[rR])'; then
  echo "Blocked by block-rm.sh: 'rm -rf' deletes without asking and cannot be undone. Delete the files you mean by name, or ask the user to do it." >&2
  exit 2
fi
exit 0
