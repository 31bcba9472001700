/**
 * `CLAUDE_ENV_FILE`: the file a hook writes `export` lines to so that later
 * commands of the session get those variables. As Codex does it
 * (`session_start_env_file.rs`), every hook of the event gets a fresh
 * private file of its own, so hooks running in parallel never interleave
 * their writes; once all have ended, the files are read in configuration
 * order, and the text is sourced by bash to learn which variables it sets
 * (as Codex's `shell_env_file.rs` does).
 *
 * @module
 */

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ShellSpawnError } from "../../seam/errors.ts";
import type { EnvPatch, Shell } from "../../seam/types.ts";
import type { HookEnvFile } from "./types.ts";

/** Variables the read-back ignores: bash's own, and the env-file variables themselves. */
const IGNORED = new Set(["PWD", "OLDPWD", "SHLVL", "_", "CLAUDE_ENV_FILE", "CODEX_ENV_FILE"]);

/**
 * Names an env file may not set: the `DSH_*` namespace belongs to the trusted
 * channel (a hook's file must not forge `DSH_OWNER` for every later command),
 * and `BASH_FUNC_*` carries shell functions (`BASH_FUNC_git%%` would replace
 * `git` in every later command).
 */
function isRefusedName(name: string): boolean {
  // In any case, as the managed names are matched everywhere: `dsh_owner` is refused as `DSH_OWNER` is.
  return /^(DSH_|BASH_FUNC_)/i.test(name);
}

/** What the read-back found: the env file, and the names it set that were dropped. */
export interface EnvFileReadBack extends HookEnvFile {
  /** Names the text set that `env` leaves out (`DSH_*`, `BASH_FUNC_*`), in the order bash listed them. */
  refused: string[];
}

/** Separates the environment before the file from the one after it in the read-back's output. */
const SEPARATOR = "--dsh-hook-env-file--";

/** The env files of one dispatch: one per hook, in a private directory. */
export class EnvFiles {
  private readonly dir: string;
  private readonly files: string[] = [];

  constructor() {
    // mkdtemp makes the directory 0700: no other user can read what a hook writes.
    this.dir = mkdtempSync(join(tmpdir(), "dsh-hook-env-"));
  }

  /** A fresh, empty file (0600) for the next hook. */
  next(): string {
    const file = join(this.dir, `hook-${this.files.length}.sh`);
    writeFileSync(file, "", { mode: 0o600, flag: "wx" });
    this.files.push(file);
    return file;
  }

  /** The files' text, in the order they were made; each ends with a newline. Removes the directory. */
  collect(): string {
    try {
      return this.files.map(readText).filter((text) => text !== "").map((text) =>
        text.endsWith("\n") ? text : `${text}\n`
      ).join("");
    } finally {
      rmSync(this.dir, { recursive: true, force: true });
    }
  }

  /** Removes the directory without reading it. */
  discard(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

function readText(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return "";
  }
}

/** How to run the read-back: the hooks' own environment and directory. */
export interface ReadBackOptions {
  /** The environment patch the hooks ran with. */
  env: EnvPatch;
  /** The directory they ran in. */
  workdir: string;
  /** Who owns the run. */
  owner: string | null;
  /** `false`: read back outside the shell's sandbox, as the hooks ran. */
  sandbox?: false;
}

/**
 * Sources `text` in bash through `shell` and returns what it changed: the
 * variables it sets, and (as `undefined`) those it unsets, compared with
 * the same environment before it. Throws when the run itself fails (not
 * when the text has an error: bash goes on, as a later command would):
 * `ShellSpawnError` when the reading command did not run to its end, and
 * whatever `shell.run` rejects with. The dispatch turns it into a warning.
 */
export async function readEnvFile(shell: Shell, text: string, options: ReadBackOptions): Promise<EnvFileReadBack> {
  // The text comes on stdin, not in a file: a sandboxed command sees neither the host's /tmp nor most of its paths.
  // It is read whole before any of it runs (`$(cat)`), so a command in it cannot eat the rest; and not as
  // `. /dev/stdin`, which cannot open the socket Node gives a child as stdin. eval runs it command by command, as
  // sourcing would: what comes before an error still takes effect.
  const script = 'env -0; printf "%s\\0" "$1"; eval "$(cat)" >/dev/null 2>&1 </dev/null; env -0';
  const run = await shell.run(shell.resolve({
    command: "bash",
    // --norc: whatever stdin is, bash reads no ~/.bashrc (see env/shell_level.ts).
    args: ["--norc", "-c", script, "bash", SEPARATOR],
    owner: options.owner,
    workdir: options.workdir,
    env: options.env,
    stdin: text,
    timeoutMs: 10_000,
    stdoutMaxBytes: 4 * 1024 * 1024,
    ...(options.sandbox === false ? { sandbox: false as const } : {}),
  }));
  if (run.exitCode === null || run.stdout.truncated) {
    throw new ShellSpawnError(run.timedOut ? "reading the env file timed out" : "reading the env file failed");
  }
  const entries = run.stdout.text.split("\0");
  const at = entries.indexOf(SEPARATOR);
  if (at === -1) throw new ShellSpawnError("reading the env file failed");
  const before = toMap(entries.slice(0, at));
  const after = toMap(entries.slice(at + 1));
  const env: Record<string, string | undefined> = {};
  const refused: string[] = [];
  const keep = (name: string, value: string | undefined): void => {
    if (isRefusedName(name)) refused.push(name);
    else define(env, name, value);
  };
  for (const [name, value] of after) {
    if (!IGNORED.has(name) && before.get(name) !== value) keep(name, value);
  }
  for (const name of before.keys()) {
    if (!IGNORED.has(name) && !after.has(name)) keep(name, undefined);
  }
  return { text, env, refused };
}

function toMap(entries: readonly string[]): Map<string, string> {
  const map = new Map<string, string>();
  for (const entry of entries) {
    const eq = entry.indexOf("=");
    if (eq > 0) map.set(entry.slice(0, eq), entry.slice(eq + 1));
  }
  return map;
}

/** Sets an own data property; a variable named `__proto__` stays a plain key. */
function define(target: Record<string, string | undefined>, name: string, value: string | undefined): void {
  Object.defineProperty(target, name, { value, enumerable: true, writable: true, configurable: true });
}
