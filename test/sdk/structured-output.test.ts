/** `outputFormat`: structured output through a dedicated tool, validated with a JSON Schema validator. */
import { afterEach, describe, expect, test } from "vitest";
import { InvalidOptionsError, type Options, query, type SDKResultMessage } from "../../src/index.js";
import { JsonlTranscriptStore } from "../../src/sessions/index.js";
import { reply } from "../../src/testing/index.js";
import {
  cairnHome,
  cleanUp,
  collect,
  envFor,
  labels,
  semanticBody,
  startServer,
  textFromDeltas,
  workspace,
} from "./helpers.js";

afterEach(cleanUp);

const schema = {
  type: "object",
  properties: {
    files: { type: "array", items: { type: "string" } },
    count: { type: "integer", minimum: 0 },
  },
  required: ["files", "count"],
  additionalProperties: false,
};

const outputFormat = (s: Record<string, unknown> = schema): Options["outputFormat"] => ({
  type: "json_schema",
  schema: s,
});

async function run(steps: Parameters<typeof startServer>[0], options: Options = {}) {
  const server = await startServer(steps);
  const messages = await collect(
    query({
      prompt: "List the files",
      options: {
        cwd: workspace({ "a.txt": "A" }),
        env: envFor(server),
        outputFormat: outputFormat(),
        ...options,
      },
    }),
  );
  const result = messages.at(-1) as SDKResultMessage;
  return { server, messages, result };
}

type Body = {
  tools: { name: string; input_schema: unknown }[];
  system: string;
  messages: { content: unknown }[];
};
const body = (server: Awaited<ReturnType<typeof startServer>>, i: number) =>
  semanticBody<Body>(server.requests[i]!.body);

describe("structured output", () => {
  test("the value arrives in result.structured_output; the tool input streams as input_json_delta, not text", async () => {
    const value = { files: ["a.txt"], count: 1 };
    const { server, messages, result } = await run(
      [reply().text("Looking.").tool("Glob", { pattern: "*" }), reply().tool("StructuredOutput", value)],
      { includePartialMessages: true },
    );
    expect(result).toMatchObject({
      subtype: "success",
      is_error: false,
      structured_output: value,
      num_turns: 2,
    });
    expect(textFromDeltas(messages)).toBe("Looking.");
    expect(textFromDeltas(messages)).not.toContain("a.txt");
    // What a consumer sees meanwhile: the tool call's input streams as input_json_delta.
    const json = messages
      .flatMap((m) =>
        m.type === "stream_event" &&
        m.event.type === "content_block_delta" &&
        m.event.delta.type === "input_json_delta"
          ? [m.event.delta.partial_json]
          : [],
      )
      .join("");
    expect(json).toContain('"files":["a.txt"]');
    // The run ends as soon as the output is accepted: no model call after it.
    expect(server.requests).toHaveLength(2);
    const sent = body(server, 0);
    expect(sent.tools.at(-1)).toEqual({
      name: "StructuredOutput",
      description: expect.any(String),
      input_schema: schema,
    });
    expect(sent.system).toContain("calling the StructuredOutput tool");
  });

  test("an accepted value ends the run by itself (a terminal tool outcome), not by an abort", async () => {
    const value = { files: ["a.txt"], count: 1 };
    const { server, result } = await run([
      reply().tool("Glob", { pattern: "*" }).tool("StructuredOutput", value),
      reply().text("never"),
    ]);
    expect(result).toMatchObject({ subtype: "success", structured_output: value, num_turns: 1 });
    expect(server.requests).toHaveLength(1);
    // The engine's own run summary, as the transcript recorded it: a plain success.
    const store = new JsonlTranscriptStore({ env: { CAIRN_HOME: cairnHome() } });
    const loaded = await store.load(result.session_id);
    expect(loaded.runs.map(({ subtype, aborted, errors }) => ({ subtype, aborted, errors }))).toEqual([
      { subtype: "success", aborted: false, errors: [] },
    ]);
    // Both calls of the batch have their results in the conversation.
    expect(loaded.history.at(-1)).toMatchObject({
      role: "user",
      content: [{ type: "tool_result" }, { type: "tool_result", content: "Structured output accepted." }],
    });
  });

  test("an invalid call gets the validator's errors and the model tries again", async () => {
    const { server, messages, result } = await run([
      reply().tool("StructuredOutput", { files: "a.txt" }),
      reply().tool("StructuredOutput", { files: ["a.txt"], count: 1 }),
    ]);
    expect(result).toMatchObject({ subtype: "success", structured_output: { files: ["a.txt"], count: 1 } });
    const firstResult = messages.find((m) => m.type === "user");
    expect(firstResult?.type === "user" && firstResult.message.content).toEqual([
      expect.objectContaining({
        is_error: true,
        content: expect.stringMatching(/does not match the required schema: .*count/),
      }),
    ]);
    expect(server.requests).toHaveLength(2);
  });

  test("a turn that ends without the call is asked again, inside the same turn", async () => {
    const { server, messages, result } = await run([
      reply().text("There is a.txt."),
      reply().tool("StructuredOutput", { files: ["a.txt"], count: 1 }),
    ]);
    expect(labels(messages)).toEqual([
      "system/init",
      "assistant/text",
      "assistant/tool_use",
      "user/tool_result",
      "result/success",
    ]);
    expect(result).toMatchObject({ subtype: "success", num_turns: 2, structured_output: { count: 1 } });
    expect(JSON.stringify(body(server, 1).messages.at(-1))).toContain(
      "without calling the StructuredOutput tool",
    );
  });

  test("retries run out: error_max_structured_output_retries", async () => {
    const bad = { files: [1], count: -1 };
    const { server, result } = await run([
      reply().tool("StructuredOutput", bad),
      reply().text("I give up."),
      reply().tool("StructuredOutput", bad),
      reply().text("never"),
    ]);
    expect(result).toMatchObject({
      subtype: "error_max_structured_output_retries",
      is_error: true,
      errors: ["The model did not deliver output matching the schema in 3 attempts."],
    });
    expect("structured_output" in result).toBe(false);
    expect(server.requests).toHaveLength(3);
  });

  test("a schema that is not an object is wrapped as { output }; draft 2020-12 schemas work", async () => {
    const listSchema = {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "array",
      prefixItems: [{ type: "string" }],
      items: false,
    };
    const { server, result } = await run([reply().tool("StructuredOutput", { output: ["only"] })], {
      outputFormat: outputFormat(listSchema),
    });
    expect(result).toMatchObject({ subtype: "success", structured_output: ["only"] });
    expect(body(server, 0).tools.at(-1)!.input_schema).toEqual({
      type: "object",
      properties: { output: { type: "array", prefixItems: [{ type: "string" }], items: false } },
      required: ["output"],
      additionalProperties: false,
    });
  });

  test("canUseTool is not asked for StructuredOutput", async () => {
    const asked: string[] = [];
    const { result } = await run([reply().tool("StructuredOutput", { files: [], count: 0 })], {
      canUseTool: async (name) => {
        asked.push(name);
        return { behavior: "deny", message: "no" };
      },
    });
    expect(result).toMatchObject({ subtype: "success", structured_output: { files: [], count: 0 } });
    expect(asked).toEqual([]);
  });

  test("an invalid JSON Schema throws synchronously", () => {
    expect(() =>
      query({
        prompt: "x",
        options: { outputFormat: outputFormat({ type: "object", properties: { a: { type: 42 } } }) },
      }),
    ).toThrow(InvalidOptionsError);
    expect(() => query({ prompt: "x", options: { outputFormat: outputFormat({ type: "nope" }) } })).toThrow(
      /"outputFormat.schema": not a valid JSON Schema/,
    );
  });
});
