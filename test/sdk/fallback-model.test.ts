import { afterEach, describe, expect, test } from "vitest";
import { query } from "../../src/index.js";
import { httpError, reply } from "../../src/testing/index.js";
import { runCli } from "../conformance/pm/helpers.js";
import { cleanUp, collect, envFor, result, startServer, workspace } from "./helpers.js";

afterEach(cleanUp);

type Body = { model?: string };

/** Retries a moment apart, so that a test of several retries is quick on any machine. */
const QUICK_RETRIES = { CAIRN_RETRY_BASE_MS: "1" };

/**
 * The reference (Claude Code behind the official SDK) hands over to the fallback model on the third
 * overloaded answer (HTTP 529 / `overloaded_error`, its MAX_529_RETRIES), not after every retry of
 * the primary: a program with `fallbackModel` gets its answer from the fallback while the primary
 * stays overloaded. Here the primary has four retries, so without the hand-over the fourth request
 * still goes to the primary.
 */
describe("fallbackModel hands over after three overloaded answers", () => {
  test("SDK: three 529s from the primary, the fourth request goes to the fallback", async () => {
    const server = await startServer([
      httpError(529),
      httpError(529),
      httpError(529),
      reply().text("from the fallback"),
    ]);
    const messages = await collect(
      query({
        prompt: "Go",
        options: {
          cwd: workspace(),
          env: { ...envFor(server), ...QUICK_RETRIES },
          model: "anthropic/claude-sonnet-5-5",
          fallbackModel: "anthropic/claude-haiku-5-5",
        },
      }),
    );
    expect(server.requests.map((request) => (request.body as Body).model)).toEqual([
      "claude-sonnet-5-5",
      "claude-sonnet-5-5",
      "claude-sonnet-5-5",
      "claude-haiku-5-5",
    ]);
    const end = result(messages);
    expect(end.subtype === "success" && end.result).toBe("from the fallback");
    expect(Object.keys(end.modelUsage)).toEqual(["claude-haiku-5-5"]);
  });

  test("SDK: an overloaded_error body under another status counts as overloaded too", async () => {
    const overloaded = () => httpError(500, { errorType: "overloaded_error" });
    const server = await startServer([overloaded(), overloaded(), overloaded(), reply().text("fallback")]);
    const messages = await collect(
      query({
        prompt: "Go",
        options: {
          cwd: workspace(),
          env: { ...envFor(server), ...QUICK_RETRIES },
          model: "anthropic/claude-sonnet-5-5",
          fallbackModel: "anthropic/claude-haiku-5-5",
        },
      }),
    );
    expect((server.requests[3]!.body as Body).model).toBe("claude-haiku-5-5");
    expect(result(messages).subtype).toBe("success");
  });

  test("SDK: other server errors still spend the primary's retries before the fallback", async () => {
    const server = await startServer([
      httpError(503),
      httpError(503),
      httpError(503),
      reply().text("the primary recovered"),
    ]);
    const messages = await collect(
      query({
        prompt: "Go",
        options: {
          cwd: workspace(),
          env: { ...envFor(server), ...QUICK_RETRIES },
          model: "anthropic/claude-sonnet-5-5",
          fallbackModel: "anthropic/claude-haiku-5-5",
        },
      }),
    );
    expect(server.requests.map((request) => (request.body as Body).model)).toEqual(
      Array(4).fill("claude-sonnet-5-5"),
    );
    const end = result(messages);
    expect(end.subtype === "success" && end.result).toBe("the primary recovered");
  });

  test("without a fallback model an overloaded primary keeps all its retries", async () => {
    const server = await startServer([
      httpError(529),
      httpError(529),
      httpError(529),
      reply().text("at last"),
    ]);
    const messages = await collect(
      query({
        prompt: "Go",
        options: { cwd: workspace(), env: { ...envFor(server), ...QUICK_RETRIES } },
      }),
    );
    expect(server.requests).toHaveLength(4);
    expect(result(messages).subtype).toBe("success");
  });

  test("CLI: --fallback-model takes over on the third 529, and stderr says so", async () => {
    const run = await runCli({
      steps: [httpError(529), httpError(529), httpError(529), reply().text("fallback answer")],
      args: ["--fallback-model", "haiku"],
      env: QUICK_RETRIES,
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("fallback answer\n");
    expect(run.stderr).toContain("continuing with claude-haiku-5-5");
    expect(run.server.requests.map((request) => (request.body as Body).model)).toEqual([
      "claude-sonnet-5-5",
      "claude-sonnet-5-5",
      "claude-sonnet-5-5",
      "claude-haiku-5-5",
    ]);
  });
});
