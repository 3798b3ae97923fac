import { describe, expect, test } from "vitest";
import { reply } from "../../src/testing/index.js";
import { ready, skipped, startCairn } from "./cairn-terminal.js";

/** A search the model's provider ran, in the interactive mode (docs/tools.md, "The provider's search"). */
describe(`the provider's web search in the interactive mode${skipped}`, () => {
  test.skipIf(skipped !== "")(
    "shows the search's query as a WebSearch call and each result's title and URL under it",
    async () => {
      const { t } = await startCairn(
        [
          reply()
            .webSearch("cairn building", [
              { url: "https://stones.example.org/cairns", title: "Cairns of the north" },
              { url: "https://docs.example.net/piles", title: "Stone piles" },
            ])
            .text("Cairns are stacked stones."),
        ],
        ["What are cairns?", "--allowedTools", "WebSearch"],
      );
      await t.waitFor((text) => text.includes("Cairns are stacked stones."), "the answer");
      await ready(t);
      const all = t.all().map((row) => row.trimEnd());
      const line = all.findIndex((row) => row.startsWith('✓ Search the web for "cairn building"'));
      expect(line).toBeGreaterThan(-1);
      expect(all.slice(line + 1, line + 3)).toEqual([
        "    Cairns of the north — https://stones.example.org/cairns",
        "    Stone piles — https://docs.example.net/piles",
      ]);
    },
  );
});
