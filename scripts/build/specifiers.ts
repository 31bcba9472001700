/**
 * Module specifiers, from Deno's reading to Node's. The sources import the
 * way Deno resolves: through the `deno.json` import map, with `npm:`
 * specifiers and explicit `.ts` extensions. Node and tsc know none of that,
 * so the plan (which follows imports to find the dependencies) and the
 * compiler (which resolves and rewrites them) both read specifiers through
 * these functions, and agree on what each one means.
 *
 * @module
 */

import * as path from "node:path";
import { ROOT } from "./paths.ts";
import ts from "./typescript.ts";

/** An npm package named by an `npm:` specifier. */
export interface NpmSpecifier {
  name: string;
  version: string;
  /** The path inside the package, with its leading `/`, or `""`. */
  subpath: string;
}

/**
 * Splits `npm:@scope/name@^1.2.0/sub/path` into name, version and subpath.
 * A missing version means any version.
 */
export function parseNpmSpecifier(specifier: string): NpmSpecifier {
  const match = /^npm:\/?((?:@[^/@]+\/)?[^/@]+)(?:@([^/]+))?(\/.*)?$/.exec(specifier);
  if (!match) throw new Error(`not an npm: specifier: ${specifier}`);
  return { name: match[1], version: match[2] ?? "*", subpath: match[3] ?? "" };
}

/**
 * Applies the deno.json import map to a specifier: an exact key, or the
 * longest key ending in `/` that prefixes it. Unmapped specifiers are kept.
 */
export function applyImportMap(specifier: string, imports: Record<string, string>): string {
  if (imports[specifier] !== undefined) return imports[specifier];
  let best = "";
  for (const key of Object.keys(imports)) {
    if (key.endsWith("/") && specifier.startsWith(key) && key.length > best.length) best = key;
  }
  return best ? imports[best] + specifier.slice(best.length) : specifier;
}

/**
 * The specifier Node (and tsc) should see for what a Deno source imports:
 * import-mapped and `npm:` specifiers become bare package specifiers,
 * e.g. `zod` → `npm:zod@^4.1.0` → `zod`. Relative ones are kept, except
 * that a relative import-map target becomes absolute, since it is relative
 * to deno.json rather than to the importing file.
 */
export function toNodeSpecifier(specifier: string, imports: Record<string, string>): string {
  const mapped = applyImportMap(specifier, imports);
  if (mapped.startsWith("npm:")) {
    const { name, subpath } = parseNpmSpecifier(mapped);
    return name + subpath;
  }
  return mapped !== specifier && isRelative(mapped) ? path.resolve(ROOT, mapped) : mapped;
}

/** True for `./x` and `../x`. */
export function isRelative(specifier: string): boolean {
  return /^\.{1,2}\//.test(specifier);
}

/** True for a bare package specifier such as `zod` or `@scope/x/sub`. */
export function isPackageSpecifier(specifier: string): boolean {
  return !/^(?:\.{0,2}\/|[a-z][a-z0-9+.-]*:)/i.test(specifier);
}

/**
 * The source file a relative import means. After TypeScript's own rewrite a
 * specifier may already end in `.js`; an extensionless one (declaration
 * emit can produce them) means a `.ts` file or a folder's `index.ts`.
 */
export function sourceFileOf(resolved: string): string {
  const candidates = [
    resolved,
    resolved.replace(/\.(m?)js$/, ".$1ts"),
    `${resolved}.ts`,
    path.join(resolved, "index.ts"),
  ];
  return candidates.find((file) => ts.sys.fileExists(file)) ?? resolved;
}
