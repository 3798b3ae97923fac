import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import type { query as Query, SDKMessage } from "../../src/index.js";
import { httpError, reply } from "../../src/testing/index.js";
import { cleanUp, envFor, REPO, startServer, workspace } from "../sdk/helpers.js";
import { type ReceivedSpan, startReceiver } from "./otlp-receiver.js";

/**
 * The SDK's query(), as a program imports the built package (dist/index.js: the telemetry loads from
 * beside it), exporting to an OTLP/HTTP receiver on 127.0.0.1 with the endpoint and the caller's
 * trace context in `options.env`.
 */
afterEach(cleanUp);

async function sdkQuery(): Promise<typeof Query> {
  return ((await import(join(REPO, "dist/index.js"))) as { query: typeof Query }).query;
}

function byName(spans: ReceivedSpan[], name: string): ReceivedSpan {
  const found = spans.find((span) => span.name === name);
  if (!found) throw new Error(`no span ${name} among ${spans.map((span) => span.name).join(", ")}`);
  return found;
}

describe("OpenTelemetry export from the SDK", () => {
  test("query() with TRACEPARENT in options.env: the run is under the caller's span, a subagent under its Agent call, a retry an event on its model call", async () => {
    const receiver = await startReceiver();
    const server = await startServer([
      reply().tool("Agent", { description: "Check a.txt", prompt: "Read a.txt", subagent_type: "checker" }),
      httpError(529, { message: "overloaded" }),
      reply().tool("Read", { file_path: "a.txt" }),
      reply().text("a.txt says hi."),
      reply().text("The checker read it."),
    ]);
    const cwd = workspace({
      "a.txt": "hi\n",
      ".cairn/agents/checker.md": "---\nname: checker\ndescription: Checks.\ntools: Read\n---\nYou check.\n",
    });
    const traceId = "0af7651916cd43dd8448eb211c80319c";
    const callerSpan = "b7ad6b7169203331";
    const query = await sdkQuery();
    const messages: SDKMessage[] = [];
    for await (const message of query({
      prompt: "Have the checker read a.txt",
      options: {
        cwd,
        env: {
          ...envFor(server),
          CAIRN_RETRY_BASE_MS: "1",
          OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
          OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
          TRACEPARENT: `00-${traceId}-${callerSpan}-01`,
        },
      },
    }))
      messages.push(message);
    expect(messages.at(-1)).toMatchObject({ type: "result", subtype: "success" });
    const spans = receiver.spans;
    expect(spans.every((span) => span.traceId === traceId)).toBe(true);
    const root = byName(spans, "invoke_agent cairn");
    expect(root.parentSpanId).toBe(callerSpan);
    const agentCall = byName(spans, "execute_tool Agent");
    const sub = byName(spans, "invoke_agent checker");
    expect(sub.parentSpanId).toBe(agentCall.spanId);
    const subTurn = spans.find((span) => span.name === "turn 1" && span.parentSpanId === sub.spanId);
    expect(subTurn).toBeDefined();
    const subRead = byName(spans, "execute_tool Read");
    expect(subRead.parentSpanId).toBe(subTurn!.spanId);
    const retried = spans.find((span) => span.name.startsWith("chat ") && span.events.length > 0);
    expect(retried?.events[0]).toMatchObject({
      name: "gen_ai.request.retry",
      attributes: { "cairn.retry.attempt": 2, "http.response.status_code": 529 },
    });
    expect(retried?.parentSpanId).toBe(subTurn!.spanId);
  });

  test("the decision's source: a person asked (canUseTool) is user, a PreToolUse hook's deny is hook", async () => {
    const receiver = await startReceiver();
    const server = await startServer([
      reply().tool("Write", { file_path: "out.txt", content: "x" }).tool("Bash", { command: "touch marker" }),
      reply().text("Done."),
    ]);
    const query = await sdkQuery();
    for await (const _ of query({
      prompt: "Write and touch",
      options: {
        cwd: workspace(),
        env: {
          ...envFor(server),
          OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
          OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
        },
        canUseTool: async (_name, input) => ({ behavior: "allow", updatedInput: input }),
        hooks: {
          PreToolUse: [
            {
              matcher: "Bash",
              hooks: [
                async () => ({
                  hookSpecificOutput: {
                    hookEventName: "PreToolUse" as const,
                    permissionDecision: "deny" as const,
                    permissionDecisionReason: "no shell here",
                  },
                }),
              ],
            },
          ],
        },
      },
    })) {
    }
    expect(byName(receiver.spans, "execute_tool Write").attributes).toMatchObject({
      "cairn.tool.decision": "accept",
      "cairn.tool.decision.source": "user",
    });
    expect(byName(receiver.spans, "execute_tool Bash").attributes).toMatchObject({
      "cairn.tool.decision": "reject",
      "cairn.tool.decision.source": "hook",
    });
  });
});
