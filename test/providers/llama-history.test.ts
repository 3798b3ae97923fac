import { describe, expect, test } from "vitest";
import { toLlamaHistory } from "../../src/providers/llama-history.js";

describe("toLlamaHistory", () => {
  test("a prompt becomes system + user + an empty model response to write", () => {
    expect(toLlamaHistory({ system: "be brief", messages: [{ role: "user", content: "hi" }] })).toEqual([
      { type: "system", text: "be brief" },
      { type: "user", text: "hi" },
      { type: "model", response: [] },
    ]);
  });

  test("tool results are attached to their calls, and the model turn is continued", () => {
    const history = toLlamaHistory({
      system: "",
      messages: [
        { role: "user", content: "read it" },
        {
          role: "assistant",
          content: [
            { type: "thinking", thinking: "plan" },
            { type: "text", text: "Reading." },
            { type: "tool_use", id: "t1", name: "Read", input: { path: "a" } },
            { type: "tool_use", id: "t2", name: "Read", input: { path: "b" } },
          ],
        },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "t1", content: "A" },
            {
              type: "tool_result",
              tool_use_id: "t2",
              content: [{ type: "text", text: "no such file" }],
              is_error: true,
            },
          ],
        },
      ],
    });
    expect(history).toEqual([
      { type: "user", text: "read it" },
      {
        type: "model",
        response: [
          { type: "segment", segmentType: "thought", text: "plan", ended: true },
          "Reading.",
          { type: "functionCall", name: "Read", params: { path: "a" }, result: "A" },
          { type: "functionCall", name: "Read", params: { path: "b" }, result: "Error: no such file" },
        ],
      },
    ]);
  });

  test("text after tool results starts a new user turn; unknown results are kept as text", () => {
    const history = toLlamaHistory({
      system: "",
      messages: [
        { role: "user", content: "go" },
        { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "Bash", input: {} }] },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "t9", content: "stray" },
            { type: "text", text: "and then?" },
          ],
        },
      ],
    });
    expect(history.slice(1)).toEqual([
      {
        type: "model",
        response: [
          {
            type: "functionCall",
            name: "Bash",
            params: {},
            result: "(no result: the tool call was interrupted)",
          },
        ],
      },
      { type: "user", text: "Result of tool call t9:\nstray\n\nand then?" },
      { type: "model", response: [] },
    ]);
  });
});
