import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { reply } from "../../src/testing/index.js";
import { runCli } from "../conformance/pm/helpers.js";
import { tempDir } from "../helpers/temp.js";
import { claudeHooks, loggedEvents, loggedInputs, requestText, run, scriptFiles } from "./helpers.js";

/**
 * Hooks in print mode (docs/hooks.md), through the built CLI against the scripted model server, with
 * real shell scripts as the hooks.
 */
type Event = Record<string, unknown>;
const completed = (events: Event[]) =>
  events.filter((e) => e.type === "tool_call" && e.subtype === "completed");
const resultOf = (event: Event) =>
  Object.values(event.tool_call as Record<string, { result: unknown }>)[0]!.result;

const ALL_EVENTS = [
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
];

/** Read a file, fail to read one, try a command print mode must ask about, then finish. */
const EVERY_EVENT_STEPS = [
  reply().tool("Read", { file_path: "a.txt" }),
  reply().tool("Read", { file_path: "missing.txt" }),
  reply().tool("Bash", { command: "touch marker" }),
  reply().text("Done."),
];

/** A fresh $CAIRN_HOME (user config) and Cursor user directory for one run. */
function userDirs(files: { cairn?: unknown; cursor?: unknown } = {}) {
  const home = tempDir("cairn-hooks-home-");
  const cursor = join(home, "cursor");
  mkdirSync(cursor, { recursive: true });
  if (files.cairn) writeFileSync(join(home, "config.json"), JSON.stringify(files.cairn));
  if (files.cursor) writeFileSync(join(cursor, "hooks.json"), JSON.stringify(files.cursor));
  return { CAIRN_HOME: home, CURSOR_CONFIG_DIR: cursor, CLAUDE_CONFIG_DIR: join(home, "claude") };
}

function checkDocumentedInputs(dir: string, sessionId: string) {
  const inputs = loggedInputs(dir);
  for (const input of inputs) {
    expect(input).toMatchObject({ session_id: sessionId, cwd: dir, permission_mode: "default" });
    expect(String(input.transcript_path)).toMatch(new RegExp(`${sessionId}\\.jsonl$`));
  }
  const of = (name: string) => inputs.find((input) => input.hook_event_name === name);
  expect(of("SessionStart")).toMatchObject({ source: "startup" });
  expect(of("UserPromptSubmit")).toMatchObject({ prompt: "Do the task" });
  expect(of("PreToolUse")).toMatchObject({ tool_name: "Read", tool_input: { file_path: "a.txt" } });
  expect(of("PreToolUse")!.tool_use_id).toEqual(expect.any(String));
  expect(of("PostToolUse")).toMatchObject({ tool_name: "Read", tool_response: expect.objectContaining({}) });
  expect(of("PostToolUseFailure")).toMatchObject({
    tool_name: "Read",
    error: expect.stringContaining("missing.txt"),
  });
  expect(of("PermissionRequest")).toMatchObject({
    tool_name: "Bash",
    tool_input: { command: "touch marker" },
  });
  expect(of("Notification")).toMatchObject({ notification_type: "permission_prompt" });
  expect(of("PermissionDenied")).toMatchObject({
    tool_name: "Bash",
    reason: expect.stringContaining("touch"),
  });
  expect(of("Stop")).toMatchObject({ stop_hook_active: false, last_assistant_message: "Done." });
  expect(of("SessionEnd")).toMatchObject({ reason: "other" });
}

describe("every event fires with its documented input, in print mode", () => {
  const log = run("log");
  const everyEvent = Object.fromEntries(ALL_EVENTS.map((event) => [event, log]));

  test.each([
    ["the workspace's .claude/settings.json (with --trust)", "project"],
    ["the user config's hooks", "user"],
  ])("from %s", async (_, where) => {
    const env = userDirs(where === "user" ? { cairn: { hooks: claudeHooks(everyEvent) } } : {});
    const result = await runCli({
      steps: EVERY_EVENT_STEPS,
      files: {
        "a.txt": "hello\n",
        ...scriptFiles("log"),
        ...(where === "project"
          ? { ".claude/settings.json": JSON.stringify({ hooks: claudeHooks(everyEvent) }) }
          : {}),
      },
      args: ["--output-format", "stream-json", ...(where === "project" ? ["--trust"] : [])],
      env,
    });
    expect(result.code).toBe(0);
    expect(existsSync(join(result.dir, "marker"))).toBe(false);
    expect(new Set(loggedEvents(result.dir))).toEqual(new Set(ALL_EVENTS));
    expect(loggedEvents(result.dir)[0]).toBe("SessionStart");
    expect(loggedEvents(result.dir).at(-1)).toBe("SessionEnd");
    checkDocumentedInputs(result.dir, String(result.events[0]!.session_id));
    // No new stream-json line types: hooks show only in the tool calls they judged (PM-5).
    expect(new Set(result.events.map((e) => e.type))).toEqual(
      new Set(["system", "user", "assistant", "tool_call", "result"]),
    );
  });

  test("from Cursor's hooks.json, user and project, mapped onto the same events", async () => {
    const cursorHooks = (file: string) => ({
      version: 1,
      hooks: Object.fromEntries(
        [
          "sessionStart",
          "beforeSubmitPrompt",
          "preToolUse",
          "beforeReadFile",
          "beforeShellExecution",
          "postToolUse",
          "postToolUseFailure",
          "stop",
          "sessionEnd",
        ].map((event) => [event, [{ command: `${log} # ${file}` }]]),
      ),
    });
    const env = userDirs({ cursor: cursorHooks("user") });
    const result = await runCli({
      steps: EVERY_EVENT_STEPS,
      files: {
        "a.txt": "hello\n",
        ...scriptFiles("log"),
        ".cursor/hooks.json": JSON.stringify(cursorHooks("project")),
      },
      args: ["--output-format", "stream-json", "--trust"],
      env,
    });
    expect(result.code).toBe(0);
    const inputs = loggedInputs(result.dir);
    const names = inputs.map((input) => input.hook_event_name);
    for (const name of [
      "sessionStart",
      "beforeSubmitPrompt",
      "preToolUse",
      "postToolUse",
      "postToolUseFailure",
      "stop",
      "sessionEnd",
    ])
      expect(names.filter((n) => n === name)).toHaveLength(
        name === "preToolUse" ? 6 : name === "postToolUse" ? 2 : 2,
      );
    // Cursor's narrowed events: file reads and shell commands only.
    const reads = inputs.filter((input) => input.hook_event_name === "beforeReadFile");
    expect(reads.map((input) => input.file_path)).toEqual([
      join(result.dir, "a.txt"),
      join(result.dir, "a.txt"),
      join(result.dir, "missing.txt"),
      join(result.dir, "missing.txt"),
    ]);
    const shell = inputs.filter((input) => input.hook_event_name === "beforeShellExecution");
    expect(shell.map((input) => input.command)).toEqual(["touch marker", "touch marker"]);
    expect(inputs[0]).toMatchObject({
      conversation_id: result.events[0]!.session_id,
      workspace_roots: [result.dir],
    });
  });
});

describe("decisions, end to end", () => {
  test("a PreToolUse hook's deny (exit 2) beats --force: the write never happens, the result names the hook, the model reads why", async () => {
    const result = await runCli({
      steps: [reply().tool("Write", { file_path: ".env", content: "KEY=1\n" }), reply().text("Understood.")],
      files: {
        ...scriptFiles("blockEnv"),
        ".claude/settings.json": JSON.stringify({
          hooks: claudeHooks({ PreToolUse: [{ matcher: "Write|Edit", command: run("blockEnv") }] }),
        }),
      },
      args: ["--output-format", "stream-json", "--force", "--trust"],
    });
    expect(result.code).toBe(0);
    expect(existsSync(join(result.dir, ".env"))).toBe(false);
    const message = (resultOf(completed(result.events)[0]!) as { error: { message: string } }).error.message;
    expect(message).toContain("command sh hooks/blockEnv.sh");
    expect(message).toContain("writing .env files is not allowed");
    expect(requestText(result.server.requests[1]!.body)).toContain("writing .env files is not allowed");
    const final = result.events.at(-1)!;
    expect(final.type).toBe("result");
  });

  test("allow spares the question but never a deny rule; ask makes one (denied where nobody can be asked)", async () => {
    const allow = { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "allow" } };
    const ask = {
      hookSpecificOutput: {
        hookEventName: "PreToolUse",
        permissionDecision: "ask",
        permissionDecisionReason: "reads need a person",
      },
    };
    const result = await runCli({
      steps: [
        reply().tool("Bash", { command: "touch allowed" }),
        reply().tool("Bash", { command: "rm a.txt" }),
        reply().tool("Read", { file_path: "a.txt" }),
        reply().text("Done."),
      ],
      files: {
        "a.txt": "x\n",
        ...scriptFiles("answer"),
        ".cairn/config.json": JSON.stringify({ permissions: { deny: ["Bash(rm:*)"] } }),
      },
      env: userDirs({
        cairn: {
          hooks: claudeHooks({
            PreToolUse: [
              { matcher: "Bash", command: run("answer", allow) },
              { matcher: "Read", command: run("answer", ask) },
            ],
          }),
        },
      }),
      args: ["--output-format", "stream-json"],
    });
    expect(existsSync(join(result.dir, "allowed"))).toBe(true);
    expect(existsSync(join(result.dir, "a.txt"))).toBe(true);
    const [, rm, read] = completed(result.events).map(resultOf) as { error?: { message: string } }[];
    expect(rm!.error!.message).toContain("rm");
    expect(read!.error!.message).toContain("reads need a person");
  });

  test("updatedInput: the call runs with the hook's input, validated and checked again", async () => {
    const rewrite = {
      hookSpecificOutput: {
        hookEventName: "PreToolUse",
        permissionDecision: "allow",
        updatedInput: { file_path: "safe.txt", content: "rewritten\n" },
      },
    };
    const result = await runCli({
      steps: [
        reply().tool("Write", { file_path: "other.txt", content: "original\n" }),
        reply().text("Done."),
      ],
      files: scriptFiles("answer"),
      env: userDirs({ cairn: { hooks: claudeHooks({ PreToolUse: run("answer", rewrite) }) } }),
    });
    expect(result.code).toBe(0);
    expect(readFileSync(join(result.dir, "safe.txt"), "utf8")).toBe("rewritten\n");
    expect(existsSync(join(result.dir, "other.txt"))).toBe(false);
  });

  test("PostToolUse additionalContext and decision block reach the model with the tool's result", async () => {
    const post = {
      decision: "block",
      reason: "the file has lint errors",
      hookSpecificOutput: { hookEventName: "PostToolUse", additionalContext: "formatter ran" },
    };
    const result = await runCli({
      steps: [reply().tool("Read", { file_path: "a.txt" }), reply().text("Done.")],
      files: { "a.txt": "x\n", ...scriptFiles("answer") },
      env: userDirs({ cairn: { hooks: claudeHooks({ PostToolUse: run("answer", post) }) } }),
    });
    const sent = requestText(result.server.requests[1]!.body);
    expect(sent).toContain("formatter ran");
    expect(sent).toContain("the file has lint errors");
  });

  test("UserPromptSubmit: added context reaches the first request; a block ends the run before any model call", async () => {
    const context = {
      hookSpecificOutput: { hookEventName: "UserPromptSubmit", additionalContext: "Ticket: PROJ-42" },
    };
    const added = await runCli({
      steps: [reply().text("Done.")],
      files: scriptFiles("answer"),
      env: userDirs({ cairn: { hooks: claudeHooks({ UserPromptSubmit: run("answer", context) }) } }),
    });
    expect(added.code).toBe(0);
    expect(requestText(added.server.requests[0]!.body)).toContain("Ticket: PROJ-42");

    const blocked = await runCli({
      steps: [reply().text("never")],
      files: scriptFiles("answer"),
      env: userDirs({
        cairn: {
          hooks: claudeHooks({
            UserPromptSubmit: run("answer", { decision: "block", reason: "no secrets in prompts" }),
          }),
        },
      }),
      args: ["--output-format", "json"],
    });
    expect(blocked.code).toBe(1);
    expect(blocked.stdout).toBe("");
    expect(blocked.stderr).toContain("no secrets in prompts");
    expect(blocked.server.requests).toHaveLength(0);
  });

  test("Stop: decision block sends the agent back with the reason as the next user turn, stop_hook_active set after", async () => {
    const result = await runCli({
      steps: [reply().text("Finished."), reply().text("Tests pass.")],
      files: scriptFiles("stopOnce", "log"),
      env: userDirs({
        cairn: { hooks: claudeHooks({ Stop: [{ command: run("log") }, { command: run("stopOnce") }] }) },
      }),
      args: ["--output-format", "json"],
    });
    expect(result.code).toBe(0);
    expect(result.server.requests).toHaveLength(2);
    const second = result.server.requests[1]!.body as { messages: { role: string; content: unknown }[] };
    expect(second.messages.at(-1)!.role).toBe("user");
    expect(requestText(second.messages.at(-1))).toContain("Run the tests before you stop.");
    expect(loggedInputs(result.dir).map((input) => input.stop_hook_active)).toEqual([false, true]);
    expect(result.events.at(-1)).toMatchObject({ result: expect.stringContaining("Tests pass.") });
  });

  test("continue: false ends the run, naming the hook and its stopReason; systemMessage goes to stderr", async () => {
    const stop = { continue: false, stopReason: "budget reached", systemMessage: "Stopping: budget reached" };
    const result = await runCli({
      steps: [reply().tool("Read", { file_path: "a.txt" }), reply().text("never")],
      files: { "a.txt": "x\n", ...scriptFiles("answer") },
      env: userDirs({ cairn: { hooks: claudeHooks({ PostToolUse: run("answer", stop) }) } }),
    });
    expect(result.code).toBe(1);
    expect(result.server.requests).toHaveLength(1);
    expect(result.stderr).toContain("Stopping: budget reached");
    expect(result.stderr).toMatch(/The hook command sh hooks\/answer\.sh .* stopped the run: budget reached/);
  });
});

describe("failures: reported, never a hang, never a silent allow of a PreToolUse hook's call", () => {
  test.each([
    ["times out", "sleep", 1, /timed out after 1 s/],
    ["crashes", "crash", undefined, /exited with code 1: hook script crashed/],
    ["prints invalid JSON", "brokenJson", undefined, /printed invalid JSON/],
  ] as const)(
    "a PreToolUse hook that %s denies the call (fail-closed)",
    async (_, script, timeout, error) => {
      const result = await runCli({
        steps: [reply().tool("Write", { file_path: "out.txt", content: "x" }), reply().text("Done.")],
        files: scriptFiles(script),
        env: userDirs({
          cairn: {
            hooks: claudeHooks({ PreToolUse: [{ command: run(script), ...(timeout ? { timeout } : {}) }] }),
          },
        }),
        args: ["--output-format", "stream-json"],
      });
      expect(result.code).toBe(0);
      expect(existsSync(join(result.dir, "out.txt"))).toBe(false);
      expect(result.stderr).toMatch(error);
      expect(result.stderr).toContain("(treated as deny)");
      expect(
        (resultOf(completed(result.events)[0]!) as { error: { message: string } }).error.message,
      ).toMatch(error);
    },
  );

  test("a failing PostToolUse or UserPromptSubmit hook is reported and ignored (fail-open)", async () => {
    const result = await runCli({
      steps: [reply().tool("Write", { file_path: "out.txt", content: "x" }), reply().text("Done.")],
      files: scriptFiles("crash", "brokenJson"),
      env: userDirs({
        cairn: { hooks: claudeHooks({ PostToolUse: run("crash"), UserPromptSubmit: run("brokenJson") }) },
      }),
    });
    expect(result.code).toBe(0);
    expect(readFileSync(join(result.dir, "out.txt"), "utf8")).toBe("x");
    expect(result.stderr).toMatch(/UserPromptSubmit hook .* failed: printed invalid JSON .*\(ignored\)/);
    expect(result.stderr).toMatch(
      /PostToolUse hook .* failed: exited with code 1: hook script crashed \(ignored\)/,
    );
  });
});

describe("trust", () => {
  const settings = JSON.stringify({ hooks: claudeHooks({ UserPromptSubmit: run("log") }) });

  test("a workspace's own hooks do not run without --trust: one stderr line says so", async () => {
    const result = await runCli({
      steps: [reply().text("Done.")],
      files: { ...scriptFiles("log"), ".claude/settings.json": settings },
    });
    expect(result.code).toBe(0);
    expect(loggedEvents(result.dir)).toEqual([]);
    const lines = result.stderr.split("\n").filter((line) => line.includes("not trusted"));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(".claude/settings.json");
    expect(lines[0]).toContain("--trust");
  });

  test("trustedWorkspaces in the user config trusts the workspace and what is below it", async () => {
    const result = await runCli({
      steps: [reply().text("Done.")],
      files: { ...scriptFiles("log"), ".claude/settings.json": settings },
      env: userDirs({ cairn: { trustedWorkspaces: ["/"] } }),
    });
    expect(loggedEvents(result.dir)).toEqual(["UserPromptSubmit"]);
    expect(result.stderr).not.toContain("not trusted");
  });
});

test("the transcript records each hook's decision", async () => {
  const env = userDirs({
    cairn: { hooks: claudeHooks({ PreToolUse: [{ matcher: "Write", command: run("blockEnv") }] }) },
  });
  const result = await runCli({
    steps: [reply().tool("Write", { file_path: ".env", content: "K=1" }), reply().text("Ok.")],
    files: scriptFiles("blockEnv"),
    env,
    args: ["--output-format", "json"],
  });
  const sessionId = String(result.events[0]!.session_id);
  const { execFileSync } = await import("node:child_process");
  const file = execFileSync("find", [env.CAIRN_HOME, "-name", `${sessionId}.jsonl`], {
    encoding: "utf8",
  }).trim();
  const records = readFileSync(file, "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Event);
  expect(records.find((record) => record.type === "hook")).toMatchObject({
    event: "PreToolUse",
    hook: expect.stringContaining("blockEnv.sh"),
    outcome: "success",
    decision: "deny",
    reason: "writing .env files is not allowed",
  });
});
