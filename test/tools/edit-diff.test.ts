import { describe, expect, it } from "vitest";
import { diffCreation, diffReplacements } from "../../src/tools/edit-diff.js";

function replaceAll(before: string, target: string, replacement: string) {
  const offsets: number[] = [];
  for (let i = before.indexOf(target); i !== -1; i = before.indexOf(target, i + target.length))
    offsets.push(i);
  const after = before.split(target).join(replacement);
  return diffReplacements(before, offsets, target.length, replacement, after);
}

describe("edit diffs", () => {
  it("shows only the lines that changed", () => {
    expect(replaceAll("a\nb\nc\n", "b", "B")).toEqual({
      linesAdded: 1,
      linesRemoved: 1,
      diffString: "@@ -2,1 +2,1 @@\n-b\n+B\n",
    });
  });

  it("keeps separate hunks for distant replacements and merges those on one line", () => {
    const diff = replaceAll("x x\n1\n2\nx\n", "x", "y");
    expect(diff).toEqual({
      linesAdded: 2,
      linesRemoved: 2,
      diffString: "@@ -1,1 +1,1 @@\n-x x\n+y y\n@@ -4,1 +4,1 @@\n-x\n+y\n",
    });
  });

  it("counts inserted lines without counting the shared ones", () => {
    expect(replaceAll("a\nb\n", "a\n", "a\nnew\n")).toEqual({
      linesAdded: 1,
      linesRemoved: 0,
      diffString: "@@ -2,0 +2,1 @@\n+new\n",
    });
  });

  it("describes a created file", () => {
    expect(diffCreation("one\ntwo")).toEqual({
      linesAdded: 2,
      linesRemoved: 0,
      diffString: "@@ -0,0 +1,2 @@\n+one\n+two\n",
    });
    expect(diffCreation("")).toEqual({ linesAdded: 0, linesRemoved: 0, diffString: "" });
  });
});
