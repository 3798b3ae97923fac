import { PassThrough } from "node:stream";
import { describe, expect, test } from "vitest";
import {
  activityAfter,
  CLEAR_LINE,
  describeTool,
  ProgressLine,
  renderProgress,
} from "../../src/cli/progress.js";
import type { EngineEvent } from "../../src/engine/events.js";
import { describeToolCall } from "../../src/tools/display.js";
import { builtinTools } from "../../src/tools/index.js";

const toolStart = (name: string, input: Record<string, unknown>): EngineEvent => ({
  type: "tool_start",
  turn: 1,
  toolUseId: "t",
  name,
  input,
  startedAt: 0,
});

describe("progress line", () => {
  test("says what the agent does: the model, the answer, the current tool", () => {
    expect(activityAfter({ type: "model_call_start", turn: 1, startedAt: 0 }, "Starting")).toBe("Thinking");
    const delta: EngineEvent = {
      type: "stream",
      turn: 1,
      receivedAt: 0,
      event: { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "x" } },
    };
    expect(activityAfter(delta, "Thinking")).toBe("Writing");
    expect(activityAfter(toolStart("Read", { file_path: "a.txt" }), "Writing")).toBe("Read a.txt");
    expect(describeTool("Bash", { command: "npm test\nnpm run lint" })).toBe("Bash npm test");
    expect(describeTool("TodoWrite", { todos: [] })).toBe("TodoWrite");
  });

  test("print mode names a call by the tool's display title, on one line", () => {
    const title = (name: string, input: Record<string, unknown>) =>
      describeToolCall(
        builtinTools().find((tool) => tool.name === name),
        name,
        input,
        "/w",
        { live: false },
      ).title;
    expect(activityAfter(toolStart("Bash", { command: "npm test\nnpm run lint" }), "Thinking", title)).toBe(
      "`npm test` …",
    );
    expect(activityAfter(toolStart("Grep", { pattern: "TODO", path: "src" }), "Thinking", title)).toBe(
      'grep "TODO" in src',
    );
    expect(activityAfter(toolStart("mcp__x__y", {}), "Thinking", title)).toBe("mcp__x__y");
  });

  test("fits the terminal width and shows whole seconds", () => {
    expect(renderProgress("Read a.txt", 12_345, 80)).toMatch(/^[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] Read a\.txt · 12s$/);
    const line = renderProgress(`Bash ${"x".repeat(200)}`, 1000, 40);
    expect([...line].length).toBeLessThan(40);
    expect(line).toMatch(/… · 1s$/);
  });

  test("draws in place and erases itself when stopped", () => {
    const stream = new PassThrough() as unknown as NodeJS.WriteStream & PassThrough;
    let written = "";
    stream.on("data", (chunk: Buffer) => {
      written += chunk.toString();
    });
    let now = 0;
    const progress = new ProgressLine(stream, () => now).start();
    now = 2500;
    progress.update(toolStart("Grep", { pattern: "TODO" }));
    progress.stop();
    expect(written).toBe(`${CLEAR_LINE}⠋ Starting · 0s${CLEAR_LINE}⠋ Grep TODO · 2s${CLEAR_LINE}`);
    expect(written).not.toContain("\n");
  });
});
