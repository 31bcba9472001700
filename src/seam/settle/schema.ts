/**
 * The zod schema of a settled command's result, for a result that crossed a
 * process or network boundary; the public alias is `ShellRunResultSchema` in
 * the `./seam` entry.
 *
 * @module
 */

import { z } from "zod";
import { collectedOutputSchema } from "../capture/schema.ts";
import type { ShellRunResult } from "./types.ts";

/** The zod schema of {@linkcode ShellRunResult} (internal; the public alias is in `../schemas.ts`). */
export const runResultSchema: z.ZodType<ShellRunResult> = z.object({
  exitCode: z.number().int().nullable(),
  signal: z.string().nullable(),
  timedOut: z.boolean(),
  aborted: z.boolean(),
  timeoutMs: z.number().positive(),
  durationMs: z.number().nonnegative(),
  stdout: collectedOutputSchema,
  stderr: collectedOutputSchema,
  sessionNote: z.string().optional(),
});
