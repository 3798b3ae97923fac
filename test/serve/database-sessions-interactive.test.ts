import { existsSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { type RecordedRequest, reply } from "../../src/testing/index.js";
import { CLI } from "../conformance/pm/helpers.js";
import { tempDir } from "../helpers/temp.js";
import { CTRL_D, ENTER, load, ready, skipped } from "../interactive/cairn-terminal.js";
import { openTerminal } from "../interactive/pty-terminal.js";
import { PG_SKIP, pgTitle, runEnded, servingOnThrowawayPostgres, sql } from "./helpers.js";

/**
 * `cairn --resume <id> --database-url <url>` at a terminal (docs/interactive.md, "Resuming"; docs/serve.md,
 * "Transcripts"): the interactive mode opens the session a worker stored, as print mode does, draws
 * its history, and stores the new turn in the database.
 */
const serving = servingOnThrowawayPostgres();

function respond(request: RecordedRequest) {
  const messages = (request.body as { messages: unknown[] }).messages;
  if (messages.length === 1)
    return reply()
      .text("Writing the note.")
      .tool("Write", { file_path: "notes.txt", content: "note" }, "toolu_1");
  return reply().text(`Answered ${messages.length} messages.`);
}

/** A deployment whose worker ran one agent to its end in `cwd`, then stopped: the agent's ids. */
async function agentThatRan() {
  if ("reason" in load) throw new Error(load.reason);
  const terminals = load;
  const d = await serving.deploy({ respond });
  d.startWorker("w1");
  const cwd = tempDir("cairn-db-interactive-");
  const created = await d.request("POST", "/v1/agents", {
    prompt: { text: "note it" },
    repos: [{ url: cwd }],
  });
  const agentId = created.json.agent.id as string;
  expect((await runEnded(d, agentId, created.json.run.id)).status).toBe("FINISHED");
  const sessionId = sql(d, `SELECT session_id FROM cairn.agents WHERE id = '${agentId}'`)[0]!;
  await d.killWorker("w1");
  const { DATABASE_URL: _ignored, ...env } = d.env;
  return { d, cwd, sessionId, env, terminals };
}

describe.skipIf(PG_SKIP !== undefined || skipped !== "")(
  `the interactive mode on a database session${skipped}`,
  { timeout: 180_000 },
  () => {
    test(
      pgTitle(
        "cairn --resume <id> --database-url on a terminal draws the conversation a worker ran, sends it to the model, and stores the new turn in the database (no local file)",
      ),
      async () => {
        const { d, cwd, sessionId, env, terminals } = await agentThatRan();
        const home = tempDir("cairn-home-");
        const t = openTerminal(
          terminals,
          process.execPath,
          [CLI, "--resume", sessionId, "--database-url", d.databaseUrl],
          {
            cwd,
            env: { ...env, CAIRN_HOME: home } as Record<string, string>,
          },
        );
        try {
          await ready(t);
          await t.waitFor((text) => text.includes("the conversation so far"), "the history drawn");
          const drawn = t.all().join("\n");
          expect(drawn).toMatch(/› note it\n[\s\S]*Writing the note\./);
          expect(drawn).not.toContain("only applies to print mode");
          t.type(`and then?${ENTER}`);
          await t.waitFor((text) => text.includes("Answered 5 messages."), "the answer");
          t.type(CTRL_D);
          expect((await t.exited).exitCode).toBe(0);
        } finally {
          t.kill("SIGKILL");
        }
        // The model was sent the stored conversation; the new turn is in the database, not in a file.
        expect(JSON.stringify(d.model.requests.at(-1)!.body)).toContain("note it");
        const stored = sql(
          d,
          `SELECT line FROM cairn.transcript_lines WHERE session_id = '${sessionId}' ORDER BY line_no`,
        ).join("\n");
        expect(stored).toContain("and then?");
        expect(stored).toContain("Answered 5 messages.");
        expect(existsSync(path.join(home, "sessions"))).toBe(false);
      },
    );

    test(
      pgTitle(
        "/resume with --database-url lists the sessions stored in the database and opens the one picked",
      ),
      async () => {
        const { d, cwd, env, terminals } = await agentThatRan();
        const t = openTerminal(terminals, process.execPath, [CLI, "--database-url", d.databaseUrl], {
          cwd,
          env: { ...env, CAIRN_HOME: tempDir("cairn-home-") } as Record<string, string>,
        });
        try {
          await ready(t);
          t.type(`/resume${ENTER}`);
          await t.waitFor((text) => text.includes("Resume which session?"), "the session picker");
          expect(t.all().join("\n")).toContain("note it");
          t.type(ENTER);
          await t.waitFor((text) => text.includes("Writing the note."), "the picked session's history");
          t.type(CTRL_D);
          expect((await t.exited).exitCode).toBe(0);
        } finally {
          t.kill("SIGKILL");
        }
      },
    );
  },
);
