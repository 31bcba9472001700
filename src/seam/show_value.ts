/**
 * How an error shows the value it refused, as "(got …)": short, and never
 * the whole of a long string. Shared by the seam's `ShellSpecError`s and
 * the tools' `ToolInputError`s, so that both word a bad value alike.
 *
 * @module
 */

/** A short description of `value`: a string quoted (cut at 40 characters), a number as written, a kind otherwise. */
export function showValue(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}...` : value);
  if (Array.isArray(value)) return "an array";
  if (value === null) return "null";
  if (typeof value === "object") return "an object";
  return String(value);
}
