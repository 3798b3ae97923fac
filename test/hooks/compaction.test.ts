import { afterEach, describe, expect, test } from "vitest";
import { query } from "../../src/index.js";
import { reply } from "../../src/testing/index.js";
import { cleanUp, envFor, startServer, workspace } from "../sdk/helpers.js";

afterEach(cleanUp);

describe("PreCompact / PostCompact", () => {
  test("fire around a /compact with its trigger, instructions and summary", async () => {
    const server = await startServer([reply().text("Hello."), reply().text("SUMMARY: the user said hi.")]);
    const seen: Record<string, unknown>[] = [];
    const hook = async (input: Record<string, unknown>) => {
      seen.push(input);
      return {};
    };
    async function* prompts() {
      for (const text of ["hi", "/compact keep the greeting"])
        yield {
          type: "user" as const,
          message: { role: "user" as const, content: text },
          parent_tool_use_id: null,
        };
    }
    for await (const _ of query({
      prompt: prompts(),
      options: {
        cwd: workspace(),
        env: envFor(server),
        hooks: { PreCompact: [{ hooks: [hook as never] }], PostCompact: [{ hooks: [hook as never] }] },
      },
    })) {
    }
    expect(seen).toEqual([
      expect.objectContaining({
        hook_event_name: "PreCompact",
        trigger: "manual",
        custom_instructions: "keep the greeting",
      }),
      expect.objectContaining({
        hook_event_name: "PostCompact",
        trigger: "manual",
        compact_summary: expect.stringContaining("the user said hi"),
      }),
    ]);
  });
});
