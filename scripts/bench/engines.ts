/**
 * `deno task bench:engines`: what a command costs on a remote engine, per
 * engine, against the engine's raw client doing the same job:
 *
 * - Docker: `run("true")` on a shell over `dockerEngine` against
 *   `docker exec <container> true`;
 * - SSH: `run("true")` on a shell over `sshEngine` (one multiplexed
 *   connection, opened once) against `ssh -S <control socket> host true`
 *   through a control master of its own, opened once too.
 *
 * Both engines are the tests' own (`tests/helpers/`): a private dockerd
 * with a busybox-static image, and an sshd on a loopback port, so this
 * needs root and the Debian packages `docker.io`, `busybox-static` and
 * `openssh-server` (what `.ci/run` installs). The variants run
 * interleaved, after a warm-up, on Deno against the sources; the runtime's
 * own share of a spawn is what `deno task bench` measures.
 *
 * Prints a markdown table (progress on stderr) and writes it to
 * `.bench/engines.md`. A script, not a test: it asserts nothing.
 *
 * Usage: `deno task bench:engines [--rounds=<n>]` (default 40 per variant).
 *
 * @module
 */

import { join } from "node:path";
import { createShell, type Shell } from "../../mod.ts";
import { dockerEngine, sshEngine } from "../../src/engines/mod.ts";
import { DockerDaemon, dockerUnavailable } from "../../tests/helpers/docker_daemon.ts";
import { SSH_USER, SshDaemon, sshUnavailable } from "../../tests/helpers/ssh_daemon.ts";
import { describeMachine } from "./lib/machine.ts";
import { BENCH_DIR } from "./lib/node_setup.ts";
import { fixed, median, quantile, times } from "./lib/stats.ts";

/** One measured variant: its name and how to run it once. */
interface Variant {
  name: string;
  once: () => Promise<void>;
}

/** The samples of one engine's variants, in ms. */
interface EngineResult {
  engine: string;
  samples: Map<string, number[]>;
}

/** Progress, on stderr. */
function log(line: string): void {
  console.error(`bench:engines: ${line}`);
}

/** Runs `program` with `args` to its end; throws unless it exits 0. */
async function raw(program: string, args: string[], env: Record<string, string>): Promise<void> {
  const { code, stderr } = await new Deno.Command(program, { args, env, clearEnv: true, stdout: "null" }).output();
  if (code !== 0) throw new Error(`${program} ${args.join(" ")}: exit ${code}: ${new TextDecoder().decode(stderr)}`);
}

/** `run("true")` on `shell`; throws unless it exits 0. */
function runTrue(shell: Shell): () => Promise<void> {
  const spec = shell.resolve({ command: "true", owner: null });
  return async () => {
    const result = await shell.run(spec);
    if (result.exitCode !== 0) throw new Error(`run("true"): ${JSON.stringify(result)}`);
  };
}

/** Warms every variant up, then runs them interleaved `rounds` times. */
async function measure(engine: string, variants: Variant[], rounds: number): Promise<EngineResult> {
  for (const variant of variants) for (let i = 0; i < 5; i++) await variant.once();
  const samples = new Map(variants.map((variant) => [variant.name, [] as number[]]));
  for (let round = 0; round < rounds; round++) {
    // Alternate the order so that neither always runs right after the other.
    const order = round % 2 === 0 ? variants : [...variants].reverse();
    for (const variant of order) {
      const started = performance.now();
      await variant.once();
      samples.get(variant.name)!.push(performance.now() - started);
    }
  }
  return { engine, samples };
}

/** The Docker engine's variants, on a container of a private daemon. */
async function docker(rounds: number): Promise<EngineResult> {
  const daemon = await DockerDaemon.start();
  try {
    const container = daemon.run("dsh-bench");
    await using shell = createShell(dockerEngine({ container, dockerHost: daemon.host }), {
      workdir: "/",
      shell: "sh",
    });
    const env = { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", DOCKER_HOST: daemon.host };
    return await measure("docker", [
      { name: 'run("true")', once: runTrue(shell) },
      { name: "docker exec <c> true", once: () => raw("docker", ["exec", container, "true"], env) },
    ], rounds);
  } finally {
    await daemon.stop();
  }
}

/** The SSH engine's variants, against a private server on loopback. */
async function ssh(rounds: number): Promise<EngineResult> {
  const server = await SshDaemon.start();
  const dir = await Deno.makeTempDir({ prefix: "dsh-bench-ssh-" });
  const control = join(dir, "c");
  const env = { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", HOME: dir };
  const options = [
    "-F",
    "none",
    "-p",
    String(server.port),
    "-l",
    SSH_USER,
    "-i",
    server.identityFile,
    "-o",
    "IdentitiesOnly=yes",
    "-o",
    "BatchMode=yes",
    "-o",
    `UserKnownHostsFile=${server.knownHostsFile}`,
    "-o",
    "StrictHostKeyChecking=yes",
    "-S",
    control,
  ];
  // The raw client's own master, as a harness using ssh directly would keep one.
  const master = new Deno.Command("ssh", {
    args: [...options, "-M", "-N", "-o", "ControlPersist=no", "127.0.0.1"],
    env,
    clearEnv: true,
    stdin: "null",
    stdout: "null",
    stderr: "inherit",
  }).spawn();
  try {
    // The master has no readiness event: its control socket answering `-O check` is the sign.
    const deadline = Date.now() + 10_000;
    while (
      (await new Deno.Command("ssh", {
        args: [...options, "-O", "check", "127.0.0.1"],
        env,
        clearEnv: true,
        stdout: "null",
        stderr: "null",
      }).output()).code !== 0
    ) {
      if (Date.now() > deadline) throw new Error("the raw ssh master did not come up");
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await using shell = createShell(
      sshEngine({
        host: "127.0.0.1",
        port: server.port,
        user: SSH_USER,
        identityFile: server.identityFile,
        knownHostsFile: server.knownHostsFile,
      }),
      { workdir: "/", shell: "sh" },
    );
    return await measure("ssh", [
      { name: 'run("true")', once: runTrue(shell) },
      { name: "ssh -S <ctl> host true", once: () => raw("ssh", [...options, "127.0.0.1", "true"], env) },
    ], rounds);
  } finally {
    master.kill("SIGTERM");
    await master.status;
    await Deno.remove(dir, { recursive: true });
    await server.stop();
  }
}

/** One table: per engine, each variant's median and p95, and run()'s median over the raw client's. */
function table(results: EngineResult[], rounds: number): string {
  const lines = [
    `### Engines: \`run("true")\` against the raw client, ${rounds} interleaved rounds — Deno ${Deno.version.deno}`,
    "",
    "| engine | variant | median ms | p95 ms | median ÷ raw |",
    "| ------ | ------- | --------: | -----: | -----------: |",
  ];
  for (const { engine, samples } of results) {
    const [ours, rawName] = [...samples.keys()];
    const base = median(samples.get(rawName)!);
    for (const [name, values] of samples) {
      const ratio = name === ours ? times(median(values) / base) : "";
      lines.push(`| ${engine} | ${name} | ${fixed(median(values))} | ${fixed(quantile(values, 0.95))} | ${ratio} |`);
    }
  }
  return lines.join("\n");
}

/** Runs the bench; returns the exit code. */
async function main(argv: string[]): Promise<number> {
  let rounds = 40;
  for (const arg of argv) {
    const match = /^--rounds=([1-9][0-9]*)$/.exec(arg);
    if (match === null) {
      console.error(
        `bench:engines: unknown argument ${JSON.stringify(arg)}; usage: deno task bench:engines [--rounds=<n>]`,
      );
      return 2;
    }
    rounds = Number(match[1]);
  }
  const missing = dockerUnavailable() || sshUnavailable();
  if (missing) {
    console.error(`bench:engines: cannot run here: ${missing}`);
    return 1;
  }
  const machine = await describeMachine(undefined);
  log(`docker, ${rounds} rounds`);
  const results = [await docker(rounds)];
  log(`ssh, ${rounds} rounds`);
  results.push(await ssh(rounds));
  const report = `${table(results, rounds)}\n\n${machine.cpuModel}, ${machine.cores} cores, ${machine.kernel}, ` +
    `load average at the start ${machine.loadAverage}, ${machine.date}.\n`;
  console.log(report);
  await Deno.mkdir(BENCH_DIR, { recursive: true });
  await Deno.writeTextFile(join(BENCH_DIR, "engines.md"), report);
  log(`written to ${join(BENCH_DIR, "engines.md")}`);
  return 0;
}

if (import.meta.main) {
  Deno.exit(await main(Deno.args));
}
