/**
 * `@dsh/shell`: run shell commands for a model or for hooks, each in its own
 * process group, with a credential-scrubbed environment, a managed `DSH_*`
 * namespace, deadlines that kill the whole tree, and bounded output with a
 * spill file holding the full stream.
 *
 * @example
 * ```ts
 * import { createLocalShell } from "@dsh/shell";
 * await using shell = createLocalShell();
 * const result = await shell.run(shell.resolve({ command: "echo hello", owner: null }));
 * console.log(result.stdout.text); // "hello\n"
 * ```
 *
 * @module
 */

export { createLocalShell } from "./src/local_shell.ts";
export * from "./src/seam/mod.ts";
