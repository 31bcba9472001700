#!/usr/bin/env -S deno run -A
/**
 * The `dsh-shell` CLI: `run`, `env`, `hook` and `mcp`, over the same code a
 * harness imports. Run it as `deno run -A jsr:@dsh/shell/cli` or, from
 * npm, as the `dsh-shell` bin.
 *
 * @example
 * ```ts
 * import { main } from "@dsh/shell/cli";
 * import assert from "node:assert/strict";
 * // What `dsh-shell run -- 'exit 3'` does: the command's own exit code comes back.
 * const code = await main(["run", "--", "exit 3"]);
 * assert.equal(code, 3);
 * ```
 *
 * @module
 */

import { realpathSync } from "node:fs";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { UsageError } from "./args.ts";
import { envCommand } from "./env_command.ts";
import { EXIT_FAILED, EXIT_USAGE } from "./exit_codes.ts";
import { MAIN_HELP } from "./help.ts";
import { VERSION } from "../version.ts";
import { MissingPeerError, withPeer } from "./optional_peer.ts";
import { hookCommand } from "./hook_command.ts";
import { type CliOutput, processOutput } from "./io.ts";

export type { CliOutput } from "./io.ts";
import { runCommand } from "./run_command.ts";

const COMMANDS: Record<string, (args: readonly string[], output: CliOutput) => Promise<number>> = {
  run: runCommand,
  env: envCommand,
  hook: hookCommand,
  // Loaded when asked for: the MCP SDK is an optional peer of the npm package, which run, env and hook do not need.
  mcp: async (args, output) => {
    const { mcpCommand } = await withPeer(
      "the MCP server",
      "@modelcontextprotocol/sdk",
      () => import("./mcp_command.ts"),
    );
    return await mcpCommand(args, output);
  },
};

/**
 * Runs the CLI with `args` (without the program name) and resolves with
 * its exit code. Mistakes are reported as one line on `output.err`, never
 * as a stack trace.
 *
 * @example
 * ```ts
 * import { type CliOutput, main } from "@dsh/shell/cli";
 * import type { EnvExplanation } from "@dsh/shell/seam";
 * import assert from "node:assert/strict";
 * let stdout = "";
 * const output: CliOutput = { out: (text) => void (stdout += text), err: () => {} };
 * const code = await main(["env", "--env", "GREETING=hi", "--json"], output);
 * assert.equal(code, 0);
 * const explanation: EnvExplanation = JSON.parse(stdout);
 * assert.ok(explanation.entries.some((entry) => entry.name === "GREETING" && entry.source === "env"));
 * assert.ok(explanation.entries.some((entry) => entry.name === "GIT_PAGER" && entry.source === "override"));
 * ```
 */
export async function main(args: readonly string[], output: CliOutput = processOutput): Promise<number> {
  const [name, ...rest] = args;
  if (name === "--help" || name === "-h" || name === "help") {
    output.out(MAIN_HELP);
    return 0;
  }
  if (name === "--version" || name === "-V") {
    output.out(`dsh-shell ${VERSION}\n`);
    return 0;
  }
  const command = name === undefined ? undefined : COMMANDS[name];
  try {
    if (name === undefined) throw new UsageError("missing the command: run, env, hook or mcp (try --help)");
    if (command === undefined) throw new UsageError(`unknown command ${JSON.stringify(name)} (try --help)`);
    return await command(rest, output);
  } catch (error) {
    const where = command === undefined ? "dsh-shell" : `dsh-shell ${name}`;
    if (error instanceof UsageError) {
      output.err(`${where}: ${error.message}\n`);
      return EXIT_USAGE;
    }
    if (error instanceof MissingPeerError) {
      output.err(`${where}: ${error.message}\n`);
      return EXIT_FAILED;
    }
    const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    output.err(`${where}: ${message.replace(/\n/g, " ")}\n`);
    return EXIT_FAILED;
  }
}

/** Whether this module is the program being run (Deno: `import.meta.main`; Node: argv[1] is this file). */
function isMainModule(): boolean {
  const meta = import.meta as ImportMeta & { main?: boolean };
  if (meta.main !== undefined) return meta.main;
  const entry = process.argv[1];
  if (entry === undefined) return false;
  try {
    // npx runs the bin through a symlink: compare real paths.
    return realpathSync(entry) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isMainModule()) {
  // exitCode, not exit(): output written to a pipe must be flushed first.
  process.exitCode = await main(process.argv.slice(2));
}
