/**
 * Exec form's placeholders: `${CLAUDE_PLUGIN_ROOT}` and the other hook
 * variables are substituted into `command` and each of `args` as plain
 * strings, because there is no shell to expand them (Claude Code hooks
 * reference, "Exec form and shell form").
 *
 * @module
 */

/**
 * `text` with every `${NAME}` whose `NAME` is a key of `variables` replaced
 * by its value, once, left to right (a value is never expanded again).
 * Anything else, `$NAME` without braces and `${NAME}` for other names
 * included, stays as written: there is no shell, so `$`, quotes and
 * backticks pass through verbatim.
 *
 * Only the hook variables are offered, not the caller's `env`: argv is
 * readable by every user of the machine (`/proc/<pid>/cmdline`), the
 * environment is not, so a secret passed in `env` must not reach it.
 */
export function expandPlaceholders(text: string, variables: Readonly<Record<string, string>>): string {
  return text.replace(
    /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g,
    (whole, name: string) => (Object.hasOwn(variables, name) ? variables[name] : whole),
  );
}
