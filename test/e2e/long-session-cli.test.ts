import { afterEach, describe, expect, test } from "vitest";
import { type ScriptedServer, startScriptedServer } from "../../src/testing/index.js";
import { parseLines, serverEnv, spawnCli, workspace } from "../conformance/pm/helpers.js";
import {
  isSummaryRequest,
  largestRequest,
  longSessionModel,
  READS,
  sessionFiles,
  WINDOW,
} from "./long-session.helpers.js";

const MODEL = "anthropic/claude-sonnet-5-5";
let server: ScriptedServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("a long session through the CLI (docs/context.md)", () => {
  test(`${READS} reads of 40 KB against a ${WINDOW}-token window complete, compacting; resume sends only the compacted context`, async () => {
    server = await startScriptedServer({ contextWindow: WINDOW, respond: longSessionModel() });
    const dir = workspace(sessionFiles());
    const env = serverEnv(server);
    const args = ["--model", MODEL, "--context-window", String(WINDOW), "--output-format", "stream-json"];
    const run = spawnCli(["-p", "Read f1.txt to f300.txt, one at a time.", ...args], {
      cwd: dir,
      env,
      timeoutMs: 240_000,
    });
    const { code } = await run.exited;
    expect(run.out.stderr).toBe("");
    expect(code).toBe(0);
    const events = parseLines(run.out.stdout); // every line fits docs/schema (PM-5: an added system subtype)
    const result = events.at(-1)!;
    expect(result.subtype).toBe("success");
    expect(String(result.result)).toContain(`All ${READS} files read.`);
    const boundaries = events.filter((event) => event.subtype === "compact_boundary");
    expect(boundaries.length).toBeGreaterThan(10);
    for (const boundary of boundaries) {
      const meta = boundary.compact_metadata as { trigger: string; pre_tokens: number; post_tokens: number };
      expect(meta.trigger).toBe("auto");
      expect(meta.post_tokens).toBeLessThan(meta.pre_tokens);
    }
    // Every request fitted: the server answered none with "prompt is too long".
    expect(largestRequest(server.requests)).toBeLessThanOrEqual(WINDOW);
    expect(server.requests.filter(isSummaryRequest).length).toBe(boundaries.length);

    const before = server.requests.length;
    const resumed = spawnCli(
      ["-p", "Which file did you read last?", "--resume", String(result.session_id), ...args],
      {
        cwd: dir,
        env,
      },
    );
    expect((await resumed.exited).code).toBe(0);
    const first = JSON.stringify(server.requests[before]!.body);
    // The summary and the last turns, not the 300 files of the transcript.
    expect(first).toContain("[Conversation summary]");
    expect(first).toContain("file 300 line");
    expect(first).not.toContain("file 001 line");
    expect(first).not.toContain("file 150 line");
    expect(largestRequest(server.requests.slice(before))).toBeLessThanOrEqual(WINDOW);
  }, 300_000);
});
