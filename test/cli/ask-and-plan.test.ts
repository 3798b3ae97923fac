/**
 * Print mode and the tools that ask the user: nobody can answer, so AskUserQuestion is not offered;
 * in plan mode ExitPlanMode is, and the plan it hands over is the run's result. The built CLI against
 * the scripted model server.
 */
import { describe, expect, test } from "vitest";
import { reply } from "../../src/testing/index.js";
import { ofType, runCli } from "../conformance/pm/helpers.js";

const PLAN = "1. Add a.txt\n2. Run the tests";
const toolNames = (body: unknown) =>
  ((body as { tools?: { name: string }[] }).tools ?? []).map((t) => t.name);

describe("print mode", () => {
  test("offers neither AskUserQuestion nor, outside plan mode, ExitPlanMode", async () => {
    const run = await runCli({ steps: [reply().text("ok")], args: ["--output-format", "stream-json"] });
    expect(run.code).toBe(0);
    const [init] = ofType(run.events, "system");
    expect(init?.tools).not.toContain("AskUserQuestion");
    expect(init?.tools).not.toContain("ExitPlanMode");
    expect(toolNames(run.server.requests[0]?.body)).not.toContain("AskUserQuestion");
    expect(run.stderr).toBe("");
  });

  test("--permission-mode plan: ExitPlanMode is offered and its plan is the result (json, stream-json, text)", async () => {
    const steps = () => [
      reply().text("Looked around. ").tool("ExitPlanMode", { plan: PLAN }),
      reply().text("never"),
    ];
    const json = await runCli({
      steps: steps(),
      args: ["--permission-mode", "plan", "--output-format", "json"],
    });
    expect(json.code).toBe(0);
    expect(json.events[0]).toMatchObject({
      type: "result",
      subtype: "success",
      is_error: false,
      result: PLAN,
    });
    expect(json.server.requests).toHaveLength(1);
    expect(toolNames(json.server.requests[0]?.body)).toContain("ExitPlanMode");
    expect(toolNames(json.server.requests[0]?.body)).not.toContain("AskUserQuestion");

    const stream = await runCli({
      steps: steps(),
      args: ["--permission-mode", "plan", "--output-format", "stream-json"],
    });
    const [init] = ofType(stream.events, "system");
    expect(init?.tools).toContain("ExitPlanMode");
    const completed = ofType(stream.events, "tool_call").find((event) => event.subtype === "completed");
    expect(completed?.tool_call).toEqual({
      createPlanToolCall: { args: { plan: PLAN }, result: { success: { plan: PLAN } } },
    });
    expect(ofType(stream.events, "result")[0]?.result).toBe(PLAN);

    const text = await runCli({ steps: steps(), args: ["--permission-mode", "plan"] });
    expect(text.stdout).toBe(`${PLAN}\n`);
    expect(text.stderr).toBe("");
  });
});
