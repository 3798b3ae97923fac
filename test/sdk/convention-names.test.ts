/**
 * Every export the agent-SDK convention's reference lists exists in cairn, so a program written for
 * it links and type-checks (issue: "Programs written for the public agent SDK run on cairn by
 * changing the import"). The names, by section of agent-sdk-convention.md, are in
 * fixtures/convention-names.json (scripts/extract-convention-names.mjs writes it from the reference):
 * §1 "Runtime exports of `.`", Appendix A's functions, consts/classes and types, §4's `SDKMessage`
 * union and §4's overview table of messages (each row's `type` and `subtype`).
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import * as cairn from "../../src/index.js";
import { compileAgainstDeclarations, REPO } from "./helpers.js";

type MessageRow = { name: string; type: string; subtypes: string[] };
const names = JSON.parse(readFileSync(join(REPO, "test/sdk/fixtures/convention-names.json"), "utf8")) as {
  "§1 runtime exports": string[];
  "Appendix A functions": string[];
  "Appendix A consts/classes": string[];
  "Appendix A types": string[];
  "§4 SDKMessage union": string[];
  "§4 message table": MessageRow[];
};

test("the lists are the reference's whole lists (the counts it states)", () => {
  expect(names["Appendix A functions"]).toHaveLength(21);
  expect(names["Appendix A consts/classes"]).toHaveLength(11);
  expect(names["Appendix A types"]).toHaveLength(236);
  expect(names["§4 SDKMessage union"]).toHaveLength(40);
  expect(names["§1 runtime exports"]).toHaveLength(32);
  expect(names["§4 message table"].length).toBeGreaterThanOrEqual(40);
});

describe("runtime exports (§1, Appendix A)", () => {
  test("every function of §1 and Appendix A is a function of cairn's package root", () => {
    const functions = [...new Set([...names["Appendix A functions"], ...names["§1 runtime exports"]])].filter(
      (name) => /^[a-z]/.test(name),
    );
    const exports = cairn as unknown as Record<string, unknown>;
    expect(functions.filter((name) => typeof exports[name] !== "function")).toEqual([]);
  });

  test("every const and class of §1 and Appendix A is exported with a value", () => {
    const values = [
      ...new Set([...names["Appendix A consts/classes"], ...names["§1 runtime exports"]]),
    ].filter((name) => /^[A-Z]/.test(name));
    const exports = cairn as unknown as Record<string, unknown>;
    expect(values.filter((name) => exports[name] === undefined)).toEqual([]);
  });
});

describe("types (Appendix A, §4) in the published declarations (dist/index.d.ts)", () => {
  test("every type, the SDKMessage union's members and the messages' discriminants", async () => {
    // A program that names each one, as a program's author compiles it against the package.
    const lines: { code: string; what: string }[] = [];
    const types = [...new Set([...names["Appendix A types"], ...names["§4 SDKMessage union"]])];
    // An import per name (a generic one needs no type arguments there).
    for (const name of types)
      lines.push({ code: `import type { ${name} as _${name} } from "cairn";`, what: `${name} is exported` });
    for (const name of names["§4 SDKMessage union"])
      lines.push({
        code: `export const _${lines.length} = (m: C.${name}): C.SDKMessage => m;`,
        what: `${name} is in SDKMessage`,
      });
    for (const row of names["§4 message table"]) {
      lines.push({
        code: `export const _${lines.length}: Exact<C.${row.name}["type"], "${row.type}"> = true;`,
        what: `${row.name}.type is exactly "${row.type}"`,
      });
      if (row.subtypes.length > 0)
        lines.push({
          code: `export const _${lines.length}: Exact<C.${row.name}["subtype"], ${row.subtypes.map((s) => `"${s}"`).join(" | ")}> = true;`,
          what: `${row.name}.subtype is exactly ${row.subtypes.join(" | ")}`,
        });
    }
    const header = [
      'import type * as C from "cairn";',
      "type Exact<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;",
    ];
    const dir = mkdtempSync(join(tmpdir(), "cairn-names-"));
    const file = join(dir, "names.ts");
    writeFileSync(file, [...header, ...lines.map((line) => line.code)].join("\n"));
    const { ts, diagnostics } = await compileAgainstDeclarations([file]);
    const failed = diagnostics.map((diagnostic) => {
      if (!diagnostic.file || diagnostic.start === undefined)
        return ts.flattenDiagnosticMessageText(diagnostic.messageText, " ");
      const line = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start).line - header.length;
      return lines[line]?.what ?? ts.flattenDiagnosticMessageText(diagnostic.messageText, " ");
    });
    expect(failed).toEqual([]);
  }, 120_000);
});

test("the typed fixture over that surface compiles unchanged against the reference's own declarations", async () => {
  // The same program, "cairn" resolved to the reference package (a devDependency): the shapes agree.
  const { ts, diagnostics } = await compileAgainstDeclarations(
    [join(REPO, "test/sdk/fixtures/typed-convention-surface.ts")],
    "./node_modules/@anthropic-ai/claude-agent-sdk/sdk.d.ts",
  );
  expect(
    diagnostics.map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, " ")),
  ).toEqual([]);
}, 120_000);
