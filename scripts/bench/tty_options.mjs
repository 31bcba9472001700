// The measurements behind docs/interactive.md: the pseudo-terminal options side by side, on the runtime that runs
// this file. Node: `node scripts/bench/tty_options.mjs` from a directory whose node_modules holds @lydell/node-pty
// (npm/ after scripts/build_npm.ts --test). Deno: `deno run -A scripts/bench/tty_options.mjs` (deno.json maps it).
// Prints one JSON line per measurement: median and p90 in ms of interleaved runs.
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import process from "node:process";

const RUNS = Number(process.argv[2] ?? 40);
const runtime = "Deno" in globalThis ? `deno ${globalThis.Deno.version.deno}` : `node ${process.version}`;
const env = { PATH: "/usr/bin:/bin", TERM: "xterm-256color" };

const t = performance.now();
const pty = createRequire(import.meta.url)("@lydell/node-pty");
const loadMs = performance.now() - t;

/** Spawns `true` and resolves with the ms until its exit has been seen and its output drained. */
const start = {
  pipes: () =>
    new Promise((resolve) => {
      const t0 = performance.now();
      const child = spawn("/bin/true", [], { env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
      child.on("close", () => resolve(performance.now() - t0));
    }),
  "node-pty": () =>
    new Promise((resolve) => {
      const t0 = performance.now();
      const term = pty.spawn("/bin/true", [], { env, cols: 80, rows: 24, cwd: "/", encoding: null });
      term.onExit(() => resolve(performance.now() - t0));
    }),
  script: () =>
    new Promise((resolve) => {
      const t0 = performance.now();
      const child = spawn("script", ["-qec", "/bin/true", "/dev/null"], {
        env,
        detached: true,
        stdio: ["pipe", "pipe", "pipe"],
      });
      child.on("close", () => resolve(performance.now() - t0));
    }),
};

/** Starts `cat` and returns a function measuring one byte's round trip (written, then seen in the output). */
const roundTrip = {
  pipes: () => {
    const child = spawn("/bin/cat", [], { env, detached: true, stdio: ["pipe", "pipe", "ignore"] });
    return { trip: trip((b) => child.stdin.write(b), (f) => child.stdout.on("data", f), 2), end: () => child.kill() };
  },
  "node-pty": () => {
    const term = pty.spawn("/bin/cat", [], { env, cols: 80, rows: 24, cwd: "/", encoding: null });
    return { trip: trip((b) => term.write(b), (f) => term.onData(f), 6), end: () => term.kill("SIGKILL") };
  },
  script: () => {
    const child = spawn("script", ["-qec", "/bin/cat", "/dev/null"], {
      env,
      detached: true,
      stdio: ["pipe", "pipe", "ignore"],
    });
    return {
      trip: trip((b) => child.stdin.write(b), (f) => child.stdout.on("data", f), 6),
      end: () => process.kill(-child.pid, "SIGKILL"),
    };
  },
};

/** One round trip: "x\n" written, and `expected` bytes back (a terminal echoes the line, then cat prints it). */
function trip(write, onData, expected) {
  let waiting;
  let seen = 0;
  onData((chunk) => {
    seen += chunk.length;
    if (seen >= expected) waiting?.();
  });
  return () =>
    new Promise((resolve) => {
      seen = 0;
      const t0 = performance.now();
      waiting = () => {
        waiting = undefined;
        resolve(performance.now() - t0);
      };
      write(Buffer.from("x\n"));
    });
}

function summary(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return { median: Number(at(0.5).toFixed(2)), p90: Number(at(0.9).toFixed(2)) };
}

const results = { start: {}, roundTrip: {} };
for (const name of Object.keys(start)) results.start[name] = [];
for (let i = 0; i < RUNS; i++) {
  for (const [name, run] of Object.entries(start)) results.start[name].push(await run());
}
for (const [name, open] of Object.entries(roundTrip)) {
  const { trip, end } = open();
  await new Promise((resolve) => setTimeout(resolve, 200)); // let it start
  const samples = [];
  for (let i = 0; i < RUNS * 2; i++) samples.push(await trip());
  end();
  results.roundTrip[name] = samples;
}
console.log(JSON.stringify({ runtime, loadNodePtyMs: Number(loadMs.toFixed(1)) }));
for (const [kind, byName] of Object.entries(results)) {
  for (const [name, samples] of Object.entries(byName)) {
    console.log(JSON.stringify({ kind, name, ...summary(samples) }));
  }
}
process.exit(0);
