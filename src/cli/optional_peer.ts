/**
 * Loading what needs an optional peer of the npm package (the MCP SDK for
 * `dsh-shell mcp`) only when it is asked for, so that `run`, `env` and
 * `hook` work in an install without it, and saying in one line which
 * package to install when it is missing.
 *
 * @module
 */

import { ShellError } from "../seam/errors.ts";

/** A command that needs a package the install does not have: one line, exit 125. */
export class MissingPeerError extends ShellError {
  /** The code of this class in the library's error family. */
  readonly code = "ERR_CLI_MISSING_PEER" as const;
  /**
   * Creates the error.
   *
   * @param what What needs it (`"the MCP server"`).
   * @param name The package to install.
   */
  constructor(what: string, name: string, options?: ErrorOptions) {
    super(`${what} needs ${name}, an optional peer of @dsh/shell: install it (npm install ${name})`, options);
    this.name = "MissingPeerError";
  }
}

/**
 * `load()`, or a {@linkcode MissingPeerError} naming `name` when it fails
 * because `name` cannot be found (Node: `ERR_MODULE_NOT_FOUND`, "Cannot
 * find package 'NAME'"). Any other failure is rethrown as it is.
 */
export async function withPeer<T>(what: string, name: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    const message = error instanceof Error ? error.message : "";
    if (message.includes(`'${name}'`) || message.includes(`"${name}"`) || message.includes(`${name}/`)) {
      throw new MissingPeerError(what, name, { cause: error });
    }
    throw error;
  }
}
