// @ts-check
/**
 * What each part of a sandboxed command costs: the argv `run()` builds for
 * `true` in a sandboxed shell (the default policy), taken apart one piece at
 * a time down to the minimal `bwrap --ro-bind / / --dev /dev --proc
 * /proc bash -c true`, every variant spawned raw and interleaved call by
 * call. Each row drops one more piece than the row above it, so the
 * difference between a row and the one above it is what that piece costs:
 *
 * 1. the library's argv, as `run()` hands it to the adapter (the raw bwrap of scenario 6);
 * 2. without the launcher shell (`dash`, which opens the status and seccomp files: given as fds 3 and 4 instead);
 * 3. without `nsenter` into the owner's namespace (the per-owner `/tmp` holder);
 * 4. without the mount check (the `bash` inside that reads `/proc/self/mountinfo`);
 * 5. without the seccomp filter (`--seccomp 4`);
 * 6. without `--unshare-net`;
 * 7. without the environment as flags (`--clearenv` and a `--setenv` per variable: the same environment, given
 *    to bwrap instead);
 * 8. without the extra mounts (the workdir, `.git`, its hooks and config, `/tmp`, `/run`, the spill directory, the
 *    masked files);
 * 9. without the other namespaces and flags (the minimal bwrap itself) (`--unshare-user/-pid/-ipc/-uts/-cgroup-try`, `--disable-userns`,
 *    `--die-with-parent`, `--cap-drop ALL`, `--uid/--gid`, `--chdir`, `--json-status-fd`): the minimal bwrap.
 *
 * Node only (extra fds for a spawn): `node scripts/bench/sandbox_parts.mjs [calls] [rounds]`, after
 * `deno task bench` has installed the package into `.bench/node/`. Prints one markdown table.
 *
 * @module
 */

import { spawn } from "node:child_process";
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import process from "node:process";
import { fileURLToPath, pathToFileURL } from "node:url";

const calls = Number(process.argv[2] ?? 100);
const rounds = Number(process.argv[3] ?? 3);
const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const packages = join(root, ".bench", "node");
const fromPackages = createRequire(join(packages, "package.json"));
/** @param {string} name */
const load = (name) => import(pathToFileURL(fromPackages.resolve(name)).href);
const { createLocalShell } = await load("@dsh/shell");
const { nodeAdapter } = await load("@dsh/shell/node");

const workdir = join(root, ".bench", "sandbox-work");
mkdirSync(join(workdir, ".git", "hooks"), { recursive: true });
writeFileSync(join(workdir, ".git", "config"), "");
/** @type {{ program: string, args: string[], env: Record<string, string>, cwd: string } | undefined} */
let captured;
const shell = createLocalShell({
  workdir,
  sandbox: {},
  adapter: {
    ...nodeAdapter,
    spawn: (/** @type {any} */ request) => {
      captured ??= { program: request.program, args: [...request.args], env: request.env, cwd: request.cwd };
      return nodeAdapter.spawn(request);
    },
  },
});
const first = await shell.exec("true");
if (first.exitCode !== 0 || captured === undefined) throw new Error(`the sandboxed shell failed: ${first.stderr.text}`);
const full = captured;

// The launcher: `dash -c <script> dsh-sandbox <status> <seccomp> <state> <max> <nsenter…>` (bash with a session's
// state: `bash --norc -p -c …`).
const named = full.args.indexOf("dsh-sandbox");
const seccompPath = full.args[named + 2];
const afterLauncher = full.args.slice(named + 5);
const bwrapAt = afterLauncher.findIndex((arg) => arg.endsWith("/bwrap"));
const bwrap = afterLauncher.slice(bwrapAt);
const separator = bwrap.indexOf("--");
const flags = bwrap.slice(1, separator);
const inner = bwrap.slice(separator + 1);
// The mount check: `bash --norc -p -c <check> dsh-mounts <mountinfo> <count> <count × 3 values> <command…>`.
const count = Number(inner[7]);
const command = inner.slice(8 + count * 3);

/**
 * `flags` without the named options (with as many values as each takes).
 *
 * @param {string[]} list
 * @param {Record<string, number>} drop option → the number of values after it
 */
function without(list, drop) {
  const out = [];
  for (let i = 0; i < list.length; i++) {
    const values = drop[list[i]];
    if (values === undefined) out.push(list[i]);
    else i += values;
  }
  return out;
}

const envFlags = { "--clearenv": 0, "--setenv": 2 };
const mountFlags = { "--bind": 2, "--tmpfs": 1 };
/** @param {string[]} list The extra `--ro-bind`s go, the root one stays. */
const withoutExtraRoBinds = (list) => {
  const out = [];
  for (let i = 0; i < list.length; i++) {
    if (list[i] === "--ro-bind" && list[i + 1] !== "/") i += 2;
    else out.push(list[i]);
  }
  return out;
};
const scratch = mkdtempSync(join(tmpdir(), "dsh-parts-"));
const statusFile = join(scratch, "status");

/** @type {{ name: string, program: string, args: string[], env: Record<string, string>, fds: boolean }[]} */
const variants = [];
const step = (/** @type {string} */ name, /** @type {string[]} */ argv, env = full.env, fds = true) =>
  variants.push({ name, program: argv[0], args: argv.slice(1), env, fds });
variants.push({ name: "1. the library's argv", program: full.program, args: full.args, env: full.env, fds: false });
step("2. − launcher shell", afterLauncher);
step("3. − nsenter (per-owner /tmp)", bwrap);
step("4. − mount check", [bwrap[0], ...flags, "--", ...command]);
let rest = without(flags, { "--seccomp": 1 });
step("5. − seccomp", [bwrap[0], ...rest, "--", ...command]);
rest = without(rest, { "--unshare-net": 0 });
step("6. − --unshare-net", [bwrap[0], ...rest, "--", ...command]);
const environment = Object.fromEntries(
  flags.flatMap((flag, i) => flag === "--setenv" ? [[flags[i + 1], flags[i + 2]]] : []),
);
rest = without(rest, envFlags);
step("7. − environment as flags", [bwrap[0], ...rest, "--", ...command], environment);
rest = withoutExtraRoBinds(without(rest, mountFlags));
step("8. − extra mounts", [bwrap[0], ...rest, "--", ...command], environment);
step(
  "9. minimal bwrap",
  [bwrap[0], "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--", ...command],
  environment,
  false,
);

/** @param {(typeof variants)[number]} variant */
function once(variant) {
  return new Promise((resolve, reject) => {
    /** @type {number[]} */
    const fds = [];
    if (variant.fds) fds.push(openSync(statusFile, "w"), openSync(seccompPath, "r"));
    const child = spawn(variant.program, variant.args, {
      cwd: full.cwd,
      env: variant.env,
      detached: true,
      stdio: ["ignore", "pipe", "pipe", ...fds],
    });
    for (const fd of fds) closeSync(fd);
    let stderr = "";
    child.stdout?.on("data", () => {});
    child.stderr?.on("data", (chunk) => stderr += chunk);
    child.on("error", reject);
    child.on(
      "close",
      (code) => code === 0 ? resolve(undefined) : reject(new Error(`${variant.name}: ${code} ${stderr}`)),
    );
  });
}

/** @type {Record<string, number[]>} */
const roundMeans = Object.fromEntries(variants.map((v) => [v.name, []]));
try {
  for (const variant of variants) for (let i = 0; i < 3; i++) await once(variant);
  for (let round = 0; round < rounds; round++) {
    /** @type {Record<string, number>} */
    const sums = Object.fromEntries(variants.map((v) => [v.name, 0]));
    for (let i = 0; i < calls; i++) {
      for (let k = 0; k < variants.length; k++) {
        const variant = variants[(i + k) % variants.length];
        const started = performance.now();
        await once(variant);
        sums[variant.name] += performance.now() - started;
      }
    }
    for (const variant of variants) roundMeans[variant.name].push(sums[variant.name] / calls);
  }
} finally {
  await shell.close();
  rmSync(scratch, { recursive: true, force: true });
}

const median = (/** @type {number[]} */ values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const minimal = median(roundMeans["9. minimal bwrap"]);
console.log(`| variant (each row drops one more piece) | ms/call | the piece this row drops | × minimal bwrap |`);
console.log(`| :-- | --: | --: | --: |`);
for (const variant of variants) {
  const ms = median(roundMeans[variant.name]);
  const before = variants[variants.indexOf(variant) - 1];
  const piece = before === undefined ? "" : (median(roundMeans[before.name]) - ms).toFixed(2);
  console.log(`| ${variant.name} | ${ms.toFixed(2)} | ${piece} | ×${(ms / minimal).toFixed(2)} |`);
}
console.log(
  `\n${calls} calls × ${rounds} rounds, interleaved; Node ${process.version}; load average ${
    (await import("node:os")).loadavg().map((n) => n.toFixed(2)).join(" ")
  } at the end.`,
);
