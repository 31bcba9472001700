#!/usr/bin/env bash
# SessionStart (and every PreToolUse): tells whether hooks can see API keys. Run through @dsh/shell they
# cannot: credential-shaped variables are scrubbed from the environment of every command.
# The plain stdout of a SessionStart hook is added to the model's context.
# This prints only whether a variable is set and how many there are, never a value.
set -u

cat >/dev/null # the event itself is not needed

if [ -n "${ANTHROPIC_API_KEY:-}" ]; then
  echo "ANTHROPIC_API_KEY is visible to hooks."
else
  echo "ANTHROPIC_API_KEY is not visible to hooks (scrubbed)."
fi
count=$(env | grep -c -E '^[A-Za-z0-9_]*(_KEY|_TOKEN|_SECRET|PASSWORD)=' || true)
echo "Credential-shaped variables visible to hooks: $count"
exit 0
