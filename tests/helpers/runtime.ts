/**
 * The runtime running the tests, found in one place: Deno runs the sources,
 * Node the compiled package (`npm/`), and a script is started differently
 * under each.
 */

/** Whether the tests run on Deno (the sources) rather than Node (the built package). */
export const IS_DENO: boolean = "Deno" in globalThis;

/** The arguments that make `process.execPath` run the script `file` with `args`: Deno needs `run -A`. */
export function scriptArgs(file: string, args: string[]): string[] {
  return IS_DENO ? ["run", "-A", file, ...args] : [file, ...args];
}
