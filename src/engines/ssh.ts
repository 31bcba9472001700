/**
 * The SSH engine: commands on another host through the OpenSSH client, with
 * one multiplexed connection per shell. The shell's supervisor is the
 * control master's own session, so the connection and the supervisor live
 * and die together; every command is a session of that master
 * (`ssh -S <control socket>`), with no handshake of its own.
 *
 * The client reads no configuration file (`-F none`: a user's or the
 * system's `SendEnv`, `ProxyCommand` or `LocalCommand` must not apply to a
 * harness's commands), never prompts (`BatchMode`), checks the host key
 * strictly, forwards nothing, sends no environment, and a command's client
 * refuses to fall back to a connection of its own when the master is gone
 * (`ProxyCommand=/bin/false`): such a command would run unsupervised.
 *
 * @module
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import process from "node:process";
import type { ProcessAdapter } from "../seam/adapter.ts";
import type { EngineFailure, EngineLink, RemoteEngine } from "../seam/engine.ts";
import { ShellSpecError } from "../seam/errors.ts";
import { shellQuote } from "../seam/shell_quote.ts";
import { runtimeAdapter } from "../runtime_adapter.ts";
import { clientEnv, firstLines, startChannel, startProcess } from "./client.ts";
import { checkTimings } from "./timings.ts";

/**
 * Where and how the SSH engine runs commands.
 *
 * @example
 * ```ts
 * import type { SshEngineOptions } from "@dsh/shell/engines";
 * import assert from "node:assert/strict";
 * const options: SshEngineOptions = {
 *   host: "10.0.0.5",
 *   user: "agent",
 *   identityFile: "/keys/agent",
 *   knownHostsFile: "/keys/known_hosts",
 * };
 * assert.equal(options.port, undefined); // 22
 * ```
 */
export interface SshEngineOptions {
  /** The host name or address. */
  host: string;
  /** The port (default 22). */
  port?: number;
  /** The user to log in as (default: the client's own choice, the local user's name). */
  user?: string;
  /** The private key; with it, only this key is offered and no agent is asked. Default: the user's keys and agent. */
  identityFile?: string;
  /** The known hosts file the host key is checked against, strictly (default `~/.ssh/known_hosts`). */
  knownHostsFile?: string;
  /** The OpenSSH client (default `ssh` on `PATH`). */
  ssh?: string;
  /** Silence after which the host's side ends every command of the shell (default 3 000; 0: never). */
  heartbeatMs?: number;
  /** How long a connection may take to answer (default 15 000; the TCP connect alone at most 10 s). */
  connectTimeoutMs?: number;
}

/** The harness's variables the client may read for itself: nothing of them is sent (`-F none`: no SendEnv). */
const CLIENT_VARIABLES = ["PATH", "HOME", "USER", "LOGNAME"] as const;
/** With no key given, the user's agent may be asked. */
const AGENT_VARIABLES = ["SSH_AUTH_SOCK"] as const;
/** A Unix socket path is at most 104–108 bytes; ssh binds `<path>.<16 random chars>` first. */
const MAX_CONTROL_PATH = 80;

/**
 * An engine that runs a shell's commands on a host over OpenSSH, one
 * multiplexed connection per shell. Throws `ShellSpecError` naming an
 * invalid option; a host that refuses or drops the connection is a
 * `ShellEngineError` of the command that finds out.
 *
 * @example
 * ```ts
 * import { createShell, ShellEngineError } from "@dsh/shell";
 * import { sshEngine } from "@dsh/shell/engines";
 * import assert from "node:assert/strict";
 * // Port 1 on loopback: nothing listens, so the connection is refused; that is never an exit code.
 * const engine = sshEngine({ host: "127.0.0.1", port: 1, user: "agent" });
 * assert.equal(engine.target, "agent@127.0.0.1:1");
 * await using shell = createShell(engine, { workdir: "/srv/work" });
 * await assert.rejects(shell.exec("true"), (error) => {
 *   assert.ok(error instanceof ShellEngineError);
 *   assert.equal(error.engine, "ssh");
 *   assert.match(error.message, /connection refused/);
 *   return true;
 * });
 * ```
 */
export function sshEngine(options: SshEngineOptions): RemoteEngine {
  if (typeof options !== "object" || options === null) throw new ShellSpecError("options", "must be an object");
  const { host, port = 22, user, ssh = "ssh" } = options;
  if (
    typeof host !== "string" || host === "" || host.startsWith("-") || /[\s@]/.test(host) || hasControl(host)
  ) {
    throw new ShellSpecError(
      "host",
      "must be a host name or address (not starting with -, no spaces or @; give user apart)",
    );
  }
  if (!Number.isInteger(port) || port < 1 || port > 65_535) {
    throw new ShellSpecError("port", "must be a port, 1 to 65535");
  }
  if (
    user !== undefined &&
    (typeof user !== "string" || user === "" || user.startsWith("-") || /[\s@:]/.test(user) || hasControl(user))
  ) {
    throw new ShellSpecError("user", "must be a user name (not starting with -, no spaces, @ or :)");
  }
  const identityFile = optionalPath("identityFile", options.identityFile);
  const knownHostsFile = optionalPath("knownHostsFile", options.knownHostsFile);
  if (typeof ssh !== "string" || ssh === "" || /[\0\n]/.test(ssh)) {
    throw new ShellSpecError("ssh", "must be a non-empty string without NUL or newline");
  }
  const timings = checkTimings(options);
  const adapter = runtimeAdapter();
  const target = `${user === undefined ? "" : `${user}@`}${host}:${port}`;
  const owner = { engine: "ssh", target, adapter };
  const connectSeconds = Math.max(1, Math.min(10, Math.ceil((timings.connectTimeoutMs ?? 15_000) / 1000)));
  const base = [
    "-F",
    "none",
    "-T",
    "-e",
    "none",
    "-p",
    String(port),
    ...(user === undefined ? [] : ["-l", user]),
    ...(identityFile === undefined
      ? []
      : ["-i", identityFile.replaceAll("%", "%%"), "-o", "IdentitiesOnly=yes", "-o", "IdentityAgent=none"]),
    "-o",
    "BatchMode=yes",
    "-o",
    "StrictHostKeyChecking=yes",
    ...(knownHostsFile === undefined
      ? []
      : ["-o", `UserKnownHostsFile=${sshPath(knownHostsFile)}`, "-o", "GlobalKnownHostsFile=/dev/null"]),
    "-o",
    "UpdateHostKeys=no",
    "-o",
    "LogLevel=ERROR",
    "-o",
    `ConnectTimeout=${connectSeconds}`,
    "-o",
    "ServerAliveInterval=2",
    "-o",
    "ServerAliveCountMax=3",
    "-o",
    "ClearAllForwardings=yes",
    "-o",
    "ForwardAgent=no",
    "-o",
    "ForwardX11=no",
    "-o",
    "PermitLocalCommand=no",
  ];
  const connect = (): EngineLink => {
    const names = identityFile === undefined ? [...CLIENT_VARIABLES, ...AGENT_VARIABLES] : CLIENT_VARIABLES;
    const env = clientEnv(names, process.env);
    const dir = controlDirectory(adapter);
    const control = `ControlPath=${sshPath(join(dir, "c"))}`;
    const remote = (argv: readonly string[]): string => `exec ${argv.map(shellQuote).join(" ")}`;
    return {
      supervise: (argv, output) =>
        startChannel(owner, {
          program: ssh,
          args: [
            ...base,
            "-o",
            "ControlMaster=yes",
            "-o",
            control,
            "-o",
            "ControlPersist=no",
            "--",
            host,
            remote(argv),
          ],
          env,
        }, output),
      run: (argv, stdin, output, options) =>
        startProcess(
          owner,
          {
            program: ssh,
            args: [
              ...base,
              "-o",
              "ControlMaster=no",
              "-o",
              control,
              "-o",
              "ProxyCommand=/bin/false",
              // A terminal on the host, asked for even though ssh's own input is one too (-tt: whatever it is).
              ...(options?.terminal === undefined ? [] : ["-tt"]),
              "--",
              host,
              remote(argv),
            ],
            env,
          },
          stdin,
          output,
          options,
        ),
      explain: explainSsh,
      busy: (failure) => SESSION_REFUSED.test(firstLines(failure.stderr, 3)),
      // A multiplexed client starts from 255 and exits with anything else only when its master passes on the
      // session's exit-status from sshd (OpenSSH's mux.c): a lost connection or master is always 255.
      fromEngine: (exit) => exit.signal === null && exit.code !== null && exit.code !== 255,
      dispose: () => removeControlDirectory(dir),
    };
  };
  return { kind: "remote", name: "ssh", target, ...timings, connect };
}

/** The control directories of the connections open in this process, removed when it ends. */
const openDirectories = new Set<string>();
let removedAtExit = false;

/**
 * A private directory (0700, unpredictable name) for one connection's
 * control socket, with a path short enough for a socket: under the OS temp
 * dir, or `/tmp` when that is too long. A harness that ends without
 * `close()` leaves none behind (its masters end when their supervisors do);
 * one that is SIGKILLed does, empty.
 */
function controlDirectory(adapter: ProcessAdapter): string {
  let dir = mkdtempSync(join(tmpdir(), "dsh-ssh-"));
  if (join(dir, "c").length + 17 > MAX_CONTROL_PATH) {
    rmSync(dir, { recursive: true, force: true });
    dir = mkdtempSync("/tmp/dsh-ssh-");
  }
  if (!removedAtExit) {
    removedAtExit = true;
    adapter.onHostExit(() => {
      for (const open of openDirectories) rmSync(open, { recursive: true, force: true });
    });
  }
  openDirectories.add(dir);
  return dir;
}

/** Removes a connection's control directory. */
function removeControlDirectory(dir: string): void {
  openDirectories.delete(dir);
  rmSync(dir, { recursive: true, force: true });
}

/**
 * A path as the value of an `-o` option: `%` is ssh's token character and a
 * space would split the value, so it is double-quoted and `%` doubled.
 */
function sshPath(path: string): string {
  return `"${path.replaceAll("%", "%%")}"`;
}

/** Whether `text` holds a control character (below U+0020, or DEL). */
function hasControl(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}

function optionalPath(field: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "string" || value === "" || /["\0\n\r]/.test(value)) {
    throw new ShellSpecError(field, 'must be a path without quotes ("), NUL or line breaks');
  }
  return resolve(process.cwd(), value);
}

/** How `ssh` says that the server refused another session on a connection (sshd's `MaxSessions`). */
const SESSION_REFUSED = /Session open refused|session request failed/i;

/** Why `ssh` ended before the host's side answered, from its exit and stderr. */
function explainSsh(failure: EngineFailure): string {
  const text = firstLines(failure.stderr, 3);
  const said = text === "" ? "" : ` (${text})`;
  if (/Connection refused/i.test(text)) return `connection refused${said}`;
  if (/Permission denied|Too many authentication failures/i.test(text)) return `authentication failed${said}`;
  if (/Host key verification failed|host key is known|IDENTIFICATION HAS CHANGED/i.test(text)) {
    return `host key verification failed${said}`;
  }
  if (/Could not resolve hostname/i.test(text)) return `unknown host${said}`;
  if (/timed out/i.test(text)) return `connection timed out${said}`;
  if (SESSION_REFUSED.test(text)) {
    return `the server refused another session on the shell's connection (sshd's MaxSessions)${said}`;
  }
  if (
    /Connection closed|Connection reset|Broken pipe|kex_exchange_identification|mux_client|Control socket/i.test(text)
  ) {
    return `the connection was closed${said}`;
  }
  if (failure.signal !== null) return `ssh was ended by ${failure.signal}${said}`;
  return `ssh exited with ${failure.code}${said}`;
}
