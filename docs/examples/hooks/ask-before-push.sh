#!/usr/bin/env bash
# PreToolUse, matcher "Bash": lets the user confirm every `git push`.
# Instead of an exit code this hook answers with JSON on stdout (exit 0): permissionDecision
# "ask" turns the call into a prompt for the user, who reads permissionDecisionReason.
#
# No jq on purpose (it may be missing): sed picks tool_input.command out of the event.
set -u

input=$(cat)
command=$(printf '%s\n' "$input" | sed -n 's/.*"command"[[:space:]]*:[[:space:]]*"\([^"]*\)".*/\1/p')

case "$command" in
  *"git push"*)
    printf '%s\n' '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"git push publishes commits to the shared remote: please confirm."}}'
    ;;
esac
exit 0
