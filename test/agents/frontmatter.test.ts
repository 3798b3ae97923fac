import { describe, expect, test } from "vitest";
import { fillArguments, parseSlashPrompt } from "../../src/agents/commands.js";
import { listField, parseFrontmatter, stringField } from "../../src/agents/frontmatter.js";

describe("front matter of prompt files", () => {
  test("scalars, quotes, inline and block lists, block scalars, comments", () => {
    const { data, body } = parseFrontmatter(
      [
        "---",
        "# a comment",
        "name: pdf-tools",
        'description: "Extract: text, tables"',
        "argument-hint: '[file] [pages]'",
        "allowed-tools: [Read, 'Bash(git diff:*)']",
        "tools:",
        "  - Grep",
        "  - Glob",
        "long: >",
        "  one",
        "  two",
        "model: haiku # cheap",
        "---",
        "Body line",
      ].join("\n"),
    );
    expect(data).toEqual({
      name: "pdf-tools",
      description: "Extract: text, tables",
      "argument-hint": "[file] [pages]",
      "allowed-tools": ["Read", "Bash(git diff:*)"],
      tools: ["Grep", "Glob"],
      long: "one two",
      model: "haiku",
    });
    expect(body).toBe("Body line");
    expect(listField(data, "model")).toEqual(["haiku"]);
    expect(stringField(data, "tools")).toBe("Grep, Glob");
  });

  test("no front matter: the whole text is the body", () => {
    expect(parseFrontmatter("Just a prompt\n---\nnot front matter")).toEqual({
      data: {},
      body: "Just a prompt\n---\nnot front matter",
    });
  });
});

describe("command arguments", () => {
  test("$ARGUMENTS, $1.., quoted words, missing words empty", () => {
    expect(fillArguments("Fix $1 ($2) [$3]: $ARGUMENTS", '12 "high prio"')).toBe(
      'Fix 12 (high prio) []: 12 "high prio"',
    );
  });

  test("a template without placeholders gets ARGUMENTS appended, only when there are any", () => {
    expect(fillArguments("Run the tests.", "unit")).toBe("Run the tests.\n\nARGUMENTS: unit");
    expect(fillArguments("Run the tests.", "")).toBe("Run the tests.");
  });

  test("what counts as a slash command prompt", () => {
    expect(parseSlashPrompt("/review src/a.ts  fast\n")).toEqual({ name: "review", args: "src/a.ts  fast" });
    expect(parseSlashPrompt("/frontend:component")).toEqual({ name: "frontend:component", args: "" });
    expect(parseSlashPrompt("/usr/bin/env is odd")).toBeUndefined();
    expect(parseSlashPrompt("please /review")).toBeUndefined();
  });
});
