/**
 * The build's progress lines. Every line carries the script's name, so that
 * in `deno task test` and CI logs the build's lines stand apart from node's
 * and npm's output, which pass through unchanged.
 *
 * @module
 */

/** Prints a progress line with the script's name. */
export function log(message: string): void {
  console.log(`build_npm: ${message}`);
}
