import { describe, expect, test } from "vitest";
import { reply } from "../../src/testing/index.js";
import { DOWN, ENTER, FOOTER, ready, skipped, startCairn } from "./cairn-terminal.js";

/**
 * `/model` without a name (docs/interactive.md, "Commands"): a picker of the models the configured
 * providers offer, the current one marked; the one taken is the next turn's model (Session.setModel).
 */
const screenText = (t: { screen(): string[] }) => t.screen().join("\n");

describe(`interactive /model picker${skipped}`, () => {
  test.skipIf(skipped !== "")(
    "/model lists the configured providers' models with the current one marked; ↓ Enter changes the next turn's model and the footer",
    async () => {
      const { t, server } = await startCairn([reply().text("Answered by the new model.")]);
      await ready(t);
      t.type(`/model${ENTER}`);
      await t.waitFor(() => screenText(t).includes("Model for the next turns?"), "the picker");
      await t.waitFor(
        () => screenText(t).includes("● anthropic/claude-sonnet-5-5"),
        "the current model marked",
      );
      // Only Anthropic has a key here: OpenAI's models are not offered.
      expect(screenText(t)).not.toContain("openai/");
      t.type(DOWN);
      t.type(ENTER);
      await t.waitFor((text) => text.includes("Model: anthropic/claude-haiku-5-5"), "the model changed");
      await t.waitFor(
        () => screenText(t).includes(`anthropic/claude-haiku-5-5 · default ${FOOTER}`),
        "the footer naming the new model",
      );
      t.type(`Who answers?${ENTER}`);
      await t.waitFor((text) => text.includes("Answered by the new model."), "the answer");
      expect((server.requests[0]!.body as { model: string }).model).toBe("claude-haiku-5-5");
    },
  );
});
