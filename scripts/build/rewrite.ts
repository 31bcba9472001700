/**
 * Part of step 2, compile: the transformer that makes the emitted files'
 * imports work under Node. TypeScript rewrites `.ts` to `.js` only in
 * relative specifiers; the sources also import through the `deno.json`
 * import map and with `npm:`, and the tests import the entry files, which
 * must become the package's own name so that tests go through the
 * `exports` map like a user. So every specifier is rewritten here, after
 * TypeScript's own transforms, in the JS and in the declarations alike.
 *
 * @module
 */

import * as path from "node:path";
import type { BuildPlan } from "./plan.ts";
import { emittedPath, isTestSource } from "./paths.ts";
import { isRelative, sourceFileOf, toNodeSpecifier } from "./specifiers.ts";
import ts from "./typescript.ts";

/**
 * A transformer, run after TypeScript's own on both the JS and the
 * declarations, that rewrites every module specifier (import, export,
 * dynamic `import()`, `import("…")` types) with {@linkcode rewriteSpecifier}.
 */
export function specifierRewriter<T extends ts.SourceFile | ts.Bundle>(plan: BuildPlan): ts.TransformerFactory<T> {
  const packageSpecifiers = new Map(
    [...plan.entries].map(([subpath, file]) => [file, selfReference(plan.config.name, subpath)]),
  );
  const imports = plan.config.imports ?? {};
  return (context) => (root) => {
    if (!ts.isSourceFile(root)) return root;
    const { factory } = context;
    const rewrite = (literal: ts.StringLiteral) =>
      factory.createStringLiteral(
        rewriteSpecifier(literal.text, root.fileName, imports, packageSpecifiers),
      );
    const visit = (node: ts.Node): ts.Node => {
      const next = ts.visitEachChild(node, visit, context);
      if (ts.isImportDeclaration(next) && ts.isStringLiteral(next.moduleSpecifier)) {
        return factory.updateImportDeclaration(
          next,
          next.modifiers,
          next.importClause,
          rewrite(next.moduleSpecifier),
          next.attributes,
        );
      }
      if (
        ts.isExportDeclaration(next) && next.moduleSpecifier &&
        ts.isStringLiteral(next.moduleSpecifier)
      ) {
        return factory.updateExportDeclaration(
          next,
          next.modifiers,
          next.isTypeOnly,
          next.exportClause,
          rewrite(next.moduleSpecifier),
          next.attributes,
        );
      }
      if (
        ts.isCallExpression(next) && next.expression.kind === ts.SyntaxKind.ImportKeyword &&
        next.arguments.length > 0 && ts.isStringLiteral(next.arguments[0])
      ) {
        const [first, ...rest] = next.arguments;
        return factory.updateCallExpression(next, next.expression, next.typeArguments, [
          rewrite(first as ts.StringLiteral),
          ...rest,
        ]);
      }
      if (
        ts.isImportTypeNode(next) && ts.isLiteralTypeNode(next.argument) &&
        ts.isStringLiteral(next.argument.literal)
      ) {
        return factory.updateImportTypeNode(
          next,
          factory.updateLiteralTypeNode(next.argument, rewrite(next.argument.literal)),
          next.attributes,
          next.qualifier,
          next.typeArguments,
          next.isTypeOf,
        );
      }
      return next;
    };
    return ts.visitEachChild(root, visit, context) as T;
  };
}

/**
 * The package's own name for one of its exports: `"."` → `@dsh/shell`,
 * `"./seam"` → `@dsh/shell/seam`.
 */
function selfReference(name: string, subpath: string): string {
  return subpath === "." ? name : `${name}/${subpath.replace(/^\.\//, "")}`;
}

/**
 * Where a specifier must point in the emitted package, seen from `fromFile`
 * (a source path):
 * - import-mapped and `npm:` specifiers become bare (`zod`);
 * - in a test, an import of an export's entry file becomes the package's
 *   self-reference (`../mod.ts` → `@dsh/shell`), so tests go through the
 *   `exports` map like a user;
 * - other relative (or import-mapped local) specifiers point at the emitted
 *   `.js` file, across from `npm/test/` to `npm/esm/` where a test imports a
 *   library internal.
 */
function rewriteSpecifier(
  specifier: string,
  fromFile: string,
  imports: Record<string, string>,
  packageSpecifiers: Map<string, string>,
): string {
  const mapped = toNodeSpecifier(specifier, imports);
  if (!isRelative(mapped) && !path.isAbsolute(mapped)) return mapped;
  const target = sourceFileOf(path.resolve(path.dirname(fromFile), mapped));
  if (isTestSource(fromFile) && packageSpecifiers.has(target)) {
    return packageSpecifiers.get(target)!;
  }
  const relative = path.relative(
    path.dirname(emittedPath(fromFile)),
    emittedPath(target),
  ).split(path.sep).join("/");
  return relative.startsWith(".") ? relative : `./${relative}`;
}
