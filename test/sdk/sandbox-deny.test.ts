/**
 * The `sandbox` option's deny lists (`filesystem.denyRead`, `denyWrite`, `credentials`): a user who
 * sets one believes it protects the path, so it holds for cairn's own file tools in every mode,
 * bubblewrap or not, and for shell commands under the command sandbox; where that sandbox cannot
 * run, a warning says which commands it does not cover. What cairn cannot honour is refused.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { InvalidOptionsError, type Options, query, type SDKMessage } from "../../src/index.js";
import { reply, type ScriptedServer, type StepInput } from "../../src/testing/index.js";
import { needsSandbox, pathWithoutBwrap, sandboxUnavailable } from "../security/sandbox-helpers.js";
import { cleanUp, collect, envFor, result, startServer, users, workspace } from "./helpers.js";

afterEach(cleanUp);

const SECRET = "TOPSECRET-4417";

/** A workspace with a secret and an ordinary file. */
const files = () => ({ "secret.txt": `${SECRET}\n`, "notes.txt": "plain notes\n" });

/** Everything the model was sent, as one text: what the model could have seen. */
function sentToModel(server: ScriptedServer): string {
  return server.requests.map((request) => JSON.stringify(request.body)).join("\n");
}

/** The text of each tool result the query yielded. */
function toolResults(messages: SDKMessage[]): string[] {
  return users(messages).flatMap((message) =>
    Array.isArray(message.message.content)
      ? message.message.content.flatMap((block) =>
          block.type === "tool_result"
            ? [typeof block.content === "string" ? block.content : JSON.stringify(block.content)]
            : [],
        )
      : [],
  );
}

async function run(steps: StepInput[], options: Options, cwd = workspace(files())) {
  const server = await startServer([...steps, reply().text("done")]);
  const messages = await collect(
    query({
      prompt: "Go",
      options: { cwd, env: envFor(server), permissionMode: "bypassPermissions", ...options },
    }),
  );
  return { server, messages, cwd };
}

const denyRead = { filesystem: { denyRead: ["secret.txt"] } };

describe("sandbox filesystem.denyRead holds for cairn's file tools, with or without bubblewrap", () => {
  test("Read refuses the file, also in bypassPermissions; its content never reaches the model", async () => {
    const { server, messages } = await run([reply().tool("Read", { file_path: "secret.txt" })], {
      sandbox: denyRead,
    });
    expect(result(messages).subtype).toBe("success");
    expect(toolResults(messages)[0]).toMatch(/denyRead/);
    expect(sentToModel(server)).not.toContain(SECRET);
  });

  test("Grep over the workspace, Glob and LS leave the file out; the other files are still found", async () => {
    const { server, messages } = await run(
      [
        reply().tool("Grep", { pattern: "TOPSECRET|plain", output_mode: "content" }),
        reply().tool("Glob", { pattern: "**/*.txt" }),
        reply().tool("LS", { path: "." }),
      ],
      { sandbox: denyRead },
    );
    const [grep, glob, ls] = toolResults(messages);
    expect(grep).toContain("plain notes");
    expect(glob).toContain("notes.txt");
    expect(ls).toContain("notes.txt");
    for (const output of [grep, glob, ls]) expect(output).not.toContain("secret.txt");
    expect(sentToModel(server)).not.toContain(SECRET);
  });

  test("a read-only shell command naming it is refused by the permission checker, in bypassPermissions too", async () => {
    const { server, messages } = await run([reply().tool("Bash", { command: "cat secret.txt" })], {
      sandbox: denyRead,
    });
    expect(toolResults(messages)[0]).toMatch(/denyRead/);
    expect(sentToModel(server)).not.toContain(SECRET);
  });

  test.skipIf(sandboxUnavailable !== undefined)(
    `under the command sandbox, a script the checker cannot read gets an empty file${needsSandbox}`,
    async () => {
      const script = `node -e "process.stdout.write('[' + require('fs').readFileSync('secret.txt', 'utf8') + ']')"`;
      const { server, messages } = await run([reply().tool("Bash", { command: script })], {
        sandbox: { enabled: true, failIfUnavailable: true, ...denyRead },
      });
      expect(toolResults(messages)[0]).toContain("[]");
      expect(sentToModel(server)).not.toContain(SECRET);
    },
  );

  test("where the command sandbox cannot run, a warning says the deny does not cover every shell command", async () => {
    const bin = await pathWithoutBwrap();
    const server = await startServer([reply().text("done")]);
    const messages = await collect(
      query({
        prompt: "Go",
        options: { cwd: workspace(files()), env: { ...envFor(server), PATH: bin }, sandbox: denyRead },
      }),
    );
    const warnings = messages.flatMap((m) =>
      m.type === "system" && m.subtype === "informational" && m.tag === "sandbox" ? [m.content] : [],
    );
    expect(warnings.join("\n")).toMatch(/filesystem\.denyRead hold for Read.*not for every shell command/);
  });
});

describe("sandbox filesystem.denyWrite and credentials", () => {
  test("Write and Edit refuse a path denyWrite names, in bypassPermissions too", async () => {
    const { messages, cwd } = await run(
      [
        reply().tool("Write", { file_path: "notes.txt", content: "overwritten" }),
        reply().tool("Edit", { file_path: "notes.txt", old_string: "plain", new_string: "changed" }),
      ],
      { sandbox: { filesystem: { denyWrite: ["notes.txt"] } } },
    );
    const [write, edit] = toolResults(messages);
    expect(write).toMatch(/denyWrite/);
    expect(edit).toMatch(/denyWrite/);
    expect(readFileSync(join(cwd, "notes.txt"), "utf8")).toBe("plain notes\n");
  });

  test("credentials.files with mode deny is denied like denyRead", async () => {
    const { server, messages } = await run([reply().tool("Read", { file_path: "secret.txt" })], {
      sandbox: { credentials: { files: [{ path: "secret.txt", mode: "deny" }] } },
    });
    expect(toolResults(messages)[0]).toMatch(/denyRead/);
    expect(sentToModel(server)).not.toContain(SECRET);
  });

  test("credentials.envVars with mode deny keeps a variable from shell commands", async () => {
    const echo = [reply().tool("Bash", { command: "echo value=$PROJECT_CODE_NAME" })];
    const env = (server: ScriptedServer) => ({ ...envFor(server), PROJECT_CODE_NAME: "bluebird" });
    const server = await startServer([...echo, reply().text("done")]);
    const denied = await collect(
      query({
        prompt: "Go",
        options: {
          cwd: workspace(),
          env: env(server),
          permissionMode: "bypassPermissions",
          sandbox: { credentials: { envVars: [{ name: "PROJECT_CODE_NAME", mode: "deny" }] } },
        },
      }),
    );
    expect(toolResults(denied)[0]).toContain("value=");
    expect(toolResults(denied)[0]).not.toContain("bluebird");
    // The control: without the deny the command sees it.
    const open = await startServer([...echo, reply().text("done")]);
    const seen = await collect(
      query({
        prompt: "Go",
        options: { cwd: workspace(), env: env(open), permissionMode: "bypassPermissions" },
      }),
    );
    expect(toolResults(seen)[0]).toContain("value=bluebird");
  });
});

describe("what cairn cannot honour is refused before anything runs", () => {
  const refused = (sandbox: Record<string, unknown>) => {
    try {
      query({ prompt: "Go", options: { cwd: workspace(), sandbox } });
    } catch (error) {
      return error;
    }
    return undefined;
  };

  test("a glob in a deny list, masked credentials, a network filter on an open network", () => {
    const glob = refused({ filesystem: { denyRead: ["**/*.pem"] } });
    expect(glob).toBeInstanceOf(InvalidOptionsError);
    expect((glob as InvalidOptionsError).message).toMatch(/sandbox\.filesystem\.denyRead\.0.*glob/);
    const mask = refused({ credentials: { envVars: [{ name: "TOKEN", mode: "mask" }] } });
    expect((mask as InvalidOptionsError).message).toMatch(/sandbox\.credentials\.envVars\.0.*cannot mask/);
    const network = refused({ network: { allowAll: true, deniedDomains: ["evil.example"] } });
    expect((network as InvalidOptionsError).message).toMatch(
      /sandbox\.network\.deniedDomains.*allowAll opens the whole network/,
    );
  });
});
