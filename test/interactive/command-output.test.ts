import { describe, expect, test } from "vitest";
import { reply } from "../../src/testing/index.js";
import { ready, skipped, startCairn } from "./cairn-terminal.js";

/** A Bash call's output under its line, collapsed to its tail; Ctrl+O shows it whole (docs/interactive.md). */
describe(`command output in the interactive mode${skipped}`, () => {
  test.skipIf(skipped !== "")(
    "Bash shows the command and the last lines of its output; Ctrl+O writes the whole output below",
    async () => {
      const { t } = await startCairn(
        [reply().tool("Bash", { command: "seq 101 130" }), reply().text("Counted to 130.")],
        ["Count", "--allowedTools", "Bash(seq:*)"],
      );
      await t.waitFor((text) => text.includes("Counted to 130."), "the answer");
      await ready(t);
      let all = t.all().map((row) => row.trimEnd());
      const line = all.findIndex((row) => row.startsWith("✓ `seq 101 130`"));
      expect(line).toBeGreaterThan(-1);
      expect(all.slice(line + 1, line + 6)).toEqual([
        "  ⎿ … 26 earlier lines (ctrl+o to expand)",
        "    127",
        "    128",
        "    129",
        "    130",
      ]);
      expect(all).not.toContain("    105");
      t.type("\x0f"); // Ctrl+O
      await t.waitFor((text) => text.includes("Output of `seq 101 130`:"), "the expanded output");
      all = t.all().map((row) => row.trimEnd());
      const expanded = all.findIndex((row) => row.includes("Output of `seq 101 130`:"));
      expect(all.slice(expanded + 1, expanded + 31)).toEqual(
        Array.from({ length: 30 }, (_, i) => `${i === 0 ? "  ⎿ " : "    "}${101 + i}`),
      );
      // The collapsed rows above stay as they were: nothing in the scrollback is redrawn.
      expect(all.slice(line + 1, line + 2)).toEqual(["  ⎿ … 26 earlier lines (ctrl+o to expand)"]);
    },
  );

  test.skipIf(skipped !== "")("a short output is shown whole, with no expand hint", async () => {
    const { t } = await startCairn(
      [reply().tool("Bash", { command: "echo one; echo two" }), reply().text("Echoed.")],
      ["Echo", "--allowedTools", "Bash(echo:*)"],
    );
    await t.waitFor((text) => text.includes("Echoed."), "the answer");
    const all = t.all().map((row) => row.trimEnd());
    const line = all.findIndex((row) => row.startsWith("✓ `echo one; echo two`"));
    expect(all.slice(line + 1, line + 3)).toEqual(["  ⎿ one", "    two"]);
    expect(all.join("\n")).not.toContain("ctrl+o");
  });
});
