/**
 * The Docker engine: commands in an existing, running container, through
 * the Docker CLI (`docker exec -i`), so contexts, `DOCKER_HOST` (also
 * `ssh://` and TLS daemons) and the CLI's own configuration work as they
 * do for the user. The container's processes are signalled from inside
 * the container, by the shell's supervisor: pids here and there differ.
 *
 * @module
 */

import process from "node:process";
import type { ProcessAdapter } from "../seam/adapter.ts";
import type { EngineFailure, EngineLink, RemoteEngine } from "../seam/engine.ts";
import { ShellSpecError } from "../seam/errors.ts";
import { runtimeAdapter } from "../runtime_adapter.ts";
import { clientEnv, firstLines, startChannel, startProcess } from "./client.ts";
import { checkTimings } from "./timings.ts";

/**
 * Where and how the Docker engine runs commands.
 *
 * @example
 * ```ts
 * import type { DockerEngineOptions } from "@dsh/shell/engines";
 * import assert from "node:assert/strict";
 * const options: DockerEngineOptions = { container: "agent-7", dockerHost: "unix:///run/user/1000/docker.sock" };
 * assert.equal(options.container, "agent-7");
 * ```
 */
export interface DockerEngineOptions {
  /** The container's name or id; it must exist and run. */
  container: string;
  /** The Docker CLI (default `docker` on `PATH`). */
  docker?: string;
  /** The daemon, as `DOCKER_HOST` takes it (default: the CLI's own choice: `DOCKER_HOST`, the context). */
  dockerHost?: string;
  /** Silence after which the container's side ends every command of the shell (default 3 000; 0: never). */
  heartbeatMs?: number;
  /** How long a connection may take to answer (default 15 000). */
  connectTimeoutMs?: number;
}

/** The harness's variables the Docker CLI reads for its own configuration; none reaches a container. */
const CLIENT_VARIABLES = [
  "PATH",
  "HOME",
  "DOCKER_HOST",
  "DOCKER_CONTEXT",
  "DOCKER_CONFIG",
  "DOCKER_CERT_PATH",
  "DOCKER_TLS_VERIFY",
  "DOCKER_API_VERSION",
] as const;

/** What Docker accepts as a container's name or id; anything else could be read as an option. */
const CONTAINER = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

/**
 * An engine that runs a shell's commands in a running Docker container.
 * Throws `ShellSpecError` naming an invalid option; a container that is
 * missing or stopped is a `ShellEngineError` of the command that finds out.
 *
 * @example
 * ```ts
 * import { createShell, ShellEngineError } from "@dsh/shell";
 * import { dockerEngine } from "@dsh/shell/engines";
 * import assert from "node:assert/strict";
 * // A daemon that is not there: the first command says so, it never gets an exit code.
 * const engine = dockerEngine({ container: "agent-7", dockerHost: "unix:///nonexistent/docker.sock" });
 * assert.equal(engine.target, "container agent-7");
 * await using shell = createShell(engine, { workdir: "/work", shell: "sh" });
 * await assert.rejects(shell.exec("true"), (error) => {
 *   assert.ok(error instanceof ShellEngineError);
 *   assert.match(error.message, /^docker container agent-7: /);
 *   return true;
 * });
 * ```
 */
export function dockerEngine(options: DockerEngineOptions): RemoteEngine {
  if (typeof options !== "object" || options === null) throw new ShellSpecError("options", "must be an object");
  const { container, docker = "docker", dockerHost } = options;
  if (typeof container !== "string" || !CONTAINER.test(container)) {
    throw new ShellSpecError("container", "must be a container name or id (letters, digits, _ . -, not first)");
  }
  checkText("docker", docker);
  if (dockerHost !== undefined) checkText("dockerHost", dockerHost);
  const timings = checkTimings(options);
  const adapter: ProcessAdapter = runtimeAdapter();
  const target = `container ${container}`;
  const owner = { engine: "docker", target, adapter };
  const connect = (): EngineLink => {
    const env = clientEnv(CLIENT_VARIABLES, process.env);
    if (dockerHost !== undefined) env.DOCKER_HOST = dockerHost;
    const exec = (argv: readonly string[], tty = false) => ({
      program: docker,
      args: ["exec", "-i", ...(tty ? ["-t"] : []), container, ...argv],
      env,
    });
    return {
      supervise: (argv, output) => startChannel(owner, exec(argv), output),
      // With a terminal, docker's CLI itself wants one (it refuses -t on a pipe): startProcess gives it a local one.
      run: (argv, stdin, output, options) =>
        startProcess(owner, exec(argv, options?.terminal !== undefined), stdin, output, options),
      explain: explainDocker,
      dispose: () => {},
    };
  };
  return { kind: "remote", name: "docker", target, ...timings, connect };
}

/** Why `docker exec` ended before the container's side answered, from its exit and stderr. */
function explainDocker(failure: EngineFailure): string {
  const text = firstLines(failure.stderr);
  const said = text === "" ? "" : ` (${text})`;
  if (/No such container/i.test(text)) return `no such container${said}`;
  if (/is not running/i.test(text)) return `the container is not running${said}`;
  if (/is paused/i.test(text)) return `the container is paused${said}`;
  if (/Cannot connect to the Docker daemon|connection refused|no such host/i.test(text)) {
    return `cannot reach the Docker daemon${said}`;
  }
  if (/OCI runtime exec failed|executable file not found/i.test(text)) {
    return `the container cannot run /bin/sh and env, which every command needs${said}`;
  }
  if (failure.signal !== null) return `docker exec was ended by ${failure.signal}${said}`;
  if (failure.code === 137 && text === "") return "the container stopped (docker exec exited with 137)";
  return `docker exec exited with ${failure.code}${said}`;
}

function checkText(field: string, value: unknown): void {
  if (typeof value !== "string" || value === "" || /[\0\n]/.test(value)) {
    throw new ShellSpecError(field, "must be a non-empty string without NUL or newline");
  }
}
