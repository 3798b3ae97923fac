import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import {
  escapeShellPattern,
  expandShellPattern,
  type ShellDialect,
  shellPatternHasWildcard,
  shellSegmentCanStartWithDash,
} from "../../src/util/glob.js";

/**
 * The shell pattern helper against the real shells: for each pattern, what bash (and dash) pass
 * to a command after expansion must be what `expandShellPattern` says.
 */

const NAMES = [
  "a",
  "b",
  "x",
  ".h",
  ".env",
  "-exec",
  "--files0-from=x",
  "[x",
  "]",
  "!a",
  "^b",
  "ab",
  "a.ts",
  "B",
  "é",
];
const PATTERNS = [
  "*",
  "?",
  "??",
  ".*",
  ".?",
  "**",
  "[^x]*",
  "[!x]*",
  "[!]]",
  "[]]",
  "[x",
  "[[]x",
  "[a-b]",
  "[z-a]",
  "[[:alpha:]]",
  "[[:punct:]]*",
  "[[.a.]]",
  "[[=a=]]",
  "?exec",
  "[-]*",
  "*[",
  "\\**",
  "\\.h*",
  "[.]h",
  "*.ts",
  "d/*",
  "d/.*",
  "*/f",
  "*/*",
  "l*/*",
  "[!.]*",
  "a*",
  "*a",
  "[\\!]*",
];

function workspace(): string {
  const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), "cairn-glob-")));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  for (const name of NAMES) writeFileSync(path.join(dir, name), "");
  mkdirSync(path.join(dir, "d"));
  for (const name of [".e", "f", "g"]) writeFileSync(path.join(dir, "d", name), "");
  symlinkSync(path.join(dir, "d"), path.join(dir, "ld"));
  return dir;
}

/** What the shell hands to a command for `pattern`, one word per NUL, in the C and a UTF-8 locale. */
function shellWords(shell: string, dir: string, pattern: string): string[] {
  const words = new Set<string>();
  for (const locale of ["C", "C.UTF-8"]) {
    const result = spawnSync(shell, ["-c", `printf '%s\\0' ${pattern}`], {
      cwd: dir,
      encoding: "utf8",
      env: { ...process.env, LC_ALL: locale },
    });
    expect(result.status, result.stderr).toBe(0);
    for (const word of result.stdout.split("\0").slice(0, -1)) words.add(word);
  }
  return [...words].sort();
}

function ours(dir: string, pattern: string, dialect: ShellDialect): string[] {
  const result = expandShellPattern(pattern, dir, { dialect, max: 1000 });
  if ("tooMany" in result) throw new Error("too many");
  if (result.names.length === 0) return [pattern.replace(/\\(.)/g, "$1")];
  return result.names;
}

describe("shell patterns expand as bash and dash expand them", () => {
  const dir = workspace();
  test.each(PATTERNS)("%s", (pattern) => {
    // bash 5.2 skips `.` and `..`; the helper offers them (dash and older bash match them): a superset.
    const bash = shellWords("bash", dir, pattern);
    const mine = ours(dir, pattern, "bash");
    expect(mine.filter((name) => !/(^|\/)\.\.?$/.test(name))).toEqual(
      bash.filter((name) => !/(^|\/)\.\.?$/.test(name)),
    );
    expect(mine).toEqual(expect.arrayContaining(bash));
    expect(ours(dir, pattern, "dash")).toEqual(shellWords("dash", dir, pattern));
  });

  test("bash and dash read [^x] differently: a negation for bash, a member for dash", () => {
    expect(ours(dir, "[^x]", "bash")).toContain("a");
    expect(ours(dir, "[^x]", "dash")).toEqual(["x"]);
  });
});

describe("pattern words", () => {
  test("quoted characters are escaped, so they stay literal", () => {
    expect(escapeShellPattern("*a?[b]\\")).toBe("\\*a\\?\\[b\\]\\\\");
    expect(shellPatternHasWildcard(`${escapeShellPattern("*")}x`)).toBe(false);
    expect(shellPatternHasWildcard("[x")).toBe(false);
    expect(shellPatternHasWildcard("[x]")).toBe(true);
  });

  test("which patterns could produce a name starting with -", () => {
    expect(shellSegmentCanStartWithDash("*.ts", "bash")).toBe(true);
    expect(shellSegmentCanStartWithDash("?x", "bash")).toBe(true);
    expect(shellSegmentCanStartWithDash("[a-z]*", "bash")).toBe(false);
    expect(shellSegmentCanStartWithDash("[!a]*", "bash")).toBe(true);
    expect(shellSegmentCanStartWithDash("src", "bash")).toBe(false);
  });
});
