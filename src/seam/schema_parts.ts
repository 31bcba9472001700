/**
 * The zod pieces that more than one feature's schema is built from: text
 * the OS can be given, and paths. The request's schemas (`resolve/`) and the
 * sandbox policy's (`sandbox/`) both use them, so they live above both.
 *
 * @module
 */

import { z } from "zod";

/** Whether `value` has no NUL, which ends a C string: the OS would see a shorter text than the caller gave. */
export const noNul = (value: string): boolean => !value.includes("\0");

/**
 * A high surrogate not followed by a low one, or a low one not preceded by
 * a high one: a string the OS cannot be given. Encoding would silently turn
 * it into U+FFFD, so something else than asked would run or be set.
 */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
/** Whether `value` has no lone surrogate: see {@linkcode LONE_SURROGATE}. */
export const wellFormed = (value: string): boolean => !LONE_SURROGATE.test(value);
/** How a schema words a lone surrogate. */
export const LONE_SURROGATE_PROBLEM = "contains a lone UTF-16 surrogate, which has no UTF-8 encoding";

/** A non-empty path the OS can be given. */
export const path = z.string({ error: "must be a string" })
  .min(1, { error: "must not be empty" })
  .refine(noNul, { error: "must not contain a NUL character" })
  .refine(wellFormed, { error: LONE_SURROGATE_PROBLEM });

/** An absolute {@linkcode path}. */
export const absolutePath = path.refine((p) => p.startsWith("/"), { error: "must be an absolute path" });
