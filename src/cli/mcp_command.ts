/**
 * `dsh-shell mcp`: the shell as an MCP server over stdio, sandboxed by
 * default, for as long as the client keeps stdin open; with `--http`, over
 * Streamable HTTP until SIGTERM (`mcp_http.ts`).
 *
 * @module
 */

import process from "node:process";
import { createLocalShell } from "../local_shell.ts";
import { type McpToolSet, serveStdio } from "../mcp/mod.ts";
import { ShellSpecError } from "../seam/errors.ts";
import type { Shell } from "../seam/types.ts";
import { parseArgs, type ParsedArgs, parseMs, UsageError } from "./args.ts";
import { type CommonOptions, ENGINE_FLAGS, type EngineChoice, engineShell, parseEngine } from "./engine_choice.ts";
import { MCP_HELP } from "./help.ts";
import type { CliOutput } from "./io.ts";
import { HTTP_LISTS, HTTP_VALUES, parseHttpFlags, serveOverHttp } from "./mcp_http.ts";

const TOOL_SETS: readonly McpToolSet[] = ["claude", "codex", "all"];

/** Runs `dsh-shell mcp` with `args` (after the subcommand); resolves with the exit code once the client has gone. */
export async function mcpCommand(args: readonly string[], output: CliOutput): Promise<number> {
  const parsed = parseArgs(args, {
    values: ["workdir", "network", "tools", "timeout", "shell", "engine", ...ENGINE_FLAGS, ...HTTP_VALUES],
    lists: ["writable-root", ...HTTP_LISTS],
    switches: ["no-sandbox", "structured", "keep-control-sequences", "help"],
  });
  if (parsed.switches.has("help")) {
    output.out(MCP_HELP);
    return 0;
  }
  if (parsed.positionals.length > 0 || parsed.rest !== undefined) {
    throw new UsageError(`unexpected argument ${JSON.stringify(parsed.positionals[0] ?? "--")}`);
  }
  const tools = parsed.values.get("tools") ?? "all";
  if (!TOOL_SETS.includes(tools as McpToolSet)) {
    throw new UsageError(`--tools must be claude, codex or all, got ${JSON.stringify(tools)}`);
  }
  const timeout = parsed.values.get("timeout");
  const program = parsed.values.get("shell");
  // What every shell of the command takes: the default timeout, and the program run as `<shell> -c` (an image
  // without bash needs `--shell sh`).
  const common = {
    ...(timeout === undefined ? {} : { timeoutMs: parseMs(timeout, "--timeout") }),
    ...(program === undefined ? {} : { shell: program }),
  };
  // Checked (and the token read) before any shell is made.
  const http = parseHttpFlags(parsed);
  const engine = parseEngine(parsed);
  const { shell, openWorld } = engine === undefined ? localShell(parsed, common) : remoteShell(engine, common);
  // SIGTERM (and Ctrl-C) end the connection like a closed stdin: the calls are aborted, then the shell is closed.
  const terminate = new AbortController();
  const onSignal = (): void => terminate.abort();
  process.once("SIGTERM", onSignal);
  process.once("SIGINT", onSignal);
  try {
    const serverOptions = {
      tools: tools as McpToolSet,
      openWorld,
      structured: parsed.switches.has("structured"),
      keepControlSequences: parsed.switches.has("keep-control-sequences"),
    };
    if (http === undefined) {
      await serveStdio(shell, { ...serverOptions, signal: terminate.signal });
    } else {
      await serveOverHttp(shell, http, serverOptions, output, terminate.signal);
    }
  } finally {
    // close() resolves once every process the shell started is gone.
    await shell.close();
    process.off("SIGTERM", onSignal);
    process.off("SIGINT", onSignal);
    // Paused by the transport, stdin could still hold the event loop open on some runtimes.
    process.stdin.destroy();
  }
  return 0;
}

/** The local shell: sandboxed unless `--no-sandbox` (network none unless `--network host`). */
function localShell(parsed: ParsedArgs, common: CommonOptions): { shell: Shell; openWorld: boolean } {
  const workdir = parsed.values.get("workdir") ?? process.cwd();
  const network = parsed.values.get("network") ?? "none";
  if (network !== "none" && network !== "host") {
    throw new UsageError(`--network must be none or host, got ${JSON.stringify(network)}`);
  }
  const writableRoots = parsed.lists.get("writable-root") ?? [];
  const base = { workdir, ...common };
  if (parsed.switches.has("no-sandbox")) {
    if (parsed.values.has("network") || writableRoots.length > 0) {
      throw new UsageError("--network and --writable-root are sandbox options: they mean nothing with --no-sandbox");
    }
    return { shell: createLocalShell(base), openWorld: true };
  }
  if (process.platform !== "linux") {
    throw new UsageError(
      `the sandbox needs Linux (bubblewrap), not ${process.platform}: pass --no-sandbox to run unsandboxed`,
    );
  }
  // Fails at once (ShellSandboxError, one line) when bubblewrap is missing or cannot make its namespaces.
  const shell = createLocalShell({ ...base, sandbox: { network, writableRoots } });
  return { shell, openWorld: network === "host" };
}

/** A shell on the engine: the container or host is the boundary, so the local sandbox's flags are refused. */
function remoteShell(engine: EngineChoice, common: CommonOptions): { shell: Shell; openWorld: boolean } {
  try {
    return { shell: engineShell(engine, common), openWorld: true };
  } catch (error) {
    if (error instanceof ShellSpecError) throw new UsageError(`--engine: ${error.message}`);
    throw error;
  }
}
