import { existsSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { runOneCall } from "../../src/engine/tool-runner.js";
import {
  checkContainment,
  isInside,
  PathResolutionError,
  protectedPath,
  resolvePhysical,
} from "../../src/permissions/index.js";
import { builtinTools } from "../../src/tools/index.js";
import { gateFor, makeFixture } from "./fixture.js";

const fx = makeFixture();
afterAll(() => fx.cleanup());

/** Every file tool, with its path argument in every position it can take one. */
const FILE_TOOLS: { name: string; tool: string; input: (p: string) => Record<string, unknown> }[] = [
  { name: "Read.file_path", tool: "Read", input: (p) => ({ file_path: p }) },
  { name: "Write.file_path", tool: "Write", input: (p) => ({ file_path: p, content: "x" }) },
  {
    name: "Edit.file_path",
    tool: "Edit",
    input: (p) => ({ file_path: p, old_string: "a", new_string: "b" }),
  },
  { name: "Glob.path", tool: "Glob", input: (p) => ({ pattern: "*", path: p }) },
  { name: "Glob.pattern", tool: "Glob", input: (p) => ({ pattern: `${p}/*` }) },
  { name: "Grep.path", tool: "Grep", input: (p) => ({ pattern: "x", path: p }) },
  { name: "LS.path", tool: "LS", input: (p) => ({ path: p }) },
];

/** Every way out of the workspace a model has tried. */
const ESCAPES: [string, string][] = [
  ["symlinked file", "link-file"],
  ["symlinked parent", "link-dir/secret.txt"],
  ["new file under a symlinked dir", "link-dir/new-file.txt"],
  ["dangling symlink (write lands outside)", "dangling"],
  ["../", "../outside/secret.txt"],
  ["deep ../", "src/../../outside/secret.txt"],
  ["sibling prefix (absolute)", path.join(fx.base, "ws-evil", "x")],
  ["sibling prefix (relative)", "../ws-evil/x"],
  ["absolute outside", path.join(fx.outside, "secret.txt")],
  ["absolute system path", "/etc/passwd"],
  ["~ home file", "~/.bashrc"],
  ["~ alone", "~"],
  ["~user", "~root/.bashrc"],
  ["circular symlink", "loop1"],
  ["under a circular symlink", "loop1/x"],
];

const INSIDE: [string, string][] = [
  ["relative file", "src/a.ts"],
  ["absolute file", path.join(fx.ws, "src", "a.ts")],
  ["dot segments that stay inside", "./src/../src/a.ts"],
  ["new file in a new directory", "newdir/deep/file.ts"],
  ["the workspace itself", "."],
];

describe("containment table: every file tool refuses every escape (acceptEdits, headless)", () => {
  const gate = gateFor(fx, { mode: "acceptEdits" });
  for (const { name, tool, input } of FILE_TOOLS) {
    for (const [label, p] of ESCAPES) {
      test(`${name}: ${label} (${p}) is refused`, async () => {
        const verdict = gate.evaluate(tool, input(p));
        expect(verdict.behavior, verdict.message).not.toBe("allow");
        const decision = await gate(tool, input(p), {
          signal: new AbortController().signal,
          toolUseID: "t1",
        });
        expect(decision.behavior).toBe("deny");
      });
    }
  }
});

describe("inside the workspace every file tool may work (acceptEdits)", () => {
  const gate = gateFor(fx, { mode: "acceptEdits" });
  for (const { name, tool, input } of FILE_TOOLS) {
    for (const [label, p] of INSIDE) {
      if (label === "the workspace itself" && (tool === "Read" || tool === "Write" || tool === "Edit"))
        continue;
      if (label === "new file in a new directory" && !["Write", "Edit"].includes(tool)) continue;
      test(`${name}: ${label} is allowed`, () => {
        const verdict = gate.evaluate(tool, input(p));
        expect(verdict.behavior, verdict.message).toBe("allow");
      });
    }
  }
});

describe("escapes in other modes", () => {
  test("default mode asks about the same escapes, and also about edits inside", () => {
    const gate = gateFor(fx, { mode: "default" });
    for (const [, p] of ESCAPES) expect(gate.evaluate("Read", { file_path: p }).behavior).toBe("ask");
    expect(gate.evaluate("Read", { file_path: "src/a.ts" }).behavior).toBe("allow");
    const edit = gate.evaluate("Write", { file_path: "src/a.ts", content: "x" });
    expect(edit.behavior).toBe("ask");
    expect(edit.message).toMatch(/default mode/);
  });

  test("plan mode denies every write, inside or out", () => {
    const gate = gateFor(fx, { mode: "plan" });
    expect(gate.evaluate("Write", { file_path: "src/a.ts", content: "x" }).behavior).toBe("deny");
    expect(
      gate.evaluate("Edit", { file_path: "link-dir/x", old_string: "a", new_string: "b" }).behavior,
    ).toBe("deny");
    expect(gate.evaluate("Read", { file_path: "src/a.ts" }).behavior).toBe("allow");
  });

  test("bypassPermissions (--force) lets every escape through, but not a deny rule", () => {
    const gate = gateFor(fx, { mode: "bypassPermissions", deny: ["Read(//etc/**)"] });
    expect(gate.evaluate("Read", { file_path: "link-file" }).behavior).toBe("allow");
    expect(gate.evaluate("Write", { file_path: "../outside/new.txt", content: "x" }).behavior).toBe("allow");
    const denied = gate.evaluate("Read", { file_path: "/etc/passwd" });
    expect(denied.behavior).toBe("deny");
    expect(denied.message).toBe("denied by rule Read(//etc/**) (test)");
  });

  test("additional directories count as workspace, through symlinks too", () => {
    const gate = gateFor(fx, { additionalDirs: [fx.outside] });
    expect(gate.evaluate("Read", { file_path: path.join(fx.outside, "secret.txt") }).behavior).toBe("allow");
    expect(gate.evaluate("Read", { file_path: "link-dir/secret.txt" }).behavior).toBe("allow");
    expect(gate.evaluate("Read", { file_path: path.join(fx.base, "ws-evil", "x") }).behavior).toBe("ask");
  });

  test("an explicit allow rule opens one outside path, matched on its real path", () => {
    const gate = gateFor(fx, { allow: [`Read(/${fx.outside}/**)`] });
    expect(gate.evaluate("Read", { file_path: "link-file" }).behavior).toBe("allow");
    expect(gate.evaluate("Read", { file_path: "/etc/passwd" }).behavior).toBe("ask");
  });
});

describe("protected paths need an explicit allow rule, even inside and before they exist", () => {
  const PROTECTED = [
    ".git/hooks/pre-commit",
    ".git/config",
    "sub/.git/hooks/post-checkout",
    ".cairn/config.json",
    ".bashrc",
    ".zshrc",
    ".profile",
    ".envrc",
    ".vscode/tasks.json",
    "hooks-link/pre-push",
  ];
  for (const mode of ["acceptEdits", "bypassPermissions"] as const) {
    test(`${mode}: writes are asked about (denied headless)`, () => {
      const gate = gateFor(fx, { mode });
      for (const p of PROTECTED) {
        for (const tool of ["Write", "Edit"]) {
          const verdict = gate.evaluate(tool, {
            file_path: p,
            content: "x",
            old_string: "a",
            new_string: "b",
          });
          expect(verdict.behavior, `${tool} ${p}`).toBe("ask");
          expect(verdict.message).toMatch(/protected path/);
        }
      }
    });
  }

  test("cairn's own home is protected wherever it is", () => {
    const gate = gateFor(fx, { mode: "bypassPermissions" });
    const verdict = gate.evaluate("Write", {
      file_path: path.join(fx.cairnHome, "config.json"),
      content: "{}",
    });
    expect(verdict.behavior).toBe("ask");
    expect(verdict.message).toMatch(/cairn's home/);
  });

  test("reading protected files is fine", () => {
    const gate = gateFor(fx);
    expect(gate.evaluate("Read", { file_path: ".git/config" }).behavior).toBe("allow");
  });

  test("a bare Write allow rule does not unlock them; a path rule does", () => {
    expect(
      gateFor(fx, { allow: ["Write"] }).evaluate("Write", { file_path: ".git/hooks/pre-commit", content: "" })
        .behavior,
    ).toBe("ask");
    const gate = gateFor(fx, { allow: ["Write(.git/hooks/**)"] });
    expect(gate.evaluate("Write", { file_path: ".git/hooks/pre-commit", content: "" }).behavior).toBe(
      "allow",
    );
    expect(gate.evaluate("Write", { file_path: "hooks-link/pre-commit", content: "" }).behavior).toBe(
      "allow",
    );
    expect(gate.evaluate("Write", { file_path: ".git/config", content: "" }).behavior).toBe("ask");
  });

  test("protectedPath matches by component, not by substring", () => {
    expect(protectedPath("/w/.github/workflows/x.yml", "/h/.cairn")).toBeUndefined();
    expect(protectedPath("/w/my.bashrc", "/h/.cairn")).toBeUndefined();
    expect(protectedPath("/w/.git", "/h/.cairn")?.what).toBe("the git directory");
    expect(protectedPath("/h/.cairn-other/x", "/h/.cairn")).toBeUndefined();
  });

  test("the user's git config directory and other agents' config are protected", () => {
    expect(protectedPath("/h/.config/git/config", "/h/.cairn")?.what).toBe("the user's git config");
    expect(protectedPath("/h/.config/git/attributes", "/h/.cairn")?.what).toBe("the user's git config");
    expect(protectedPath("/h/.config/gitx/config", "/h/.cairn")).toBeUndefined();
    expect(protectedPath("/w/.claude/settings.json", "/h/.cairn")?.what).toMatch(/another agent/);
  });

  test("components are compared without case (case-insensitive file systems: .GIT/hooks is .git/hooks)", () => {
    expect(protectedPath("/w/.GIT/hooks/pre-commit", "/h/.cairn")?.what).toBe("git hooks");
    expect(protectedPath("/w/.Git/Config", "/h/.cairn")?.what).toBe("the git config");
    expect(protectedPath("/h/.BashRC", "/h/.cairn")?.what).toMatch(/shell start-up file/);
    expect(protectedPath("/h/.CAIRN/config.json", "/h/.cairn")?.what).toMatch(/cairn's home/);
    const gate = gateFor(fx, { mode: "bypassPermissions" });
    expect(gate.evaluate("Write", { file_path: ".GIT/hooks/pre-commit", content: "x" }).behavior).toBe("ask");
    expect(gate.evaluate("Bash", { command: "cp x .Git/hooks/pre-commit" }).behavior).toBe("ask");
  });
});

describe("path resolution primitives", () => {
  test("containment compares components, never string prefixes", () => {
    expect(isInside("/ws", "/ws")).toBe(true);
    expect(isInside("/ws", "/ws/a/b")).toBe(true);
    expect(isInside("/ws", "/ws-evil/a")).toBe(false);
    expect(isInside("/ws", "/ws/../etc")).toBe(false);
    expect(isInside("/ws", "/ws/..foo")).toBe(true);
    expect(isInside("/", "/anything")).toBe(true);
  });

  test("resolvePhysical follows links like the kernel, including `..` after a link", () => {
    expect(resolvePhysical(path.join(fx.ws, "link-dir", "secret.txt")).real).toBe(
      path.join(fx.outside, "secret.txt"),
    );
    expect(resolvePhysical(`${fx.ws}/link-dir/../outside/secret.txt`).real).toBe(
      path.join(fx.outside, "secret.txt"),
    );
    expect(resolvePhysical(path.join(fx.ws, "dangling")).real).toBe(path.join(fx.outside, "new.txt"));
    expect(resolvePhysical(path.join(fx.ws, "nope", "x"))).toEqual({
      real: path.join(fx.ws, "nope", "x"),
      exists: false,
    });
    expect(() => resolvePhysical(path.join(fx.ws, "loop1"))).toThrow(PathResolutionError);
  });

  test("checkContainment checks both the literal and the expanded spelling of ~", () => {
    const check = checkContainment("~/x", { cwd: fx.ws, roots: [fx.ws], home: fx.home });
    expect(check.contained).toBe(false);
    expect(check.candidates.map((c) => c.lexical)).toEqual([
      path.join(fx.ws, "~", "x"),
      path.join(fx.home, "x"),
    ]);
  });
});

describe("end to end with the real tools: a refused call never runs", () => {
  const tools = new Map(builtinTools().map((tool) => [tool.name, tool]));
  const call = async (name: string, input: Record<string, unknown>) => {
    const gate = gateFor(fx);
    const controller = new AbortController();
    return runOneCall(
      { block: { type: "tool_use", id: "toolu_1", name, input }, tool: tools.get(name)! },
      { cwd: fx.ws, env: process.env, signal: controller.signal, toolUseId: "toolu_1" },
      gate,
    );
  };

  test("Write through a symlinked dir creates nothing outside", async () => {
    const result = await call("Write", { file_path: "link-dir/planted.txt", content: "x" });
    expect(result.outcome.errorKind).toBe("denied");
    expect(result.outcome.content).toMatch(/outside the workspace/);
    expect(existsSync(path.join(fx.outside, "planted.txt"))).toBe(false);
  });

  test("Write through a dangling symlink creates nothing outside", async () => {
    const result = await call("Write", { file_path: "dangling", content: "x" });
    expect(result.outcome.errorKind).toBe("denied");
    expect(existsSync(path.join(fx.outside, "new.txt"))).toBe(false);
  });

  test("Read of a symlinked secret returns no content", async () => {
    const result = await call("Read", { file_path: "link-file" });
    expect(result.outcome.errorKind).toBe("denied");
    expect(result.outcome.content).not.toContain("secret\n");
  });

  test("a Write inside the workspace runs", async () => {
    const result = await call("Write", { file_path: "made/by/tool.txt", content: "x" });
    expect(result.outcome.isError).toBe(false);
    expect(existsSync(path.join(fx.ws, "made/by/tool.txt"))).toBe(true);
  });
});
