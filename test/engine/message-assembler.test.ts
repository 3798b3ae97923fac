import { expect, test } from "vitest";
import { MessageAssembler } from "../../src/engine/message-assembler.js";

const start = {
  type: "message_start" as const,
  message: {
    id: "m1",
    type: "message" as const,
    role: "assistant" as const,
    model: "x",
    content: [],
    stop_reason: null,
    stop_sequence: null,
    usage: { input_tokens: 5, output_tokens: 1 },
  },
};

test("malformed tool-call JSON is recorded and the input stays empty, so the call cannot run", () => {
  const assembler = new MessageAssembler();
  assembler.apply(start);
  assembler.apply({
    type: "content_block_start",
    index: 0,
    content_block: { type: "tool_use", id: "t1", name: "Write", input: {} },
  });
  assembler.apply({
    type: "content_block_delta",
    index: 0,
    delta: { type: "input_json_delta", partial_json: '{"file_path": "a' },
  });
  const block = assembler.apply({ type: "content_block_stop", index: 0 });
  expect(block).toEqual({ type: "tool_use", id: "t1", name: "Write", input: {} });
  expect(assembler.malformed).toEqual([
    { toolUseId: "t1", raw: '{"file_path": "a', problem: expect.stringContaining("invalid JSON") },
  ]);
});

test("message_delta usage replaces (not adds to) the call's usage", () => {
  const assembler = new MessageAssembler();
  assembler.apply(start);
  assembler.apply({
    type: "message_delta",
    delta: { stop_reason: "end_turn" },
    usage: { output_tokens: 42 },
  });
  expect(assembler.snapshot()?.usage).toEqual({ input_tokens: 5, output_tokens: 42 });
  expect(assembler.snapshot()?.stop_reason).toBe("end_turn");
});
