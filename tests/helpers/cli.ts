/**
 * The CLI as a user runs it: a subprocess of the runtime running the tests,
 * on the sources under Deno and on the built package's bin under Node.
 *
 * Nothing here imports the library.
 */

import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { IS_DENO, scriptArgs } from "./runtime.ts";

// The Node leg runs against the built package: its CLI is the compiled bin.
const CLI = fileURLToPath(new URL(IS_DENO ? "../../src/cli/main.ts" : "../../esm/src/cli/main.js", import.meta.url));

/** How a CLI run ended. */
export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The program and arguments that run `dsh-shell args…` (for a client that spawns it, as an MCP client does). */
export function cliCommand(args: string[]): { command: string; args: string[] } {
  return { command: process.execPath, args: scriptArgs(CLI, args) };
}

/** Starts `dsh-shell args…` as a subprocess with extra `env`, its three streams piped, for a test to drive. */
export function spawnCli(args: string[], env: Record<string, string> = {}): ChildProcessWithoutNullStreams {
  return spawn(process.execPath, scriptArgs(CLI, args), { env: { ...process.env, ...env }, stdio: "pipe" });
}

/** Runs `dsh-shell args…` as a subprocess, with `stdin` and extra `env`. */
export function dshShell(
  args: string[],
  options: { stdin?: string; env?: Record<string, string> } = {},
): Promise<CliRun> {
  const child = spawnCli(args, options.env);
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => stdout += chunk);
  child.stderr.on("data", (chunk) => stderr += chunk);
  child.stdin.end(options.stdin ?? "");
  return new Promise((resolve) => child.once("close", (code) => resolve({ code, stdout, stderr })));
}
