/**
 * Issue 41's A/B of a session command's state dump: `session.exec("true")`
 * of this tree against another tree's (`--against=<dir>`: a tree of the
 * library, such as the one `deno task bench --against=<ref>` exports into
 * `.bench/against/<sha>/tree`), call by call interleaved with a raw spawn of
 * `bash -c true` and `run("true")` of both, the order rotated each round.
 * Prints the medians and each one's ratio to the raw spawn, and the load
 * average before and after. The sessions carry `EXTRA` exported variables
 * besides the library's own (`--vars=N`), since the dump's cost grows with
 * each.
 *
 * Each row also shows its CPU time per call, this process's and its reaped children's (`/proc/self/stat`, 10 ms
 * ticks: a mean over many calls), which a loaded machine inflates less than the wall time.
 *
 * Usage: `npx -y deno@2.9.6 run -A scripts/bench/session_dump.ts --against=<dir> [--rounds=N] [--vars=N] [--sandbox]`
 *
 * @module
 */

import { loadavg } from "node:os";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as ours from "../../mod.ts";
import * as ourScript from "../../src/seam/carry/script.ts";
import * as ourState from "../../src/seam/carry/state.ts";

const flags = new Map(Deno.args.map((arg) => arg.replace(/^--/, "").split("=") as [string, string]));
const againstDir = flags.get("against");
if (againstDir === undefined) throw new Error("usage: session_dump.ts --against=<tree> [--rounds=N] [--vars=N]");
const rounds = Number(flags.get("rounds") ?? 200);
const vars = Number(flags.get("vars") ?? 0);
/** `--sandbox`: both trees' shells run their commands in the sandbox (the raw rows stay outside it, for scale). */
const sandboxed = flags.has("sandbox");
const tree = againstDir.replace(/\/$/, "");
const theirs = await import(`${tree}/mod.ts`) as typeof ours;
const theirScript = await import(`${tree}/src/seam/carry/script.ts`) as typeof ourScript;
const theirState = await import(`${tree}/src/seam/carry/state.ts`) as typeof ourState;
const scratch = mkdtempSync(join(tmpdir(), "dsh-dump-bench-"));

const env = Object.fromEntries(
  Array.from({ length: vars }, (_, i) => [`EXTRA_${i}`, `value ${i} /usr/local/bin:/usr/bin`]),
);

type Variant = { name: string; call: () => Promise<void> };

function library(lib: typeof ours, label: string): { variants: Variant[]; close: () => Promise<void> } {
  const shell = lib.createLocalShell(sandboxed ? { sandbox: {} } : {});
  const session = shell.session({ owner: null, env });
  const check = (result: ours.ShellRunResult, who: string): void => {
    if (result.exitCode !== 0) throw new Error(`${who}: exit ${result.exitCode} ${result.stderr.text}`);
  };
  return {
    variants: [
      {
        name: `session.exec("true") ${label}`,
        call: async () => check(await session.exec("true"), label),
      },
      {
        name: `run("true") ${label}`,
        call: async () => check(await shell.run(shell.resolve({ owner: null, command: "true", env })), label),
      },
    ],
    close: async () => {
      await session.close();
      await shell.close();
    },
  };
}

const mine = library(ours, "this tree");
const other = library(theirs, "parent");
/** `bash -c <script>` spawned raw, as `run()` spawns (its own session, no stdin), its output drained. */
async function rawBash(script: string): Promise<void> {
  const child = new Deno.Command("bash", {
    args: ["-c", script],
    detached: true,
    env,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  await Promise.all([
    child.status,
    new Response(child.stdout).arrayBuffer(),
    new Response(child.stderr).arrayBuffer(),
  ]);
}

const raw: Variant = { name: "raw spawn bash -c true", call: () => rawBash("true") };
/**
 * A raw spawn of `bash -c <prelude>true` whose trap writes the state into a file made as the library makes it, then
 * read back and parsed (`takeState`): the fresh design's floor, without the rest of the library.
 */
function rawWithState(script: typeof ourScript, state: typeof ourState, label: string): Variant {
  let count = 0;
  return {
    name: `raw spawn, ${label}'s trap, state read`,
    call: async () => {
      const file = state.makeStateFile(join(scratch, `.state-${label.replace(/ /g, "-")}-${count++}`));
      await rawBash(`${script.statePrelude(file, "bash")}true`);
      const taken = await state.takeState(file, { ...Deno.env.toObject(), ...env }, 1024 * 1024);
      if (taken.change === undefined) throw new Error(`${label}: no state`);
    },
  };
}
const variants = [
  raw,
  rawWithState(ourScript, ourState, "this tree"),
  rawWithState(theirScript, theirState, "parent"),
  ...mine.variants,
  ...other.variants,
];
const samples = new Map<string, number[]>(variants.map((variant) => [variant.name, []]));
/** CPU time of this process and its reaped children, in ms (`/proc/self/stat`: utime, stime, cutime, cstime). */
const cpuMs = (): number => {
  const stat = Deno.readTextFileSync("/proc/self/stat");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return fields.slice(11, 15).reduce((sum, ticks) => sum + Number(ticks), 0) * 10;
};
const cpu = new Map<string, number>(variants.map((variant) => [variant.name, 0]));
const before = loadavg();
for (let warm = 0; warm < 5; warm++) for (const variant of variants) await variant.call();
for (let round = 0; round < rounds; round++) {
  for (let index = 0; index < variants.length; index++) {
    const variant = variants[(index + round) % variants.length];
    const [start, startCpu] = [performance.now(), cpuMs()];
    await variant.call();
    samples.get(variant.name)!.push(performance.now() - start);
    cpu.set(variant.name, cpu.get(variant.name)! + cpuMs() - startCpu);
  }
}
const after = loadavg();
await mine.close();
await other.close();
rmSync(scratch, { recursive: true, force: true });

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};
const rawMedian = median(samples.get(raw.name)!);
console.log(
  `Deno ${Deno.version.deno}, ${rounds} rounds, ${vars} extra variables${
    sandboxed ? ", sandboxed" : ""
  }; load average ${before[0].toFixed(2)} ` +
    `before, ${after[0].toFixed(2)} after\n`,
);
const rawCpu = cpu.get(raw.name)! / rounds;
console.log("| variant | median ms | ÷ raw spawn | CPU ms/call (host and children) | ÷ raw spawn's |");
console.log("| --- | ---: | ---: | ---: | ---: |");
for (const [name, values] of samples) {
  const each = cpu.get(name)! / rounds;
  console.log(
    `| ${name} | ${median(values).toFixed(2)} | ×${(median(values) / rawMedian).toFixed(2)} | ${each.toFixed(2)} | ` +
      `×${(each / rawCpu).toFixed(2)} |`,
  );
}
