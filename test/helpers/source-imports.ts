import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

/**
 * The imports between cairn's own modules, read with TypeScript's parser (so an import named in a
 * comment or a string is none). For the checks on the shape of src/: test/layering.test.ts and
 * test/import-cycles.test.ts.
 */
export const SRC = fileURLToPath(new URL("../../src", import.meta.url));

/**
 * - `value`: a static `import`, `export … from` or `require()` the build keeps: the imported module
 *   is evaluated before the importer. With `verbatimModuleSyntax` (tsconfig.json), `import { type A }`
 *   is kept too, as `import {} from`.
 * - `type`: `import type`, `export type … from`, `import("…").T` in a type: erased from the build.
 * - `lazy`: `import()` at run time: loaded when the code reaches it.
 */
export type ImportKind = "value" | "type" | "lazy";

/** One module importing another, both as paths relative to src/ (`cli/print.ts`). */
export type SourceImport = { from: string; to: string; kind: ImportKind };

/** Every module of src/ (`.ts` and `.cts`), relative to src/. */
export function sourceModules(): string[] {
  return readdirSync(SRC, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.c?ts$/.test(entry.name))
    .map((entry) => relativeToSrc(path.join(entry.parentPath, entry.name)))
    .sort();
}

/** Every import of a module of src/ by another (what leaves src/, such as package.json, is left out). */
export function sourceImports(): SourceImport[] {
  return sourceModules().flatMap((from) => importsOf(from));
}

function importsOf(from: string): SourceImport[] {
  const file = path.join(SRC, from);
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest);
  const found: SourceImport[] = [];
  const add = (specifier: ts.Expression | undefined, kind: ImportKind) => {
    if (!specifier || !ts.isStringLiteralLike(specifier) || !specifier.text.startsWith(".")) return;
    const to = resolveModule(file, specifier.text);
    if (to) found.push({ from, to, kind });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) {
      add(node.moduleSpecifier, node.importClause?.isTypeOnly ? "type" : "value");
    } else if (ts.isExportDeclaration(node)) {
      add(node.moduleSpecifier, node.isTypeOnly ? "type" : "value");
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      add(node.argument.literal, "type");
    } else if (ts.isCallExpression(node)) {
      if (node.expression.kind === ts.SyntaxKind.ImportKeyword) add(node.arguments[0], "lazy");
      else if (ts.isIdentifier(node.expression) && node.expression.text === "require")
        add(node.arguments[0], "value");
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** `./x.js` → `x.ts`, `./x.cjs` → `x.cts`, relative to src/; undefined outside src/. */
function resolveModule(importer: string, specifier: string): string | undefined {
  const target = path.resolve(path.dirname(importer), specifier);
  if (!target.startsWith(SRC + path.sep)) return undefined;
  const candidates = [target.replace(/\.js$/, ".ts"), target.replace(/\.cjs$/, ".cts"), target];
  const found = candidates.find((candidate) => /\.c?ts$/.test(candidate) && existsSync(candidate));
  if (!found) throw new Error(`${importer} imports ${specifier}, which is no module of src/`);
  return relativeToSrc(found);
}

/** A path relative to src/, with `/` on every system. */
function relativeToSrc(file: string): string {
  return path.relative(SRC, file).split(path.sep).join("/");
}
