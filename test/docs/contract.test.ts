import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";
import { describe, expect, test } from "vitest";
import { REPO } from "../conformance/pm/helpers.js";
import { linksIn } from "./markdown.js";

/**
 * docs/contract/ defines the clauses (PM-n, SDK-n) that conformance tests name: every clause a test
 * or a doc mentions is defined there, every clause has a test, and each clause links to exactly the
 * files whose tests name it.
 */
const CONTRACTS = ["docs/contract/print-mode.md", "docs/contract/sdk-streaming.md"];
const CLAUSE = /\b(?:PM|SDK)-\d+\b/g;
/** Where a clause id may be mentioned (in a test name, a comment, a doc). */
const MENTIONING = ["src", "test", "docs", "examples", "bench", "scripts", "README.md"];

type Clause = { id: string; contract: string; links: string[] };

const contractTexts = new Map(
  CONTRACTS.map((contract) => [contract, readFileSync(join(REPO, contract), "utf8")]),
);
const clauses: Clause[] = CONTRACTS.flatMap((contract) =>
  contractTexts
    .get(contract)!
    .split(/^### /m)
    .slice(1)
    .map((section) => ({
      id:
        section.match(/^(?:PM|SDK)-\d+(?= )/)?.[0] ??
        `(a heading without a clause id: ${section.split("\n")[0]})`,
      contract,
      links: linksIn(section, contract),
    })),
);
const defined = new Map(clauses.map((clause) => [clause.id, clause]));

/** Test file → clause ids its test and describe names carry (test.todo and describe.skipIf too). */
function clausesInTestNames(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(join(REPO, file), "utf8"), ts.ScriptTarget.Latest);
  const ids: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node)) {
      let callee = node.expression;
      while (ts.isCallExpression(callee) || ts.isPropertyAccessExpression(callee)) callee = callee.expression;
      const name = node.arguments[0];
      if (
        ts.isIdentifier(callee) &&
        ["test", "it", "describe"].includes(callee.text) &&
        name &&
        (ts.isStringLiteral(name) || ts.isNoSubstitutionTemplateLiteral(name))
      )
        ids.push(...(name.text.match(CLAUSE) ?? []));
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return ids;
}

/** The files at `path` (a file or a directory), as paths from the repository root. */
function filesUnder(path: string): string[] {
  const stat = statSync(join(REPO, path), { throwIfNoEntry: false });
  if (!stat?.isDirectory()) return stat ? [path] : [];
  return readdirSync(join(REPO, path), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(REPO, join(entry.parentPath, entry.name)));
}

const testFiles = filesUnder("test").filter((file) => file.endsWith(".ts"));
const testedIn = new Map<string, Set<string>>();
for (const file of testFiles)
  for (const id of clausesInTestNames(file)) testedIn.set(id, (testedIn.get(id) ?? new Set()).add(file));

describe("docs/contract/ defines every clause the tests name", () => {
  test("each contract lists its clauses once, in order, from 1", () => {
    for (const contract of CONTRACTS) {
      const ids = clauses.filter((clause) => clause.contract === contract).map((clause) => clause.id);
      const prefix = ids[0]!.split("-")[0];
      expect(ids, contract).toEqual(ids.map((_, index) => `${prefix}-${index + 1}`));
    }
    expect(defined.size).toBe(clauses.length);
  });

  test("every clause id mentioned in src/, test/, docs/, examples/ or bench/ is defined", () => {
    const undefinedIds = MENTIONING.flatMap(filesUnder)
      .filter((file) => !CONTRACTS.includes(file))
      .flatMap((file) =>
        [...new Set(readFileSync(join(REPO, file), "utf8").match(CLAUSE) ?? [])]
          .filter((id) => !defined.has(id))
          .map((id) => `${id} in ${file}`),
      );
    expect(undefinedIds).toEqual([]);
  });

  test("every clause is named by at least one test", () => {
    const untested = clauses.filter((clause) => !testedIn.has(clause.id)).map((clause) => clause.id);
    expect(untested).toEqual([]);
    expect(testedIn.size).toBeGreaterThanOrEqual(44);
  });

  test("each clause links to exactly the test files that name it", () => {
    const wrong = clauses.flatMap((clause) => {
      const linked = clause.links.filter((link) => link.startsWith("test/")).sort();
      const naming = [...(testedIn.get(clause.id) ?? [])].sort();
      return linked.join() === naming.join()
        ? []
        : [
            `${clause.contract} ${clause.id}: links ${linked.join(", ") || "nothing"}; tested in ${naming.join(", ")}`,
          ];
    });
    expect(wrong).toEqual([]);
  });

  test("every relative link in the contracts points at a file of the repository", () => {
    const broken = CONTRACTS.flatMap((contract) =>
      linksIn(contractTexts.get(contract)!, contract)
        .filter((link) => !existsSync(join(REPO, link)))
        .map((link) => `${contract}: ${link}`),
    );
    expect(broken).toEqual([]);
  });
});
