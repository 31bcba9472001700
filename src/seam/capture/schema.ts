/**
 * The zod schema of a captured stream, for a result that crossed a process
 * or network boundary; the public alias is `CollectedOutputSchema` in the
 * `./schemas` entry.
 *
 * @module
 */

import { z } from "zod";
import type { CollectedOutput } from "./types.ts";

/** The zod schema of {@linkcode CollectedOutput} (internal; the public alias is in `../schemas.ts`). */
export const collectedOutputSchema: z.ZodType<CollectedOutput> = z.object({
  text: z.string(),
  truncated: z.boolean(),
  totalBytes: z.number().int().nonnegative(),
  spillPath: z.string().optional(),
});
