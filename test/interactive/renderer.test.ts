import { describe, expect, test } from "vitest";
import { InlineRenderer } from "../../src/interactive/renderer.js";

/** The inline renderer's bytes (renderer.ts): what a frame writes when a row only grew. */
describe("inline renderer", () => {
  test("a row that only grew gets just its new end; a changed row is rewritten whole", () => {
    const writes: string[] = [];
    const renderer = new InlineRenderer((data) => writes.push(data));
    renderer.frame([], ["streamed 漢字 text", "footer"], null);
    renderer.frame([], ["streamed 漢字 text goes on", "footer"], null);
    // Cursor forward past the old text (its columns: the CJK characters take two each), then the rest.
    expect(writes[1]).toContain("\x1b[18C goes on");
    expect(writes[1]).not.toContain("streamed");
    renderer.frame([], ["something else", "footer"], null);
    expect(writes[2]).toContain("something else\x1b[K");
  });
});
