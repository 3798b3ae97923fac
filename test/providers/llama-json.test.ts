import { describe, expect, test } from "vitest";
import { dropNullMembers, ToolInputStream, toGrammarSchema } from "../../src/providers/llama-json.js";

function rewrite(text: string, chunkSize: number): string {
  const stream = new ToolInputStream();
  let out = "";
  for (let i = 0; i < text.length; i += chunkSize) out += stream.push(text.slice(i, i + chunkSize));
  return out;
}

describe("ToolInputStream", () => {
  const samples = [
    '{"text": "hi"}',
    '{ "path" : "a b.txt", "offset": null, "limit": 20 }',
    '{"todos": [{"content": "x \\" }", "id": null, "done": true}, null, {"a": []}], "n": -1.5}',
    '{"a": null}',
    "{}",
    '{"s": "null, {not json] \\\\"}',
    '{"nested": {"x": null, "y": {"z": null}}, "arr": [1, 2, [3, null]]}',
  ];

  for (const sample of samples) {
    test(`rewrites ${sample} the same in any chunking`, () => {
      const expected = dropNullMembers(JSON.parse(sample));
      const outputs = [1, 2, 3, 7, 1000].map((size) => rewrite(sample, size));
      expect(new Set(outputs).size).toBe(1);
      expect(outputs[0]).toBe(JSON.stringify(expected));
    });
  }

  test("ignores a template suffix after the top-level object and reports completion", () => {
    const stream = new ToolInputStream();
    expect(stream.push('{"text":"hi"')).toBe('{"text":"hi"');
    expect(stream.complete).toBe(false);
    expect(stream.push("}\n\n</tool_call>")).toBe("}");
    expect(stream.complete).toBe(true);
    expect(stream.push("more")).toBe("");
  });

  test("holds back a member's key until its value shows it is not null", () => {
    const stream = new ToolInputStream();
    expect(stream.push('{"a": "x", "b":')).toBe('{"a":"x"');
    expect(stream.push(" n")).toBe("");
    expect(stream.push('ull, "c": 1}')).toBe(',"c":1}');
  });
});

describe("toGrammarSchema", () => {
  test("makes optional properties nullable and drops keywords the grammar cannot express", () => {
    const schema = toGrammarSchema({
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      properties: {
        path: { type: "string", description: "the file", pattern: "^/" },
        offset: { type: "integer", minimum: 0, description: "first line" },
        mode: { type: "string", enum: ["a", "b"] },
        when: { type: "string", format: "date-time" },
        url: { type: "string", format: "uri", maxLength: 100 },
        tags: { type: "array", items: { type: "string" }, maxItems: 3 },
        either: { anyOf: [{ type: "string" }, { type: "number" }] },
        maybe: { type: ["string", "null"] },
        anything: {},
      },
      required: ["path", "mode", "when", "url", "tags", "either", "maybe", "anything"],
      additionalProperties: false,
    });
    expect(schema).toEqual({
      type: "object",
      properties: {
        path: { type: "string", description: "the file" },
        offset: { oneOf: [{ type: "integer" }, { type: "null" }], description: "first line" },
        mode: { enum: ["a", "b"] },
        when: { type: "string", format: "date-time" },
        url: { type: "string", maxLength: 100 },
        tags: { type: "array", items: { type: "string" }, maxItems: 3 },
        either: { oneOf: [{ type: "string" }, { type: "number" }] },
        maybe: { type: ["string", "null"] },
        anything: {
          oneOf: [
            { type: ["string", "number", "boolean", "null"] },
            { type: "array" },
            { type: "object", additionalProperties: true },
          ],
        },
      },
      required: ["path", "mode", "when", "url", "tags", "either", "maybe", "anything"],
    });
  });

  test("keeps records and local references", () => {
    expect(toGrammarSchema({ type: "object", additionalProperties: { type: "number" } })).toEqual({
      type: "object",
      additionalProperties: { type: "number" },
    });
    expect(
      toGrammarSchema({
        type: "object",
        properties: { item: { $ref: "#/definitions/item" } },
        required: ["item"],
        definitions: { item: { type: "boolean" } },
      }),
    ).toEqual({
      type: "object",
      properties: { item: { $ref: "#/$defs/item" } },
      required: ["item"],
      $defs: { item: { type: "boolean" } },
    });
  });
});
