import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { query, type SDKUserMessage } from "../../src/index.js";
import { JsonlTranscriptStore } from "../../src/sessions/store.js";
import { type RecordedRequest, reply } from "../../src/testing/index.js";
import { writeTinyLlama } from "../fixtures/tiny-llama.js";
import { baseEnv, cleanUp, collect, envFor, result, startServer, users, workspace } from "./helpers.js";

afterEach(cleanUp);

/** A 1×1 PNG. */
const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
/** The first bytes of a PDF, enough for the providers' shapes (nobody renders it here). */
const PDF = Buffer.from("%PDF-1.4\n%%EOF\n").toString("base64");

const imageBlock = { type: "image", source: { type: "base64", media_type: "image/png", data: PNG } } as const;
const pdfBlock = {
  type: "document",
  source: { type: "base64", media_type: "application/pdf", data: PDF },
  title: "spec.pdf",
} as const;

function userMessage(content: SDKUserMessage["message"]["content"]): SDKUserMessage {
  return { type: "user", message: { role: "user", content }, parent_tool_use_id: null, session_id: "" };
}

async function* once(message: SDKUserMessage) {
  yield message;
}

type Wire = { name: string; model: string; env: (url: string) => NodeJS.ProcessEnv };

const WIRES: Wire[] = [
  {
    name: "Anthropic Messages",
    model: "anthropic/claude-sonnet-5-5",
    env: (url) => ({ ANTHROPIC_BASE_URL: url, ANTHROPIC_API_KEY: "test" }),
  },
  {
    name: "OpenAI Responses",
    model: "openai/gpt-5.4",
    env: (url) => ({ OPENAI_BASE_URL: `${url}/v1`, OPENAI_API_KEY: "test" }),
  },
  {
    name: "Chat Completions (OpenAI-compatible)",
    model: "openai-compatible/llava",
    env: (url) => ({ OPENAI_COMPATIBLE_BASE_URL: `${url}/v1` }),
  },
];

/** The user turns of a recorded request, in the wire's own shape. */
function userItems(request: RecordedRequest): unknown[] {
  const body = request.body as { messages?: { role: string }[]; input?: { role?: string }[] };
  return (body.messages ?? body.input ?? []).filter((item) => item.role === "user");
}

describe("images and PDFs in prompts reach every wire in its own shape", () => {
  for (const wire of WIRES) {
    test(`${wire.name}: a streamed user message with an image and a PDF is sent, and the next turn keeps them`, async () => {
      const server = await startServer([reply().text("A dot and a spec."), reply().text("Still the dot.")]);
      async function* input() {
        yield userMessage([{ type: "text", text: "What are these?" }, imageBlock, pdfBlock]);
        yield userMessage("And now?");
      }
      const messages = await collect(
        query({
          prompt: input(),
          options: { cwd: workspace(), model: wire.model, env: { ...baseEnv(), ...wire.env(server.url) } },
        }),
      );
      expect(messages.filter((m) => m.type === "result").map((m) => m.subtype)).toEqual([
        "success",
        "success",
      ]);
      const sent = [
        { kind: "image", in: "prompt", mediaType: "image/png", data: PNG },
        { kind: "document", in: "prompt", mediaType: "application/pdf", data: PDF },
      ];
      expect(server.requests[0]!.media).toEqual(sent);
      // The conversation holds the media: the second turn sends them again, then the new text.
      expect(server.requests[1]!.media).toEqual(sent);
      expect(JSON.stringify(userItems(server.requests[0]!))).toContain("What are these?");
    });
  }

  test("the wire shapes: Anthropic blocks as given, Responses input_image / input_file, Chat image_url / file", async () => {
    const shapes: unknown[] = [];
    for (const wire of WIRES) {
      const server = await startServer([reply().text("ok")]);
      await collect(
        query({
          prompt: once(userMessage([imageBlock, pdfBlock, { type: "text", text: "Describe." }])),
          options: { cwd: workspace(), model: wire.model, env: { ...baseEnv(), ...wire.env(server.url) } },
        }),
      );
      shapes.push((userItems(server.requests[0]!)[0] as { content: unknown }).content);
    }
    const dataUrl = (type: string, data: string) => `data:${type};base64,${data}`;
    expect(shapes).toEqual([
      // The last block of the conversation is the prompt-caching breakpoint (docs/providers.md).
      [imageBlock, pdfBlock, { type: "text", text: "Describe.", cache_control: { type: "ephemeral" } }],
      [
        { type: "input_image", image_url: dataUrl("image/png", PNG), detail: "auto" },
        { type: "input_file", filename: "spec.pdf", file_data: dataUrl("application/pdf", PDF) },
        { type: "input_text", text: "Describe." },
      ],
      [
        { type: "image_url", image_url: { url: dataUrl("image/png", PNG) } },
        { type: "file", file: { filename: "spec.pdf", file_data: dataUrl("application/pdf", PDF) } },
        { type: "text", text: "Describe." },
      ],
    ]);
  });

  test("an image by URL is sent as a URL (Anthropic url source, Responses image_url)", async () => {
    const url = "https://example.invalid/cat.png";
    const server = await startServer([reply().text("A cat.")]);
    await collect(
      query({
        prompt: once(
          userMessage([
            { type: "image", source: { type: "url", url } },
            { type: "text", text: "?" },
          ]),
        ),
        options: { cwd: workspace(), env: envFor(server) },
      }),
    );
    expect(server.requests[0]!.media).toEqual([{ kind: "image", in: "prompt", url }]);
  });
});

describe("sessions keep media", () => {
  test("the transcript holds a prompt's image once, and a resumed session sends it again", async () => {
    const server = await startServer([reply().text("A dot."), reply().text("Still a dot.")]);
    const cwd = workspace();
    const first = await collect(
      query({
        prompt: once(userMessage([{ type: "text", text: "What is this?" }, imageBlock])),
        options: { cwd, env: envFor(server) },
      }),
    );
    const sessionId = result(first).session_id;
    const transcript = readFileSync(
      new JsonlTranscriptStore({ env: envFor(server) }).dirFor(cwd) + `/${sessionId}.jsonl`,
      "utf8",
    );
    expect(transcript.split(PNG).length - 1).toBe(1);
    await collect(query({ prompt: "And now?", options: { cwd, env: envFor(server), resume: sessionId } }));
    expect(server.requests[1]!.media).toEqual([
      { kind: "image", in: "prompt", mediaType: "image/png", data: PNG },
    ]);
  });
});

describe("Read shows images to the model", () => {
  for (const wire of WIRES.slice(0, 2)) {
    test(`${wire.name}: Read of a PNG answers with an image tool result`, async () => {
      const server = await startServer([
        reply().tool("Read", { file_path: "shot.png" }),
        reply().text("A single red pixel."),
      ]);
      const cwd = workspace();
      writeFileSync(join(cwd, "shot.png"), Buffer.from(PNG, "base64"));
      const messages = await collect(
        query({
          prompt: "What is in shot.png?",
          options: { cwd, model: wire.model, env: { ...baseEnv(), ...wire.env(server.url) } },
        }),
      );
      expect(result(messages).subtype).toBe("success");
      expect(server.requests[1]!.media).toEqual([
        { kind: "image", in: "tool_result", mediaType: "image/png", data: PNG },
      ]);
      const toolResult = users(messages)[0]!.message.content[0] as { type: string; content: unknown };
      expect(toolResult.type).toBe("tool_result");
      expect(toolResult.content).toEqual([
        { type: "text", text: expect.stringContaining("shot.png (image/png, 70 bytes) is attached") },
        imageBlock,
      ]);
    });
  }

  test("Chat Completions: the image of a Read follows the tool message in a user message", async () => {
    const wire = WIRES[2]!;
    const server = await startServer([reply().tool("Read", { file_path: "shot.png" }), reply().text("Red.")]);
    const cwd = workspace();
    writeFileSync(join(cwd, "shot.png"), Buffer.from(PNG, "base64"));
    await collect(
      query({
        prompt: "Look at shot.png",
        options: { cwd, model: wire.model, env: { ...baseEnv(), ...wire.env(server.url) } },
      }),
    );
    const messages = (server.requests[1]!.body as { messages: { role: string; content: unknown }[] })
      .messages;
    expect(messages.map((message) => message.role)).toEqual(["system", "user", "assistant", "tool", "user"]);
    expect(server.requests[1]!.media).toEqual([
      { kind: "image", in: "prompt", mediaType: "image/png", data: PNG },
    ]);
  });

  test("a .png whose bytes are not an image is refused as such", async () => {
    const server = await startServer([reply().tool("Read", { file_path: "fake.png" }), reply().text("ok")]);
    const cwd = workspace({ "fake.png": "just text" });
    const messages = await collect(query({ prompt: "Read it", options: { cwd, env: envFor(server) } }));
    const toolResult = users(messages)[0]!.message.content[0] as { content: unknown; is_error?: boolean };
    expect(toolResult.is_error).toBe(true);
    expect(toolResult.content).toMatch(/its bytes are not a PNG, JPEG, GIF or WebP image/);
    expect(server.requests[1]!.media).toEqual([]);
  });
});

describe("a model without vision", () => {
  test("the local GGUF provider: an image prompt ends the turn with an error naming the model, nothing sent", async () => {
    const dir = workspace();
    const model = writeTinyLlama(join(dir, "tiny.gguf"));
    const messages = await collect(
      query({
        prompt: once(userMessage([{ type: "text", text: "What is this?" }, imageBlock])),
        options: { cwd: dir, model: `local:${model}`, env: baseEnv() },
      }),
    );
    const end = result(messages);
    expect(end.is_error).toBe(true);
    expect(end.subtype === "success" ? [] : end.errors).toEqual([
      expect.stringMatching(/^The model local:.*tiny\.gguf does not take images/),
    ]);
  });
});
