/**
 * The zod schema of the sandbox policy; the shell options' schema
 * (`resolve/schemas.ts`) takes it for their `sandbox` field.
 *
 * @module
 */

import { z } from "zod";
import { absolutePath, path } from "../schema_parts.ts";
import type { SandboxPolicy } from "./types.ts";

/**
 * The zod schema of {@linkcode SandboxPolicy}'s fields (internal; part of the shell options' schema in
 * `resolve/schemas.ts`). The paths are resolved and checked for existence later, by `policy.ts`.
 */
export const sandboxPolicySchema: z.ZodType<SandboxPolicy> = z.strictObject({
  writableRoots: z.array(absolutePath, { error: "must be an array of absolute paths" }).optional(),
  denyRead: z.array(
    path.refine((p) => p.startsWith("/") || p === "~" || p.startsWith("~/"), {
      error: "must be an absolute path or start with ~/",
    }),
    { error: "must be an array of paths" },
  ).optional(),
  network: z.enum(["none", "host"], { error: 'must be "none" or "host"' }).optional(),
  protectGit: z.boolean({ error: "must be true or false" }).optional(),
  bwrapPath: path.optional(),
  // A refinement of any value, not z.number(): a type refusal (a string, NaN) would abort the object branch, and the
  // union of the options' `sandbox` field would then say "must be false or a sandbox policy object" instead of naming
  // the field.
  tmpMaxBytes: (z.unknown().refine((n) => typeof n === "number" && Number.isSafeInteger(n) && n >= 4096, {
    error: "must be a whole number of bytes, at least 4096",
  }) as z.ZodType<number>).optional(),
}, { error: (issue) => issue.code === "unrecognized_keys" ? undefined : "must be false or a sandbox policy object" });
