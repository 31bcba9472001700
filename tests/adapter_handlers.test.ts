/**
 * An output handler that throws. The adapter contract has no error channel
 * for it, so each adapter must contain it: the host process does not crash
 * (Node would rethrow from the stream's "data" event), the pipe is closed
 * so a child still writing gets EPIPE instead of blocking on a full pipe,
 * and `exited` and `drained` still settle.
 */

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { tmpdir } from "node:os";
import type { ChildHandle } from "../src/seam/mod.ts";
import { adaptersUnderTest } from "./helpers/adapters.ts";
import { within } from "./helpers/wait.ts";

for (const adapter of adaptersUnderTest) {
  describe(`the ${adapter.name} adapter: a throwing output handler`, () => {
    for (const stream of ["stdout", "stderr"] as const) {
      it(`on ${stream}: the child is not left blocked on a full pipe, and exited/drained settle`, async () => {
        let calls = 0;
        const failing = () => {
          calls++;
          throw new Error(`the ${stream} handler failed`);
        };
        // `yes` writes forever: it ends only when its pipe is closed (EPIPE / SIGPIPE).
        let child: ChildHandle | undefined;
        try {
          child = adapter.spawn({
            program: "/bin/sh",
            args: ["-c", stream === "stdout" ? "exec yes" : "exec yes >&2"],
            cwd: tmpdir(),
            env: { PATH: "/usr/bin:/bin" },
            onStdout: stream === "stdout" ? failing : () => {},
            onStderr: stream === "stderr" ? failing : () => {},
          });
          const exit = await within(child.exited, 10_000);
          assert.notEqual(exit, "timed out", "the child ended once its pipe was closed");
          assert.notEqual(await within(child.drained, 10_000), "timed out", "drained settled");
          assert.equal(calls, 1, "the handler is not called again after it threw");
        } finally {
          if (child !== undefined) {
            adapter.signalGroup(child.pid, "SIGKILL");
            child.releaseOutput();
          }
        }
      });
    }
  });
}
