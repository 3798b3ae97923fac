import { describe, expect, it } from "vitest";
import { mayMatchNewline } from "../../src/tools/grep-js.js";
import {
  expandBraces,
  GrepQueryError,
  globOverrides,
  splitGlobs,
  typeMatcher,
} from "../../src/tools/grep-query.js";

describe("Grep query helpers", () => {
  it("splits globs on whitespace and commas outside braces", () => {
    expect(splitGlobs("*.ts *.tsx")).toEqual(["*.ts", "*.tsx"]);
    expect(splitGlobs("*.{ts,tsx},!dist/**")).toEqual(["*.{ts,tsx}", "!dist/**"]);
    expect(splitGlobs(undefined)).toEqual([]);
  });

  it("expands braces, nested ones too", () => {
    expect(expandBraces("a{b,c{d,e}}f")).toEqual(["abf", "acdf", "acef"]);
    expect(expandBraces("*.ts")).toEqual(["*.ts"]);
    expect(expandBraces("{x}")).toEqual(["{x}"]);
  });

  it("gives globs ripgrep's override semantics", () => {
    const override = globOverrides(["*.ts", "!*.test.ts"])!;
    expect(override("src/a.ts", false)).toBe("include");
    expect(override("src/a.test.ts", false)).toBe("exclude");
    expect(override("src/a.js", false)).toBe("exclude");
    expect(override("src", true)).toBeUndefined();
    expect(globOverrides([])).toBeUndefined();
  });

  it("knows ripgrep's common types and refuses unknown ones", () => {
    expect(typeMatcher("ts")("src/a.tsx")).toBe(true);
    expect(typeMatcher("ts")("src/a.js")).toBe(false);
    expect(typeMatcher("make")("Makefile")).toBe(true);
    expect(() => typeMatcher("constructor")).toThrow(GrepQueryError);
  });

  it("tells patterns that may span lines", () => {
    expect(mayMatchNewline("foo")).toBe(false);
    expect(mayMatchNewline("x*")).toBe(false);
    expect(mayMatchNewline("a\\.b")).toBe(false);
    expect(mayMatchNewline("a.b")).toBe(true);
    expect(mayMatchNewline("a\\nb")).toBe(true);
    expect(mayMatchNewline("a\\sb")).toBe(true);
    expect(mayMatchNewline("[^a]")).toBe(true);
  });
});
