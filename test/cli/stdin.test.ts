import { PassThrough } from "node:stream";
import { describe, expect, test } from "vitest";
import { readPromptFromStdin } from "../../src/cli/stdin.js";

describe("readPromptFromStdin", () => {
  test("reads everything, drops one final newline, keeps the rest byte for byte", async () => {
    const input = new PassThrough();
    const prompt = readPromptFromStdin(new AbortController().signal, input, () => {});
    input.write("line 1\n  line 2 ünï");
    input.end("cödé 🙂\n\n");
    expect(await prompt).toBe("line 1\n  line 2 ünïcödé 🙂\n");
  });

  test("a multi-byte character split across chunks survives", async () => {
    const input = new PassThrough();
    const prompt = readPromptFromStdin(new AbortController().signal, input, () => {});
    const bytes = Buffer.from("🙂");
    input.write(bytes.subarray(0, 2));
    input.end(bytes.subarray(2));
    expect(await prompt).toBe("🙂");
  });

  test("an abort (Ctrl-C) stops the wait", async () => {
    const input = new PassThrough();
    const controller = new AbortController();
    const prompt = readPromptFromStdin(controller.signal, input, () => {});
    controller.abort(new Error("Interrupted by SIGINT"));
    await expect(prompt).rejects.toThrow("Interrupted by SIGINT");
  });
});
