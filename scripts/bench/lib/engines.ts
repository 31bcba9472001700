/**
 * The engines scenario's setup, on the orchestrator's side: the tests' own
 * engines (`tests/helpers/`), started once for both runtimes' workers — a
 * private dockerd with a container of the busybox-static image, and an sshd
 * on a loopback port with a control master of the raw client's own, opened
 * once as the shell's connection is (both sides then skip the handshake).
 * It needs root and the Debian packages `docker.io`, `busybox-static` and
 * `openssh-server`; where they are missing the scenario is skipped with the
 * reason in its table.
 *
 * @module
 */

import { join } from "node:path";
import { DockerDaemon, dockerUnavailable } from "../../../tests/helpers/docker_daemon.ts";
import { SSH_USER, SshDaemon, sshUnavailable } from "../../../tests/helpers/ssh_daemon.ts";

/** What a worker needs to reach both engines, as its library and as the raw clients. */
export interface EngineTargets {
  docker: { container: string; dockerHost: string; env: Record<string, string> };
  ssh: {
    host: string;
    port: number;
    user: string;
    identityFile: string;
    knownHostsFile: string;
    /** The raw client's options, its control socket (`-S`) included; the host and command follow them. */
    rawOptions: string[];
    env: Record<string, string>;
  };
}

/** The running engines, and how to stop them. */
export interface Engines {
  targets: EngineTargets;
  stop(): Promise<void>;
}

/** Why the engines cannot run here, or false. */
export function enginesUnavailable(): string | false {
  return dockerUnavailable() || sshUnavailable();
}

/** Starts both engines and the raw SSH client's master. */
export async function startEngines(): Promise<Engines> {
  const daemon = await DockerDaemon.start();
  const stops: (() => Promise<void>)[] = [() => daemon.stop()];
  const stop = async () => {
    for (const step of stops.reverse()) await step().catch(() => {});
  };
  try {
    const container = daemon.run("dsh-bench");
    const server = await SshDaemon.start();
    stops.push(() => server.stop());
    const dir = await Deno.makeTempDir({ prefix: "dsh-bench-ssh-" });
    stops.push(() => Deno.remove(dir, { recursive: true }));
    const env = { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", HOME: dir };
    const rawOptions = [
      ...["-F", "none", "-p", String(server.port), "-l", SSH_USER, "-i", server.identityFile],
      ...["-o", "IdentitiesOnly=yes", "-o", "BatchMode=yes", "-o", `UserKnownHostsFile=${server.knownHostsFile}`],
      ...["-o", "StrictHostKeyChecking=yes", "-S", join(dir, "c")],
    ];
    // The raw client's own master, as a harness using ssh directly would keep one.
    const master = new Deno.Command("ssh", {
      args: [...rawOptions, "-M", "-N", "-o", "ControlPersist=no", "127.0.0.1"],
      env,
      clearEnv: true,
      stdin: "null",
      stdout: "null",
      stderr: "inherit",
    }).spawn();
    stops.push(async () => {
      master.kill("SIGTERM");
      await master.status;
    });
    // The master has no readiness event: its control socket answering `-O check` is the sign.
    const deadline = Date.now() + 10_000;
    while (
      (await new Deno.Command("ssh", {
        args: [...rawOptions, "-O", "check", "127.0.0.1"],
        env,
        clearEnv: true,
        stdout: "null",
        stderr: "null",
      }).output()).code !== 0
    ) {
      if (Date.now() > deadline) throw new Error("the raw ssh master did not come up");
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return {
      targets: {
        docker: {
          container,
          dockerHost: daemon.host,
          env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", DOCKER_HOST: daemon.host },
        },
        ssh: {
          host: "127.0.0.1",
          port: server.port,
          user: SSH_USER,
          identityFile: server.identityFile,
          knownHostsFile: server.knownHostsFile,
          rawOptions,
          env,
        },
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
