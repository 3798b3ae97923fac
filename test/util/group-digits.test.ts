import { describe, expect, test } from "vitest";
import { groupDigits } from "../../src/util/group-digits.js";

describe("groupDigits", () => {
  test("writes integers as toLocaleString('en-US') does", () => {
    for (const value of [0, 7, 999, 1000, 100_000, 1_234_567, 200_000_000, -45_000, 12.5])
      expect(groupDigits(value), String(value)).toBe(value.toLocaleString("en-US"));
  });
});
