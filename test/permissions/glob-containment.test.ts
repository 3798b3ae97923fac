import path from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, test } from "vitest";
import { runOneCall } from "../../src/engine/tool-runner.js";
import { isInside } from "../../src/permissions/index.js";
import { globTool } from "../../src/tools/glob.js";
import { gateFor, makeFixture } from "./fixture.js";

/**
 * A Glob pattern can leave its directory without a literal `../`: a brace or an extglob that yields
 * `..`, a `..*`, an escaped dot. The containment check must see the directory the Glob tool really
 * reads (src/tools/glob-search.ts plans both), so a call it allows never lists a name outside the
 * workspace. Each escape has its positive control: with bypassPermissions the same call does list
 * the secret outside, so the check is what stops it.
 */
const fx = makeFixture();
afterAll(() => fx.cleanup());

const SECRET = path.join(fx.outside, "secret.txt");

async function globCall(input: Record<string, unknown>, mode: "acceptEdits" | "bypassPermissions") {
  const controller = new AbortController();
  const { outcome } = await runOneCall(
    { block: { type: "tool_use", id: "toolu_1", name: "Glob", input }, tool: globTool },
    { cwd: fx.ws, env: process.env, signal: controller.signal, toolUseId: "toolu_1" },
    gateFor(fx, { mode }),
  );
  return outcome;
}

/** Patterns that read the directory next to the workspace, each spelling `..` another way. */
const CLIMBING = [
  "../outside/*",
  "..{,}/outside/*",
  "..?(x)/outside/*",
  "..*(x)/outside/*",
  "..@(|x)/outside/*",
  "..*/outside/*",
  ".\\./outside/*",
  "..[/]outside/*",
  "..{/outside,/none}/*",
  "src/../../outside/*",
  "**/../../outside/*",
];

describe("Glob patterns that climb out, however they spell `..`, are refused in print mode's default", () => {
  for (const pattern of CLIMBING) {
    test(`${pattern}`, async () => {
      const gate = gateFor(fx, { mode: "acceptEdits" });
      const verdict = gate.evaluate("Glob", { pattern });
      expect(verdict.behavior, verdict.message).not.toBe("allow");
      const refused = await globCall({ pattern }, "acceptEdits");
      expect(refused.errorKind).toBe("denied");
      expect(refused.content).not.toContain("secret.txt");
      // The positive control: the pattern really does reach the secret when nothing stops it.
      const forced = await globCall({ pattern }, "bypassPermissions");
      expect(forced.data?.files).toContain(SECRET);
    });
  }

  test("patterns that only look like climbing, and stay inside, are allowed and list what is inside", async () => {
    for (const pattern of [
      "{..,.}/outside/*",
      "@(..)/outside/*",
      "[.][.]/outside/*",
      "{src,docs}/*.ts",
      "**/*.ts",
    ]) {
      const verdict = gateFor(fx, { mode: "acceptEdits" }).evaluate("Glob", { pattern });
      expect(verdict.behavior, `${pattern}: ${verdict.message}`).toBe("allow");
      const files = ((await globCall({ pattern }, "acceptEdits")).data?.files ?? []) as string[];
      for (const file of files) expect(isInside(fx.ws, file), `${pattern}: ${file}`).toBe(true);
    }
  });
});

/** Pieces of patterns: the ways to write `..`, wildcards, names on both sides of the boundary. */
const PIECES = [
  "..",
  ".",
  "*",
  "**",
  "?",
  "src",
  "outside",
  "ws",
  "secret.txt",
  "*.txt",
  "*.ts",
  "{,}",
  "{..,.}",
  "{.,..}",
  "{a,..}",
  "?(x)",
  "*(.)",
  "@(..)",
  "+(.)",
  "!(a)",
  "[.]",
  "\\.",
  "..*",
];

/** A segment: one to three pieces (`..{,}`, `src*(.)`, `outside`). */
const segment = fc
  .array(fc.constantFrom(...PIECES), { minLength: 1, maxLength: 3 })
  .map((pieces) => pieces.join(""));
// Segments joined by `/`, ending in a file part (`..{,}/outside/*`, `src/..*/ws/*.ts`).
const patterns = fc
  .tuple(fc.array(segment, { minLength: 1, maxLength: 3 }), fc.constantFrom("*", "*.txt", "secret.txt", "**"))
  .map(([segments, last]) => [...segments, last].join("/"));

describe("property: a Glob call the check allows lists nothing outside the workspace", () => {
  test("for patterns built from every spelling of `..`, relative and from an absolute start", async () => {
    await fc.assert(
      fc.asyncProperty(
        patterns,
        fc.constantFrom(undefined, "src", "."),
        fc.boolean(),
        async (pattern, dir, absolute) => {
          const input = {
            pattern: absolute ? `${fx.ws}/${pattern}` : pattern,
            ...(dir !== undefined ? { path: dir } : {}),
          };
          const verdict = gateFor(fx, { mode: "acceptEdits" }).evaluate("Glob", input);
          if (verdict.behavior !== "allow") return;
          const outcome = await globCall(input, "bypassPermissions");
          for (const file of (outcome.data?.files ?? []) as string[])
            expect(isInside(fx.ws, file), `${JSON.stringify(input)} listed ${file}`).toBe(true);
        },
      ),
      { numRuns: 400 },
    );
  });
});
