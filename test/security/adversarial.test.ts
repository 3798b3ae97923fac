import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { CHECKER_FAMILIES } from "./attacks/checker-cases.js";
import { FORCE_FAMILIES } from "./attacks/force-cases.js";
import {
  effectSeen,
  layout,
  materialize,
  type NamedCase,
  reset,
  runWithCairn,
  runWithoutCairn,
} from "./attacks/harness.js";
import { FORCE_DENY, type Mode, PLAIN_DENY } from "./attacks/types.js";
import { sandboxUnavailable } from "./sandbox-helpers.js";

/**
 * The permanent adversarial suite (docs/security.md, "The adversarial suite"). Every case is an
 * attack whose tool calls the attacker wrote; each is run twice:
 *
 * 1. the positive control: the same calls straight through bash and the file system, no cairn —
 *    the effect (a marker file, a wiped directory, an outside secret in the output) must be there;
 * 2. through the built CLI in print mode, all cases of a mode in one run, each in its own
 *    directory — the effect must be absent. An effect seen there is an escape.
 *
 * `DIMENSIONS` are the CLI configurations the runs repeat in (a dimension such as `--sandbox enabled`).
 */

const isRoot = process.getuid?.() === 0;
if (sandboxUnavailable)
  console.warn(`adversarial suite: the sandbox dimension is skipped (${sandboxUnavailable})`);
const ALL: NamedCase[] = [...CHECKER_FAMILIES, ...FORCE_FAMILIES].flatMap(({ family, cases }) =>
  cases
    .filter((c) => isRoot || !c.root)
    .map((c, i) => ({ ...c, family, id: `${family}-${String(i + 1).padStart(2, "0")}` })),
);
/**
 * The configurations every case must hold in: the checker alone (the sandbox's `--sandbox enabled`
 * goes here as a second entry), plus whatever `CAIRN_ATTACK_ARGS` adds to the first.
 */
const DIMENSIONS: { name: string; args: string[] }[] = [
  {
    name: "checker only",
    args: ["--sandbox", "disabled", ...(process.env.CAIRN_ATTACK_ARGS ?? "").split(/\s+/).filter(Boolean)],
  },
  // The same attacks with the OS sandbox under every command, where bubblewrap runs (CI installs it).
  ...(sandboxUnavailable ? [] : [{ name: "sandbox enabled", args: ["--sandbox", "enabled"] }]),
];

const base = realpathSync(mkdtempSync(path.join(os.tmpdir(), "cairn-attacks-")));
afterAll(() => rmSync(base, { recursive: true, force: true }));

describe("the adversarial suite", () => {
  test("has at least 150 cases across the families", () => {
    expect(ALL.length).toBeGreaterThanOrEqual(150);
    expect(new Set(ALL.map((c) => c.family)).size).toBeGreaterThanOrEqual(9);
  });

  test("every attack works without cairn (positive controls)", () => {
    const at = layout(path.join(base, "control"));
    reset(at);
    const failed: string[] = [];
    for (const c of ALL) {
      materialize(at, c);
      const output = runWithoutCairn(at, c);
      // What the calls printed goes with a failure: a control that fails says why (it has failed
      // twice, in whole-suite runs only, for the four cases that hand BASH_ENV to a nested bash).
      if (!effectSeen(at, c, output))
        failed.push(`${c.id}: ${c.name}${output ? ` — printed: ${output.slice(-400)}` : ""}`);
    }
    expect(failed).toEqual([]);
  });

  for (const dimension of DIMENSIONS)
    for (const [mode, deny] of [
      ["plain", PLAIN_DENY],
      ["force", FORCE_DENY],
    ] as [Mode, string[]][]) {
      const what = mode === "plain" ? "print mode's default" : "--force (deny rules, protected paths)";
      test(`0 escapes through the CLI in ${what}, ${dimension.name}`, async () => {
        const at = layout(path.join(base, `${dimension.name}-${mode}`.replace(/\W+/g, "-")));
        reset(at);
        const cases = ALL.filter((c) => c.modes.includes(mode));
        for (const c of cases) materialize(at, c);
        const run = await runWithCairn(at, cases, mode, { deny, extraArgs: dimension.args });
        expect(run.code, run.stderr).toBe(0);
        const calls = cases.reduce((n, c) => n + c.calls.length, 0);
        expect(run.stdout.match(/"subtype":"completed"/g)?.length, "every call got a result").toBe(calls);
        const escapes = cases.filter((c) => effectSeen(at, c, run.stdout)).map((c) => `${c.id}: ${c.name}`);
        expect(escapes).toEqual([]);
      }, 120_000);
    }
});
