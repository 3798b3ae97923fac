import { describe, expect, test } from "vitest";
import { randomHex, randomUuid } from "../../src/util/random-id.js";

/** Session ids, run tags and temporary names come from src/util/random-id.ts (no node:crypto at start-up). */
describe("random ids", () => {
  test("randomUuid gives version 4 UUIDs, all different", () => {
    const ids = Array.from({ length: 5000 }, randomUuid);
    for (const id of ids)
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });

  test("randomHex gives the asked number of bytes, past the end of a 4 kB pool", () => {
    const values = Array.from({ length: 1000 }, () => randomHex(6));
    for (const value of values) expect(value).toMatch(/^[0-9a-f]{12}$/);
    expect(new Set(values).size).toBe(values.length);
    // The bytes look random: every hex digit shows up in 12,000 of them.
    expect(new Set(values.join("")).size).toBe(16);
  });
});
