/**
 * A private Docker daemon for the engine tests: its own socket, data root
 * and exec root under a fresh directory, no bridge and no iptables rules
 * (nothing of the machine's network is touched; containers run with
 * `--network none`), and a test image imported from busybox-static (no
 * registry is reachable). One daemon per test file: it starts in well
 * under a second.
 *
 * The raw CLI is used to look at the container from outside the code under
 * test: `docker exec <c> cat /proc/<pid>/stat…` says what runs there.
 *
 * Nothing here imports the library.
 */

import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import process from "node:process";

/** Where busybox-static may be found (Debian's package installs /bin/busybox). */
const BUSYBOX = ["/bin/busybox", "/usr/bin/busybox"].find((path) => existsSync(path));
const DOCKERD = ["/usr/sbin/dockerd", "/usr/bin/dockerd"].find((path) => existsSync(path));
/** The image every test container runs. */
export const TEST_IMAGE = "dsh-engine-test:1";

/** Why a private daemon cannot run here, or false when it can. */
export function dockerUnavailable(): string | false {
  if (process.platform !== "linux") return "the Docker engine tests need Linux";
  if (typeof process.getuid !== "function" || process.getuid() !== 0) return "the Docker engine tests need root";
  if (DOCKERD === undefined) return "dockerd is not installed (apt-get install docker.io)";
  if (spawnSync("docker", ["--version"]).status !== 0) {
    return "the docker CLI is not on PATH (apt-get install docker.io)";
  }
  if (BUSYBOX === undefined) return "busybox-static is not installed (apt-get install busybox-static)";
  if (!isStatic(BUSYBOX)) return `${BUSYBOX} is linked dynamically (apt-get install busybox-static)`;
  return false;
}

/**
 * Whether the ELF executable at `path` needs no dynamic loader (no
 * PT_INTERP program header): only such a busybox runs alone in the image.
 */
function isStatic(path: string): boolean {
  const elf = readFileSync(path);
  if (elf.readUInt32BE(0) !== 0x7f454c46 || elf[4] !== 2) return false; // "\x7fELF", 64-bit
  const little = elf[5] === 1;
  const u16 = (at: number) => little ? elf.readUInt16LE(at) : elf.readUInt16BE(at);
  const u32 = (at: number) => little ? elf.readUInt32LE(at) : elf.readUInt32BE(at);
  const offset = Number(little ? elf.readBigUInt64LE(0x20) : elf.readBigUInt64BE(0x20));
  const size = u16(0x36);
  for (let i = 0; i < u16(0x38); i++) if (u32(offset + i * size) === 3) return false; // PT_INTERP
  return true;
}

/** A process as a container's /proc describes it. */
export interface ContainerProc {
  pid: number;
  state: string;
  pgrp: number;
  sid: number;
  threads: number;
  comm: string;
}

/** A running private daemon. */
export class DockerDaemon {
  /** `DOCKER_HOST` for it. */
  readonly host: string;
  readonly dir: string;
  readonly #daemon: ChildProcess;
  /** What each container ran right after it started. */
  readonly #baseline = new Map<string, Set<number>>();

  private constructor(dir: string, daemon: ChildProcess) {
    this.dir = dir;
    this.host = `unix://${join(dir, "docker.sock")}`;
    this.#daemon = daemon;
  }

  /** Starts a daemon and imports the test image. */
  static async start(): Promise<DockerDaemon> {
    if (DOCKERD === undefined || BUSYBOX === undefined) throw new Error("dockerd or busybox missing");
    // Short: containerd's sockets live below it.
    const dir = mkdtempSync("/tmp/dsh-dk-");
    const log = openSync(join(dir, "dockerd.log"), "a");
    const daemon = spawn(DOCKERD, [
      "--host",
      `unix://${join(dir, "docker.sock")}`,
      "--data-root",
      join(dir, "data"),
      "--exec-root",
      join(dir, "exec"),
      "--pidfile",
      join(dir, "docker.pid"),
      "--bridge=none",
      "--iptables=false",
      "--ip6tables=false",
      "--ip-masq=false",
      "--userland-proxy=false",
      "--containerd-namespace",
      "dsh-engine-test",
      "--containerd-plugins-namespace",
      "dsh-engine-test-plugins",
    ], { detached: true, stdio: ["ignore", log, log] });
    const docker = new DockerDaemon(dir, daemon);
    const exited = new Promise<void>((resolve) => daemon.once("exit", () => resolve()));
    let up = false;
    exited.then(() => up = false);
    const deadline = Date.now() + 30_000;
    // The daemon has no readiness event we can wait on: its API answering is the sign.
    while (Date.now() < deadline && daemon.exitCode === null) {
      if (docker.cli(["version"]).status === 0) {
        up = true;
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    if (!up) {
      await docker.stop();
      throw new Error(`dockerd did not come up; see ${join(dir, "dockerd.log")}`);
    }
    docker.#importImage();
    return docker;
  }

  /** Runs the docker CLI against this daemon. */
  cli(args: string[], input?: string): { status: number | null; stdout: string; stderr: string } {
    const out = spawnSync("docker", args, {
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", DOCKER_HOST: this.host },
      input,
      encoding: "utf8",
      timeout: 60_000,
    });
    return { status: out.status, stdout: out.stdout ?? "", stderr: out.stderr ?? "" };
  }

  /**
   * Starts a container of the test image with `env` (docker-init as pid 1,
   * `sleep` as its main process, no network), and returns its name.
   */
  run(name: string, env: Record<string, string> = {}): string {
    const args = ["run", "-d", "--init", "--network", "none", "--name", name];
    for (const [key, value] of Object.entries(env)) args.push("-e", `${key}=${value}`);
    const out = this.cli([...args, TEST_IMAGE, "sleep", "2147483647"]);
    if (out.status !== 0) throw new Error(`docker run failed: ${out.stderr}`);
    // docker-init starts the main process after `docker run` returns: the baseline is both of them.
    const deadline = Date.now() + 10_000;
    let procs = this.processes(name);
    while (procs.length < 2 && Date.now() < deadline) procs = this.processes(name);
    if (procs.length !== 2) throw new Error(`the container ${name} runs ${procs.length} processes, not 2`);
    this.#baseline.set(name, new Set(procs.map((p) => p.pid)));
    return name;
  }

  /**
   * The container's processes, read from its own /proc through the raw CLI,
   * without the reader itself (the session of the `sh` it runs).
   */
  processes(container: string): ContainerProc[] {
    const out = this.cli([
      "exec",
      container,
      "sh",
      "-c",
      "echo $$; for f in /proc/[0-9]*/stat; do cat $f 2>/dev/null; echo; done",
    ]);
    if (out.status !== 0) throw new Error(`cannot read the container's processes: ${out.stderr}`);
    const [reader, ...lines] = out.stdout.split("\n");
    const procs: ContainerProc[] = [];
    for (const line of lines) {
      const close = line.lastIndexOf(")");
      if (close < 0) continue;
      const f = line.slice(close + 2).split(" ");
      procs.push({
        pid: Number(line.slice(0, line.indexOf(" "))),
        state: f[0],
        pgrp: Number(f[2]),
        sid: Number(f[3]),
        threads: Number(f[17]),
        comm: line.slice(line.indexOf("(") + 1, close),
      });
    }
    return procs.filter((p) => p.sid !== Number(reader));
  }

  /**
   * The processes that run in the container besides what it was started
   * with (its init and main process): what the code under test started
   * there and left. Zombies whose only thread is themselves count as gone.
   */
  ours(container: string): ContainerProc[] {
    const baseline = this.#baseline.get(container) ?? new Set<number>();
    return this.processes(container).filter((p) => !baseline.has(p.pid) && !(p.state === "Z" && p.threads <= 1));
  }

  /** The entries of a directory in the container (the supervisors' record directories, say). */
  list(container: string, glob: string): string[] {
    const out = this.cli(["exec", container, "sh", "-c", `for f in ${glob}; do [ -e "$f" ] && echo "$f"; done`]);
    return out.stdout.split("\n").filter((line) => line !== "");
  }

  /** Removes every container, stops the daemon (and its containerd) and removes its directory. */
  async stop(): Promise<void> {
    const ids = this.cli(["ps", "-aq"]).stdout.split("\n").filter((id) => id !== "");
    if (ids.length > 0) this.cli(["rm", "-f", ...ids]);
    if (this.#daemon.exitCode === null && this.#daemon.signalCode === null) {
      const exited = new Promise<void>((resolve) => this.#daemon.once("exit", () => resolve()));
      this.#daemon.kill("SIGTERM");
      const timer = setTimeout(() => this.#daemon.kill("SIGKILL"), 20_000);
      await exited;
      clearTimeout(timer);
    }
    // dockerd stops its containerd, but only after it has exited itself: wait for the socket's owner to go.
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline && containerdOf(this.dir).length > 0) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    spawnSync("umount", ["-R", join(this.dir, "data")], { stdio: "ignore" });
    rmSync(this.dir, { recursive: true, force: true });
  }

  #importImage(): void {
    const root = join(this.dir, "rootfs");
    for (const sub of ["bin", "tmp", "etc", "root", "work"]) mkdirSync(join(root, sub), { recursive: true });
    copyFileSync(BUSYBOX as string, join(root, "bin", "busybox"));
    const applets = spawnSync(BUSYBOX as string, ["--list"], { encoding: "utf8" }).stdout.split("\n");
    for (const applet of applets) {
      if (applet !== "" && applet !== "busybox") symlinkSync("busybox", join(root, "bin", applet));
    }
    writeFileSync(join(root, "etc", "passwd"), "root:x:0:0:root:/root:/bin/sh\n");
    writeFileSync(join(root, "etc", "group"), "root:x:0:\n");
    spawnSync("chmod", ["1777", join(root, "tmp")]);
    const tar = spawnSync("tar", ["-C", root, "-c", "."], { maxBuffer: 64 * 1024 * 1024 });
    const imported = spawnSync("docker", ["import", "-c", "ENV PATH=/bin", "-c", 'CMD ["/bin/sh"]', "-", TEST_IMAGE], {
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", DOCKER_HOST: this.host },
      input: tar.stdout,
      encoding: "utf8",
    });
    if (imported.status !== 0) throw new Error(`docker import failed: ${imported.stderr}`);
    rmSync(root, { recursive: true, force: true });
  }
}

/** The pids of containerd processes started for the daemon in `dir`. */
function containerdOf(dir: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8");
      if (cmdline.startsWith("containerd") && cmdline.includes(dir)) pids.push(Number(entry));
    } catch {
      // Gone between the listing and the read.
    }
  }
  return pids;
}
