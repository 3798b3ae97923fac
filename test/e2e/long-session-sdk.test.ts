import { afterEach, describe, expect, test } from "vitest";
import { query, type SDKCompactBoundaryMessage, type SDKMessage } from "../../src/index.js";
import { reply, type ScriptedServer, startScriptedServer } from "../../src/testing/index.js";
import { cleanUp, collect, envFor, result, workspace } from "../sdk/helpers.js";
import {
  isSummaryRequest,
  largestRequest,
  longSessionModel,
  READS,
  sessionFiles,
  WINDOW,
} from "./long-session.helpers.js";

let server: ScriptedServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
  await cleanUp();
});

function boundaries(messages: SDKMessage[]): SDKCompactBoundaryMessage[] {
  return messages.filter(
    (message): message is SDKCompactBoundaryMessage =>
      message.type === "system" && message.subtype === "compact_boundary",
  );
}

describe("a long session through the SDK (docs/context.md)", () => {
  test(`${READS} reads of 40 KB against a ${WINDOW}-token window complete with compact_boundary messages; resume sends only the compacted context`, async () => {
    server = await startScriptedServer({ contextWindow: WINDOW, respond: longSessionModel() });
    const cwd = workspace(sessionFiles());
    const options = { cwd, env: envFor(server), contextWindow: WINDOW };
    const messages = await collect(query({ prompt: "Read f1.txt to f300.txt, one at a time.", options }));
    const end = result(messages);
    expect(end.subtype).toBe("success");
    expect(end.subtype === "success" && end.result).toBe(`All ${READS} files read.`);
    const marks = boundaries(messages);
    expect(marks.length).toBeGreaterThan(10);
    for (const mark of marks) {
      expect(mark.compact_metadata.trigger).toBe("auto");
      expect(mark.compact_metadata.post_tokens).toBeLessThan(mark.compact_metadata.pre_tokens);
    }
    expect(largestRequest(server.requests)).toBeLessThanOrEqual(WINDOW);
    // The summary calls are ordinary model calls: their usage is in the result's.
    const summaryCalls = server.requests.filter(isSummaryRequest).length;
    expect(summaryCalls).toBe(marks.length);
    expect(end.usage.input_tokens).toBeGreaterThan(0);

    const before = server.requests.length;
    const resumed = await collect(
      query({ prompt: "Which file did you read last?", options: { ...options, resume: end.session_id } }),
    );
    expect(result(resumed).subtype).toBe("success");
    const first = JSON.stringify(server.requests[before]!.body);
    expect(first).toContain("[Conversation summary]");
    expect(first).toContain("file 300 line");
    expect(first).not.toContain("file 001 line");
  }, 300_000);

  test("the prompt /compact summarises the whole conversation (trigger manual) and the next turn starts from the summary", async () => {
    server = await startScriptedServer({
      steps: [
        reply().tool("Read", { file_path: "f1.txt" }),
        reply().text("Read it."),
        reply().text("Summary: the user had f1.txt read."),
        reply().text("Next."),
      ],
    });
    const cwd = workspace(sessionFiles(1));
    const options = { cwd, env: envFor(server) };
    const first = await collect(query({ prompt: "Read f1.txt", options }));
    const sessionId = result(first).session_id;
    const compacted = await collect(
      query({ prompt: "/compact keep the file names", options: { ...options, resume: sessionId } }),
    );
    const [mark] = boundaries(compacted);
    expect(mark?.compact_metadata.trigger).toBe("manual");
    expect(result(compacted).subtype).toBe("success");
    const summaryRequest = JSON.stringify(server.requests[2]!.body);
    expect(summaryRequest).toContain("Also: keep the file names");
    await collect(query({ prompt: "Go on", options: { ...options, resume: sessionId } }));
    const next = server.requests[3]!.body as { messages: { role: string; content: unknown }[] };
    // One user message: the summary, then the prompt; the 40 KB read is gone.
    expect(next.messages).toHaveLength(1);
    expect(JSON.stringify(next.messages[0])).toContain("Summary: the user had f1.txt read.");
    expect(JSON.stringify(next.messages[0])).toContain("Go on");
    expect(JSON.stringify(next)).not.toContain("file 001 line");
  });
});
