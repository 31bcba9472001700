/**
 * The header a command's wrapper reads from its stdin before the command's
 * own bytes: the command, its environment, its workdir, as shell code in
 * which every value is single-quoted. Values never appear in any argv (a
 * `docker exec -e SECRET=…` would show in `ps` on both sides); the header
 * travels on the same stdin pipe as the command's input.
 *
 * @module
 */

import { ShellSpecError } from "../errors.ts";
import { shellQuote } from "../shell_quote.ts";
import { randomHex } from "../random_hex.ts";

/** What one command needs on the engine's side. */
export interface HeaderInput {
  /** The command's complete environment. */
  env: Record<string, string>;
  /** Its absolute working directory there. */
  workdir: string;
  /** The supervisor's record directory. */
  recordDir: string;
  /** Whether the command gets the bytes after the header as stdin (else `/dev/null`). */
  stdin: boolean;
  /** How long the wrapper lets its output copies drain once the command has ended. */
  graceMs: number;
  /** A command line run by `shell -c`, or the argv form's program and arguments. */
  run: { shell: string; command: string } | { argv: readonly string[] };
  /** A session's command: it finds its state file (`SID.s` in the record directory) open on fd 9. */
  state?: boolean;
  /** The command's mark, when the supervisor must follow it (a terminal's command): written into its record. */
  mark?: string;
  /** A terminal's size, which the terminal wrapper sets before the command runs. */
  size?: { readonly columns: number; readonly rows: number };
}

/** A header and the nonce that frames the wrapper's answers. */
export interface Header {
  /** The wrapper's first line of stderr starts with it (`<nonce> s <sid>`, `<nonce> e <reason>`). */
  nonce: string;
  /** The bytes to write before the command's stdin. */
  bytes: Uint8Array;
}

/** Names `export` accepts in every POSIX shell: the others cannot be passed by a shell at all. */
const SHELL_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Whether `name` can be passed to a command through a remote wrapper. */
export function isShellName(name: string): boolean {
  return SHELL_NAME.test(name);
}

/**
 * Refuses explicit variables that no shell can export (`A-B`, `1X`, `a.b`):
 * locally they reach the command, remotely they cannot, and silently
 * dropping what the caller set would run something else.
 */
export function checkPortableNames(
  field: "env" | "dshEnv",
  record: Record<string, string | undefined> | undefined,
  engine: string,
): void {
  if (record === undefined) return;
  for (const name of Object.keys(record)) {
    if (record[name] !== undefined && !isShellName(name)) {
      throw new ShellSpecError(
        `${field}[${JSON.stringify(name)}]`,
        `cannot be passed to a command on the ${engine} engine: a shell passes only names of letters, digits and ` +
          "_ that do not start with a digit",
      );
    }
  }
}

const encoder = new TextEncoder();

/**
 * Builds the header; a nonce that occurs in the text (astronomically rare) is drawn again.
 *
 * When nothing follows it (no `stdin`, not a terminal: the client's stdin is closed right after it), its first line
 * is `<nonce> .` and its last `dsh_end=<nonce>`, and the wrapper reads it whole, in blocks (`. /proc/self/fd/0`),
 * instead of a byte at a time: with no byte of the command's behind it, there is nothing to read past. Else the
 * nonce line ends it, read a line at a time, so that every later byte is the command's.
 */
export function commandHeader(input: HeaderInput): Header {
  const body = headerBody(input);
  let nonce = newNonce();
  while (body.includes(nonce)) nonce = newNonce();
  const whole = !input.stdin && input.size === undefined;
  const text = whole ? `${nonce} .\n${body}dsh_end=${nonce}\n` : `${nonce}\n${body}${nonce}\n`;
  return { nonce, bytes: encoder.encode(text) };
}

function headerBody(input: HeaderInput): string {
  const lines = ["dsh_env() {", ":"];
  for (const [name, value] of Object.entries(input.env)) lines.push(`export ${name}=${shellQuote(value)}`);
  lines.push("}");
  lines.push(`dsh_cwd=${shellQuote(input.workdir)}`);
  lines.push(`dsh_dir=${shellQuote(input.recordDir)}`);
  lines.push(`dsh_stdin=${input.stdin ? 1 : 0}`);
  if (input.state === true) lines.push("dsh_state=1");
  if (input.mark !== undefined) lines.push(`dsh_mark=${shellQuote(input.mark)}`);
  if (input.size !== undefined) {
    lines.push(`dsh_rows=${Math.trunc(input.size.rows)}`, `dsh_cols=${Math.trunc(input.size.columns)}`);
  }
  // Seconds with a fraction, as `sleep` takes them (busybox, coreutils).
  lines.push(`dsh_grace=${(Math.max(0, input.graceMs) / 1000).toFixed(3)}`);
  if (Object.hasOwn(input.env, "PATH")) lines.push(`dsh_path=${shellQuote(input.env.PATH)}`);
  if ("argv" in input.run) {
    // Words for `eval "set -- $dsh_argv"`: a function could not set the wrapper's own arguments.
    lines.push(`dsh_argv=${shellQuote(input.run.argv.map(shellQuote).join(" "))}`);
  } else {
    lines.push(`dsh_shell=${shellQuote(input.run.shell)}`);
    lines.push(`dsh_cmd=${shellQuote(input.run.command)}`);
  }
  return `${lines.join("\n")}\n`;
}

/** 96 random bits, as hex after a fixed prefix. */
function newNonce(): string {
  return `dsh-${randomHex(12)}`;
}
