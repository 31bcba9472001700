/**
 * The CLI's contact with the outside: output streams, stdin and files,
 * through `node:` built-ins that both runtimes provide.
 *
 * @module
 */

import { readFileSync } from "node:fs";
import process from "node:process";
import { UsageError } from "./args.ts";

/**
 * Where the CLI writes; tests and embedders may capture it.
 *
 * @example
 * ```ts
 * import { type CliOutput, main } from "@dsh/shell/cli";
 * import assert from "node:assert/strict";
 * let stdout = "";
 * let stderr = "";
 * const captured: CliOutput = {
 *   out: (text) => void (stdout += text),
 *   err: (text) => void (stderr += text),
 * };
 * const code = await main(["run", "--", "echo hello"], captured);
 * assert.equal(code, 0);
 * assert.equal(stdout, "hello\n");
 * assert.equal(stderr, "");
 * ```
 */
export interface CliOutput {
  /** Writes to standard output. */
  out(text: string): void;
  /** Writes to standard error. */
  err(text: string): void;
}

/** The process's own stdout and stderr. */
export const processOutput: CliOutput = {
  out: (text) => void process.stdout.write(text),
  err: (text) => void process.stderr.write(text),
};

/** Reads all of standard input. */
export async function readStdin(): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of process.stdin) {
    chunks.push(typeof chunk === "string" ? new TextEncoder().encode(chunk) : chunk);
  }
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.length;
  }
  return out;
}

/** Reads `source` for `flag`: a file path, or `-` for standard input. A missing file is a usage mistake. */
export async function readInput(source: string, flag: string): Promise<Uint8Array> {
  if (source === "-") return await readStdin();
  try {
    return readFileSync(source);
  } catch (error) {
    const code = (error as { code?: string }).code;
    const why = code === "ENOENT" ? "no such file" : code === "EISDIR" ? "is a directory" : String(code ?? error);
    throw new UsageError(`${flag}: cannot read ${source}: ${why}`);
  }
}

/** Parses JSON read for `flag`, naming the flag and the source when it is not JSON. */
export function parseJson(bytes: Uint8Array, flag: string, source: string): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch (error) {
    throw new UsageError(
      `${flag}: ${source === "-" ? "stdin" : source} is not valid JSON (${(error as Error).message})`,
    );
  }
}
