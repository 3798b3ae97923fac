/**
 * Whole programs importing "cairn" as an installed package would (built dist/, separate Node
 * process, only the environment set): a program written for the agent-SDK convention, and the
 * promise that ending a query early leaves nothing running.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { reply } from "../../src/testing/index.js";
import { isAlive } from "../helpers/process.js";
import { cleanUp, envFor, examplePath, fixturePath, runProgram, startServer, workspace } from "./helpers.js";

afterEach(cleanUp);

describe("a program written for the reference SDK's message shapes runs by swapping the import", () => {
  test("system init fields, stream deltas, assistant blocks, tool results, result with usage and cost", async () => {
    const server = await startServer(
      [
        reply()
          .thinking("Read the notes first.")
          .text("Reading notes.txt.")
          .tool("Read", { file_path: "notes.txt" })
          .usage({ input_tokens: 120, output_tokens: 30, cache_read_input_tokens: 10 }),
        reply().text("Two items: milk and a call.").usage({ input_tokens: 200, output_tokens: 12 }),
      ],
      { chunkSize: 6 },
    );
    const cwd = workspace({ "notes.txt": "buy milk\ncall Ann\n" });
    const run = await runProgram(examplePath("reference-program.ts"), { cwd, env: envFor(server) });
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const summary = JSON.parse(run.stdout);
    const toolCall = summary.toolCalls[0];
    expect(summary).toEqual({
      session: expect.stringMatching(/^[0-9a-f-]{36}$/),
      model: expect.stringMatching(/^anthropic\/claude-/),
      cwd,
      tools: expect.arrayContaining(["Read", "Write", "Edit", "Bash", "Glob", "Grep"]),
      permissionMode: "default",
      apiKeySource: "ANTHROPIC_API_KEY",
      mcpServers: 0,
      streamedText: "Reading notes.txt.Two items: milk and a call.",
      streamedThinking: "Read the notes first.",
      streamedToolInput: JSON.stringify({ file_path: "notes.txt" }),
      blockStarts: ["thinking", "text", "tool_use", "text"],
      streamedOutputTokens: 42,
      assistantBlocks: ["thinking", "text", "tool_use", "text"],
      toolCalls: [{ id: expect.any(String), name: "Read", input: '{"file_path":"notes.txt"}' }],
      toolResults: [
        { id: toolCall.id, isError: false, text: expect.stringContaining("buy milk"), structured: true },
      ],
      result: "Two items: milk and a call.",
      subtype: "success",
      errors: [],
      turns: 2,
      inputTokens: 330,
      outputTokens: 42,
      // Priced from the catalog: a known Claude model never reports a made-up 0.
      cost: expect.stringMatching(/^\$0\.\d{4}$/),
      modelCosts: [expect.stringMatching(/^claude-.*: 320\/42 tokens, \$0\.\d{4}$/)],
      denials: 0,
      sameSession: true,
    });
    expect(summary.cost).not.toBe("$0.0000");
  });
});

describe("a host program with a permission callback and a resumed session", () => {
  test("edits approved for the query, other requests refused and listed, the follow-up resumes the session", async () => {
    const server = await startServer([
      reply()
        .tool("Write", { file_path: "TODO.md", content: "- milk\n" })
        .tool("Bash", { command: "rm -rf build" }),
      reply().tool("Edit", { file_path: "TODO.md", old_string: "- milk\n", new_string: "- milk\n- eggs\n" }),
      reply().text("Done."),
      reply().text("A TODO list: milk and eggs."),
    ]);
    const cwd = workspace();
    const run = await runProgram(examplePath("approve-and-resume.ts"), { cwd, env: envFor(server) });
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({
      sessionId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      sameSession: true,
      // The Edit matched the rule the Write's answer added: not asked again.
      asked: ["Write", "Bash"],
      denied: ["Bash"],
      answer: "A TODO list: milk and eggs.",
    });
    expect(readFileSync(join(cwd, "TODO.md"), "utf8")).toBe("- milk\n- eggs\n");
    // The follow-up carried the first query's conversation.
    const followUp = JSON.stringify(server.requests[3]!.body);
    expect(followUp).toContain("Write a TODO.md with three items");
    expect(followUp).toContain("Only file edits are approved here");
  });
});

describe("ending a query early leaves nothing behind", () => {
  test("break during the model stream: the process exits by itself at once", async () => {
    // ~250 events at 40 ms each: the stream would run for about 10 s if it were not abandoned.
    const server = await startServer([reply().text("word ".repeat(200)).delayPerEvent(40)], { chunkSize: 4 });
    const run = await runProgram(fixturePath("break-early.mjs"), { cwd: workspace(), env: envFor(server) });
    expect(run.stderr).toBe("");
    expect(run.stdout).toBe("broke after 3 deltas\n");
    expect(run.code).toBe(0);
    expect(run.ms).toBeLessThan(5000);
    expect(server.requests).toHaveLength(1);
  });

  test("abort during a Bash command: error result, the command's processes stopped, the process exits", async () => {
    const server = await startServer([
      reply().tool("Bash", { command: "sleep 30 & echo $! > sleep.pid; wait" }),
      reply().text("never"),
    ]);
    const cwd = workspace();
    const run = await runProgram(fixturePath("abort-bash.mjs"), { cwd, env: envFor(server) });
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({
      seen: ["system", "assistant", "user", "result"],
      subtype: "error_during_execution",
      errors: ["The run was interrupted."],
    });
    const pid = Number(readFileSync(join(cwd, "sleep.pid"), "utf8"));
    expect(pid).toBeGreaterThan(0);
    expect(isAlive(pid)).toBe(false);
    expect(server.requests).toHaveLength(1);
  });
});
