/**
 * The package's version, where the CLI (`--version`) and the MCP server
 * (`initialize`) read it. `tests/cli.test.ts` holds it to `deno.json`'s.
 *
 * @module
 */

/** The version of `@dsh/shell` (the JSR and npm packages share it). */
export const VERSION = "2.0.0";
