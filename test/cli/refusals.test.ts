import { describe, expect, test } from "vitest";
import { reply } from "../../src/testing/index.js";
import { runCli } from "../conformance/pm/helpers.js";

/**
 * A refused call's completed tool_call carries the reference CLI's `result.rejected: { command |
 * path, reason }` next to `error` (ACP adapters for the reference ask the editor, and retry, only when
 * they see it), for every tool kind; a call that failed for another reason has no `rejected`.
 */
describe("refusals carry result.rejected", () => {
  test("every tool kind that can be refused: rejected names the command or the path and says why", async () => {
    // Print mode's own rules refuse these: anything outside the workspace, a shell command that is not read-only.
    const calls: [string, Record<string, unknown>, string, Record<string, unknown>][] = [
      ["Read", { file_path: "../outside.txt" }, "readToolCall", { path: "../outside.txt" }],
      ["Write", { file_path: "../b.txt", content: "b" }, "writeToolCall", { path: "../b.txt" }],
      [
        "Edit",
        { file_path: "../a.txt", old_string: "a", new_string: "b" },
        "editToolCall",
        { path: "../a.txt" },
      ],
      ["Bash", { command: "touch marker" }, "shellToolCall", { command: "touch marker" }],
      ["Grep", { pattern: "a", path: ".." }, "grepToolCall", { path: ".." }],
      ["Glob", { pattern: "*.txt", path: ".." }, "globToolCall", { path: ".." }],
      ["LS", { path: ".." }, "lsToolCall", { path: ".." }],
    ];
    let step = reply();
    for (const [name, input] of calls) step = step.tool(name, input);
    const run = await runCli({
      steps: [step, reply().text("All refused.")],
      files: { "a.txt": "a\n" },
      args: ["--output-format", "stream-json"],
    });
    expect(run.code).toBe(0);
    const completed = run.events.filter(
      (event) => event.subtype === "completed" && event.type === "tool_call",
    );
    expect(completed).toHaveLength(calls.length);
    for (const [name, , key, named] of calls) {
      const event = completed.find((candidate) => key in (candidate.tool_call as object))!;
      const result = (event.tool_call as Record<string, { result: Record<string, { message?: string }> }>)[
        key
      ]!.result;
      expect({ name, rejected: result.rejected }).toEqual({
        name,
        rejected: { ...named, reason: result.error!.message },
      });
    }
  });

  test("a Glob pattern whose brace or extglob yields `..` is refused like ../ (the names outside stay unlisted)", async () => {
    const patterns = ["..{,}/outside/*", "..?(x)/outside/*"];
    const run = async (force: string[]) => {
      let step = reply();
      for (const pattern of patterns) step = step.tool("Glob", { pattern });
      return runCli({
        steps: [step, reply().text("Looked.")],
        files: { "ws/inside.txt": "", "outside/secret.txt": "s" },
        args: ["--output-format", "stream-json", "--workspace", "ws", ...force],
      });
    };
    const refused = await run([]);
    expect(refused.code).toBe(0);
    expect(refused.stdout).not.toContain("secret.txt");
    const results = refused.events
      .filter((event) => event.type === "tool_call" && event.subtype === "completed")
      .map(
        (event) =>
          (event.tool_call as { globToolCall: { result: Record<string, unknown> } }).globToolCall.result,
      );
    expect(results).toHaveLength(2);
    for (const result of results) expect(Object.keys(result)).toEqual(["error", "rejected"]);
    // The positive control: with --force the same calls do list the file outside.
    const forced = await run(["--force"]);
    expect(forced.stdout.match(/outside\/secret\.txt/g)?.length).toBeGreaterThanOrEqual(2);
  });

  test("a call that failed without being refused has error and no rejected", async () => {
    const run = await runCli({
      steps: [reply().tool("Read", { file_path: "missing.txt" }), reply().text("Gone.")],
      args: ["--output-format", "stream-json"],
    });
    const completed = run.events.find(
      (event) => event.subtype === "completed" && event.type === "tool_call",
    )!;
    const result = (completed.tool_call as { readToolCall: { result: Record<string, unknown> } }).readToolCall
      .result;
    expect(Object.keys(result)).toEqual(["error"]);
  });
});
