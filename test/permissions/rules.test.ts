import { afterAll, describe, expect, test } from "vitest";
import {
  matchShell,
  parseRule,
  RuleSyntaxError,
  rulesFromToolLists,
  type ShellMatcher,
  splitRuleList,
} from "../../src/permissions/index.js";
import { unknownToolWarnings } from "../../src/permissions/rules.js";
import { gateFor, makeFixture } from "./fixture.js";

const fx = makeFixture();
afterAll(() => fx.cleanup());

const target = (text: string) => parseRule(text, "allow", "test").target;
const words = (...values: (string | undefined)[]) =>
  values.map((value) => (value === undefined ? {} : { value }));

describe("rule parsing: both spellings land in one form", () => {
  test.each([
    // agent-SDK convention
    ["Bash(git status:*)", { kind: "shell", matcher: { kind: "prefix", words: ["git", "status"] } }],
    ["Bash(npm run test)", { kind: "shell", matcher: { kind: "exact", words: ["npm", "run", "test"] } }],
    ["Bash(ls *)", { kind: "shell", matcher: { kind: "prefix", words: ["ls"] } }],
    ["Bash", { kind: "shell", matcher: { kind: "any" } }],
    ["Bash(*)", { kind: "shell", matcher: { kind: "any" } }],
    ["Read(./src/**)", { kind: "path", access: "read", pattern: "./src/**" }],
    ["Edit(docs/**)", { kind: "path", access: "write", pattern: "docs/**" }],
    ["Write(package.json)", { kind: "path", access: "write", pattern: "package.json" }],
    ["Read", { kind: "tool", tool: "Read" }],
    ["TodoWrite", { kind: "tool", tool: "TodoWrite" }],
    ["mcp__github__create_issue", { kind: "mcp", server: "github", tool: "create_issue" }],
    ["mcp__github", { kind: "mcp", server: "github" }],
    ["mcp__github__*", { kind: "mcp", server: "github" }],
    // the reference CLI's config
    ["Shell(git)", { kind: "shell", matcher: { kind: "prefix", words: ["git"] } }],
    ["Shell(curl:*)", { kind: "shell", matcher: { kind: "prefix", words: ["curl"] } }],
    ["Shell(npm:run test)", { kind: "shell", matcher: { kind: "exact", words: ["npm", "run", "test"] } }],
    ["Read(src/**/*.ts)", { kind: "path", access: "read", pattern: "src/**/*.ts" }],
    ["Write(**/*.key)", { kind: "path", access: "write", pattern: "**/*.key" }],
    ["Mcp(github:create_issue)", { kind: "mcp", server: "github", tool: "create_issue" }],
    ["Grep(src/**)", { kind: "path", access: "read", pattern: "src/**", tools: ["Grep"] }],
    ["WebFetch(domain:example.com)", { kind: "domain", tool: "WebFetch", domain: "example.com" }],
    ["Agent(reviewer)", { kind: "opaque", tool: "Agent", content: "reviewer" }],
  ])("%s", (text, expected) => {
    expect(target(text)).toMatchObject(expected);
  });

  test("SDK `Bash(git status:*)` and reference `Shell(git status:*)`-style spellings match the same commands", () => {
    const sdk = target("Bash(curl:*)");
    const cli = target("Shell(curl:*)");
    expect(sdk).toEqual(cli);
  });

  test.each(["", "Bash(", "Ba sh", "Bash(echo 'x)", "(x)"])("rejects %j", (text) => {
    expect(() => parseRule(text, "deny", "test")).toThrow(RuleSyntaxError);
  });

  test("a rule remembers its text and source", () => {
    expect(parseRule(" Bash(rm:*) ", "deny", "user config x")).toMatchObject({
      text: "Bash(rm:*)",
      source: "user config x",
      behavior: "deny",
    });
  });

  test("tool lists from flags and SDK options", () => {
    const rules = rulesFromToolLists(
      { allowedTools: ["Read", "Bash(ls:*)"], disallowedTools: ["Bash(rm:*)"] },
      "SDK",
    );
    expect(rules.map((r) => [r.behavior, r.text, r.source])).toEqual([
      ["deny", "Bash(rm:*)", "SDK disallowedTools"],
      ["allow", "Read", "SDK allowedTools"],
      ["allow", "Bash(ls:*)", "SDK allowedTools"],
    ]);
    expect(splitRuleList("Read,Bash(git log --format=%H,%s) Edit")).toEqual([
      "Read",
      "Bash(git log --format=%H,%s)",
      "Edit",
    ]);
  });
});

describe("shell matching", () => {
  const m = (text: string) => (target(text) as { matcher: ShellMatcher }).matcher;

  test("prefix rules match whole words", () => {
    expect(matchShell(m("Bash(git status:*)"), words("git", "status", "--short"))).toBe(true);
    expect(matchShell(m("Bash(git status:*)"), words("git", "status"))).toBe(true);
    expect(matchShell(m("Bash(git status:*)"), words("git", "statusx"))).toBe(false);
    expect(matchShell(m("Bash(git status:*)"), words("git"))).toBe(false);
    expect(matchShell(m("Shell(git)"), words("git", "push"))).toBe(true);
    expect(matchShell(m("Shell(git)"), words("gitk"))).toBe(false);
  });

  test("exact rules match exactly", () => {
    expect(matchShell(m("Bash(npm run test)"), words("npm", "run", "test"))).toBe(true);
    expect(matchShell(m("Bash(npm run test)"), words("npm", "run", "test", "--", "-u"))).toBe(false);
  });

  test("wildcards", () => {
    expect(matchShell(m("Bash(git * main)"), words("git", "push", "origin", "main"))).toBe(true);
    expect(matchShell(m("Bash(git * main)"), words("git", "push", "origin", "dev"))).toBe(false);
    expect(matchShell(m("Shell(npm:run *)"), words("npm", "run", "lint"))).toBe(true);
    expect(matchShell(m("Shell(np*)"), words("npx", "tsc"))).toBe(true);
  });

  test("words computed at run time can only ever 'maybe' match", () => {
    expect(matchShell(m("Bash(rm:*)"), words(undefined, "-rf"))).toBe("maybe");
    expect(matchShell(m("Bash(git push:*)"), words("git", undefined))).toBe("maybe");
    expect(matchShell(m("Bash(git:*)"), words("git", undefined))).toBe(true);
    expect(matchShell(m("Bash(git push:*)"), words("npm", undefined))).toBe(false);
  });
});

describe("evaluation order: deny, then ask, then allow", () => {
  test("deny beats allow, whatever the order and spelling", () => {
    const gate = gateFor(fx, { allow: ["Bash(rm:*)", "Shell(rm)"], deny: ["Shell(rm)"] });
    expect(gate.evaluate("Bash", { command: "rm x" })).toMatchObject({
      behavior: "deny",
      message: "denied by rule Shell(rm) (test)",
    });
  });

  test("ask beats allow", () => {
    const gate = gateFor(fx, { allow: ["Bash(git:*)"], ask: ["Bash(git push:*)"] });
    expect(gate.evaluate("Bash", { command: "git push" }).behavior).toBe("ask");
    expect(gate.evaluate("Bash", { command: "git fetch" }).behavior).toBe("allow");
  });

  test("deny beats ask", () => {
    const gate = gateFor(fx, { ask: ["Read(.env)"], deny: ["Read(.env*)"] });
    expect(gate.evaluate("Read", { file_path: ".env" }).behavior).toBe("deny");
  });

  test("a deny path rule reads broadly: slashless patterns at any depth, single-slash both ways", () => {
    const gate = gateFor(fx, { deny: ["Read(.env*)", "Read(/secrets/**)"], mode: "bypassPermissions" });
    expect(gate.evaluate("Read", { file_path: "sub/dir/.env.local" }).behavior).toBe("deny");
    expect(gate.evaluate("Read", { file_path: "secrets/key" }).behavior).toBe("deny");
    expect(gate.evaluate("Read", { file_path: "/secrets/key" }).behavior).toBe("deny");
  });

  test("an allow path rule reads narrowly", () => {
    const gate = gateFor(fx, { allow: ["Edit(package.json)"], mode: "default" });
    expect(gate.evaluate("Write", { file_path: "package.json", content: "" }).behavior).toBe("allow");
    expect(gate.evaluate("Write", { file_path: "sub/package.json", content: "" }).behavior).toBe("ask");
  });

  test("Read rules cover every read tool; Edit and Write rules cover both edit tools", () => {
    const gate = gateFor(fx, { deny: ["Read(secrets/**)", "Edit(docs/**)"] });
    for (const [tool, input] of [
      ["Read", { file_path: "secrets/key" }],
      ["Grep", { pattern: "x", path: "secrets" }],
      ["LS", { path: "secrets" }],
      ["Glob", { pattern: "**", path: "secrets" }],
      ["Write", { file_path: "docs/a.md", content: "" }],
      ["Edit", { file_path: "docs/a.md", old_string: "a", new_string: "b" }],
    ] as const)
      expect(gate.evaluate(tool, input).behavior, tool).toBe("deny");
  });

  test("bare tool rules and MCP rules", () => {
    const gate = gateFor(fx, {
      allow: ["mcp__github", "Edit"],
      deny: ["mcp__github__delete_repo", "TodoWrite"],
      mode: "default",
    });
    expect(gate.evaluate("mcp__github__create_issue", {}).behavior).toBe("allow");
    expect(gate.evaluate("mcp__github__delete_repo", {}).behavior).toBe("deny");
    expect(gate.evaluate("mcp__other__x", {}).behavior).toBe("ask");
    expect(gate.evaluate("TodoWrite", { todos: [] }).behavior).toBe("deny");
    expect(gate.evaluate("Write", { file_path: "src/new.ts", content: "" }).behavior).toBe("allow");
  });

  test("WebFetch(domain:…): allow covers the host named (or *.sub-domains), deny and ask its sub-domains too", () => {
    const fetch = (url: string) => ({ url, prompt: "p" });
    const allow = gateFor(fx, { allow: ["WebFetch(domain:x.com)", "WebFetch(domain:*.docs.org)"] });
    expect(allow.evaluate("WebFetch", fetch("https://x.com/a")).behavior).toBe("allow");
    expect(allow.evaluate("WebFetch", fetch("https://api.x.com/a")).behavior).toBe("ask");
    expect(allow.evaluate("WebFetch", fetch("https://evil-x.com/a")).behavior).toBe("ask");
    expect(allow.evaluate("WebFetch", fetch("https://a.docs.org/")).behavior).toBe("allow");
    expect(allow.evaluate("WebFetch", fetch("https://y.com/")).behavior).toBe("ask");
    const deny = gateFor(fx, { deny: ["WebFetch(domain:x.com)"], allow: ["WebFetch"] });
    expect(deny.evaluate("WebFetch", fetch("https://api.x.com/a")).behavior).toBe("deny");
    expect(deny.evaluate("WebFetch", fetch("https://y.com/")).behavior).toBe("allow");
    expect(() => parseRule("WebFetch(domain:http://x.com/)", "allow", "test")).toThrow(/is not a host name/);
  });

  test("an opaque content rule denies its whole tool, never allows it", () => {
    expect(
      gateFor(fx, { deny: ["Agent(reviewer)"] }).evaluate("Agent", { prompt: "p", description: "d" })
        .behavior,
    ).toBe("deny");
  });
});

describe("rules naming no known tool", () => {
  test("a known tool in the wrong case is an error naming the tool meant (a deny rule must not match nothing)", () => {
    expect(() => parseRule("bash(touch:*)", "deny", "test")).toThrow(
      /no tool is named bash \(tool names are case-sensitive\): did you mean Bash\?/,
    );
    expect(() => parseRule("read", "deny", "test")).toThrow(/did you mean Read\?/);
    expect(() => parseRule("webfetch(domain:x)", "deny", "test")).toThrow(/did you mean WebFetch\?/);
  });

  test("a rule for a tool the run does not have is reported once; MCP and the run's own tools are not", () => {
    const rules = [
      parseRule("Task(x)", "deny", "user config"),
      parseRule("MyTool", "allow", "--allowedTools"),
      parseRule("mcp__github__create_issue", "allow", "--allowedTools"),
      parseRule("Bash(git status:*)", "allow", "--allowedTools"),
      parseRule("Deploy", "deny", "--disallowedTools"),
    ];
    const warnings = unknownToolWarnings(rules, ["Deploy"]);
    expect(warnings).toEqual([
      "permission rule Task(x) (user config) has no effect: cairn has no Task tool",
      expect.stringMatching(
        /^permission rule MyTool \(--allowedTools\) has no effect: no tool is named MyTool \(cairn's tools: Read, .*mcp__server__tool\)$/,
      ),
    ]);
  });
});
