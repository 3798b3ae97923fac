import { existsSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import type { RunEndEvent } from "../../src/engine/events.js";
import { runAgentLoop } from "../../src/engine/loop.js";
import type { PermissionDecision } from "../../src/engine/tool-runner.js";
import { createPermissionGate, parseRules } from "../../src/permissions/index.js";
import { ReplayProvider } from "../../src/providers/replay.js";
import { reply, toStep } from "../../src/testing/index.js";
import { builtinTools, childEnvironment } from "../../src/tools/index.js";
import { gateFor, makeFixture } from "./fixture.js";

const fx = makeFixture();
afterAll(() => fx.cleanup());

const options = () => ({ signal: new AbortController().signal, toolUseID: "toolu_1" });

describe("the gate is the engine's canUseTool", () => {
  test("headless: ask means deny, with the reason as the message", async () => {
    const gate = gateFor(fx, { mode: "default" });
    const decision = await gate("Bash", { command: "curl x" }, options());
    expect(decision).toEqual({
      behavior: "deny",
      message:
        "shell command `curl` is not in the read-only list; allow it with a rule like Bash(curl:*) or use --force",
    });
  });

  test("onAsk decides what is asked, and only that", async () => {
    const asked: string[] = [];
    const gate = gateFor(fx, {
      mode: "default",
      deny: ["Bash(rm:*)"],
      onAsk: async (toolName, input, context) => {
        asked.push(`${toolName} ${JSON.stringify(input)} ${context.decisionReason}`);
        expect(context.toolUseID).toBe("toolu_1");
        return { behavior: "allow" };
      },
    });
    expect(await gate("Bash", { command: "ls" }, options())).toEqual({ behavior: "allow" });
    expect(await gate("Bash", { command: "curl x" }, options())).toEqual({ behavior: "allow" });
    expect((await gate("Bash", { command: "rm x" }, options())).behavior).toBe("deny");
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatch(/^Bash \{"command":"curl x"\} shell command `curl`/);
  });

  test("onAsk gets the blocked path and rule suggestions", async () => {
    let seen: { blockedPath?: string; suggestions?: string[] } = {};
    const gate = gateFor(fx, {
      onAsk: async (_tool, _input, context) => {
        seen = context;
        return null;
      },
    });
    const decision = await gate("Read", { file_path: "/etc/hostname" }, options());
    expect(decision.behavior).toBe("deny");
    expect(seen.blockedPath).toBe("/etc/hostname");
    expect(seen.suggestions).toEqual(["Read(//etc/hostname)"]);
  });

  test("a rejected or throwing onAsk denies; a deny answer is passed through (interrupt included)", async () => {
    const throwing = gateFor(fx, {
      onAsk: async () => {
        throw new Error("boom");
      },
    });
    expect(await throwing("Bash", { command: "curl x" }, options())).toEqual({
      behavior: "deny",
      message: "the permission callback failed: boom",
    });
    const answer: PermissionDecision = { behavior: "deny", message: "no", interrupt: true };
    const denying = gateFor(fx, { onAsk: async () => answer });
    expect(await denying("Bash", { command: "curl x" }, options())).toEqual(answer);
  });

  test("an updatedInput from onAsk cannot slip past a deny rule", async () => {
    const gate = gateFor(fx, {
      deny: ["Bash(rm:*)"],
      onAsk: async () => ({ behavior: "allow", updatedInput: { command: "rm -rf /" } }),
    });
    const decision = await gate("Bash", { command: "curl x" }, options());
    expect(decision.behavior).toBe("deny");
    expect(decision.behavior === "deny" && decision.message).toBe(
      "the changed input is denied: denied by rule Bash(rm:*) (test)",
    );
    const fine = gateFor(fx, {
      onAsk: async () => ({ behavior: "allow", updatedInput: { command: "echo ok" } }),
    });
    expect(await fine("Bash", { command: "curl x" }, options())).toEqual({
      behavior: "allow",
      updatedInput: { command: "echo ok" },
    });
  });

  test("setMode applies to later calls", () => {
    const gate = gateFor(fx, { mode: "default" });
    expect(gate.mode).toBe("default");
    expect(gate.evaluate("Write", { file_path: "a.txt", content: "" }).behavior).toBe("ask");
    gate.setMode("acceptEdits");
    expect(gate.mode).toBe("acceptEdits");
    expect(gate.evaluate("Write", { file_path: "a.txt", content: "" }).behavior).toBe("allow");
    gate.setMode("plan");
    expect(gate.evaluate("Write", { file_path: "a.txt", content: "" }).behavior).toBe("deny");
  });

  test("MCP and unknown tools are asked about, denied in plan mode, allowed with --force", () => {
    expect(gateFor(fx).evaluate("mcp__db__query", {}).behavior).toBe("ask");
    expect(gateFor(fx, { mode: "plan" }).evaluate("CustomTool", {}).behavior).toBe("deny");
    expect(gateFor(fx, { mode: "bypassPermissions" }).evaluate("mcp__db__query", {}).behavior).toBe("allow");
    expect(gateFor(fx, { mode: "plan" }).evaluate("TodoWrite", { todos: [] }).behavior).toBe("allow");
  });

  test("a workspace given through a symlink works the same", () => {
    const link = path.join(fx.base, "ws-link");
    if (!existsSync(link)) symlinkSync(fx.ws, link);
    const gate = createPermissionGate({
      mode: "acceptEdits",
      workspace: link,
      home: fx.home,
      cairnHome: fx.cairnHome,
      env: {},
      tools: builtinTools(),
    });
    expect(gate.evaluate("Read", { file_path: "src/a.ts" }).behavior).toBe("allow");
    expect(gate.evaluate("Read", { file_path: "link-file" }).behavior).toBe("ask");
  });
});

describe("wired into the engine loop (what the CLI and SDK will do)", () => {
  const run = async (
    command: string,
    cwd: string,
    env: NodeJS.ProcessEnv = childEnvironment(process.env),
  ) => {
    const provider = new ReplayProvider(
      { version: 1, steps: [toStep(reply().tool("Bash", { command })), toStep(reply().text("done"))] },
      "test",
    );
    const gate = createPermissionGate({
      mode: "acceptEdits",
      workspace: cwd,
      rules: parseRules(["Bash(rm:*)"], "deny", "test"),
      env,
      tools: builtinTools(),
    });
    let end: RunEndEvent | undefined;
    const results: string[] = [];
    for await (const event of runAgentLoop({
      sessionId: "s",
      cwd,
      provider,
      model: "replay",
      providerModel: "replay",
      system: "",
      tools: builtinTools(),
      history: [],
      prompt: "go",
      signal: new AbortController().signal,
      canUseTool: gate,
      env,
    })) {
      if (event.type === "tool_end") results.push(event.outcome.content);
      if (event.type === "run_end") end = event;
    }
    return { end: end!, results };
  };

  test("a denied `touch marker` leaves no marker and one listed denial", async () => {
    const dir = path.join(fx.base, "touch-ws");
    mkdirSync(dir, { recursive: true });
    const { end, results } = await run("touch marker", dir);
    expect(existsSync(path.join(dir, "marker"))).toBe(false);
    expect(end.permissionDenials).toEqual([
      { tool_name: "Bash", tool_use_id: expect.any(String), tool_input: { command: "touch marker" } },
    ]);
    expect(results[0]).toMatch(
      /^Permission to use Bash was denied\. shell command `touch` is not in the read-only list/,
    );
  });

  test("a denied compound command runs none of its parts", async () => {
    const dir = path.join(fx.base, "compound-ws");
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, "keep.txt"), "x");
    const { end } = await run("ls > listing.txt; rm keep.txt", dir);
    expect(existsSync(path.join(dir, "keep.txt"))).toBe(true);
    expect(existsSync(path.join(dir, "listing.txt"))).toBe(false);
    expect(end.permissionDenials).toHaveLength(1);
  });

  test("an allowed read-only command runs", async () => {
    const dir = path.join(fx.base, "ok-ws");
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, "hello.txt"), "hello from the workspace\n");
    const { end, results } = await run("cat hello.txt", dir);
    expect(end.permissionDenials).toEqual([]);
    expect(results[0]).toContain("hello from the workspace");
  });
});

describe("plan mode cannot be widened by allow rules", () => {
  test("rules allowing a tool, a command or an edit do nothing in plan mode; reads may be opened", () => {
    const gate = gateFor(fx, {
      mode: "plan",
      allow: ["mcp__db", "Bash(npm run test:*)", "Edit(src/**)", `Read(/${fx.outside}/**)`],
    });
    expect(gate.evaluate("mcp__db__query", {}).behavior).toBe("deny");
    expect(gate.evaluate("Bash", { command: "npm run test" }).behavior).toBe("deny");
    expect(gate.evaluate("Edit", { file_path: "src/a.ts", old_string: "a", new_string: "b" }).behavior).toBe(
      "deny",
    );
    expect(gate.evaluate("Read", { file_path: `${fx.outside}/secret.txt` }).behavior).toBe("allow");
  });
});
