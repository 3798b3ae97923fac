import { describe, expect, test } from "vitest";
import { isPrintMode, promptSource } from "../../src/cli/mode.js";

describe("mode and prompt source (PM-2)", () => {
  test.each([
    [false, true, true, false], // at a terminal, no -p: interactive (not available yet)
    [true, true, true, true], // -p
    [false, true, false, true], // stdout piped
    [false, false, true, true], // stdin piped
    [false, false, false, true],
  ])("print %s, stdin TTY %s, stdout TTY %s → print mode %s", (print, stdinIsTTY, stdoutIsTTY, expected) => {
    expect(isPrintMode(print, { stdinIsTTY, stdoutIsTTY })).toBe(expected);
  });

  test("an argument wins over stdin; without one, piped stdin; at a terminal, none", () => {
    expect(promptSource("hi", { stdinIsTTY: false, stdoutIsTTY: false })).toEqual({
      from: "argument",
      text: "hi",
    });
    expect(promptSource(undefined, { stdinIsTTY: false, stdoutIsTTY: true })).toEqual({ from: "stdin" });
    expect(promptSource(undefined, { stdinIsTTY: true, stdoutIsTTY: false })).toEqual({ from: "none" });
  });
});
