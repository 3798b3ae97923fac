import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Anthropic from "@anthropic-ai/sdk";
import { afterAll, describe, expect, it } from "vitest";
import { ConfigError } from "../../src/providers/types.js";
import {
  loadScenarioFile,
  parseScenario,
  type Scenario,
  startScriptedServer,
} from "../../src/testing/index.js";

const dir = mkdtempSync(join(tmpdir(), "cairn-scenario-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function writeScenario(name: string, content: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, typeof content === "string" ? content : JSON.stringify(content));
  return path;
}

function errorOf(run: () => unknown): Error {
  try {
    run();
  } catch (error) {
    return error as Error;
  }
  throw new Error("expected an error");
}

const BASE = { model: "any", max_tokens: 100, messages: [{ role: "user" as const, content: "Go" }] };

describe("scenario files", () => {
  it("a missing file names the file", () => {
    const path = join(dir, "missing.json");
    const error = errorOf(() => loadScenarioFile(path));
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.message).toBe(`Cannot read scenario file ${path}: no such file`);
  });

  it("invalid JSON names the file", () => {
    const path = writeScenario("broken.json", '{ "version": 1, "steps": [ ');
    const error = errorOf(() => loadScenarioFile(path));
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.message).toContain(`Scenario file ${path} is not valid JSON`);
  });

  it.each([
    [
      { version: 1, steps: [{ content: [] }, { content: [{ type: "tool_use", name: "Read" }] }] },
      "steps.1.content.0.input",
    ],
    [{ version: 1, steps: [{ kind: "error", status: 200 }] }, "steps.0.status"],
    [{ version: 1, steps: [{ content: [], cutAfter: 3 }] }, "steps.0"],
    [{ version: 2, steps: [{ content: [] }] }, "version"],
    [{ version: 1, steps: [] }, "steps"],
    [{ version: 1, chunkSize: 0, steps: [{ content: [] }] }, "chunkSize"],
  ])("a bad scenario names the file and the field (%j)", (content, field) => {
    const path = writeScenario("bad.json", content);
    const error = errorOf(() => loadScenarioFile(path));
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.message).toMatch(
      new RegExp(`^Scenario file ${path} is invalid at ${field.replace(/\./g, "\\.")}:`),
    );
  });

  it("the example in docs/scenarios.md is valid", () => {
    const doc = readFileSync(new URL("../../docs/scenarios.md", import.meta.url), "utf8");
    const example = /```json\n([\s\S]*?)```/.exec(doc)?.[1];
    expect(example).toBeDefined();
    const scenario = parseScenario(example!, "docs/scenarios.md");
    expect(scenario.steps.map((step) => step.kind)).toEqual(["reply", "error", "reply", "reply"]);
  });

  it("startScriptedServer({ scenarioFile }) serves the file, with its model and chunk size", async () => {
    const path = writeScenario("read-write.json", {
      version: 1,
      model: "file-model",
      chunkSize: 2,
      steps: [
        { content: [{ type: "tool_use", name: "Read", input: { file_path: "a.txt" } }] },
        { content: [{ type: "text", text: "Done." }] },
      ],
    });
    const server = await startScriptedServer({ scenarioFile: path });
    try {
      const client = new Anthropic({ apiKey: "test", baseURL: server.url, maxRetries: 0 });
      const first = await client.messages.create(BASE);
      expect(first.model).toBe("file-model");
      expect(first.content).toEqual([
        { type: "tool_use", id: "toolu_scripted_0_0", name: "Read", input: { file_path: "a.txt" } },
      ]);
      const deltas: string[] = [];
      for await (const event of await client.messages.create({ ...BASE, stream: true })) {
        if (event.type === "content_block_delta" && event.delta.type === "text_delta")
          deltas.push(event.delta.text);
      }
      expect(deltas).toEqual(["Do", "ne", "."]);
    } finally {
      await server.close();
    }
  });

  it("startScriptedServer accepts a Scenario object, and options override the file", async () => {
    const scenario: Scenario = { version: 1, model: "object-model", steps: [{ kind: "reply", content: [] }] };
    const server = await startScriptedServer(scenario);
    const path = writeScenario("one.json", { version: 1, model: "file-model", steps: [{ content: [] }] });
    const overridden = await startScriptedServer({ scenarioFile: path, model: "option-model" });
    try {
      const client = new Anthropic({ apiKey: "test", baseURL: server.url, maxRetries: 0 });
      expect((await client.messages.create(BASE)).model).toBe("object-model");
      const other = new Anthropic({ apiKey: "test", baseURL: overridden.url, maxRetries: 0 });
      expect((await other.messages.create(BASE)).model).toBe("option-model");
    } finally {
      await Promise.all([server.close(), overridden.close()]);
    }
  });

  it("startScriptedServer rejects a bad file naming it, and steps together with a file", async () => {
    const missing = join(dir, "nope.json");
    await expect(startScriptedServer({ scenarioFile: missing })).rejects.toThrow(
      `Cannot read scenario file ${missing}: no such file`,
    );
    const path = writeScenario("fine.json", { version: 1, steps: [{ content: [] }] });
    await expect(startScriptedServer({ scenarioFile: path, steps: [] })).rejects.toThrow(
      /either steps or scenarioFile/,
    );
  });
});
