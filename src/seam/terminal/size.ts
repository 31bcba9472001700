/**
 * The size a request's `tty` asks for.
 *
 * Internal: not exported from the package.
 *
 * @module
 */

import type { TerminalSize } from "../adapter.ts";
import { ownValue } from "../own_fields.ts";
import type { ShellExecSpec } from "../types.ts";

/** A terminal's size where the request does not give one: the VT100's, which programs assume when they cannot ask. */
export const DEFAULT_SIZE: TerminalSize = { columns: 80, rows: 24 };

/**
 * The terminal `tty` asks for (80 × 24 where a side is not given), or
 * undefined for pipes (`tty` absent or `false`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { terminalSize } from "./size.ts";
 * assert.deepEqual(terminalSize(true), { columns: 80, rows: 24 });
 * assert.deepEqual(terminalSize({ rows: 50 }), { columns: 80, rows: 50 });
 * assert.equal(terminalSize(false), undefined);
 * ```
 */
export function terminalSize(tty: ShellExecSpec["tty"]): TerminalSize | undefined {
  if (tty === undefined || tty === false) return undefined;
  if (tty === true) return { ...DEFAULT_SIZE };
  return {
    columns: ownValue(tty, "columns") ?? DEFAULT_SIZE.columns,
    rows: ownValue(tty, "rows") ?? DEFAULT_SIZE.rows,
  };
}
