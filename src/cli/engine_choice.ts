/**
 * `--engine docker:CONTAINER` and `--engine ssh:USER@HOST`: the flags that
 * choose a remote engine and the options it needs, checked, and the shell
 * on it.
 *
 * @module
 */

import { dockerEngine, sshEngine } from "../engines/mod.ts";
import { createShell } from "../seam/shell.ts";
import type { Shell } from "../seam/types.ts";
import { type ParsedArgs, UsageError } from "./args.ts";

/** The engine flags besides `--engine`, each meaningful for one engine. */
export const ENGINE_FLAGS: readonly string[] = ["docker-host", "ssh-port", "ssh-identity", "ssh-known-hosts"];

/** The options of `dsh-shell mcp` that every shell takes, local or remote. */
export interface CommonOptions {
  timeoutMs?: number;
  shell?: string;
}

/** The engine chosen, with its options and the workdir over there. */
export type EngineChoice =
  | { kind: "docker"; container: string; dockerHost?: string; workdir: string }
  | {
    kind: "ssh";
    host: string;
    user: string;
    port?: number;
    identityFile?: string;
    knownHostsFile?: string;
    workdir: string;
  };

/** Which engine each flag belongs to. */
const FLAG_ENGINE: Record<string, "docker" | "ssh"> = {
  "docker-host": "docker",
  "ssh-port": "ssh",
  "ssh-identity": "ssh",
  "ssh-known-hosts": "ssh",
};

/**
 * The engine `--engine` names, or undefined for this machine. Throws
 * `UsageError` for an engine it does not know, a flag of another engine,
 * a local sandbox flag with an engine, and a missing `--workdir` (there is
 * no current directory over there).
 */
export function parseEngine(parsed: ParsedArgs): EngineChoice | undefined {
  const given = parsed.values.get("engine");
  const kind = given === undefined ? undefined : given.slice(0, given.indexOf(":"));
  for (const flag of ENGINE_FLAGS) {
    if (parsed.values.has(flag) && FLAG_ENGINE[flag] !== kind) {
      throw new UsageError(`--${flag} is an option of --engine ${FLAG_ENGINE[flag]}:…`);
    }
  }
  if (given === undefined) return undefined;
  const target = given.slice(given.indexOf(":") + 1);
  if ((kind !== "docker" && kind !== "ssh") || !given.includes(":") || target === "") {
    throw new UsageError(`--engine must be docker:CONTAINER or ssh:USER@HOST, got ${JSON.stringify(given)}`);
  }
  for (const flag of ["no-sandbox", "network", "writable-root"]) {
    if (parsed.switches.has(flag) || parsed.values.has(flag) || parsed.lists.has(flag)) {
      throw new UsageError(`--${flag} is for this machine's sandbox; with --engine the ${kind} side is the boundary`);
    }
  }
  const workdir = parsed.values.get("workdir");
  if (workdir === undefined) throw new UsageError(`--engine ${kind}: needs --workdir DIR (the directory over there)`);
  if (kind === "docker") {
    const dockerHost = parsed.values.get("docker-host");
    return { kind, container: target, workdir, ...(dockerHost === undefined ? {} : { dockerHost }) };
  }
  const at = target.lastIndexOf("@");
  if (at <= 0 || at === target.length - 1) {
    throw new UsageError(`--engine ssh: needs USER@HOST, got ${JSON.stringify(target)}`);
  }
  const port = parsed.values.get("ssh-port");
  const identityFile = parsed.values.get("ssh-identity");
  const knownHostsFile = parsed.values.get("ssh-known-hosts");
  return {
    kind,
    user: target.slice(0, at),
    host: target.slice(at + 1),
    workdir,
    ...(port === undefined ? {} : { port: portOf(port) }),
    ...(identityFile === undefined ? {} : { identityFile }),
    ...(knownHostsFile === undefined ? {} : { knownHostsFile }),
  };
}

/** The shell on `choice` (the engine checks its own options: a `ShellSpecError` names the one it refuses). */
export function engineShell(choice: EngineChoice, common: CommonOptions): Shell {
  const options = { workdir: choice.workdir, ...common };
  if (choice.kind === "docker") {
    const { container, dockerHost } = choice;
    return createShell(dockerEngine({ container, ...(dockerHost === undefined ? {} : { dockerHost }) }), options);
  }
  const { kind: _kind, workdir: _workdir, ...ssh } = choice;
  return createShell(sshEngine(ssh), options);
}

/** `--ssh-port`: a TCP port. */
function portOf(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new UsageError(`--ssh-port must be a port number (1-65535), got ${JSON.stringify(value)}`);
  }
  return port;
}
