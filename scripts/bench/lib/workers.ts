/**
 * Starts the runtime workers (`workers/node.mjs`, `workers/deno.ts`) and
 * reads their one-line JSON answers. Each worker is a fresh process, so a
 * scenario never inherits another's heap, JIT state or child processes.
 *
 * @module
 */

import { join } from "node:path";
import { ROOT } from "./node_setup.ts";

/** The two legs. */
export type Runtime = "node" | "deno";

/** What a worker prints: its runtime, and the raw samples of one scenario by variant. */
export interface WorkerAnswer {
  runtime: Runtime;
  version: string;
  scenario: string;
  // deno-lint-ignore no-explicit-any -- the shape depends on the scenario; report.ts reads it
  results: Record<string, any>;
}

const NODE_WORKER = join(ROOT, "scripts/bench/workers/node.mjs");
const DENO_WORKER = join(ROOT, "scripts/bench/workers/deno.ts");

/**
 * Runs one worker with `payload` (its config) and returns its answer. The
 * worker's stderr (warnings the library printed, for example) is relayed
 * to ours, prefixed, so nothing it says is lost.
 *
 * @param node The Node binary, for the Node leg.
 */
export async function runWorker(runtime: Runtime, payload: object, node: string): Promise<WorkerAnswer> {
  const json = JSON.stringify(payload);
  // --expose-gc: the big-output scenario collects garbage before taking its RSS baseline.
  const [command, args] = runtime === "node"
    ? [node, ["--expose-gc", NODE_WORKER, json]]
    : [Deno.execPath(), ["run", "-A", "--v8-flags=--expose-gc", DENO_WORKER, json]];
  const { success, code, stdout, stderr } = await new Deno.Command(command, {
    args,
    cwd: ROOT,
    stdin: "null",
  }).output();
  const decoder = new TextDecoder();
  const errors = decoder.decode(stderr).trim();
  if (errors !== "") {
    console.error(errors.split("\n").map((line) => `  [${runtime} worker] ${line}`).join("\n"));
  }
  if (!success) throw new Error(`the ${runtime} worker failed (exit ${code})`);
  const lines = decoder.decode(stdout).trim().split("\n");
  return JSON.parse(lines[lines.length - 1]) as WorkerAnswer;
}
