/**
 * Part of step 2, compile: the compiler's inputs that are not in the
 * repository. The type-check needs Node's types, the dependencies' types and
 * the `Deno` namespace (for `src/deno_adapter.ts`); they are installed or
 * written into the build cache, outside `npm/`, so they survive the wipe of
 * `npm/` and repeated builds need no network.
 *
 * @module
 */

import * as path from "node:path";
import { npmInstall, outputOf } from "./commands.ts";
import { readTextOrNull } from "./files.ts";
import { log } from "./log.ts";
import { ROOT, TOOLS_DIR } from "./paths.ts";
import ts from "./typescript.ts";

/** Node's types: the oldest Node line the package supports, so that APIs
 * newer than that fail the type-check instead of failing at run time. */
const NODE_TYPES_PACKAGE = "@types/node@20";

/**
 * Installs `@types/node` and the dependencies (for their types) into
 * `TOOLS_DIR` with npm. Skipped when the same list is already installed,
 * so repeated builds need no network.
 */
export async function installBuildTypes(dependencies: Map<string, string>): Promise<void> {
  const [nodeTypesName, nodeTypesVersion] = NODE_TYPES_PACKAGE.split(/(?<=.)@/);
  const manifest = JSON.stringify(
    {
      private: true,
      dependencies: { [nodeTypesName]: nodeTypesVersion, ...Object.fromEntries(dependencies) },
    },
    null,
    2,
  ) + "\n";
  const stamp = path.join(TOOLS_DIR, ".installed.json");
  if (await readTextOrNull(stamp) === manifest) return;

  log(`installing build-only types into ${path.relative(ROOT, TOOLS_DIR)}/`);
  await Deno.mkdir(TOOLS_DIR, { recursive: true });
  await Deno.writeTextFile(path.join(TOOLS_DIR, "package.json"), manifest);
  await npmInstall(["--prefix", TOOLS_DIR], ROOT);
  // Written last: a failed install is retried next time.
  await Deno.writeTextFile(stamp, manifest);
}

/**
 * Writes the `Deno` namespace declarations for `src/deno_adapter.ts`.
 *
 * `deno types` also declares Deno's web globals, which clash with
 * `@types/node`; only the `declare namespace Deno` blocks are kept. Types
 * they name that Node lacks are tolerated by `skipLibCheck`.
 *
 * @returns The path of the written declaration file.
 */
export async function writeDenoNamespaceTypes(): Promise<string> {
  const all = await outputOf(Deno.execPath(), ["types"]);
  const source = ts.createSourceFile("deno.d.ts", all, ts.ScriptTarget.Latest, true);
  const blocks = source.statements.filter((statement) =>
    ts.isModuleDeclaration(statement) && statement.name.text === "Deno"
  );
  if (blocks.length === 0) throw new Error("`deno types` declared no Deno namespace");
  const file = path.join(TOOLS_DIR, "deno_namespace.d.ts");
  const header = `// The Deno namespace from \`deno types\` (Deno ${Deno.version.deno}).\n`;
  await Deno.writeTextFile(
    file,
    header + blocks.map((block) => block.getText(source)).join("\n\n") + "\n",
  );
  return file;
}
