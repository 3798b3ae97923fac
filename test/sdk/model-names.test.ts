/**
 * Model names through the SDK door: `options.model` and `setModel()` take the aliases and report
 * the full id (setModel across turns: query.test.ts); an unknown name is refused with close matches; a library's console notice becomes a
 * process warning instead of a line on the host program's stderr.
 */
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { ConfigError, query } from "../../src/index.js";
import { reply } from "../../src/testing/index.js";
import { cleanUp, envFor, init, result, runQuery, startServer, workspace } from "./helpers.js";

afterEach(cleanUp);

const sentModels = (server: { requests: readonly { body: unknown }[] }) =>
  server.requests.map((request) => (request.body as { model: string }).model);

describe("options.model", () => {
  test('"haiku" is sent as the current Haiku and reported by its full id', async () => {
    const { server, messages } = await runQuery([reply().text("hi")], { model: "haiku" });
    expect(sentModels(server)).toEqual(["claude-haiku-5-5"]);
    expect(init(messages).model).toBe("claude-haiku-5-5");
    expect(Object.keys(result(messages).modelUsage)).toEqual(["claude-haiku-5-5"]);
    // Priced as the model it stands for, not as an unknown name.
    expect(Number.isNaN(result(messages).total_cost_usd)).toBe(false);
  });

  test('"auto" is the default resolution', async () => {
    const { server, messages } = await runQuery([reply().text("hi")], { model: "auto" });
    expect(sentModels(server)).toEqual(["claude-sonnet-5-5"]);
    expect(init(messages).model).toBe("anthropic/claude-sonnet-5-5");
  });

  test("an unknown name rejects the first next() with close matches, before any model call", async () => {
    const server = await startServer([reply().text("never")]);
    const q = query({ prompt: "Go", options: { cwd: workspace(), env: envFor(server), model: "opuss" } });
    const error = await q.next().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(/^Unknown model "opuss": .*Did you mean opus\b/);
    expect(server.requests).toHaveLength(0);
  });
});

describe("setModel()", () => {
  test("setModel rejects an unknown name with close matches", async () => {
    const server = await startServer([]);
    const q = query({ prompt: "Go", options: { cwd: workspace(), env: envFor(server) } });
    await expect(q.setModel("hiaku")).rejects.toThrow(/Did you mean haiku/);
    q.close();
  });
});

describe("library warnings in-process", () => {
  let warnings: Error[] = [];
  const onWarning = (warning: Error) => warnings.push(warning);
  const printed: string[] = [];
  const originalWarn = console.warn;
  beforeEach(() => {
    warnings = [];
    printed.length = 0;
    process.on("warning", onWarning);
    console.warn = (...args: unknown[]) => printed.push(args.join(" "));
  });
  afterEach(() => {
    process.off("warning", onWarning);
    console.warn = originalWarn;
  });

  test("the Anthropic client's deprecation notice is a process warning, not console output", async () => {
    const { server } = await runQuery([reply().text("hi")], { model: "claude-sonnet-4-5" });
    expect(sentModels(server)).toEqual(["claude-sonnet-4-5"]);
    expect(printed).toEqual([]);
    const ours = warnings.filter((w) => (w as Error & { code?: string }).code === "CAIRN_LIBRARY_WARNING");
    expect(ours.map((w) => w.message)).toEqual([
      expect.stringMatching(/^@anthropic-ai\/sdk: The model 'claude-sonnet-4-5' is deprecated/),
    ]);
  });
});
