/**
 * Turns a spawn request into the same request run inside bubblewrap, and
 * reads back how it went. `Deno.Command` cannot hand a child any fd beyond
 * 0–2, so a tiny `sh` opens bubblewrap's status file as fd 3 and `exec`s
 * bubblewrap: the pid the runtime reports stays the session leader's, and
 * no extra process remains. The status file is what tells a command's own
 * exit 1 from a sandbox that never started (bubblewrap exits 1 for both).
 *
 * @module
 */

import { readFileSync, rmSync } from "node:fs";
import type { SpawnRequest } from "../adapter.ts";
import { bwrapArgs, type SandboxPlacement } from "./bwrap_args.ts";
import type { ResolvedSandbox } from "./policy.ts";

/** The fd bubblewrap writes its JSON status lines to. */
export const STATUS_FD = 3;

/** `$1` is the status file; the rest is bubblewrap's command line. */
const OPEN_STATUS_THEN_EXEC = `exec ${STATUS_FD}>"$1" || exit 125; shift; exec "$@"`;

/** `request`, run inside the sandbox; bubblewrap writes its status lines to `statusPath`. */
export function sandboxedRequest(
  request: SpawnRequest,
  sandbox: ResolvedSandbox,
  placement: Omit<SandboxPlacement, "statusFd">,
  statusPath: string,
): SpawnRequest {
  const inner = bwrapArgs(sandbox, { ...placement, statusFd: STATUS_FD });
  return {
    ...request,
    program: "/bin/sh",
    args: [
      "-c",
      OPEN_STATUS_THEN_EXEC,
      "dsh-sandbox",
      statusPath,
      sandbox.bwrapPath,
      ...inner,
      "--",
      request.program,
      ...request.args,
    ],
  };
}

/** What bubblewrap's status file said. */
export interface SandboxStatus {
  /** The command's exit code, when the command ran: its absence means the sandbox never started it. */
  exitCode?: number;
  /** The host pid of the sandbox's init (pid 1 inside), once bubblewrap had cloned it. */
  initPid?: number;
}

/** Reads and removes the status file. A missing or broken file says nothing. */
export function takeStatus(statusPath: string): SandboxStatus {
  let text = "";
  try {
    text = readFileSync(statusPath, "utf8");
  } catch {
    return {};
  }
  rmSync(statusPath, { force: true });
  const status: SandboxStatus = {};
  for (const line of text.split("\n")) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      continue;
    }
    if (typeof parsed !== "object" || parsed === null) continue;
    const record = parsed as Record<string, unknown>;
    if (typeof record["exit-code"] === "number") status.exitCode = record["exit-code"];
    if (typeof record["child-pid"] === "number") status.initPid = record["child-pid"];
  }
  return status;
}

/** bubblewrap's own reason for a failed set-up: its last `bwrap: …` line on stderr, or what stderr holds. */
export function setupFailureReason(stderr: string): string {
  const lines = stderr.split("\n").map((line) => line.trim()).filter((line) => line !== "");
  return lines.filter((line) => line.startsWith("bwrap: ")).at(-1) ?? lines.at(-1) ?? "no message";
}
