import { query as officialQuery } from "@anthropic-ai/claude-agent-sdk";
import { afterEach, describe, expect, test } from "vitest";
import type { SDKMessage } from "../../src/index.js";
import { reply, type StepInput } from "../../src/testing/index.js";
import { initialize, startAgent, textPrompt } from "../acp/helpers.js";
import { workspace as cliWorkspace, startServer as startCliServer } from "../conformance/pm/helpers.js";
import { throughCairn } from "../protocols/agent-sdk.helpers.js";
import { cleanUp, runQuery, startServer, users, workspace } from "../sdk/helpers.js";

/**
 * How the doors list the session's background shells: the SDK's `tool_use_result` and its
 * `task_started` / `task_notification` messages (task_type `local_bash`), and ACP's tool call of
 * the Bash call that started one, shown running until a later call finds the shell ended.
 */

afterEach(cleanUp);

const waitFor = (file: string) =>
  `for i in $(seq 400); do [ -e ${file} ] && exit 0; sleep 0.05; done; echo "${file} never came"; exit 1`;

/** Starts a shell that prints and ends once `go` exists, reads it, lets it end, reads it again. */
const STEPS: StepInput[] = [
  reply().tool(
    "Bash",
    {
      command: "echo ready; touch ready.txt; while [ ! -e go ]; do sleep 0.05; done; echo bye; exit 3",
      description: "Wait for go",
      run_in_background: true,
    },
    "toolu_bg",
  ),
  reply().tool("Bash", { command: waitFor("ready.txt") }, "toolu_wait"),
  reply().tool("BashOutput", { bash_id: "bash_1" }, "toolu_read1"),
  reply().tool("Bash", { command: "touch go; sleep 0.2" }, "toolu_go"),
  reply().tool("BashOutput", { bash_id: "bash_1" }, "toolu_read2"),
  reply().text("Done."),
];

describe("background shells in the doors' views", () => {
  test("SDK: tool_use_result names the shell; task_started and task_notification list it as a local_bash task", async () => {
    // The shell ends by itself once `go` exists; the second read may still find it ending, so the
    // model reads until it has ended (the scripted model re-reads once more if needed).
    const { messages } = await runQuery(
      [
        ...STEPS.slice(0, -1),
        reply().tool("BashOutput", { bash_id: "bash_1" }, "toolu_read3"),
        reply().text("Done."),
      ],
      { permissionMode: "bypassPermissions" },
    );
    const resultOf = (id: string) =>
      users(messages).find((message) => {
        const content = message.message.content;
        return (
          Array.isArray(content) &&
          content.some((block) => "tool_use_id" in block && block.tool_use_id === id)
        );
      })?.tool_use_result as Record<string, unknown>;
    expect(resultOf("toolu_bg")).toMatchObject({ backgroundTaskId: "bash_1", interrupted: false });
    expect(resultOf("toolu_read1")).toMatchObject({
      shellId: "bash_1",
      status: "running",
      stdout: "ready\n",
    });
    const last = [resultOf("toolu_read2"), resultOf("toolu_read3")];
    expect(last.map((read) => read.stdout).join("")).toBe("bye\n");
    expect(resultOf("toolu_read3")).toMatchObject({ status: "failed", exitCode: 3 });

    const tasks = messages.filter(
      (message): message is Extract<SDKMessage, { type: "system" }> =>
        message.type === "system" &&
        (message.subtype === "task_started" || message.subtype === "task_notification"),
    );
    expect(tasks).toEqual([
      expect.objectContaining({
        subtype: "task_started",
        task_id: "bash_1",
        tool_use_id: "toolu_bg",
        description: "Wait for go",
        task_type: "local_bash",
      }),
      expect.objectContaining({
        subtype: "task_notification",
        task_id: "bash_1",
        tool_use_id: "toolu_bg",
        status: "failed",
        output_file: "",
        summary: expect.stringContaining("bash_1"),
      }),
    ]);
  });

  test("the official SDK driving cairn's CLI: the same tool_use_result and task messages; KillShell stops the shell", async () => {
    const server = await startServer([
      reply().tool("Bash", { command: "exec sleep 600", run_in_background: true }, "toolu_bg"),
      reply().tool("KillShell", { shell_id: "bash_1" }, "toolu_kill"),
      reply().text("Done."),
    ]);
    const messages: Record<string, unknown>[] = [];
    const options = { ...throughCairn(server, workspace()), permissionMode: "bypassPermissions" as const };
    for await (const message of officialQuery({ prompt: "Go", options }))
      messages.push(message as unknown as Record<string, unknown>);
    const results = messages
      .filter((message) => message.type === "user")
      .map((message) => message.tool_use_result);
    expect(results).toEqual([
      expect.objectContaining({ backgroundTaskId: "bash_1" }),
      expect.objectContaining({ task_id: "bash_1", task_type: "local_bash", status: "killed" }),
    ]);
    const tasks = messages.filter(
      (message) => message.type === "system" && String(message.subtype).startsWith("task_"),
    );
    expect(tasks).toEqual([
      expect.objectContaining({ subtype: "task_started", task_id: "bash_1", task_type: "local_bash" }),
      expect.objectContaining({ subtype: "task_notification", task_id: "bash_1", status: "stopped" }),
    ]);
    expect(messages.at(-1)).toMatchObject({ type: "result", subtype: "success", result: "Done." });
  });

  test("ACP: the Bash call that started a shell stays in_progress until a read finds the shell ended", async () => {
    const server = await startCliServer([
      ...STEPS.slice(0, -1),
      reply().tool("BashOutput", { bash_id: "bash_1" }, "toolu_read3"),
      reply().text("Done."),
    ]);
    const dir = cliWorkspace();
    const agent = startAgent(dir, { server });
    await initialize(agent);
    const { sessionId } = await agent.connection.newSession({ cwd: dir, mcpServers: [] });
    await agent.connection.setSessionMode({ sessionId, modeId: "bypassPermissions" });
    const response = await agent.connection.prompt(textPrompt(sessionId, "Run it"));
    expect(response.stopReason).toBe("end_turn");
    const launch = agent.client
      .updates("tool_call_update")
      .filter((update) => update.toolCallId === "toolu_bg" && update.status !== undefined);
    // Its result leaves it running (it runs on, in the background); a later read finds its end.
    expect(launch.map((update) => update.status)).toEqual(["in_progress", "failed"]);
    expect(JSON.stringify(launch[0]!.content)).toContain("Command running in background with ID: bash_1");
    expect(JSON.stringify(launch[1]!.content)).toContain("Background shell bash_1");
    const title = agent.client.updates("tool_call").find((call) => call.toolCallId === "toolu_bg")?.title;
    expect(title).toContain("(in the background)");
    expect(await agent.end()).toBe(0);
  });
});
