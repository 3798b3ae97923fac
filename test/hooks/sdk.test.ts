import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import type { HookCallback, HookInput, SDKMessage } from "../../src/index.js";
import { query } from "../../src/index.js";
import { reply } from "../../src/testing/index.js";
import {
  cairnHome,
  cleanUp,
  collect,
  envFor,
  fixturePath,
  result,
  runProgram,
  runQuery,
  startServer,
  workspace,
} from "../sdk/helpers.js";
import { claudeHooks, loggedInputs, requestText, run, scriptFiles } from "./helpers.js";

/** Hooks in the SDK (docs/hooks.md): callbacks and the config files' command hooks, end to end. */
afterEach(cleanUp);

const EVENTS = [
  "SessionStart",
  "UserPromptSubmit",
  "PreToolUse",
  "PostToolUse",
  "PostToolUseFailure",
  "PermissionRequest",
  "Notification",
  "PermissionDenied",
  "Stop",
  "SessionEnd",
] as const;

const EVERY_EVENT_STEPS = [
  reply().tool("Read", { file_path: "a.txt" }),
  reply().tool("Read", { file_path: "missing.txt" }),
  reply().tool("Bash", { command: "touch marker" }),
  reply().text("Done."),
];

function expectDocumentedInputs(inputs: Record<string, unknown>[], sessionId: string, cwd: string) {
  for (const input of inputs) {
    expect(input).toMatchObject({ session_id: sessionId, cwd, permission_mode: "default" });
    expect(String(input.transcript_path)).toMatch(new RegExp(`${sessionId}\\.jsonl$`));
  }
  const of = (name: string) => inputs.find((input) => input.hook_event_name === name);
  expect(new Set(inputs.map((input) => input.hook_event_name))).toEqual(new Set(EVENTS));
  expect(of("SessionStart")).toMatchObject({ source: "startup" });
  expect(of("UserPromptSubmit")).toMatchObject({ prompt: "Go" });
  expect(of("PreToolUse")).toMatchObject({
    tool_name: "Read",
    tool_input: { file_path: "a.txt" },
    tool_use_id: expect.any(String),
  });
  expect(of("PostToolUse")).toMatchObject({ tool_name: "Read", tool_response: expect.any(Object) });
  expect(of("PostToolUseFailure")).toMatchObject({
    tool_name: "Read",
    error: expect.stringContaining("missing.txt"),
  });
  expect(of("PermissionRequest")).toMatchObject({
    tool_name: "Bash",
    tool_input: { command: "touch marker" },
  });
  expect(of("Notification")).toMatchObject({
    notification_type: "permission_prompt",
    message: expect.stringContaining("Bash"),
  });
  expect(of("PermissionDenied")).toMatchObject({ tool_name: "Bash", reason: expect.any(String) });
  expect(of("Stop")).toMatchObject({ stop_hook_active: false, last_assistant_message: "Done." });
  expect(of("SessionEnd")).toMatchObject({ reason: "other" });
}

const hookMessages = (messages: SDKMessage[]) =>
  messages.filter((m) => m.type === "system" && m.subtype.startsWith("hook_")) as (SDKMessage & {
    subtype: string;
    hook_event: string;
    hook_id: string;
  })[];

describe("every event fires with its documented input in the SDK", () => {
  test("from SDK callbacks, with hook_started / hook_response messages (includeHookEvents)", async () => {
    const inputs: HookInput[] = [];
    const toolUseIds: (string | undefined)[] = [];
    const record: HookCallback = async (input, toolUseID, { signal }) => {
      expect(signal).toBeInstanceOf(AbortSignal);
      inputs.push(input);
      toolUseIds.push(toolUseID);
      return {};
    };
    const hooks = Object.fromEntries(EVENTS.map((event) => [event, [{ hooks: [record] }]]));
    const cwd = workspace({ "a.txt": "hello\n" });
    const { messages } = await runQuery(EVERY_EVENT_STEPS, { cwd, hooks, includeHookEvents: true });
    // SessionEnd's hook messages come after the turn's result, before the iterator ends.
    expect(messages.at(-1)).toMatchObject({
      type: "system",
      subtype: "hook_response",
      hook_event: "SessionEnd",
    });
    const final = messages.find((m) => m.type === "result")!;
    expect(final).toMatchObject({ subtype: "success" });
    expect(existsSync(join(cwd, "marker"))).toBe(false);
    expectDocumentedInputs(inputs as unknown as Record<string, unknown>[], final.session_id, cwd);
    const pre = inputs.findIndex((input) => input.hook_event_name === "PreToolUse");
    expect(toolUseIds[pre]).toBe((inputs[pre] as { tool_use_id: string }).tool_use_id);
    // One hook_started and one hook_response per hook run.
    const shown = hookMessages(messages);
    expect(shown.filter((m) => m.subtype === "hook_started")).toHaveLength(inputs.length);
    expect(shown.filter((m) => m.subtype === "hook_response").map((m) => m.hook_event)).toEqual(
      inputs.map((input) => input.hook_event_name),
    );
    expect(
      shown
        .filter((m) => m.subtype === "hook_response")
        .every((m) => (m as { outcome?: string }).outcome === "success"),
    ).toBe(true);
  });

  test.each(["the user config", "Cursor's user hooks.json"])("from command hooks in %s", async (where) => {
    const cwd = workspace({ "a.txt": "hello\n", ...scriptFiles("log") });
    const env = { ...envFor(await startServer(EVERY_EVENT_STEPS)) };
    if (where === "the user config") {
      writeFileSync(
        join(cairnHome(), "config.json"),
        JSON.stringify({
          hooks: claudeHooks(Object.fromEntries(EVENTS.map((event) => [event, run("log")]))),
        }),
      );
    } else {
      const dir = join(cairnHome(), "cursor-user");
      mkdirSync(dir, { recursive: true });
      env.CURSOR_CONFIG_DIR = dir;
      const cursorEvents = [
        "sessionStart",
        "beforeSubmitPrompt",
        "preToolUse",
        "postToolUse",
        "postToolUseFailure",
        "stop",
        "sessionEnd",
      ];
      writeFileSync(
        join(dir, "hooks.json"),
        JSON.stringify({
          version: 1,
          hooks: Object.fromEntries(cursorEvents.map((event) => [event, [{ command: run("log") }]])),
        }),
      );
    }
    const messages = await collect(query({ prompt: "Go", options: { cwd, env } }));
    const sessionId = result(messages).session_id;
    const inputs = loggedInputs(cwd);
    if (where === "the user config") expectDocumentedInputs(inputs, sessionId, cwd);
    else {
      expect(inputs.map((input) => input.hook_event_name)).toEqual([
        "sessionStart",
        "beforeSubmitPrompt",
        "preToolUse",
        "postToolUse",
        "preToolUse",
        "postToolUseFailure",
        "preToolUse",
        "stop",
        "sessionEnd",
      ]);
      for (const input of inputs)
        expect(input).toMatchObject({ session_id: sessionId, conversation_id: sessionId, cwd });
    }
  });
});

describe("decisions in the SDK", () => {
  test("a PreToolUse deny beats canUseTool's allow and bypassPermissions; the model reads the reason", async () => {
    let asked = 0;
    const cwd = workspace();
    const { server, messages } = await runQuery(
      [reply().tool("Write", { file_path: "out.txt", content: "x" }), reply().text("Understood.")],
      {
        cwd,
        permissionMode: "bypassPermissions",
        canUseTool: async () => {
          asked += 1;
          return { behavior: "allow" };
        },
        hooks: {
          PreToolUse: [
            {
              matcher: "Write",
              hooks: [
                async () => ({
                  hookSpecificOutput: {
                    hookEventName: "PreToolUse",
                    permissionDecision: "deny",
                    permissionDecisionReason: "frozen branch",
                  },
                }),
              ],
            },
          ],
        },
      },
    );
    expect(asked).toBe(0);
    expect(existsSync(join(cwd, "out.txt"))).toBe(false);
    expect(requestText(server.requests[1]!.body)).toContain("frozen branch");
    expect(result(messages).permission_denials.map((denial) => denial.tool_name)).toEqual(["Write"]);
  });

  test("a PermissionRequest hook answers instead of canUseTool", async () => {
    let asked = 0;
    const cwd = workspace();
    await runQuery([reply().tool("Bash", { command: "touch approved" }), reply().text("Done.")], {
      cwd,
      canUseTool: async () => {
        asked += 1;
        return { behavior: "deny", message: "no" };
      },
      hooks: {
        PermissionRequest: [
          {
            matcher: "Bash",
            hooks: [
              async () => ({
                hookSpecificOutput: { hookEventName: "PermissionRequest", decision: { behavior: "allow" } },
              }),
            ],
          },
        ],
      },
    });
    expect(asked).toBe(0);
    expect(existsSync(join(cwd, "approved"))).toBe(true);
  });

  test("SessionStart context reaches the first request; systemMessage is shown as an informational message", async () => {
    const { server, messages } = await runQuery([reply().text("Done.")], {
      hooks: {
        SessionStart: [
          {
            hooks: [
              async () => ({
                systemMessage: "Welcome back",
                hookSpecificOutput: { hookEventName: "SessionStart", additionalContext: "Branch: main" },
              }),
            ],
          },
        ],
      },
    });
    expect(requestText(server.requests[0]!.body)).toContain("Branch: main");
    expect(messages).toContainEqual(
      expect.objectContaining({
        type: "system",
        subtype: "informational",
        tag: "hook",
        content: "Welcome back",
      }),
    );
  });
});

describe("failures in the SDK", () => {
  test("a callback that never answers times out: its PreToolUse call is denied and the response says why", async () => {
    const cwd = workspace();
    const { messages } = await runQuery(
      [reply().tool("Write", { file_path: "out.txt", content: "x" }), reply().text("Ok.")],
      {
        cwd,
        includeHookEvents: true,
        hooks: { PreToolUse: [{ timeout: 0.5, hooks: [() => new Promise(() => {})] }] },
      },
    );
    expect(existsSync(join(cwd, "out.txt"))).toBe(false);
    const response = hookMessages(messages).find((m) => m.subtype === "hook_response") as unknown as Record<
      string,
      unknown
    >;
    expect(response).toMatchObject({ outcome: "error", decision: "deny", error: "timed out after 0.5 s" });
    expect(result(messages).subtype).toBe("success");
  });

  test("a PostToolUse callback that throws is reported and ignored; with onFailure: block its reason reaches the model", async () => {
    const boom = async () => {
      throw new Error("formatter missing");
    };
    const ignored = await runQuery(
      [reply().tool("Write", { file_path: "out.txt", content: "x" }), reply().text("Ok.")],
      {
        permissionMode: "acceptEdits",
        hooks: { PostToolUse: [{ hooks: [boom] }] },
      },
    );
    expect(ignored.messages).toContainEqual(
      expect.objectContaining({
        subtype: "informational",
        tag: "hook",
        content: expect.stringMatching(/failed: threw: formatter missing \(ignored\)/),
      }),
    );
    const blocking = await runQuery(
      [reply().tool("Write", { file_path: "out.txt", content: "x" }), reply().text("Ok.")],
      {
        permissionMode: "acceptEdits",
        hooks: { PostToolUse: [{ onFailure: "block", hooks: [boom] }] },
      },
    );
    expect(requestText(blocking.server.requests[1]!.body)).toContain("formatter missing");
  });

  test("a matcher that is not a regular expression is an InvalidOptionsError", () => {
    expect(() =>
      query({ prompt: "x", options: { hooks: { PreToolUse: [{ matcher: "Write(", hooks: [] }] } } }),
    ).toThrow(/hooks\.PreToolUse\.0: matcher "Write\(" is not a valid regular expression/);
  });
});

describe("trust in the SDK", () => {
  const files = () => ({
    ...scriptFiles("log"),
    ".claude/settings.json": JSON.stringify({ hooks: claudeHooks({ UserPromptSubmit: run("log") }) }),
  });

  test("the workspace's hooks are skipped by default, with one informational warning", async () => {
    const cwd = workspace(files());
    const { messages } = await runQuery([reply().text("Done.")], { cwd });
    expect(loggedInputs(cwd)).toEqual([]);
    const notes = messages.filter(
      (m) => m.type === "system" && m.subtype === "informational" && m.content.includes("not trusted"),
    );
    expect(notes).toHaveLength(1);
  });

  test('settingSources with "project" trusts them', async () => {
    const cwd = workspace(files());
    await runQuery([reply().text("Done.")], { cwd, settingSources: ["user", "project"] });
    expect(loggedInputs(cwd).map((input) => input.hook_event_name)).toEqual(["UserPromptSubmit"]);
  });
});

describe("the hook examples of the public agent-SDK docs run with only the import changed", () => {
  test("blocking .env writes", async () => {
    const server = await startServer([
      reply().tool("Write", { file_path: ".env", content: "DB=prod\n" }),
      reply().text("I may not change .env."),
    ]);
    const cwd = workspace();
    const program = await runProgram(fixturePath("hooks-protect-env.ts"), { cwd, env: envFor(server) });
    expect(program.stderr).toBe("");
    expect(program.stdout.trim()).toBe("success");
    expect(existsSync(join(cwd, ".env"))).toBe(false);
    expect(requestText(server.requests[1]!.body)).toContain("Cannot modify .env files");
  });

  test("logging every tool call", async () => {
    const server = await startServer([
      reply().tool("LS", { path: "." }, "toolu_ls").tool("Glob", { pattern: "*" }, "toolu_glob"),
      reply().text("Seen."),
    ]);
    const program = await runProgram(fixturePath("hooks-log-tool-calls.ts"), {
      cwd: workspace({ "a.txt": "a" }),
      env: envFor(server),
    });
    expect(program.stderr).toBe("");
    expect(program.stdout.split("\n").filter(Boolean).sort()).toEqual([
      "Result: success",
      "Tool: Glob (toolu_glob)",
      "Tool: LS (toolu_ls)",
    ]);
  });

  test("adding context to prompts", async () => {
    const server = await startServer([reply().text("Run pnpm test.")]);
    const program = await runProgram(fixturePath("hooks-add-context.ts"), {
      cwd: workspace(),
      env: envFor(server),
    });
    expect(program.stderr).toBe("");
    expect(program.stdout.trim()).toBe("Run pnpm test.");
    expect(requestText(server.requests[0]!.body)).toContain("This project uses pnpm");
  });
});
