import fc from "fast-check";
import { afterAll, describe, expect, test } from "vitest";
import { checkReadOnlyCommand, type PermissionVerdict, parseShell } from "../../src/permissions/index.js";
import { OPTIONS_ONLY } from "../../src/permissions/shell-readonly.js";
import { gateFor, makeFixture } from "./fixture.js";

const fx = makeFixture();
afterAll(() => fx.cleanup());

const gate = gateFor(fx, { mode: "acceptEdits", deny: ["Bash(rm:*)"], allow: ["Bash(npm run test:*)"] });
const decide = (command: string): PermissionVerdict["behavior"] =>
  gate.evaluate("Bash", { command }).behavior;
const RANK = { allow: 0, ask: 1, deny: 2 } as const;

/** Simple commands whose decision alone is known. */
const LEAVES = [
  "ls",
  "pwd",
  "echo hi",
  "cat src/a.ts",
  "git status",
  "git log --oneline",
  "grep -n foo src/a.ts",
  "wc -l src/a.ts",
  "head -n 3 src/a.ts",
  "sort src/a.ts",
  "find src -name x",
  "true",
  "npm run test",
  "curl x",
  "npm install",
  "python3 -c 1",
  "touch marker",
  "git push origin",
  "cat /etc/passwd",
  "cat link-file",
  "sort -o out src/a.ts",
  "sed -i s/a/b/ src/a.ts",
  "find . -delete",
  "rm -rf x",
  "rm x",
];

/** A command line built from leaves, and the leaves it runs. */
type Line = { text: string; leaves: string[] };

const quote = (text: string) => `'${text.replaceAll("'", "'\\''")}'`;

const line: fc.Arbitrary<Line> = fc.letrec<{ line: Line }>((tie) => ({
  line: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constantFrom(...LEAVES).map((leaf) => ({ text: leaf, leaves: [leaf] })),
    fc
      .tuple(tie("line"), fc.constantFrom(" ; ", " && ", " || ", " | ", "\n"), tie("line"))
      .map(([a, op, b]) => ({ text: `${a.text}${op}${b.text}`, leaves: [...a.leaves, ...b.leaves] })),
    tie("line").map((a) => ({ text: `echo $( ${a.text} )`, leaves: ["echo hi", ...a.leaves] })),
    tie("line").map((a) => ({ text: `( ${a.text} )`, leaves: a.leaves })),
    tie("line").map((a) => ({ text: `{ ${a.text}; }`, leaves: a.leaves })),
    tie("line").map((a) => ({ text: `sh -c ${quote(a.text)}`, leaves: a.leaves })),
    tie("line").map((a) => ({ text: `bash -lc ${quote(a.text)}`, leaves: a.leaves })),
    tie("line").map((a) => ({ text: `if true; then ${a.text}; fi`, leaves: ["true", ...a.leaves] })),
    tie("line").map((a) => ({ text: `${a.text} 2>/dev/null`, leaves: a.leaves })),
    fc.constantFrom(...LEAVES).map((leaf) => ({ text: `timeout 5 ${leaf}`, leaves: [leaf] })),
    fc.constantFrom(...LEAVES).map((leaf) => ({ text: `nice -n 5 ${leaf}`, leaves: [leaf] })),
    fc.constantFrom(...LEAVES).map((leaf) => ({ text: `echo \`${leaf}\``, leaves: ["echo hi", leaf] })),
  ),
})).line;

describe("property: a command line is allowed only if every part of it is", () => {
  test("whatever is allowed has every parsed part allowed (and the decision is the strictest part's)", () => {
    fc.assert(
      fc.property(line, ({ text, leaves }) => {
        const whole = decide(text);
        const parts = leaves.map(decide);
        if (whole === "allow")
          expect(
            parts.every((part) => part === "allow"),
            text,
          ).toBe(true);
        const strictest = parts.reduce(
          (a, b) => (RANK[a] >= RANK[b] ? a : b),
          "allow" as PermissionVerdict["behavior"],
        );
        expect(whole, text).toBe(strictest);
      }),
      { numRuns: 400 },
    );
  });

  test("fuzzed shell text: an allowed line always parses, and every command in it is read-only", () => {
    const alphabet = fc.constantFrom(
      ..."ls cat echo rm curl git status ; && || | $( ) ` ' \" < > >> 2>&1 * ~ / .. { } \\ \n # = -o -exec sh -c x".split(
        " ",
      ),
    );
    const noRules = gateFor(fx, { mode: "acceptEdits" });
    fc.assert(
      fc.property(fc.array(alphabet, { maxLength: 12 }), (tokens) => {
        const text = tokens.join(" ");
        const verdict = noRules.evaluate("Bash", { command: text });
        if (verdict.behavior !== "allow" || text.trim() === "") return;
        const parsed = parseShell(text, { home: fx.home });
        expect(parsed.ok, text).toBe(true);
        if (!parsed.ok) return;
        for (const part of parsed.parts) {
          if (part.kind === "command" && !part.wrapper) {
            const problem = checkReadOnlyCommand(part.words, OPTIONS_ONLY);
            expect(problem, `${text}: ${part.text}`).toBeUndefined();
          }
          // Allowed redirections only read (here-documents, `<` from a file) or duplicate descriptors.
          if (part.kind === "redirect")
            expect(
              ["<", "<<", "<<-", "<<<", ">&", "<&"].includes(part.op) || part.target.value === "/dev/null",
              text,
            ).toBe(true);
          expect(part.kind, text).not.toBe("construct");
        }
      }),
      { numRuns: 1000 },
    );
  });

  test("unparseable text is never allowed, in any mode", () => {
    const gates = (["default", "acceptEdits", "plan", "bypassPermissions"] as const).map((mode) =>
      gateFor(fx, { mode }),
    );
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), (text) => {
        if (parseShell(text).ok) return;
        for (const g of gates) expect(g.evaluate("Bash", { command: text }).behavior, text).not.toBe("allow");
      }),
      { numRuns: 500 },
    );
  });
});
