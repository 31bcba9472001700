#!/usr/bin/env bash
# PostToolUse, matcher "Edit|Write": after a source file changed, adds a reminder to the
# model's context (hookSpecificOutput.additionalContext).
#
# No jq on purpose (it may be missing): sed picks tool_input.file_path out of the event. The
# path is taken as it appears inside the JSON string, already escaped, so it can go back into
# a JSON string as it is.
set -u

input=$(cat)
file=$(printf '%s\n' "$input" | sed -n 's/.*"file_path"[[:space:]]*:[[:space:]]*"\([^"]*\)".*/\1/p')

case "$file" in
  *.ts | *.tsx | *.js | *.mjs)
    printf '{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"%s changed: run the tests (deno test -A) before you report the task as done."}}\n' "$file"
    ;;
esac
exit 0
