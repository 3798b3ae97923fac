import { existsSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { query, type SDKMessage, SessionLockedError, SessionNotFoundError } from "../../src/index.js";
import { type RecordedRequest, reply } from "../../src/testing/index.js";
import { spawnCli } from "../conformance/pm/helpers.js";
import { tempDir } from "../helpers/temp.js";
import {
  type Deployment,
  PG_SKIP,
  pgTitle,
  runEnded,
  servingOnThrowawayPostgres,
  sql,
  waitFor,
} from "./helpers.js";

/**
 * Sessions stored in a `cairn serve` database, opened where they are (docs/serve.md, "Transcripts"):
 * `cairn -p --resume <id> --database-url <url>` and the SDK's `databaseUrl` read the conversation a
 * worker stored, send it to the model, and store the new turn in the database, with the session's
 * lock shared with `cairn serve`.
 */
const serving = servingOnThrowawayPostgres();

/** Prompts the model holds its answer for until the test lets it go. */
const held = new Map<string, () => void>();

/** The model's answers, from the request alone: an edit for a first prompt, then a count of what it was sent. */
function respond(request: RecordedRequest) {
  const messages = (request.body as { messages: { role: string; content: unknown }[] }).messages;
  const last = JSON.stringify(messages.at(-1)!.content);
  if (!last.includes("tool_result") && messages.length === 1)
    return reply().text("Writing.").tool("Write", { file_path: "notes.txt", content: "note" }, "toolu_1");
  const answer = reply().text(`Answered ${messages.length} messages.`);
  if (!last.includes("hold on")) return answer;
  return new Promise<typeof answer>((resolve) => held.set("hold on", () => resolve(answer)));
}

/** The deployment's environment without DATABASE_URL: the database is named to cairn only as asked. */
function envOf(d: Deployment, home: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const { DATABASE_URL: _ignored, ...env } = d.env;
  return { ...env, CAIRN_HOME: home, ...extra };
}

async function cairn(args: string[], cwd: string, env: NodeJS.ProcessEnv) {
  const run = spawnCli(args, { cwd, env, timeoutMs: 60_000 });
  const { code } = await run.exited;
  return { code, ...run.out };
}

/** A finished first run of an agent working in `cwd`: its ids. */
async function agentWithOneRun(d: Deployment, cwd: string) {
  const created = await d.request("POST", "/v1/agents", {
    prompt: { text: "note it" },
    repos: [{ url: cwd }],
  });
  expect(created.status).toBe(200);
  const agentId = created.json.agent.id as string;
  expect((await runEnded(d, agentId, created.json.run.id)).status).toBe("FINISHED");
  const sessionId = sql(d, `SELECT session_id FROM cairn.agents WHERE id = '${agentId}'`)[0]!;
  return { agentId, sessionId };
}

const storedLines = (d: Deployment, sessionId: string) =>
  sql(d, `SELECT line FROM cairn.transcript_lines WHERE session_id = '${sessionId}' ORDER BY line_no`);

/** The texts of the user prompts the model was last sent. */
function promptsSent(d: Deployment): string[] {
  const messages = (d.model.requests.at(-1)!.body as { messages: { role: string; content: unknown }[] })
    .messages;
  return messages
    .filter((message) => message.role === "user" && !JSON.stringify(message.content).includes("tool_result"))
    .map((message) =>
      typeof message.content === "string"
        ? message.content
        : (message.content as { type: string; text?: string }[])
            .filter((block) => block.type === "text")
            .map((block) => block.text)
            .join(""),
    );
}

describe.skipIf(PG_SKIP !== undefined)("sessions opened in the database", { timeout: 180_000 }, () => {
  test(
    pgTitle(
      "cairn -p --resume <id> --database-url continues a session a worker ran: the model is sent the stored conversation, the new turn is stored in the database (not in a local file), the agent's next run continues from it; an unknown id fails with exit 1",
    ),
    async () => {
      const d = await serving.deploy({ respond });
      d.startWorker("w1");
      const cwd = tempDir("cairn-db-sessions-");
      const { agentId, sessionId } = await agentWithOneRun(d, cwd);
      const before = storedLines(d, sessionId).length;

      const home = tempDir("cairn-home-");
      const resumed = await cairn(
        ["-p", "and then?", "--resume", sessionId, "--database-url", d.databaseUrl],
        cwd,
        envOf(d, home),
      );
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(resumed.stderr).toBe("");
      // The first run's prompt, its edit and answer, and the new prompt.
      expect(resumed.stdout).toBe("Answered 5 messages.\n");
      expect(promptsSent(d)).toEqual(["note it", "and then?"]);
      const after = storedLines(d, sessionId);
      expect(after.length).toBeGreaterThan(before);
      expect(after.slice(before).join("\n")).toContain("and then?");
      expect(after.slice(before).join("\n")).toContain("Answered 5 messages.");
      // Nothing written to the local store.
      expect(existsSync(path.join(home, "sessions"))).toBe(false);

      // By the agent's id, with the database named by CAIRN_DATABASE_URL.
      const again = await cairn(
        ["-p", "and again?", "--resume", agentId, "--output-format", "json"],
        cwd,
        envOf(d, home, { CAIRN_DATABASE_URL: d.databaseUrl }),
      );
      expect(again.code, again.stderr).toBe(0);
      expect(JSON.parse(again.stdout)).toMatchObject({
        result: "Answered 7 messages.",
        session_id: sessionId,
      });

      // The agent's next run, through the API, continues after the turns added from the CLI.
      const followUp = await d.request("POST", `/v1/agents/${agentId}/runs`, {
        prompt: { text: "last one" },
      });
      expect(followUp.status).toBe(200);
      expect((await runEnded(d, agentId, followUp.json.run.id)).result).toBe("Answered 9 messages.");
      expect(promptsSent(d)).toEqual(["note it", "and then?", "and again?", "last one"]);

      // Forked: a new session in the database with a copy of the conversation; the agent's untouched.
      const lines = storedLines(d, sessionId).length;
      const forked = await cairn(
        [
          "-p",
          "aside",
          "--resume",
          sessionId,
          "--fork-session",
          "--database-url",
          d.databaseUrl,
          "--output-format",
          "json",
        ],
        cwd,
        envOf(d, home),
      );
      expect(forked.code, forked.stderr).toBe(0);
      const fork = JSON.parse(forked.stdout) as { session_id: string; result: string };
      expect(fork.session_id).not.toBe(sessionId);
      expect(fork.result).toBe("Answered 11 messages.");
      expect(storedLines(d, fork.session_id).join("\n")).toContain("aside");
      expect(storedLines(d, sessionId)).toHaveLength(lines);

      // An id the database does not hold: one line, exit 1, nothing on stdout, nothing created.
      const unknown = await cairn(
        ["-p", "hello", "--resume", "no-such-session", "--database-url", d.databaseUrl],
        cwd,
        envOf(d, home),
      );
      expect(unknown.code).toBe(1);
      expect(unknown.stdout).toBe("");
      expect(unknown.stderr).toBe(
        "cairn: session no-such-session not found (no transcript in the database)\n",
      );
      expect(sql(d, "SELECT count(*) FROM cairn.sessions WHERE session_id = 'no-such-session'")).toEqual([
        "0",
      ]);
      const unknownAgent = await cairn(
        [
          "-p",
          "hello",
          "--resume",
          "bc-00000000-0000-4000-8000-000000000000",
          "--database-url",
          d.databaseUrl,
        ],
        cwd,
        envOf(d, home),
      );
      expect(unknownAgent.code).toBe(1);
      expect(unknownAgent.stderr).toContain("not found (no agent of that id in the database)");

      // DATABASE_URL alone is not cairn's: the plain CLI keeps to its local store.
      const plain = await cairn(["-p", "local", "--resume", sessionId], cwd, {
        ...envOf(d, home),
        DATABASE_URL: d.databaseUrl,
      });
      expect(plain.code, plain.stderr).toBe(0);
      // The reference's way with an id it does not have locally: a new session under that id.
      expect(plain.stderr).toContain(`session ${sessionId} not found; starting a new session under that id.`);
      expect(promptsSent(d)).toEqual(["local"]);
      expect(storedLines(d, sessionId).join("\n")).not.toContain('"local"');

      // The official SDKs' argv (the agent-SDK protocol) with --database-url: the same session.
      const stored = storedLines(d, sessionId).length;
      const userLine = {
        type: "user",
        message: { role: "user", content: "via the protocol" },
        parent_tool_use_id: null,
      };
      const protocol = spawnCli(
        [
          "--output-format",
          "stream-json",
          "--verbose",
          "--input-format",
          "stream-json",
          "--resume",
          sessionId,
          "--database-url",
          d.databaseUrl,
        ],
        {
          cwd,
          env: envOf(d, home),
          stdin: `${JSON.stringify({ ...userLine, session_id: "" })}\n`,
          timeoutMs: 60_000,
        },
      );
      expect((await protocol.exited).code, protocol.out.stderr).toBe(0);
      expect(protocol.out.stderr).toBe("");
      const messages = protocol.out.stdout
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as SDKMessage);
      expect(messages.find((message) => message.type === "result")).toMatchObject({ session_id: sessionId });
      expect(promptsSent(d).at(-1)).toBe("via the protocol");
      expect(storedLines(d, sessionId).slice(stored).join("\n")).toContain("via the protocol");
    },
  );

  test(
    pgTitle(
      "the session's lock is shared with cairn serve: a follow-up while cairn -p --resume holds the session is refused (409), and cairn -p --resume while the agent has a run queued fails with exit 1 naming the run (the SDK with SessionLockedError, exported by the package)",
    ),
    async () => {
      const d = await serving.deploy({ respond });
      d.startWorker("w1");
      const cwd = tempDir("cairn-db-sessions-");
      const { agentId, sessionId } = await agentWithOneRun(d, cwd);
      const home = tempDir("cairn-home-");

      // The CLI holds the session while its model answers.
      const holding = spawnCli(["-p", "hold on", "--resume", sessionId, "--database-url", d.databaseUrl], {
        cwd,
        env: envOf(d, home),
        timeoutMs: 60_000,
      });
      await waitFor("the model to be asked", () => held.get("hold on"));
      const refused = await d.request("POST", `/v1/agents/${agentId}/runs`, {
        prompt: { text: "meanwhile" },
      });
      expect(refused.status).toBe(409);
      expect(refused.json.error.code).toBe("conflict");
      expect(refused.json.error.message).toContain("in use by another cairn process");
      held.get("hold on")!();
      held.delete("hold on");
      expect((await holding.exited).code, holding.out.stderr).toBe(0);
      expect(holding.out.stdout).toBe("Answered 5 messages.\n");

      // A run queued (no worker to take it): the CLI is refused.
      await d.killWorker("w1");
      const queued = await d.request("POST", `/v1/agents/${agentId}/runs`, { prompt: { text: "queued" } });
      expect(queued.status).toBe(200);
      const locked = await cairn(
        ["-p", "me too", "--resume", sessionId, "--database-url", d.databaseUrl],
        cwd,
        envOf(d, home),
      );
      expect(locked.code).toBe(1);
      expect(locked.stdout).toBe("");
      expect(locked.stderr).toBe(
        `cairn: session ${sessionId} is in use by cairn serve: its agent ${agentId} has run ${queued.json.run.id} queued or under way; wait for it to end, or continue it under a new id with --fork-session\n`,
      );
      // The SDK is refused too, with the error the package exports, so a program can tell it apart.
      const sdk = query({
        prompt: "me too",
        options: { cwd, env: envOf(d, home), resume: sessionId, databaseUrl: d.databaseUrl },
      });
      const refusal = await sdk.next().then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(refusal).toBeInstanceOf(SessionLockedError);
      expect((refusal as SessionLockedError).sessionId).toBe(sessionId);
      expect((refusal as Error).message).toContain(`has run ${queued.json.run.id} queued or under way`);
      // The queued run, once a worker takes it, continues from the CLI's turn.
      d.startWorker("w1");
      expect((await runEnded(d, agentId, queued.json.run.id)).result).toBe("Answered 7 messages.");
    },
  );

  test(
    pgTitle(
      "the SDK's databaseUrl: query({ resume }) continues a session stored in the database and stores the new turn there; an unknown id rejects with SessionNotFoundError",
    ),
    async () => {
      const d = await serving.deploy({ respond });
      d.startWorker("w1");
      const cwd = tempDir("cairn-db-sessions-");
      const { sessionId } = await agentWithOneRun(d, cwd);
      const home = tempDir("cairn-home-");
      const messages: SDKMessage[] = [];
      for await (const message of query({
        prompt: "from the sdk",
        options: { cwd, env: envOf(d, home), resume: sessionId, databaseUrl: d.databaseUrl },
      }))
        messages.push(message);
      const result = messages.find((message) => message.type === "result");
      expect(result).toMatchObject({
        subtype: "success",
        result: "Answered 5 messages.",
        session_id: sessionId,
      });
      expect(promptsSent(d)).toEqual(["note it", "from the sdk"]);
      expect(storedLines(d, sessionId).join("\n")).toContain("from the sdk");
      expect(existsSync(path.join(home, "sessions"))).toBe(false);

      const unknown = query({
        prompt: "hello",
        options: { cwd, env: envOf(d, home), resume: "no-such-session", databaseUrl: d.databaseUrl },
      });
      const failure = await unknown.next().then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(SessionNotFoundError);
      expect((failure as Error).message).toBe(
        "session no-such-session not found (no transcript in the database)",
      );
    },
  );
});
