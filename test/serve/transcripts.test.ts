import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { type RecordedRequest, reply } from "../../src/testing/index.js";
import { spawnCli } from "../conformance/pm/helpers.js";
import { tempDir } from "../helpers/temp.js";
import {
  comparableRecord,
  type Deployment,
  PG_SKIP,
  pgTitle,
  servingOnThrowawayPostgres,
  sql,
  waitFor,
} from "./helpers.js";

/**
 * Transcripts in the database (docs/serve.md, "Transcripts"): a run's session is stored with the
 * records the JSONL store writes, exported to the local store for `cairn --resume` and `cairn
 * report`, and imported back so the agent's next run continues from the resumed turn.
 */
const serving = servingOnThrowawayPostgres();

/** The model's answers, from the request alone: an edit, then an answer naming the last prompt. */
function respond(request: RecordedRequest) {
  const messages = (request.body as { messages: { role: string; content: unknown }[] }).messages;
  const last = messages.at(-1)!;
  const toolResult = JSON.stringify(last.content).includes("tool_result");
  if (!toolResult && messages.length === 1)
    return reply().text("Writing.").tool("Write", { file_path: "notes.txt", content: "note" }, "toolu_1");
  return reply().text(`Answered ${messages.length} messages.`);
}

function normalized(lines: string[], workspace: string): unknown[] {
  return lines.map((line) => comparableRecord(line, workspace));
}

async function cairn(d: Deployment, args: string[], cwd: string, home: string) {
  const run = spawnCli(args, { cwd, env: { ...d.env, CAIRN_HOME: home }, timeoutMs: 60_000 });
  const { code } = await run.exited;
  return { code, ...run.out };
}

describe.skipIf(PG_SKIP !== undefined)("transcripts in the database", { timeout: 180_000 }, () => {
  test(
    pgTitle(
      "a run's transcript read back from the database equals the JSONL store's; exported, it is resumed with cairn -p --resume and read by cairn report; imported back, the agent's next run continues from it",
    ),
    async () => {
      const d = await serving.deploy({ respond });
      d.startWorker("w1");
      const cwd = tempDir("cairn-transcripts-");
      const created = await d.request("POST", "/v1/agents", {
        prompt: { text: "note it" },
        repos: [{ url: cwd }],
      });
      const agentId = created.json.agent.id as string;
      await waitFor(
        "the run to finish",
        () =>
          sql(d, `SELECT status FROM cairn.runs WHERE id = '${created.json.run.id}'`)[0] === "FINISHED" ||
          undefined,
      );
      const sessionId = sql(d, `SELECT session_id FROM cairn.agents WHERE id = '${agentId}'`)[0]!;

      // The same scenario in print mode, with the JSONL store.
      const cliCwd = tempDir("cairn-transcripts-cli-");
      const cliHome = tempDir("cairn-home-");
      const plain = await cairn(
        d,
        ["-p", "note it", "--permission-mode", "bypassPermissions", "--output-format", "json"],
        cliCwd,
        cliHome,
      );
      expect(plain.code, plain.stderr).toBe(0);
      const plainSession = JSON.parse(plain.stdout).session_id as string;
      const plainFile = path.join(
        cliHome,
        "sessions",
        readdirOnly(path.join(cliHome, "sessions")),
        `${plainSession}.jsonl`,
      );
      const plainLines = readFileSync(plainFile, "utf8").trimEnd().split("\n");

      // Exported: the file the JSONL store would have written, and the lines the database holds.
      const home = tempDir("cairn-home-");
      const exported = await cairn(d, ["serve", "export", agentId], cwd, home);
      expect(exported.code, exported.stderr).toBe(0);
      expect(exported.stderr).toBe("");
      const file = exported.stdout.trim();
      expect(path.basename(file)).toBe(`${sessionId}.jsonl`);
      const stored = sql(
        d,
        `SELECT line FROM cairn.transcript_lines WHERE session_id = '${sessionId}' ORDER BY line_no`,
      );
      expect(readFileSync(file, "utf8")).toBe(`${stored.join("\n")}\n`);
      expect(normalized(stored, cwd)).toEqual(normalized(plainLines, cliCwd));

      // Resumed in print mode from the exported copy: the model is sent the stored conversation.
      const resumed = await cairn(d, ["-p", "and then?", "--resume", sessionId], cwd, home);
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(resumed.stdout.trim()).toBe("Answered 5 messages.");
      const report = await cairn(d, ["report", sessionId, "-o", path.join(home, "report.html")], cwd, home);
      expect(report.code, report.stderr).toBe(0);
      expect(readFileSync(path.join(home, "report.html"), "utf8")).toContain("and then?");

      // Imported back: the agent's follow-up run continues after the resumed turn.
      const imported = await cairn(d, ["serve", "import", sessionId], cwd, home);
      expect(imported.code, imported.stderr).toBe(0);
      const followUp = await d.request("POST", `/v1/agents/${agentId}/runs`, {
        prompt: { text: "last one" },
      });
      expect(followUp.status).toBe(200);
      await waitFor(
        "the follow-up to finish",
        () =>
          sql(d, `SELECT status FROM cairn.runs WHERE id = '${followUp.json.run.id}'`)[0] === "FINISHED" ||
          undefined,
      );
      expect(sql(d, `SELECT result FROM cairn.runs WHERE id = '${followUp.json.run.id}'`)).toEqual([
        "Answered 7 messages.",
      ]);
    },
  );

  test(
    pgTitle("a run's subagent transcript is stored with the run, and exported beside the session's"),
    async () => {
      // The main conversation calls a subagent; the subagent's own requests start with its prompt.
      const respondWithSubagent = (request: RecordedRequest) => {
        const messages = (request.body as { messages: { role: string; content: unknown }[] }).messages;
        if (JSON.stringify(messages[0]?.content).includes("Count the files"))
          return reply().text("There are none.");
        if (messages.length === 1)
          return reply().tool(
            "Agent",
            { description: "Count", prompt: "Count the files", subagent_type: "counter" },
            "toolu_a",
          );
        return reply().text("Done.");
      };
      const d = await serving.deploy({ respond: respondWithSubagent });
      d.startWorker("w1");
      // A workspace agent: the Agent tool is offered where there are agents of one's own.
      const cwd = tempDir("cairn-transcripts-", {
        ".claude/agents/counter.md": "---\nname: counter\ndescription: Counts files\n---\nCount the files.\n",
      });
      const created = await d.request("POST", "/v1/agents", {
        prompt: { text: "count" },
        repos: [{ url: cwd }],
      });
      await waitFor(
        "the run to finish",
        () =>
          sql(d, `SELECT status FROM cairn.runs WHERE id = '${created.json.run.id}'`)[0] === "FINISHED" ||
          undefined,
      );
      const sessionId = sql(
        d,
        `SELECT session_id FROM cairn.agents WHERE id = '${created.json.agent.id}'`,
      )[0]!;
      const agentIds = sql(
        d,
        `SELECT DISTINCT agent_id FROM cairn.subagent_lines WHERE session_id = '${sessionId}'`,
      );
      expect(agentIds).toHaveLength(1);
      const home = tempDir("cairn-home-");
      const exported = await cairn(d, ["serve", "export", sessionId], cwd, home);
      expect(exported.code, exported.stderr).toBe(0);
      const sidechain = path.join(
        exported.stdout.trim().replace(/\.jsonl$/, ""),
        "subagents",
        `agent-${agentIds[0]}.jsonl`,
      );
      const stored = sql(
        d,
        `SELECT line FROM cairn.subagent_lines WHERE session_id = '${sessionId}' ORDER BY line_no`,
      );
      expect(readFileSync(sidechain, "utf8")).toBe(`${stored.join("\n")}\n`);
      expect(readFileSync(sidechain, "utf8")).toContain("There are none.");
    },
  );
});

function readdirOnly(dir: string): string {
  const entries = readdirSync(dir);
  expect(entries).toHaveLength(1);
  return entries[0]!;
}
