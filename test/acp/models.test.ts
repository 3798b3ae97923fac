import { existsSync } from "node:fs";
import { join } from "node:path";
import type { NewSessionResponse, SessionConfigOption } from "@agentclientprotocol/sdk";
import { describe, expect, test } from "vitest";
import { reply } from "../../src/testing/index.js";
import { cleanEnv, startServer, workspace } from "../conformance/pm/helpers.js";
import { type Agent, initialize, promptEndsWith, startAgent, textPrompt } from "./helpers.js";

/** `session/new`'s answer with the legacy `models`, which the stable SDK's type leaves out. */
type WithModels = NewSessionResponse & {
  models?: { currentModelId: string; availableModels: { modelId: string; name: string }[] };
};

async function newSession(agent: Agent, cwd: string): Promise<WithModels> {
  await initialize(agent);
  return (await agent.connection.newSession({ cwd, mcpServers: [] })) as WithModels;
}

function option(options: SessionConfigOption[] | null | undefined, id: string) {
  const found = options?.find((entry) => entry.id === id);
  if (found?.type !== "select") throw new Error(`no select option ${id}`);
  return {
    ...found,
    values: (found.options as { value: string; name: string }[]).map((entry) => entry.value),
  };
}

/** The model id each recorded request was sent with. */
const modelsSent = (requests: readonly { body: unknown }[]) =>
  requests.map((request) => (request.body as { model: string }).model);

describe("cairn acp: models and modes as session selectors", () => {
  test("session/new offers cairn's catalog and the modes as config options (and as models / modes), the running model selected", async () => {
    const server = await startServer([]);
    const cwd = workspace();
    const agent = startAgent(cwd, { server });
    const session = await newSession(agent, cwd);

    const model = option(session.configOptions, "model");
    expect(model).toMatchObject({ category: "model", currentValue: "anthropic/claude-sonnet-5-5" });
    expect(model.values).toEqual(
      expect.arrayContaining([
        "anthropic/claude-sonnet-5-5",
        "anthropic/claude-opus-5-5",
        "openai/gpt-5.6-terra",
      ]),
    );
    const mode = option(session.configOptions, "mode");
    expect(mode).toMatchObject({ category: "mode", currentValue: "default" });
    expect(mode.values).toEqual(["default", "acceptEdits", "plan", "bypassPermissions"]);
    expect(session.modes?.currentModeId).toBe("default");
    // The legacy selector, for clients that read only `models`: the same list and choice.
    expect(session.models?.currentModelId).toBe("anthropic/claude-sonnet-5-5");
    expect(session.models?.availableModels.map((entry) => entry.modelId)).toEqual(model.values);
  });

  test("session/set_config_option model: the next turn runs on the chosen model; the answer shows it chosen", async () => {
    const server = await startServer([reply().text("From Sonnet."), reply().text("From Opus.")]);
    const cwd = workspace();
    const agent = startAgent(cwd, { server });
    const { sessionId } = await newSession(agent, cwd);
    await promptEndsWith(agent, sessionId, "First", "From Sonnet.");

    const answer = await agent.connection.setConfigOption({
      sessionId,
      configId: "model",
      value: "anthropic/claude-opus-5-5",
    });
    expect(option(answer.configOptions, "model").currentValue).toBe("anthropic/claude-opus-5-5");
    await promptEndsWith(agent, sessionId, "Second", "From Opus.");
    expect(modelsSent(server.requests)).toEqual(["claude-sonnet-5-5", "claude-opus-5-5"]);
    // One conversation across the switch.
    expect(JSON.stringify(server.requests[1]!.body)).toContain("From Sonnet.");
  });

  test("session/set_model (the legacy selector) takes any name --model takes; the config option follows; an unknown name is invalid params", async () => {
    const server = await startServer([reply().text("From Haiku.")]);
    const cwd = workspace();
    const agent = startAgent(cwd, { server });
    const { sessionId } = await newSession(agent, cwd);

    await agent.connection.setModel({ sessionId, modelId: "haiku" });
    // Sent before the answer.
    const update = agent.client.updates("config_option_update").at(-1)!;
    expect(option(update.configOptions, "model").currentValue).toBe("anthropic/claude-haiku-5-5");
    await promptEndsWith(agent, sessionId, "Hello", "From Haiku.");
    expect(modelsSent(server.requests)).toEqual(["claude-haiku-5-5"]);

    await expect(agent.connection.setModel({ sessionId, modelId: "sonet" })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('Unknown model "sonet"'),
    });
    await expect(
      agent.connection.setConfigOption({ sessionId, configId: "temperature", value: "hot" }),
    ).rejects.toMatchObject({ code: -32602, message: expect.stringContaining("mode, model") });
  });

  test("session/set_config_option mode: plan refuses an edit without asking; modes clients get current_mode_update", async () => {
    const server = await startServer([
      reply().tool("Write", { file_path: "plan.txt", content: "no\n" }, "toolu_write"),
      reply().text("I will only plan."),
    ]);
    const cwd = workspace();
    const agent = startAgent(cwd, { server });
    const { sessionId } = await newSession(agent, cwd);
    const answer = await agent.connection.setConfigOption({ sessionId, configId: "mode", value: "plan" });
    expect(option(answer.configOptions, "mode").currentValue).toBe("plan");
    expect(agent.client.updates("current_mode_update")).toMatchObject([{ currentModeId: "plan" }]);

    const response = await agent.connection.prompt(textPrompt(sessionId, "Write the plan file"));
    expect(response.stopReason).toBe("end_turn");
    expect(agent.client.permissionRequests).toEqual([]);
    expect(existsSync(join(cwd, "plan.txt"))).toBe(false);
  });

  test("session/set_mode keeps the mode config option in step (config_option_update)", async () => {
    const server = await startServer([]);
    const cwd = workspace();
    const agent = startAgent(cwd, { server });
    const { sessionId } = await newSession(agent, cwd);
    await agent.connection.setSessionMode({ sessionId, modeId: "acceptEdits" });
    // Sent before the answer.
    const update = agent.client.updates("config_option_update").at(-1)!;
    expect(option(update.configOptions, "mode").currentValue).toBe("acceptEdits");
  });

  test("a model outside the catalog (cairn acp --model ollama/qwen3) is offered as the current choice", async () => {
    const cwd = workspace();
    const agent = startAgent(cwd, { env: cleanEnv(), args: ["--model", "ollama/qwen3"] });
    const session = await newSession(agent, cwd);
    const model = option(session.configOptions, "model");
    expect(model.currentValue).toBe("ollama/qwen3");
    expect(model.values).toContain("ollama/qwen3");
    expect(model.values).toContain("anthropic/claude-opus-5-5");
  });
});
