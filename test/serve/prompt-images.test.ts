import { describe, expect, test } from "vitest";
import { hang, reply } from "../../src/testing/index.js";
import { tempDir } from "../helpers/temp.js";
import {
  type Deployment,
  PG_SKIP,
  pgTitle,
  runEnded,
  servingOnThrowawayPostgres,
  sql,
  waitFor,
} from "./helpers.js";

/** `prompt.images` of the reference's API (docs/serve.md): checked, stored with the run, sent to the model. */
const serving = servingOnThrowawayPostgres();

/** A 1×1 PNG and a 1×1 GIF, in base64. */
const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
const GIF = "R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7";

const image = (data: string) => ({ data, dimension: { width: 1, height: 1 } });

/** The images the model was sent in the prompt of its `index`th request. */
const promptImages = (d: Deployment, index: number) =>
  d.model.requests[index]!.media.filter((media) => media.in === "prompt").map(({ mediaType, data }) => ({
    mediaType,
    data,
  }));

const v0Settled = (d: Deployment, agentId: string) =>
  waitFor(`agent ${agentId} to settle`, async () => {
    const agent = await d.request("GET", `/v0/agents/${agentId}`);
    return ["FINISHED", "ERROR"].includes(agent.json.status) ? agent.json : undefined;
  });

describe.skipIf(PG_SKIP !== undefined)("cairn serve: prompt.images", { timeout: 180_000 }, () => {
  test(
    pgTitle(
      "v1: a create with a PNG reaches the model as an image block with the text; a follow-up's GIF too, after the first image kept in the conversation",
    ),
    async () => {
      const d = await serving.deploy({ steps: [reply().text("A dot."), reply().text("Another dot.")] });
      const created = await d.request("POST", "/v1/agents", {
        prompt: { text: "what is in the image?", images: [image(PNG)] },
        repos: [{ url: tempDir("cairn-images-") }],
      });
      expect(created.status).toBe(200);
      expect(created.json.warnings).toBeUndefined();
      const agentId = created.json.agent.id;
      d.startWorker("w1");
      expect(await runEnded(d, agentId, created.json.run.id)).toMatchObject({
        status: "FINISHED",
        result: "A dot.",
      });
      expect(promptImages(d, 0)).toEqual([{ mediaType: "image/png", data: PNG }]);
      const first = d.model.requests[0]!.body as {
        messages: { content: { type: string; text?: string }[] }[];
      };
      expect(first.messages.at(-1)!.content.map((block) => block.type)).toEqual(["image", "text"]);
      expect(first.messages.at(-1)!.content[1]!.text).toBe("what is in the image?");

      // A data: URL with its type is taken too (the type agrees with the bytes).
      const followUp = await d.request("POST", `/v1/agents/${agentId}/runs`, {
        prompt: { text: "and this one?", images: [{ data: `data:image/gif;base64,${GIF}` }] },
      });
      expect(followUp.status).toBe(200);
      expect(await runEnded(d, agentId, followUp.json.run.id)).toMatchObject({ result: "Another dot." });
      expect(promptImages(d, 1)).toEqual([
        { mediaType: "image/png", data: PNG },
        { mediaType: "image/gif", data: GIF },
      ]);
    },
  );

  test(
    pgTitle("v0: a launch with a PNG and a follow-up with one reach the model as image blocks"),
    async () => {
      const d = await serving.deploy({ steps: [reply().text("Seen."), reply().text("Seen again.")] });
      const launched = await d.request("POST", "/v0/agents", {
        prompt: { text: "look", images: [image(PNG)] },
        source: { repository: tempDir("cairn-images-") },
      });
      expect(launched.status).toBe(200);
      const agentId = launched.json.id;
      d.startWorker("w1");
      expect(await v0Settled(d, agentId)).toMatchObject({ status: "FINISHED", summary: "Seen." });
      expect(promptImages(d, 0)).toEqual([{ mediaType: "image/png", data: PNG }]);
      const followUp = await d.request("POST", `/v0/agents/${agentId}/followup`, {
        prompt: { text: "again", images: [image(GIF)] },
      });
      expect(followUp.status).toBe(200);
      await waitFor("the follow-up's model call", () => d.model.requests.length === 2 || undefined);
      expect(await v0Settled(d, agentId)).toMatchObject({ status: "FINISHED", summary: "Seen again." });
      expect(promptImages(d, 1)).toEqual([
        { mediaType: "image/png", data: PNG },
        { mediaType: "image/gif", data: GIF },
      ]);
      // The conversation shows the prompts' text.
      const conversation = await d.request("GET", `/v0/agents/${agentId}/conversation`);
      expect(
        conversation.json.messages.filter((m: { type: string }) => m.type === "user_message"),
      ).toMatchObject([{ text: "look" }, { text: "again" }]);
    },
  );

  test(
    pgTitle(
      "a worker SIGKILLed in the run's model call: the worker that takes the run over sends the same image",
    ),
    async () => {
      const d = await serving.deploy({ steps: [hang(), reply().text("Seen.")] });
      const flags = ["--takeover-after", "1"];
      d.startWorker("w1", flags);
      const created = await d.request("POST", "/v1/agents", {
        prompt: { text: "look", images: [image(PNG)] },
        repos: [{ url: tempDir("cairn-images-") }],
      });
      expect(created.status).toBe(200);
      await waitFor("the first model call", () => d.model.requests.length === 1 || undefined);
      await d.killWorker("w1");
      d.startWorker("w2", flags);
      expect(await runEnded(d, created.json.agent.id, created.json.run.id)).toMatchObject({
        status: "FINISHED",
        result: "Seen.",
      });
      expect(promptImages(d, 1)).toEqual([{ mediaType: "image/png", data: PNG }]);
    },
  );

  test(
    pgTitle(
      "bad images are refused with 400 naming the image, and no run is queued: not base64, not an image, a type the bytes contradict, a bad dimension, more than 5",
    ),
    async () => {
      const d = await serving.deploy({ steps: [] });
      const cwd = tempDir("cairn-images-");
      const cases: [unknown, string][] = [
        [[{ data: "not base64!" }], "prompt.images[0]: data is not valid base64."],
        [
          [image(PNG), { data: Buffer.from("plain text").toString("base64") }],
          "prompt.images[1]: data is not a PNG, JPEG, GIF or WebP image",
        ],
        [
          [{ data: PNG, mimeType: "image/jpeg" }],
          "prompt.images[0]: the image's bytes are image/png, not image/jpeg.",
        ],
        [[{ data: PNG, dimension: { width: -1, height: 1 } }], "prompt.images[0]: dimension must be"],
        [[{}], "prompt.images[0]: data must be the image's bytes in base64."],
        ["a.png", "prompt.images must be an array."],
        [Array(6).fill(image(PNG)), "prompt.images holds 6 images: at most 5 are taken."],
      ];
      for (const [images, message] of cases) {
        const v1 = await d.request("POST", "/v1/agents", {
          prompt: { text: "look", images },
          repos: [{ url: cwd }],
        });
        expect(v1.status).toBe(400);
        expect(v1.json.error).toEqual({ code: "invalid_request", message: expect.stringContaining(message) });
        const v0 = await d.request("POST", "/v0/agents", {
          prompt: { text: "look", images },
          source: { repository: cwd },
        });
        expect(v0.status).toBe(400);
        expect(v0.json.error.message).toContain(message);
      }
      expect(sql(d, "SELECT count(*) FROM cairn.runs")).toEqual(["0"]);
      // Five are taken.
      const five = await d.request("POST", "/v1/agents", {
        prompt: { text: "look", images: Array(5).fill(image(PNG)) },
        repos: [{ url: cwd }],
      });
      expect(five.status).toBe(200);
      // A follow-up's bad image is refused the same way.
      const followUp = await d.request("POST", `/v1/agents/${five.json.agent.id}/runs`, {
        prompt: { text: "again", images: [{ data: "####" }] },
      });
      expect(followUp.status).toBe(400);
      expect(followUp.json.error.message).toBe("prompt.images[0]: data is not valid base64.");
    },
  );
});
