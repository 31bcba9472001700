/**
 * Engines: the same `Shell` on this machine, in a Docker container, or on
 * a host over SSH. Pass one to `createShell`: everything else — requests,
 * the environment scrub, termination of the whole process group (there,
 * grandchildren included), bounded output with spill files on this disk,
 * tasks and owners, `close()`, no orphans when the harness dies — is the
 * same contract. See `docs/engines.md`.
 *
 * @example
 * ```ts
 * import { createShell } from "@dsh/shell";
 * import { dockerEngine, localEngine, sshEngine } from "@dsh/shell/engines";
 * import assert from "node:assert/strict";
 * const inContainer = dockerEngine({ container: "agent-7" });
 * const onHost = sshEngine({ host: "10.0.0.5", user: "agent", identityFile: "/keys/agent" });
 * assert.deepEqual([inContainer.name, onHost.name], ["docker", "ssh"]);
 * // Nothing connects until a shell runs a command there; here, locally:
 * await using shell = createShell(localEngine());
 * assert.equal((await shell.exec("echo here")).stdout.text, "here\n");
 * ```
 *
 * @module
 */

export { localEngine } from "./local.ts";
export { dockerEngine, type DockerEngineOptions } from "./docker.ts";
export { sshEngine, type SshEngineOptions } from "./ssh.ts";
export type {
  EngineChannel,
  EngineFailure,
  EngineLink,
  EngineOutput,
  EngineProcess,
  LocalEngine,
  RemoteEngine,
  ShellEngine,
} from "../seam/engine.ts";
