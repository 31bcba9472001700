/**
 * A child's environment read back from what `env` (one variable a line) or
 * `env -0` (NUL-terminated entries) printed.
 *
 * Nothing here imports the library.
 */

/** The output of `env` as name → value (one variable per line; values without newlines). */
export function parseEnvDump(text: string): Map<string, string> {
  const entries = new Map<string, string>();
  for (const line of text.split("\n")) {
    const eq = line.indexOf("=");
    if (eq > 0) entries.set(line.slice(0, eq), line.slice(eq + 1));
  }
  return entries;
}

/** The entries `env -0` printed, each `NAME=value` as it came. */
export function env0Entries(text: string): string[] {
  return text.split("\0").filter((entry) => entry !== "");
}

/** The output of `env -0` as a record (an entry named `__proto__` sets the prototype: use {@linkcode env0Entries}). */
export function parseEnv0(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of env0Entries(text)) {
    const eq = entry.indexOf("=");
    out[entry.slice(0, eq)] = entry.slice(eq + 1);
  }
  return out;
}

/** A child's environment as `/proc/self/environ` gives it, without the names a session never takes. */
export function childEnvironment(dump: string): Record<string, string> {
  const entries = dump.split("\0").filter((entry) => entry !== "");
  const kept = entries.map((entry) => [entry.slice(0, entry.indexOf("=")), entry.slice(entry.indexOf("=") + 1)])
    .filter(([name]) =>
      !["_", "PWD", "OLDPWD", "SHLVL"].includes(name) && !name.startsWith("DSH_") && !name.startsWith("BASH_FUNC_")
    );
  return Object.fromEntries(kept);
}
