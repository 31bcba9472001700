/**
 * The claims of `docs/architecture.md` a newcomer relies on, checked on the
 * source tree: the root entry exports at most 36 names, each name has one
 * home entry (no entry repeats another's), no module of the library
 * imports itself back through others (no import circle), every command
 * goes through the one launch pipeline over a transport, and a tool family
 * of `src/tool/` reaches no other family.
 *
 * The tree is read as text, from wherever the tests run (the sources under
 * Deno, `npm/test/` under Node): the claims are about the source, the same
 * on both runtimes.
 */

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { repositoryRoot } from "./helpers/repository.ts";

const ROOT = repositoryRoot();

/** `source` without comments (block and line), so that an example's `export` or `import` is not read as code. */
function code(source: string): string {
  return source.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
}

/** The names a module exports, read from its export statements; throws on `export *`, which hides them. */
function exportedNames(file: string): string[] {
  const text = code(readFileSync(file, "utf8"));
  if (/^export\s+(type\s+)?\*/m.test(text)) throw new Error(`${relative(ROOT, file)} re-exports with "export *"`);
  const names: string[] = [];
  for (const [, list] of text.matchAll(/^export\s+(?:type\s+)?\{([^}]*)\}/gm)) {
    for (const item of list.split(",")) {
      const name = item.trim().replace(/^type\s+/, "").split(/\s+as\s+/).pop();
      if (name) names.push(name);
    }
  }
  const declaration =
    /^export\s+(?:declare\s+)?(?:async\s+)?(?:abstract\s+)?(?:function\*?|const|let|class|interface|type|enum)\s+([A-Za-z_$][\w$]*)/gm;
  for (const [, name] of text.matchAll(declaration)) names.push(name);
  return names;
}

/** Every entry of the package, by its subpath, as `deno.json` lists them. */
function entries(): Map<string, string> {
  const { exports } = JSON.parse(readFileSync(join(ROOT, "deno.json"), "utf8")) as { exports: Record<string, string> };
  return new Map(Object.entries(exports).map(([subpath, file]) => [subpath, join(ROOT, file)]));
}

/** Every TypeScript module of the library: `mod.ts` and `src/`. */
function libraryModules(): string[] {
  const found = [join(ROOT, "mod.ts")];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith(".ts")) found.push(path);
    }
  };
  walk(join(ROOT, "src"));
  return found;
}

/** The library modules `file` imports or re-exports, type-only imports included. */
function importsOf(file: string): string[] {
  return importsIn(readFileSync(file, "utf8"), dirname(file));
}

/** The relative modules `source` (in `dir`) imports or re-exports, resolved; comments skipped. */
function importsIn(source: string, dir: string): string[] {
  const text = code(source);
  const targets: string[] = [];
  for (const [, specifier] of text.matchAll(/^(?:import|export)\b[^;]*?\bfrom\s+"(\.[^"]+)"/gm)) {
    targets.push(resolve(dir, specifier));
  }
  for (const [, specifier] of text.matchAll(/^import\s+"(\.[^"]+)"/gm)) targets.push(resolve(dir, specifier));
  return targets;
}

/** The functions `source` defines at its top level: declarations and constants bound to an arrow function. */
function topLevelFunctions(source: string): string[] {
  const text = code(source);
  const declared = [...text.matchAll(/^(?:export\s+)?(?:async\s+)?function\*?\s*([A-Za-z_$][\w$]*)/gm)];
  const arrows = [
    ...text.matchAll(
      /^(?:export\s+)?const\s+([A-Za-z_$][\w$]*)(?:\s*:[^=]+)?\s*=\s*(?:async\s*)?(?:\([^)]*\)|[A-Za-z_$][\w$]*)\s*(?::[^=]+)?=>/gm,
    ),
  ];
  return [...declared, ...arrows].sort((a, b) => a.index - b.index).map(([, name]) => name);
}

/** The import graph of `modules`: each module's imports among them. */
function importGraph(modules: string[]): Map<string, string[]> {
  return new Map(modules.map((file) => [file, importsOf(file).filter((target) => target !== file)]));
}

/** The circles of `graph`: each as the path that comes back to its start. */
function circles(graph: Map<string, string[]>): string[][] {
  const found: string[][] = [];
  const state = new Map<string, "open" | "done">();
  const path: string[] = [];
  const visit = (file: string): void => {
    state.set(file, "open");
    path.push(file);
    for (const target of graph.get(file) ?? []) {
      if (state.get(target) === "open") found.push([...path.slice(path.indexOf(target)), target]);
      else if (!state.has(target) && graph.has(target)) visit(target);
    }
    path.pop();
    state.set(file, "done");
  };
  for (const file of graph.keys()) if (!state.has(file)) visit(file);
  return found;
}

describe("the architecture's claims", () => {
  it("the root entry exports at most 36 names", () => {
    const names = exportedNames(join(ROOT, "mod.ts"));
    assert.ok(names.length > 0, "no export read from mod.ts");
    assert.equal(new Set(names).size, names.length, "a name exported twice");
    assert.ok(names.length <= 36, `the root exports ${names.length} names: ${names.join(", ")}`);
    assert.ok(names.includes("createLocalShell") && names.includes("isShellError"));
  });

  it("each name has one home entry", () => {
    const homes = new Map<string, string[]>();
    for (const [subpath, file] of entries()) {
      for (const name of exportedNames(file)) homes.set(name, [...homes.get(name) ?? [], subpath]);
    }
    const repeated = [...homes].filter(([, at]) => at.length > 1).map(([name, at]) => `${name} (${at.join(", ")})`);
    assert.deepEqual(repeated, [], "names exported from more than one entry");
    assert.ok(homes.size >= 100, `only ${homes.size} names read from the entries`);
  });

  it("no module of the library imports itself back through others", () => {
    const graph = importGraph(libraryModules());
    assert.ok([...graph.values()].flat().length > 300, "too few imports read: the parse is broken");
    assert.deepEqual(circles(graph).map((circle) => circle.map((file) => relative(ROOT, file))), []);
  });

  it("the hook bridge's phases import only from the phases before them", () => {
    const phases = ["settings", "plan", "run", "verdict"];
    const hooks = join(ROOT, "src", "hooks");
    const phaseOf = (file: string): number => phases.indexOf(relative(hooks, file).split("/")[0]);
    const forward: string[] = [];
    for (const file of libraryModules().filter((file) => phaseOf(file) >= 0)) {
      for (const target of importsOf(file)) {
        if (phaseOf(target) > phaseOf(file)) forward.push(`${relative(hooks, file)} -> ${relative(hooks, target)}`);
      }
    }
    assert.deepEqual(forward, [], "a phase imports a later one");
    assert.deepEqual(phases.filter((phase) => !existsSync(join(hooks, phase))), [], "a phase folder is missing");
  });

  it("a consumer reaches the seam and other features only through their entries or the seam's top level", () => {
    const src = join(ROOT, "src");
    const seam = join(src, "seam");
    const entryFiles = new Set(entries().values());
    /**
     * The feature a module of src/ belongs to: its folder under src/ (the seam is one), or undefined for the files at
     * src/'s top (the adapters, and `createLocalShell`, which put the features together).
     */
    const featureOf = (file: string): string | undefined => {
      const parts = relative(src, file).split("/");
      return parts.length > 1 ? parts[0] : undefined;
    };
    const crossings: string[] = [];
    for (const file of libraryModules()) {
      const from = featureOf(file);
      for (const target of importsOf(file)) {
        const to = featureOf(target);
        if (from === undefined || to === undefined || to === from || entryFiles.has(target)) continue;
        // The seam's top level (contracts, errors, shared helpers) is open to every consumer; its folders are not.
        if (to === "seam" && dirname(target) === seam) continue;
        crossings.push(`${relative(ROOT, file)} -> ${relative(ROOT, target)}`);
      }
    }
    assert.deepEqual(crossings, [], "imports of another feature's internals");
  });

  it("a tool family imports only from shared/, and shared/ from no family", () => {
    const tool = join(ROOT, "src", "tool");
    const families = readdirSync(tool, { withFileTypes: true }).filter((entry) => entry.isDirectory());
    assert.deepEqual(families.map((entry) => entry.name).sort(), ["bash", "files", "shared", "unified_exec"]);
    /** The folder of `src/tool/` a module is in, or undefined for the files at its top (`mod.ts`, which list them). */
    const folderOf = (file: string): string | undefined => {
      const parts = relative(tool, file).split("/");
      return parts.length > 1 && !parts[0].startsWith("..") ? parts[0] : undefined;
    };
    const crossings: string[] = [];
    for (const file of libraryModules().filter((file) => folderOf(file) !== undefined)) {
      for (const target of importsOf(file)) {
        const from = folderOf(file);
        const to = folderOf(target);
        const inTool = target.startsWith(tool + "/");
        if (!inTool || to === from || (to === "shared" && from !== "shared")) continue;
        crossings.push(`${relative(tool, file)} -> ${relative(tool, target)}`);
      }
    }
    assert.deepEqual(crossings, [], "a family reaches into another, or shared/ into a family");
  });

  it("no module of src/tool is over 500 lines", () => {
    const tool = join(ROOT, "src", "tool");
    const modules = libraryModules().filter((file) => file.startsWith(tool + "/"));
    assert.ok(modules.length > 30, `only ${modules.length} modules read under src/tool`);
    const linesOf = (file: string): number => readFileSync(file, "utf8").split("\n").length - 1;
    const long = modules.filter((file) => linesOf(file) > 500).map((file) =>
      `${relative(ROOT, file)}: ${linesOf(file)}`
    );
    assert.deepEqual(long, [], "modules over 500 lines");
  });

  it("each folder of the seam imports only from folders listed above it in docs/architecture.md", () => {
    const doc = readFileSync(join(ROOT, "docs", "architecture.md"), "utf8");
    const tree = doc.slice(doc.indexOf("`src/seam/` now"));
    const block = tree.slice(tree.indexOf("```\n") + 4, tree.indexOf("\n```", tree.indexOf("```\n") + 4));
    const order = [...block.matchAll(/^([a-z_]+)\/ /gm)].map(([, folder]) => folder);
    const seam = join(ROOT, "src", "seam");
    const onDisk = readdirSync(seam, { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((e) => e.name);
    assert.deepEqual([...order].sort(), onDisk.sort(), "the list names every folder of the seam, once");
    const rank = (file: string): number => order.indexOf(relative(seam, file).split("/")[0]);
    const upward: string[] = [];
    for (const file of libraryModules().filter((file) => dirname(file) !== seam && rank(file) >= 0)) {
      for (const target of importsOf(file)) {
        if (rank(target) > rank(file)) upward.push(`${relative(seam, file)} -> ${relative(seam, target)}`);
      }
    }
    assert.deepEqual(upward, [], "a folder imports one listed below it");
  });

  it("every command goes through the one launch pipeline, over a transport", () => {
    const seam = join(ROOT, "src", "seam");
    const at = (path: string): string => join(seam, path);
    const modules = libraryModules();
    const codeOf = (file: string): string => code(readFileSync(file, "utf8"));
    const inSeam = modules.filter((file) => file.startsWith(seam + "/"));
    const where = (pattern: RegExp): string[] =>
      inSeam.filter((file) => pattern.test(codeOf(file))).map((file) => relative(seam, file)).sort();
    const importersOf = (target: string): string[] =>
      modules.filter((file) => importsOf(file).includes(target)).map((file) => relative(seam, file)).sort();
    // The deadline is made, and the result built, in one place each, whatever the command runs on.
    assert.deepEqual(where(/\bnew Deadline\(/), ["launch/launch.ts"]);
    assert.deepEqual(where(/(?<![#\w])buildResult\(/), ["settle/result.ts", "settle/settle.ts"]);
    // A result's fields are written there only, a task's that never started included: no literal of one elsewhere,
    // and no wrapper sets a field of a result it was shown (it returns what it adds).
    assert.deepEqual(where(/\btimedOut: /), ["settle/result.ts", "settle/schema.ts", "settle/types.ts"]);
    assert.deepEqual(where(/\b(result|built)\.(sandbox|observerError|sessionNote) = /), ["settle/result.ts"]);
    assert.deepEqual(where(/(?<![#\w])notStartedResult\(/), ["settle/result.ts", "tasks/task.ts"]);
    // The shell reaches commands only through the pipeline, and the pipeline alone settles them.
    assert.deepEqual(importersOf(at("launch/launch.ts")), ["shell.ts"]);
    assert.deepEqual(importersOf(at("settle/settle.ts")), ["launch/launch.ts"]);
    // The transports implement the contract and know nothing of the pipeline; in the seam only the local one spawns
    // (an engine's local client is the engine's, in src/engines/).
    const transports = ["spawn/process_group.ts", "remote/command.ts"];
    for (const transport of transports) {
      const imported = importsOf(at(transport)).map((file) => relative(seam, file));
      assert.ok(imported.includes("transport.ts"), `${transport} does not implement transport.ts`);
      assert.deepEqual(imported.filter((file) => file.startsWith("launch/") || file === "settle/settle.ts"), []);
    }
    assert.deepEqual(where(/\badapter\.spawn\(/), ["spawn/process_group.ts"]);
  });

  it("what the library throws is of the error family", () => {
    const src = join(ROOT, "src");
    const modules = libraryModules();
    // The family: ShellError, its member that is a TypeError, and every class that extends one of them.
    const family = new Set(["ShellError", "ShellArgumentError"]);
    const classes = modules.flatMap((
      file,
    ) => [...code(readFileSync(file, "utf8")).matchAll(/class (\w+) extends (\w+)/g)]);
    for (let grew = true; grew;) {
      grew = false;
      for (const [, name, parent] of classes) {
        if (family.has(parent) && !family.has(name)) grew = family.add(name) !== undefined;
      }
    }
    const checked = modules.map((file) => relative(src, file)).filter((file) => !file.startsWith(".."));
    assert.ok(checked.length > 100, `${checked.length} modules checked`);
    const strays: string[] = [];
    for (const file of checked) {
      const text = code(readFileSync(join(src, file), "utf8"));
      for (const [thrown, name] of text.matchAll(/\bthrow new (\w+)\(/g)) {
        // One stand-in, never seen by a caller: Node reports a failed exec only after spawn() returned, and the adapter
        // contract asks spawn() to throw the runtime's own error, which the seam words as a ShellSpawnError
        // (spawn/process_group.ts, which takes a ShellSpawnError as worded already).
        const standIn = file === "node_adapter.ts" && text.split("throw new Error(").length === 2 &&
          text.includes('throw new Error("the process was not created")');
        if (!family.has(name) && !(standIn && name === "Error")) strays.push(`${file}: ${thrown}`);
      }
      for (const [, name, parent] of text.matchAll(/class (\w+) extends (\w+)/g)) {
        if (/Error$/.test(name) && !family.has(name) && name !== "ShellError") {
          strays.push(`${file}: ${name} extends ${parent}`);
        }
      }
      // An MCP protocol error: the SDK answers the client with its numeric JSON-RPC code, which no ShellError has.
      const protocol = file === "mcp/server.ts" ? 1 : 0;
      if ([...text.matchAll(/\bthrow Object\.assign\(/g)].length > protocol) {
        strays.push(`${file}: throw Object.assign(`);
      }
    }
    assert.deepEqual(strays, []);
    assert.ok(
      family.has("ShellFileError") && family.has("PatchSyntaxError") && family.has("UsageError"),
      [...family].join(),
    );
  });

  it("no module of the library is longer than 500 lines", () => {
    const modules = libraryModules();
    const long = modules.map((file) => ({
      file: relative(ROOT, file),
      lines: readFileSync(file, "utf8").split("\n").length,
    }))
      .filter(({ lines }) => lines > 500).map(({ file, lines }) => `${file}: ${lines} lines`);
    assert.ok(modules.length > 200, `${modules.length} modules read`);
    assert.deepEqual(long, []);
  });

  it("a command's terminal and its session's trap come through the wrappers alone, on every transport", () => {
    const seam = join(ROOT, "src", "seam");
    const modules = libraryModules().filter((file) => file.startsWith(seam + "/"));
    // What a transport may take from the carry and the terminal: their wrappers, the state it reads back, a size.
    const allowed = new Set(["carry/wrapper.ts", "carry/state.ts", "terminal/wrapper.ts", "terminal/size.ts"]);
    const reaches: string[] = [];
    for (const file of modules.filter((file) => /^(spawn|remote)\//.test(relative(seam, file)))) {
      for (const target of importsOf(file).map((target) => relative(seam, target))) {
        if (/^(carry|terminal)\//.test(target) && !allowed.has(target)) {
          reaches.push(`${relative(seam, file)} -> ${target}`);
        }
      }
    }
    assert.deepEqual(reaches, [], "a transport wires the terminal or the carry itself");
    // The trap's text and the terminal's TERM are written in one place each.
    const users = (name: string): string[] =>
      modules.filter((file) => new RegExp(`\\b${name}\\b`).test(code(readFileSync(file, "utf8"))))
        .map((file) => relative(seam, file)).sort();
    assert.deepEqual(users("statePrelude"), ["carry/script.ts", "carry/wrapper.ts"]);
    assert.deepEqual(users("DEFAULT_TERM"), ["terminal/wrapper.ts"]);
  });

  it("the hook bridge's types live with their phase, and dispatch runs a table of runners", () => {
    const hooks = join(ROOT, "src", "hooks");
    assert.equal(existsSync(join(hooks, "types.ts")), false, "src/hooks/types.ts is back");
    const dispatch = code(readFileSync(join(hooks, "dispatch.ts"), "utf8"));
    const table = /const RUNNERS: Readonly<Record<HookType, HookRunner>> = \{([\s\S]*?)\n\};/.exec(dispatch);
    assert.ok(table, "no RUNNERS table in dispatch.ts");
    const rows = [...table[1].matchAll(/^ {2}(\w+): /gm)].map(([, type]) => type);
    assert.deepEqual(rows.sort(), ["agent", "command", "http", "prompt"]);
    // Every way to run an entry is a row: dispatch does not branch on an entry's type anywhere else.
    assert.deepEqual([...dispatch.matchAll(/\.type === "(\w+)"/g)].map(([found]) => found), []);
  });

  it("no helper of the tests is defined twice: each has one home (tests/helpers/ when shared)", () => {
    const tests = join(ROOT, "tests");
    const files = [
      ...readdirSync(tests).filter((name) => name.endsWith(".ts")).map((name) => join(tests, name)),
      ...readdirSync(join(tests, "helpers")).filter((name) => name.endsWith(".ts")).map((name) =>
        join(tests, "helpers", name)
      ),
    ];
    const homes = new Map<string, string[]>();
    for (const file of files) {
      for (const name of new Set(topLevelFunctions(readFileSync(file, "utf8")))) {
        homes.set(name, [...homes.get(name) ?? [], relative(tests, file)]);
      }
    }
    assert.ok(homes.size > 200, `${homes.size} helpers read`);
    const twice = [...homes].filter(([, at]) => at.length > 1).map(([name, at]) => `${name}: ${at.join(", ")}`);
    assert.deepEqual(twice, []);
    // The reading itself: declarations and arrow constants at the top, not nested ones or other constants.
    const sample = [
      "function one(): void {}",
      "export async function two() {}",
      "const three = (a: number): number => a;",
      "export const four = async () => {};",
      "const notAFunction = 4;",
      "  function nested() {}",
    ].join("\n");
    assert.deepEqual(topLevelFunctions(sample), ["one", "two", "three", "four"]);
  });

  it("the circle check finds a circle where there is one, and reads every kind of import", () => {
    const graph = new Map([["a.ts", ["b.ts"]], ["b.ts", ["c.ts"]], ["c.ts", ["a.ts"]], ["d.ts", ["a.ts"]]]);
    assert.deepEqual(circles(graph).map((circle) => circle.join(" -> ")), ["a.ts -> b.ts -> c.ts -> a.ts"]);
    assert.deepEqual(circles(new Map([["a.ts", ["b.ts"]], ["b.ts", []]])), []);
    const source = [
      'import type { A } from "./types.ts";',
      'import {\n  b,\n  type C,\n} from "../b.ts";',
      'export { d } from "./d.ts";',
      'export type * from "./e.ts";',
      'import "./side_effect.ts";',
      '/** import { x } from "./in_a_comment.ts"; */',
      'import assert from "node:assert/strict";',
    ].join("\n");
    assert.deepEqual(importsIn(source, "/r/src").sort(), [
      "/r/b.ts",
      "/r/src/d.ts",
      "/r/src/e.ts",
      "/r/src/side_effect.ts",
      "/r/src/types.ts",
    ]);
  });
});
