/**
 * A private OpenSSH server for the engine tests: on a free loopback port,
 * with its own host key, key authentication only (a client key made for the
 * run), logging in as {@linkcode SSH_USER} (an ordinary account with
 * `/bin/sh` as its shell, made when missing, like the sandbox tests' user:
 * root's login scripts here run pyenv and take 150 ms per command), and a
 * login environment of its own (`SetEnv`):
 * a marker, a credential-shaped variable the scrub must drop, and a `PATH`.
 * One server per test file; it starts in milliseconds.
 *
 * The "remote" side is this machine, so what runs there is read from the
 * local /proc, outside the code under test.
 *
 * Nothing here imports the library.
 */

import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { randomBytes } from "node:crypto";
import { createConnection, createServer } from "node:net";
import { join } from "node:path";
import process from "node:process";

const SSHD = ["/usr/sbin/sshd", "/usr/bin/sshd"].find((path) => existsSync(path));

/**
 * The account the tests log in as: made for this run and removed when its
 * server stops, so that two runs of the suite on one machine (two clones)
 * never see, sweep or count each other's processes.
 */
export const SSH_USER: string = `dsheng${randomBytes(5).toString("hex")}`;

/** What the server sets in every login environment. */
export const LOGIN_ENV = {
  ENGINE_LOGIN_MARKER: "from-sshd",
  ENGINE_LOGIN_TOKEN: "login-secret",
} as const;

/** Why a private server cannot run here, or false when it can. */
export function sshUnavailable(): string | false {
  if (process.platform !== "linux") return "the SSH engine tests need Linux";
  if (typeof process.getuid !== "function" || process.getuid() !== 0) return "the SSH engine tests need root";
  if (SSHD === undefined) return "sshd is not installed (apt-get install openssh-server)";
  if (spawnSync("ssh", ["-V"]).status !== 0) return "the ssh client is not on PATH (apt-get install openssh-client)";
  if (spawnSync("ssh-keygen", ["-?"]).error !== undefined) {
    return "ssh-keygen is missing (apt-get install openssh-client)";
  }
  return false;
}

/** A running private server. */
export class SshDaemon {
  readonly dir: string;
  readonly port: number;
  /** The client's private key and the known hosts file holding the server's key. */
  readonly identityFile: string;
  readonly knownHostsFile: string;
  readonly #server: ChildProcess;

  private constructor(dir: string, port: number, server: ChildProcess) {
    this.dir = dir;
    this.port = port;
    this.identityFile = join(dir, "client_key");
    this.knownHostsFile = join(dir, "known_hosts");
    this.#server = server;
  }

  /** Starts a server on a free loopback port; `maxSessions` per connection (default 64: many commands at once). */
  static async start(maxSessions = 64): Promise<SshDaemon> {
    if (SSHD === undefined) throw new Error("sshd missing");
    const dir = mkdtempSync("/tmp/dsh-ssh-test-");
    // sshd reads the authorized keys as the user who logs in: the directory must be passable.
    chmodSync(dir, 0o711);
    mkdirSync(join(dir, "authorized"));
    chmodSync(join(dir, "authorized"), 0o755);
    for (const [file, comment] of [["host_key", "dsh-engine-host"], ["client_key", "dsh-engine-client"]]) {
      const made = spawnSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", comment, "-f", join(dir, file)]);
      if (made.status !== 0) throw new Error(`ssh-keygen failed: ${made.stderr}`);
    }
    ensureUser();
    running++;
    for (const user of [SSH_USER, "root"]) {
      copyFileSync(join(dir, "client_key.pub"), join(dir, "authorized", user));
      chmodSync(join(dir, "authorized", user), 0o644);
    }
    // The privilege separation directory sshd insists on.
    mkdirSync("/run/sshd", { recursive: true, mode: 0o755 });
    const port = await freePort();
    writeFileSync(
      join(dir, "sshd_config"),
      [
        "ListenAddress 127.0.0.1",
        `Port ${port}`,
        `HostKey ${join(dir, "host_key")}`,
        `PidFile ${join(dir, "sshd.pid")}`,
        `AuthorizedKeysFile ${join(dir, "authorized")}/%u`,
        "StrictModes no",
        "PasswordAuthentication no",
        "KbdInteractiveAuthentication no",
        "PubkeyAuthentication yes",
        "UsePAM no",
        "PermitRootLogin prohibit-password",
        "PermitUserEnvironment no",
        // What Debian's server accepts, and its client's /etc/ssh/ssh_config sends (SendEnv LANG LC_*): the engine's
        // client must send none of it.
        "AcceptEnv LANG LC_*",
        `SetEnv ${Object.entries(LOGIN_ENV).map(([name, value]) => `${name}=${value}`).join(" ")}`,
        // One connection per shell carries every command of it: allow many at once.
        `MaxSessions ${maxSessions}`,
        "MaxStartups 64:30:128",
        "LogLevel VERBOSE",
        "",
      ].join("\n"),
    );
    const hostKey = readFileSync(join(dir, "host_key.pub"), "utf8").trim().split(" ").slice(0, 2).join(" ");
    writeFileSync(join(dir, "known_hosts"), `[127.0.0.1]:${port} ${hostKey}\n`);
    const server = spawn(SSHD, ["-D", "-f", join(dir, "sshd_config"), "-E", join(dir, "sshd.log")], {
      stdio: "ignore",
    });
    const daemon = new SshDaemon(dir, port, server);
    // sshd has no readiness event: a connection being accepted is the sign.
    const deadline = Date.now() + 10_000;
    while (!await accepts(port)) {
      if (Date.now() > deadline || server.exitCode !== null) {
        await daemon.stop();
        throw new Error(`sshd did not come up; see ${join(dir, "sshd.log")}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return daemon;
  }

  /**
   * The processes of {@linkcode SSH_USER} that still run, but for sshd's
   * own per-connection processes: what the code under test started on the
   * "remote" side (which is this machine) and left.
   */
  ours(): { pid: number; comm: string; sid: number }[] {
    const uid = userId();
    const found: { pid: number; comm: string; sid: number }[] = [];
    for (const entry of readdirSync("/proc")) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        if (statSync(`/proc/${entry}`).uid !== uid) continue;
        const line = readFileSync(`/proc/${entry}/stat`, "latin1");
        const close = line.lastIndexOf(")");
        const f = line.slice(close + 2).split(" ");
        const comm = line.slice(line.indexOf("(") + 1, close);
        if (comm === "sshd" || (f[0] === "Z" && Number(f[17]) <= 1) || f[0] === "X") continue;
        found.push({ pid: Number(entry), comm, sid: Number(f[3]) });
      } catch {
        // Gone between the listing and the read.
      }
    }
    return found;
  }

  /** How many logins the server has accepted so far: one per connection. */
  logins(): number {
    const log = readFileSync(join(this.dir, "sshd.log"), "utf8");
    return log.split("\n").filter((line) => line.includes("Accepted publickey")).length;
  }

  /** Stops the server (open connections end with their sessions) and removes its directory. */
  async stop(): Promise<void> {
    if (this.#server.exitCode === null && this.#server.signalCode === null) {
      const exited = new Promise<void>((resolve) => this.#server.once("exit", () => resolve()));
      this.#server.kill("SIGTERM");
      await exited;
    }
    rmSync(this.dir, { recursive: true, force: true });
    running--;
    if (running === 0) removeUser();
  }
}

/** How many servers of this process run: the user goes when the last one stops. */
let running = 0;

/** Removes {@linkcode SSH_USER} and its home; what it still runs is killed first (userdel refuses a busy user). */
function removeUser(): void {
  if (spawnSync("id", [SSH_USER]).status !== 0) return;
  spawnSync("pkill", ["-KILL", "-u", SSH_USER]);
  spawnSync("userdel", ["-r", "-f", SSH_USER], { stdio: "ignore" });
  uidOfUser = undefined;
}

/**
 * Makes {@linkcode SSH_USER} when it is missing: a home, `/bin/sh`, and no
 * password but not locked (`*`: with `UsePAM no`, sshd refuses a locked
 * account even for key authentication).
 */
function ensureUser(): void {
  if (spawnSync("id", [SSH_USER]).status === 0) return;
  const made = spawnSync("useradd", ["-m", "-s", "/bin/sh", SSH_USER], { encoding: "utf8" });
  if (made.status !== 0 && spawnSync("id", [SSH_USER]).status !== 0) throw new Error(`useradd failed: ${made.stderr}`);
  spawnSync("usermod", ["-p", "*", SSH_USER]);
}

let uidOfUser: number | undefined;

/** The uid of {@linkcode SSH_USER}. */
function userId(): number {
  if (uidOfUser !== undefined) return uidOfUser;
  const out = spawnSync("id", ["-u", SSH_USER], { encoding: "utf8" });
  if (out.status !== 0) throw new Error(`no user ${SSH_USER}`);
  uidOfUser = Number(out.stdout.trim());
  return uidOfUser;
}

/** A port nothing listens on right now (the kernel's choice). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: "127.0.0.1", port });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}
