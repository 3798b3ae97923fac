import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import * as z from "zod";
import { projectionFor } from "../../src/cli/formats/select.js";
import type { EngineEvent, ToolEndEvent } from "../../src/engine/events.js";
import { createPermissionGate, parseRules } from "../../src/permissions/index.js";
import { assembleRun } from "../../src/run/assemble.js";
import { createSdkProjection } from "../../src/sdk/project.js";
import { SessionPermissions } from "../../src/session/permissions.js";
import { reply, type ScriptedServer, startScriptedServer } from "../../src/testing/index.js";
import { builtinTools, defineTool, type Tool } from "../../src/tools/index.js";
import { validLine } from "../cli/schemas.js";
import { collect, scriptedProvider } from "../helpers/loop.js";
import { tempDir } from "../helpers/temp.js";

/**
 * A tool added later (MCP, custom, a subagent) needs no edit anywhere else: what it declares next to
 * its definition is what the permission policy, the engine's scheduling, the stream-json payloads and
 * the SDK messages go by. The toy tools below exist only in this file.
 */
const ran: string[] = [];

/** Read-only, with a path field (an MCP tool with `readOnlyHint` would look like this). */
const peek = defineTool({
  name: "Peek",
  description: "Shows the first line of a file",
  input: z.object({ file_path: z.string() }),
  effects: {
    kind: "other",
    readOnly: true,
    network: false,
    paths: (input) => [{ path: input.file_path, access: "read" }],
  },
  async run(input, ctx) {
    ran.push(`Peek ${input.file_path}`);
    return { content: readFileSync(resolve(ctx.cwd, input.file_path), "utf8").split("\n")[0] ?? "" };
  },
});

/** Declares nothing: cairn cannot know what it does. */
const gadget = defineTool({
  name: "Gadget",
  description: "Does something",
  input: z.object({ x: z.string() }),
  async run(input) {
    ran.push(`Gadget ${input.x}`);
    return { content: "done" };
  },
});

/** A read tool that takes Read's input and returns Read's data: it declares Read's payload shape. */
const cat = defineTool({
  name: "Cat",
  description: "Prints a file",
  input: z.object({ file_path: z.string() }),
  effects: {
    kind: "read",
    readOnly: true,
    network: false,
    paths: (input) => [{ path: input.file_path, access: "read" }],
  },
  payload: "read",
  async run(input) {
    ran.push(`Cat ${input.file_path}`);
    return {
      content: "inside",
      data: { content: "inside", isEmpty: false, exceededLimit: false, totalLines: 1, totalChars: 6 },
    };
  },
});

/** Read-only but online (a search service). */
const lookup = defineTool({
  name: "Lookup",
  description: "Looks something up on the web",
  input: z.object({ q: z.string() }),
  effects: { kind: "other", readOnly: true, network: true },
  async run() {
    return { content: "found" };
  },
});

const toys: Tool[] = [peek, gadget, cat, lookup];
const tools = [...builtinTools(), ...toys];

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  ran.length = 0;
});

function layout() {
  const base = tempDir("cairn-toy-");
  const ws = join(base, "ws");
  const outside = join(base, "outside");
  mkdirSync(ws);
  mkdirSync(outside);
  writeFileSync(join(ws, "inside.txt"), "inside\n");
  writeFileSync(join(outside, "secret.txt"), "SECRET-CONTENT\n");
  return { ws, secret: join(outside, "secret.txt"), home: join(base, "home") };
}

const ended = (events: EngineEvent[], id: string) =>
  events.find((e): e is ToolEndEvent => e.type === "tool_end" && e.toolUseId === id)!.outcome;

describe("a toy tool is handled by what it declares, with no other edit", () => {
  test("print mode: the read-only tool runs inside the workspace (in parallel), is denied outside; the undeclared one is denied; stream-json and SDK messages show them", async () => {
    const { ws, secret, home } = layout();
    server = await startScriptedServer({
      steps: [
        reply()
          .tool("Peek", { file_path: "inside.txt" }, "toolu_in")
          .tool("Peek", { file_path: secret }, "toolu_out")
          .tool("Gadget", { x: "go" }, "toolu_gadget"),
        reply().tool("Cat", { file_path: "inside.txt" }, "toolu_cat"),
        reply().text("Done."),
      ],
    });
    // What the CLI builds: print mode's acceptEdits, no one to ask.
    const gate = createPermissionGate({ mode: "acceptEdits", workspace: ws, home, env: {}, tools });
    const { events, end } = await collect({
      provider: scriptedProvider(server.url),
      tools,
      cwd: ws,
      canUseTool: gate,
      sessionId: "00000000-0000-4000-8000-000000000001",
    });

    expect(ended(events, "toolu_in")).toMatchObject({ isError: false, content: "inside" });
    expect(ended(events, "toolu_out")).toMatchObject({ errorKind: "denied" });
    expect(ended(events, "toolu_out").content).toContain("is outside the workspace");
    expect(ended(events, "toolu_gadget")).toMatchObject({ errorKind: "denied" });
    expect(ended(events, "toolu_gadget").content).toContain("Gadget needs approval");
    expect(ran).toEqual(["Peek inside.txt", "Cat inside.txt"]);
    expect(JSON.stringify(server.requests)).not.toContain("SECRET-CONTENT");
    expect(end.permissionDenials.map((d) => d.tool_name)).toEqual(["Peek", "Gadget"]);
    // Declared read-only: both Peek calls started before either ended (one parallel batch).
    const order = events.flatMap((e) =>
      e.type === "tool_start" || e.type === "tool_end" ? [`${e.type} ${e.toolUseId}`] : [],
    );
    expect(order.slice(0, 2)).toEqual(["tool_start toolu_in", "tool_start toolu_out"]);
    expect(order.indexOf("tool_start toolu_gadget")).toBeGreaterThan(order.indexOf("tool_end toolu_out"));

    // stream-json (PM-26): no payload declared → `function`; Read's shape declared → readToolCall.
    const projection = projectionFor("stream-json", false, tools);
    const lines = events.map((event) => projection.project(event)).join("");
    const completed = new Map(
      lines
        .split("\n")
        .filter(Boolean)
        .map(validLine)
        .filter((line) => line.type === "tool_call" && line.subtype === "completed")
        .map((line) => [line.call_id, line.tool_call]),
    );
    expect(completed.get("toolu_in")).toEqual({
      function: {
        name: "Peek",
        arguments: '{"file_path":"inside.txt"}',
        result: { success: { content: "inside" } },
      },
    });
    expect(completed.get("toolu_gadget")).toEqual({
      function: {
        name: "Gadget",
        arguments: '{"x":"go"}',
        result: {
          error: { message: expect.stringContaining("Gadget needs approval") },
          rejected: { reason: expect.stringContaining("Gadget needs approval") },
        },
      },
    });
    expect(completed.get("toolu_cat")).toEqual({
      readToolCall: {
        args: { path: "inside.txt" },
        result: {
          success: { content: "inside", isEmpty: false, exceededLimit: false, totalLines: 1, totalChars: 6 },
        },
      },
    });

    // SDK messages: tool_use in `assistant`, tool_result in `user`, the denials in `result`.
    const sdk = createSdkProjection({ includePartialMessages: false, version: "test" });
    const messages = events.flatMap((event) => sdk.project(event));
    const toolUses = messages.flatMap((m) =>
      m.type === "assistant" ? m.message.content.filter((b) => b.type === "tool_use").map((b) => b.name) : [],
    );
    expect(toolUses).toEqual(["Peek", "Peek", "Gadget", "Cat"]);
    const results = new Map(
      messages.flatMap((m) =>
        m.type === "user" && Array.isArray(m.message.content)
          ? m.message.content.flatMap((b) => (b.type === "tool_result" ? [[b.tool_use_id, b] as const] : []))
          : [],
      ),
    );
    expect(results.get("toolu_in")).toMatchObject({ content: "inside" });
    expect(results.get("toolu_in")).not.toHaveProperty("is_error");
    expect(results.get("toolu_gadget")).toMatchObject({ is_error: true });
    const result = messages.at(-1);
    expect(result?.type === "result" && result.permission_denials.map((d) => d.tool_name)).toEqual([
      "Peek",
      "Gadget",
    ]);
  });

  test("SDK: canUseTool is asked about the undeclared tool only; plan mode runs the read-only one", async () => {
    const { ws } = layout();
    const asked: string[] = [];
    server = await startScriptedServer({
      steps: [
        reply()
          .tool("Peek", { file_path: "inside.txt" }, "toolu_in")
          .tool("Gadget", { x: "go" }, "toolu_gadget"),
        reply().text("Done."),
      ],
    });
    // The session's permissions adopt the gate the run assembly built from the query's tools; its
    // questions are answered as the SDK's canUseTool answers them.
    const permissions = new SessionPermissions(
      { mode: "default", answered: true, forceHint: "use --force", source: "SDK" },
      async (request) => {
        asked.push(request.toolName);
        return { behavior: "deny", message: "not today" };
      },
    );
    const provider = scriptedProvider(server.url);
    permissions.adopt(
      await assembleRun({
        cwd: ws,
        env: {},
        tools,
        permissions: permissions.setup(),
        resolvedModel: { provider, model: "toy", providerModel: "toy", priceUsage: () => 0 },
      }),
    );
    const { events } = await collect({
      provider,
      tools,
      cwd: ws,
      canUseTool: permissions.canUseTool,
    });
    expect(asked).toEqual(["Gadget"]);
    expect(ended(events, "toolu_in")).toMatchObject({ isError: false, content: "inside" });
    expect(ended(events, "toolu_gadget").content).toContain("not today");

    permissions.setMode("plan");
    const signal = new AbortController().signal;
    const ask = (name: string, input: Record<string, unknown>) =>
      permissions.canUseTool(name, input, { signal, toolUseID: "toolu_plan" });
    expect(await ask("Peek", { file_path: "inside.txt" })).toEqual({ behavior: "allow" });
    expect(await ask("Gadget", { x: "go" })).toMatchObject({ behavior: "deny" });
    expect(asked).toEqual(["Gadget"]);
  });

  test("rules by kind, paths and network, decided from the declaration", () => {
    const { ws, secret, home } = layout();
    const gate = (
      rules: { allow?: string[]; deny?: string[] } = {},
      mode: "acceptEdits" | "plan" = "acceptEdits",
    ) =>
      createPermissionGate({
        mode,
        workspace: ws,
        home,
        env: {},
        tools,
        rules: [
          ...parseRules(rules.deny ?? [], "deny", "test"),
          ...parseRules(rules.allow ?? [], "allow", "test"),
        ],
      });
    // `Read` covers every tool declaring kind read; path rules apply to every declared read path.
    expect(gate({ deny: ["Read"] }).evaluate("Cat", { file_path: "inside.txt" }).behavior).toBe("deny");
    expect(gate({ deny: ["Read"] }).evaluate("Peek", { file_path: "inside.txt" }).behavior).toBe("allow");
    expect(gate({ deny: ["Read(inside.txt)"] }).evaluate("Peek", { file_path: "inside.txt" }).behavior).toBe(
      "deny",
    );
    expect(gate({ allow: [`Read(/${secret})`] }).evaluate("Peek", { file_path: secret }).behavior).toBe(
      "allow",
    );
    // Network: read-only or not, never allowed by the mode alone.
    expect(gate().evaluate("Lookup", { q: "x" })).toMatchObject({ behavior: "ask", suggestions: ["Lookup"] });
    expect(gate({ allow: ["Lookup"] }).evaluate("Lookup", { q: "x" }).behavior).toBe("allow");
    // Plan mode: declared read-only runs, undeclared does not, whatever the rules say.
    expect(gate({}, "plan").evaluate("Peek", { file_path: "inside.txt" }).behavior).toBe("allow");
    expect(gate({ allow: ["Gadget"] }, "plan").evaluate("Gadget", { x: "go" }).behavior).toBe("deny");
    // A tool the gate was not told about is undeclared: asked about.
    expect(gate().evaluate("Unlisted", {}).behavior).toBe("ask");
  });
});
