/**
 * Permissions in the SDK: the permission engine's gate built per query from the options and the
 * config files, `canUseTool` answering what it leaves open, denials visible in the tool result and
 * `result.permission_denials`, and the modes. In-process, against the scripted model server, with
 * real tools on a temp workspace and a temp `$CAIRN_HOME`.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import {
  type CanUseTool,
  InvalidOptionsError,
  type PermissionUpdate,
  query,
  type SDKMessage,
} from "../../src/index.js";
import { reply } from "../../src/testing/index.js";
import {
  cairnHome,
  cleanUp,
  collect,
  envFor,
  init,
  labels,
  result,
  runQuery,
  startServer,
  users,
  workspace,
} from "./helpers.js";

afterEach(cleanUp);

/** The tool_result block of the n-th user message. */
const toolResult = (messages: SDKMessage[], n: number) => {
  const content = users(messages)[n]?.message.content;
  if (!Array.isArray(content) || content[0]?.type !== "tool_result") throw new Error(`no tool result ${n}`);
  return content[0];
};
const text = (block: { content: unknown }) =>
  typeof block.content === "string" ? block.content : JSON.stringify(block.content);

describe("without canUseTool, ask means deny", () => {
  test("default mode: reads run; an edit and a shell command do not run, the model is told why, the result lists them", async () => {
    const cwd = workspace({ "a.txt": "A\n" });
    const { messages, server } = await runQuery(
      [
        reply().tool("Read", { file_path: "a.txt" }),
        reply().tool("Write", { file_path: "b.txt", content: "B" }).tool("Bash", { command: "touch marker" }),
        reply().text("ok"),
      ],
      { cwd },
    );
    expect(init(messages).permissionMode).toBe("default");
    expect(toolResult(messages, 0).is_error).toBeUndefined();
    const write = toolResult(messages, 1);
    const bash = toolResult(messages, 2);
    expect(write.is_error).toBe(true);
    expect(text(write)).toMatch(/^Permission to use Write was denied\. /);
    expect(bash.is_error).toBe(true);
    expect(text(bash)).toMatch(/^Permission to use Bash was denied\. .*touch/);
    // How to lift it, in the SDK's words.
    expect(text(bash)).toContain('set permissionMode: "bypassPermissions"');
    expect(existsSync(join(cwd, "b.txt"))).toBe(false);
    expect(existsSync(join(cwd, "marker"))).toBe(false);
    const end = result(messages);
    expect(end.subtype).toBe("success");
    expect(end.permission_denials).toEqual([
      {
        tool_name: "Write",
        tool_use_id: write.tool_use_id,
        tool_input: { file_path: "b.txt", content: "B" },
      },
      { tool_name: "Bash", tool_use_id: bash.tool_use_id, tool_input: { command: "touch marker" } },
    ]);
    // The model read the denial.
    expect(JSON.stringify(server.requests[2]!.body)).toContain("Permission to use Bash was denied.");
  });

  test("the original example's allowedTools [Bash, Read] lets the model run shell commands (SDK-13)", async () => {
    const cwd = workspace({ "a.txt": "A" });
    const { messages } = await runQuery(
      [reply().tool("Bash", { command: "touch made-by-bash" }), reply().text("done")],
      { cwd, allowedTools: ["Bash", "Read"] },
    );
    expect(toolResult(messages, 0).is_error).toBeUndefined();
    expect(existsSync(join(cwd, "made-by-bash"))).toBe(true);
    expect(result(messages).permission_denials).toEqual([]);
  });
});

describe("canUseTool", () => {
  test("one that never answers does not keep an aborted query waiting, nor call the model again", async () => {
    // It waited on the callback for ever: abort(), interrupt() and close() left the loop hanging.
    for (const stop of ["abort", "interrupt", "close"] as const) {
      const server = await startServer([
        reply().tool("Write", { file_path: "a.txt", content: "x" }),
        reply().text("z"),
      ]);
      const abortController = new AbortController();
      let asked!: () => void;
      const askedOnce = new Promise<void>((resolve) => {
        asked = resolve;
      });
      const q = query({
        prompt: "Go",
        options: {
          cwd: workspace(),
          env: envFor(server),
          abortController,
          canUseTool: () => {
            asked();
            return new Promise(() => {});
          },
        },
      });
      const done = collect(q);
      await askedOnce;
      if (stop === "abort") abortController.abort();
      else if (stop === "interrupt") await q.interrupt();
      else q.close();
      const messages = await done;
      expect(
        messages.filter((m) => m.type === "result").every((m) => m.subtype !== "success"),
        stop,
      ).toBe(true);
      expect(server.requests, stop).toHaveLength(1);
    }
  });

  test("is asked only what rules and mode leave open, with the reason, the blocked path and suggestions", async () => {
    const asked: { name: string; input: Record<string, unknown>; options: Parameters<CanUseTool>[2] }[] = [];
    const canUseTool: CanUseTool = async (name, input, options) => {
      asked.push({ name, input, options });
      return { behavior: "deny", message: "No, thanks." };
    };
    const cwd = workspace({ "a.txt": "A" });
    const { messages } = await runQuery(
      [
        reply()
          .tool("Read", { file_path: "a.txt" })
          .tool("Glob", { pattern: "*.txt" })
          .tool("Read", { file_path: "/etc/hostname" }),
        reply()
          .tool("Bash", { command: "ls" })
          .tool("Bash", { command: "git status" })
          .tool("Write", { file_path: "b.txt", content: "B" }),
        reply().text("ok"),
      ],
      { cwd, allowedTools: ["Bash(git status:*)"], canUseTool },
    );
    // Read and Glob inside, `ls` (read-only list) and `git status` (allow rule) ran without asking.
    expect(asked.map((a) => `${a.name} ${JSON.stringify(a.input)}`)).toEqual([
      'Read {"file_path":"/etc/hostname"}',
      'Write {"file_path":"b.txt","content":"B"}',
    ]);
    const [outside, write] = asked;
    expect(outside!.options.signal).toBeInstanceOf(AbortSignal);
    // Reads run in parallel, so results come in completion order: match the third tool call's id.
    const toolUseIds = messages.flatMap((m) =>
      m.type === "assistant" && m.message.content[0]?.type === "tool_use" ? [m.message.content[0].id] : [],
    );
    expect(outside!.options.toolUseID).toBe(toolUseIds[2]);
    expect(outside!.options.requestId).not.toBe(write!.options.requestId);
    expect(outside!.options.blockedPath).toBe("/etc/hostname");
    expect(outside!.options.decisionReason).toMatch(/\/etc\/hostname is outside the workspace/);
    expect(outside!.options.suggestions).toEqual([
      {
        type: "addRules",
        rules: [{ toolName: "Read", ruleContent: "//etc/hostname" }],
        behavior: "allow",
        destination: "session",
      },
    ]);
    expect(write!.options.decisionReason).toEqual(expect.any(String));
    expect(text(toolResult(messages, 5))).toBe("Permission to use Write was denied. No, thanks.");
    expect(result(messages).permission_denials.map((d) => d.tool_name)).toEqual(["Read", "Write"]);
    expect(existsSync(join(cwd, "b.txt"))).toBe(false);
  });

  test("allow with updatedInput runs the new input, checked again against deny rules; null and a throw deny", async () => {
    const cwd = workspace();
    const canUseTool: CanUseTool = async (_name, input) => {
      if (input.file_path === "decoy.txt")
        return { behavior: "allow", updatedInput: { file_path: "real.txt", content: "rewritten" } };
      if (input.file_path === "harmless.txt")
        return { behavior: "allow", updatedInput: { file_path: "secret.txt", content: "x" } };
      if (input.command === "touch m1") return null;
      throw new Error("boom");
    };
    const { messages } = await runQuery(
      [
        reply().tool("Write", { file_path: "decoy.txt", content: "model's" }),
        reply().tool("Write", { file_path: "harmless.txt", content: "y" }),
        reply().tool("Bash", { command: "touch m1" }),
        reply().tool("Bash", { command: "touch m2" }),
        reply().text("ok"),
      ],
      { cwd, canUseTool, disallowedTools: ["Write(secret.txt)"] },
    );
    expect(readFileSync(join(cwd, "real.txt"), "utf8")).toBe("rewritten");
    expect(existsSync(join(cwd, "decoy.txt"))).toBe(false);
    expect(text(toolResult(messages, 1))).toMatch(/the changed input is denied: .*Write\(secret\.txt\)/);
    expect(existsSync(join(cwd, "secret.txt"))).toBe(false);
    expect(text(toolResult(messages, 2))).toMatch(/not approved: /);
    expect(text(toolResult(messages, 3))).toMatch(/the permission callback failed: boom/);
    expect(existsSync(join(cwd, "m1"))).toBe(false);
    expect(existsSync(join(cwd, "m2"))).toBe(false);
    expect(result(messages).permission_denials.map((d) => d.tool_name)).toEqual(["Write", "Bash", "Bash"]);
  });

  test("an invalid call is never asked about: a Write without content reaches the model as a validation error", async () => {
    const asked: string[] = [];
    const canUseTool: CanUseTool = async (name) => {
      asked.push(name);
      return { behavior: "allow" };
    };
    const cwd = workspace();
    const { messages, server } = await runQuery(
      [reply().tool("Write", { file_path: "b.txt" }), reply().text("ok")],
      { cwd, canUseTool },
    );
    expect(asked).toEqual([]);
    const write = toolResult(messages, 0);
    expect(write.is_error).toBe(true);
    expect(text(write)).toBe(
      "InputValidationError: Write was called with invalid input. The field `content`: Invalid input: expected string, received undefined.",
    );
    expect(existsSync(join(cwd, "b.txt"))).toBe(false);
    expect(result(messages).permission_denials).toEqual([]);
    expect(JSON.stringify(server.requests[1]!.body)).toContain("The field `content`");
  });

  test("an updatedInput the schema rejects does not run; the model reads why", async () => {
    const cwd = workspace();
    const { messages } = await runQuery(
      [reply().tool("Write", { file_path: "b.txt", content: "B" }), reply().text("ok")],
      { cwd, canUseTool: async () => ({ behavior: "allow", updatedInput: { file_path: "b.txt" } }) },
    );
    const write = toolResult(messages, 0);
    expect(write.is_error).toBe(true);
    expect(text(write)).toMatch(
      /^InputValidationError: Write was called with invalid input\. The field `content`/,
    );
    expect(existsSync(join(cwd, "b.txt"))).toBe(false);
  });

  test("deny with interrupt: the tool never runs and the turn ends with an error result", async () => {
    const cwd = workspace();
    const { messages, server } = await runQuery(
      [reply().tool("Bash", { command: "touch marker" }), reply().text("never")],
      {
        cwd,
        canUseTool: async () => ({ behavior: "deny", message: "Absolutely not.", interrupt: true }),
      },
    );
    const end = result(messages);
    expect(end).toMatchObject({ subtype: "error_during_execution", is_error: true });
    expect(end.subtype !== "success" && end.errors).toEqual(["A permission decision interrupted the run."]);
    expect(end.permission_denials).toHaveLength(1);
    expect(text(toolResult(messages, 0))).toBe("Permission to use Bash was denied. Absolutely not.");
    expect(existsSync(join(cwd, "marker"))).toBe(false);
    expect(server.requests).toHaveLength(1);
  });

  test("updatedPermissions from an allow apply for the rest of the query", async () => {
    const cwd = workspace();
    const asked: string[] = [];
    let suggested: PermissionUpdate[] | undefined;
    const canUseTool: CanUseTool = async (_name, input, { suggestions }) => {
      asked.push(String(input.command));
      suggested = suggestions;
      // "Always allow": take the suggested rule for this query.
      return { behavior: "allow", updatedPermissions: suggestions ?? [] };
    };
    const { messages } = await runQuery(
      [
        reply().tool("Bash", { command: "touch one" }),
        reply().tool("Bash", { command: "touch two" }),
        reply().tool("Bash", { command: "mkdir three" }),
        reply().text("ok"),
      ],
      { cwd, canUseTool },
    );
    expect(suggested).toEqual([
      {
        type: "addRules",
        rules: [{ toolName: "Bash", ruleContent: "mkdir:*" }],
        behavior: "allow",
        destination: "session",
      },
    ]);
    // `touch two` matched the rule added by the first answer; `mkdir` was asked about.
    expect(asked).toEqual(["touch one", "mkdir three"]);
    for (const name of ["one", "two", "three"]) expect(existsSync(join(cwd, name))).toBe(true);
    expect(result(messages).permission_denials).toEqual([]);
  });
});

describe("modes", () => {
  test("setPermissionMode switches plan → acceptEdits in the middle of a turn", async () => {
    const server = await startServer([
      reply().tool("Write", { file_path: "plan.md", content: "1. do it" }),
      reply().tool("Write", { file_path: "plan.md", content: "1. do it" }),
      reply().text("written"),
    ]);
    const cwd = workspace();
    const asked: string[] = [];
    const q = query({
      prompt: "Plan, then write it down",
      options: {
        cwd,
        env: envFor(server),
        permissionMode: "plan",
        canUseTool: async (name) => {
          asked.push(name);
          return { behavior: "allow" };
        },
      },
    });
    const messages: SDKMessage[] = [];
    for await (const message of q) {
      messages.push(message);
      if (message.type === "user" && users(messages).length === 1) {
        // Plan mode refused the write (without asking canUseTool); approve the plan.
        expect(existsSync(join(cwd, "plan.md"))).toBe(false);
        await expect(q.setPermissionMode("acceptEdits")).resolves.toEqual({ mode: "acceptEdits" });
      }
    }
    expect(init(messages).permissionMode).toBe("plan");
    expect(text(toolResult(messages, 0))).toMatch(/plan mode is read-only/);
    expect(toolResult(messages, 1).is_error).toBeUndefined();
    expect(readFileSync(join(cwd, "plan.md"), "utf8")).toBe("1. do it");
    expect(asked).toEqual([]);
    expect(result(messages).permission_denials).toHaveLength(1);
  });

  test("plan stays read-only whatever the allow rules say; reads and read-only commands run", async () => {
    const cwd = workspace({ "a.txt": "A" });
    const { messages } = await runQuery(
      [
        reply()
          .tool("Read", { file_path: "a.txt" })
          .tool("Bash", { command: "ls" })
          .tool("Bash", { command: "touch marker" }),
        reply().text("ok"),
      ],
      { cwd, permissionMode: "plan", allowedTools: ["Bash", "Write"] },
    );
    expect([0, 1, 2].map((n) => toolResult(messages, n).is_error ?? false)).toEqual([false, false, true]);
    expect(text(toolResult(messages, 2))).toMatch(/plan mode is read-only/);
    expect(existsSync(join(cwd, "marker"))).toBe(false);
  });

  test("bypassPermissions runs everything but what a deny rule names; Bash(rm:*) denies only rm", async () => {
    const cwd = workspace({ "victim.txt": "keep me" });
    const { messages } = await runQuery(
      [
        reply().tool("Bash", { command: "touch made" }),
        reply().tool("Bash", { command: "rm victim.txt" }),
        reply().tool("Bash", { command: "echo hi && rm -f victim.txt" }),
        reply().text("ok"),
      ],
      { cwd, permissionMode: "bypassPermissions", disallowedTools: ["Bash(rm:*)"] },
    );
    // A rule with content does not remove the tool.
    expect(init(messages).tools).toContain("Bash");
    expect(existsSync(join(cwd, "made"))).toBe(true);
    expect(text(toolResult(messages, 1))).toMatch(/denied by rule Bash\(rm:\*\)/);
    expect(text(toolResult(messages, 2))).toMatch(/denied by rule Bash\(rm:\*\)/);
    expect(readFileSync(join(cwd, "victim.txt"), "utf8")).toBe("keep me");
    expect(result(messages).permission_denials.map((d) => d.tool_input.command)).toEqual([
      "rm victim.txt",
      "echo hi && rm -f victim.txt",
    ]);
  });

  test("disallowedTools: a bare name removes the tool; deny beats allow", async () => {
    const cwd = workspace();
    const { messages, server } = await runQuery(
      [reply().tool("Bash", { command: "touch marker" }), reply().text("ok")],
      { cwd, allowedTools: ["Bash"], disallowedTools: ["Write, Bash(touch:*)"] },
    );
    expect(init(messages).tools).not.toContain("Write");
    expect(
      (server.requests[0]!.body as { tools: { name: string }[] }).tools.map((t) => t.name),
    ).not.toContain("Write");
    expect(text(toolResult(messages, 0))).toMatch(/denied by rule Bash\(touch:\*\)/);
    expect(existsSync(join(cwd, "marker"))).toBe(false);
  });

  test("dontAsk denies what is not pre-approved without calling canUseTool; auto asks like default", async () => {
    const asked: string[] = [];
    const canUseTool: CanUseTool = async (name) => {
      asked.push(name);
      return { behavior: "allow" };
    };
    const steps = () => [reply().tool("Write", { file_path: "b.txt", content: "B" }), reply().text("ok")];
    const dontAsk = await runQuery(steps(), { permissionMode: "dontAsk", canUseTool });
    expect(init(dontAsk.messages).permissionMode).toBe("dontAsk");
    expect(text(toolResult(dontAsk.messages, 0))).toMatch(/permission mode "dontAsk" denies/);
    expect(existsSync(join(dontAsk.cwd, "b.txt"))).toBe(false);
    expect(asked).toEqual([]);

    const auto = await runQuery(steps(), { permissionMode: "auto", canUseTool });
    expect(init(auto.messages).permissionMode).toBe("auto");
    expect(asked).toEqual(["Write"]);
    expect(existsSync(join(auto.cwd, "b.txt"))).toBe(true);
  });

  test("acceptEdits: edits inside the workspace run without asking; other commands still ask", async () => {
    const cwd = workspace();
    const { messages } = await runQuery(
      [
        reply().tool("Write", { file_path: "b.txt", content: "B" }).tool("Bash", { command: "touch marker" }),
        reply().text("ok"),
      ],
      { cwd, permissionMode: "acceptEdits" },
    );
    expect(readFileSync(join(cwd, "b.txt"), "utf8")).toBe("B");
    expect(existsSync(join(cwd, "marker"))).toBe(false);
    expect(result(messages).permission_denials.map((d) => d.tool_name)).toEqual(["Bash"]);
  });
});

describe("configuration", () => {
  test("additionalDirectories opens another directory to the tools", async () => {
    const other = workspace({ "shared.txt": "shared notes\n" });
    const steps = () => [reply().tool("Read", { file_path: join(other, "shared.txt") }), reply().text("ok")];
    const without = await runQuery(steps());
    expect(toolResult(without.messages, 0).is_error).toBe(true);
    const withDir = await runQuery(steps(), { additionalDirectories: [other] });
    expect(toolResult(withDir.messages, 0).is_error).toBeUndefined();
    expect(users(withDir.messages)[0]!.tool_use_result).toMatchObject({ content: "shared notes" });
  });

  test("the user config sets the default mode and deny rules; project config warnings arrive as system/informational", async () => {
    writeFileSync(
      join(cairnHome(), "config.json"),
      JSON.stringify({ permissions: { defaultMode: "acceptEdits", deny: ["Bash(touch:*)"] } }),
    );
    const cwd = workspace();
    mkdirSync(join(cwd, ".cairn"));
    writeFileSync(join(cwd, ".cairn/config.json"), JSON.stringify({ permissions: { allow: ["Bash"] } }));
    const { messages } = await runQuery(
      [
        reply().tool("Write", { file_path: "b.txt", content: "B" }).tool("Bash", { command: "touch marker" }),
        reply().text("ok"),
      ],
      { cwd },
    );
    expect(labels(messages).slice(0, 2)).toEqual(["system/init", "system/informational"]);
    expect(init(messages).permissionMode).toBe("acceptEdits");
    const note = messages[1]!;
    expect(note).toMatchObject({
      type: "system",
      subtype: "informational",
      level: "warning",
      tag: "config",
      content: expect.stringMatching(/allow/),
      session_id: init(messages).session_id,
    });
    expect(existsSync(join(cwd, "b.txt"))).toBe(true);
    expect(text(toolResult(messages, 1))).toMatch(/denied by rule Bash\(touch:\*\)/);
    // An explicit permissionMode wins over the config's default.
    const explicit = await runQuery([reply().text("ok")], { cwd, permissionMode: "plan" });
    expect(init(explicit.messages).permissionMode).toBe("plan");
  });

  test("a malformed config file rejects the first next(), naming the file; no model call, no transcript", async () => {
    const file = join(cairnHome(), "config.json");
    writeFileSync(file, JSON.stringify({ permissions: { deny: ["Bash(rm"] } }));
    const server = await startServer([reply().text("never")]);
    const q = query({ prompt: "Go", options: { cwd: workspace(), env: envFor(server) } });
    const failure = q.next();
    await expect(failure).rejects.toThrow(file);
    await expect(failure).rejects.toMatchObject({ name: "ConfigFileError" });
    expect(server.requests).toHaveLength(0);
    expect(existsSync(join(cairnHome(), "sessions"))).toBe(false);
  });

  test("a malformed rule throws from query(), naming the entry", () => {
    const error = (() => {
      try {
        query({ prompt: "x", options: { allowedTools: ["Read", "Bash(ls"] } });
      } catch (caught) {
        return caught as InvalidOptionsError;
      }
      throw new Error("expected query() to throw");
    })();
    expect(error).toBeInstanceOf(InvalidOptionsError);
    expect(error.option).toBe("allowedTools.1");
    expect(error.message).toMatch(/Invalid permission rule "Bash\(ls": missing closing parenthesis/);
  });

  test("StructuredOutput is never asked about, in any mode", async () => {
    const asked: string[] = [];
    const { messages } = await runQuery([reply().tool("StructuredOutput", { n: 1 })], {
      permissionMode: "plan",
      outputFormat: {
        type: "json_schema",
        schema: { type: "object", properties: { n: { type: "number" } } },
      },
      canUseTool: async (name) => {
        asked.push(name);
        return { behavior: "deny", message: "no" };
      },
    });
    expect(result(messages)).toMatchObject({ subtype: "success", structured_output: { n: 1 } });
    expect(asked).toEqual([]);
  });
});
