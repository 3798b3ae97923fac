/**
 * The `settings` option, applied as the flag tier of the settings (docs/sdk.md, "Settings"): what
 * it sets cairn applies, what cairn does not apply is named, and a value cairn cannot take is an
 * error. Before, the whole option was accepted with a warning and had no effect: a program that
 * denied a tool through it ran unprotected.
 */
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { InvalidOptionsError, type Options, query, type SDKMessage } from "../../src/index.js";
import { reply, type ScriptedServer, type StepInput } from "../../src/testing/index.js";
import { cleanUp, collect, envFor, init, result, startServer, users, workspace } from "./helpers.js";

afterEach(cleanUp);

const SECRET = "TOPSECRET-5521";

function toolResults(messages: SDKMessage[]): string[] {
  return users(messages).flatMap((message) =>
    Array.isArray(message.message.content)
      ? message.message.content.flatMap((block) =>
          block.type === "tool_result" && typeof block.content === "string" ? [block.content] : [],
        )
      : [],
  );
}

function sentToModel(server: ScriptedServer): string {
  return server.requests.map((request) => JSON.stringify(request.body)).join("\n");
}

async function run(steps: StepInput[], options: Options, cwd = workspace({ "secret.txt": `${SECRET}\n` })) {
  const server = await startServer([...steps, reply().text("done")]);
  const messages = await collect(query({ prompt: "Go", options: { cwd, env: envFor(server), ...options } }));
  return { server, messages, cwd };
}

describe("settings option", () => {
  test("permissions.deny: the rule holds, also in bypassPermissions, and names where it came from", async () => {
    const { server, messages } = await run([reply().tool("Read", { file_path: "secret.txt" })], {
      permissionMode: "bypassPermissions",
      settings: { permissions: { deny: ["Read(secret.txt)"] } },
    });
    expect(toolResults(messages)[0]).toMatch(/denied by rule Read\(secret\.txt\) \(SDK settings option\)/);
    expect(sentToModel(server)).not.toContain(SECRET);
  });

  test("sandbox: filesystem.denyRead in the settings is applied as the sandbox option's", async () => {
    const { server, messages } = await run([reply().tool("Read", { file_path: "secret.txt" })], {
      permissionMode: "bypassPermissions",
      settings: { sandbox: { filesystem: { denyRead: ["secret.txt"] } } },
    });
    expect(toolResults(messages)[0]).toMatch(/denyRead/);
    expect(sentToModel(server)).not.toContain(SECRET);
  });

  test("a settings file's path (as the reference's --settings takes it): its deny rule holds", async () => {
    const cwd = workspace();
    writeFileSync(join(cwd, "agent-settings.json"), JSON.stringify({ permissions: { deny: ["Bash"] } }));
    const { messages } = await run(
      [reply().tool("Bash", { command: "touch made" })],
      { permissionMode: "bypassPermissions", settings: "agent-settings.json" },
      cwd,
    );
    expect(toolResults(messages)[0]).toMatch(
      /denied by rule Bash \(SDK settings file .*agent-settings\.json\)/,
    );
    expect(existsSync(join(cwd, "made"))).toBe(false);
  });

  test("permissions.defaultMode, model and hooks are applied; the query's own options win", async () => {
    const cwd = workspace();
    const hook = { type: "command", command: "echo blocked by the settings hook >&2; exit 2" };
    const { server, messages } = await run(
      [reply().tool("Bash", { command: "touch made" })],
      {
        settings: {
          model: "anthropic/claude-haiku-5-5",
          permissions: { defaultMode: "bypassPermissions" },
          hooks: { PreToolUse: [{ matcher: "Bash", hooks: [hook] }] },
        },
      },
      cwd,
    );
    expect(init(messages).permissionMode).toBe("bypassPermissions");
    expect((server.requests[0]!.body as { model?: string }).model).toBe("claude-haiku-5-5");
    expect(toolResults(messages)[0]).toContain("blocked by the settings hook");
    expect(existsSync(join(cwd, "made"))).toBe(false);

    const own = await run([], {
      model: "anthropic/claude-sonnet-5-5",
      settings: { model: "anthropic/claude-haiku-5-5" },
    });
    expect((own.server.requests[0]!.body as { model?: string }).model).toBe("claude-sonnet-5-5");
  });

  test("keys cairn does not apply are named once on the query's stderr", async () => {
    const lines: string[] = [];
    const { messages } = await run([], {
      settings: { apiKeyHelper: "./key.sh", permissions: { deny: [] }, statusLine: {} },
      stderr: (line) => lines.push(line),
    });
    expect(result(messages).subtype).toBe("success");
    expect(lines.join("")).toMatch(/option "settings": not applied: apiKeyHelper, statusLine/);
  });

  test("what cairn cannot take is refused before anything runs", () => {
    const refused = (settings: Options["settings"], extra: Options = {}) => {
      try {
        query({ prompt: "Go", options: { cwd: workspace(), settings, ...extra } });
      } catch (error) {
        return error as Error;
      }
      return undefined;
    };
    expect(refused({ permissions: { deny: ["Bash(unclosed"] } })).toBeInstanceOf(InvalidOptionsError);
    expect(refused("no-such-settings.json")?.message).toMatch(/cannot read the settings file/);
    expect(refused({ permissions: { defaultMode: "yolo" as never } })?.message).toMatch(
      /settings\.permissions\.defaultMode/,
    );
    expect(
      refused(
        { permissions: { disableBypassPermissionsMode: "disable" } },
        { permissionMode: "bypassPermissions" },
      )?.message,
    ).toMatch(/bypassPermissions is disabled/);
    expect(refused({ sandbox: { filesystem: { denyRead: ["*.pem"] } } })?.message).toMatch(/glob/);
  });
});
