/**
 * The TypeScript compiler the build uses, pinned in this one place so that
 * every step parses, checks and emits with the same version.
 *
 * It comes from npm because only the npm registry is reachable (no JSR, so
 * no dnt, which would otherwise do this job).
 *
 * @module
 */

// deno-lint-ignore no-import-prefix -- the compiler is a build tool, not a dependency of the library
import ts from "npm:typescript@6.0.3";

export default ts;
