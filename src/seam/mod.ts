/**
 * The process-adapter contract of `@dsh/shell`, for writing an adapter of
 * your own: what a runtime must do to spawn, signal and watch process
 * groups. Pass an adapter to `createShell` (from the root entry). Nothing
 * here spawns a process by itself.
 *
 * @example
 * ```ts
 * import { createShell } from "@dsh/shell";
 * import type { ProcessAdapter } from "@dsh/shell/seam";
 * import { nodeAdapter } from "@dsh/shell/node";
 * import assert from "node:assert/strict";
 * // An adapter that counts spawns and otherwise is Node's.
 * let spawns = 0;
 * const counting: ProcessAdapter = { ...nodeAdapter, spawn: (request) => (spawns++, nodeAdapter.spawn(request)) };
 * await using shell = createShell(counting);
 * await shell.exec("true");
 * assert.equal(spawns, 1);
 * ```
 *
 * @module
 */

export type {
  ChannelHandle,
  ChannelRequest,
  ChildExit,
  ChildHandle,
  GroupSignal,
  ProbeOutcome,
  ProbeRequest,
  ProcessAdapter,
  SpawnRequest,
  WatchdogHandle,
} from "./adapter.ts";
