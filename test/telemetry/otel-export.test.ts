import { writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { reply } from "../../src/testing/index.js";
import { runCli } from "../conformance/pm/helpers.js";
import { tempDir } from "../helpers/temp.js";
import { metricSum, type ReceivedSpan, startReceiver } from "./otlp-receiver.js";

/**
 * OpenTelemetry export (docs/telemetry.md) of the built CLI, against an OTLP/HTTP receiver on
 * 127.0.0.1: a print-mode run that reads a file, with the scripted model server's usage.
 */
const PROMPT = "Read a.txt and sum it up (secret-prompt-words)";
const steps = () => [
  reply()
    .text("Reading.")
    .tool("Read", { file_path: "a.txt" })
    .usage({ input_tokens: 120, output_tokens: 30 }),
  reply().text("It says hello.").usage({ input_tokens: 200, output_tokens: 12 }),
];

function byName(spans: ReceivedSpan[], name: string): ReceivedSpan {
  const found = spans.find((span) => span.name === name);
  if (!found) throw new Error(`no span ${name} among ${spans.map((span) => span.name).join(", ")}`);
  return found;
}

async function tracedRun(env: Record<string, string>, prompt = PROMPT) {
  const receiver = await startReceiver();
  const run = await runCli({
    steps: steps(),
    prompt,
    files: { "a.txt": "hello file contents\n" },
    env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, ...env },
  });
  return { receiver, run };
}

describe("OpenTelemetry export", () => {
  test("a print-mode run exports its trace over the default http/protobuf: run, turns, model calls and tool calls, nested, with GenAI attributes", async () => {
    const { receiver, run } = await tracedRun({});
    expect(run.code).toBe(0);
    expect(run.stderr).toBe("");
    expect(receiver.contentTypes.length).toBeGreaterThan(0);
    expect(receiver.contentTypes.every((type) => type === "application/x-protobuf")).toBe(true);
    const spans = receiver.spans;
    const root = byName(spans, "invoke_agent cairn");
    expect(root.parentSpanId).toBe("");
    expect(root.attributes["gen_ai.operation.name"]).toBe("invoke_agent");
    expect(root.attributes["session.id"]).toMatch(/^[0-9a-f-]{36}$/);
    expect(root.attributes["gen_ai.usage.input_tokens"]).toBe(320);
    expect(root.attributes["gen_ai.usage.output_tokens"]).toBe(42);
    const turn1 = byName(spans, "turn 1");
    const turn2 = byName(spans, "turn 2");
    expect(turn1.parentSpanId).toBe(root.spanId);
    expect(turn2.parentSpanId).toBe(root.spanId);
    const chats = spans.filter((span) => span.name === "chat claude-sonnet-5-5");
    expect(chats).toHaveLength(2);
    const [first, second] = [
      chats.find((c) => c.parentSpanId === turn1.spanId)!,
      chats.find((c) => c.parentSpanId === turn2.spanId)!,
    ];
    expect(first.attributes).toMatchObject({
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": "anthropic",
      "gen_ai.request.model": "claude-sonnet-5-5",
      "gen_ai.usage.input_tokens": 120,
      "gen_ai.usage.output_tokens": 30,
      "gen_ai.response.finish_reasons": ["tool_use"],
    });
    expect(first.attributes["gen_ai.response.model"]).toEqual(expect.any(String));
    expect(first.attributes["gen_ai.response.id"]).toMatch(/^msg_/);
    expect(second.attributes).toMatchObject({
      "gen_ai.usage.input_tokens": 200,
      "gen_ai.usage.output_tokens": 12,
      "gen_ai.response.finish_reasons": ["end_turn"],
    });
    const read = byName(spans, "execute_tool Read");
    expect(read.parentSpanId).toBe(turn1.spanId);
    expect(read.attributes).toMatchObject({
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": "Read",
      "gen_ai.tool.call.id": expect.stringMatching(/^toolu_/),
      "cairn.tool.decision": "accept",
      "cairn.tool.decision.source": "config",
    });
    expect(new Set(spans.map((span) => span.traceId)).size).toBe(1);
    expect(receiver.resources[0]?.["service.name"]).toBe("cairn");
    // Contents are not exported by default: neither the prompt nor the file the tool read.
    const everything = receiver.bodies.join("");
    expect(everything).not.toContain("secret-prompt-words");
    expect(everything).not.toContain("hello file contents");
    // Metrics, over protobuf as well: the token histogram's sums are the run's usage.
    expect(metricSum(receiver, "gen_ai.client.token.usage", { "gen_ai.token.type": "input" })).toBe(320);
    expect(metricSum(receiver, "gen_ai.client.token.usage", { "gen_ai.token.type": "output" })).toBe(42);
    expect(receiver.metrics.has("gen_ai.client.operation.duration")).toBe(true);
    expect(
      metricSum(receiver, "cairn.tool.decisions", { "gen_ai.tool.name": "Read", decision: "accept" }),
    ).toBe(1);
  });

  test("http/json: metrics equal the run's usage and cost; OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES name the resource", async () => {
    const { receiver, run } = await tracedRun({
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_SERVICE_NAME: "ci-agent",
      OTEL_RESOURCE_ATTRIBUTES: "deployment.environment=test,team=tools",
    });
    expect(run.code).toBe(0);
    expect(run.stderr).toBe("");
    expect(receiver.contentTypes.every((type) => type === "application/json")).toBe(true);
    expect(receiver.resources[0]).toMatchObject({
      "service.name": "ci-agent",
      "deployment.environment": "test",
      team: "tools",
    });
    expect(metricSum(receiver, "gen_ai.client.token.usage", { "gen_ai.token.type": "input" })).toBe(320);
    expect(metricSum(receiver, "gen_ai.client.token.usage", { "gen_ai.token.type": "output" })).toBe(42);
    expect(metricSum(receiver, "cairn.token.usage", { type: "output" })).toBe(42);
    expect(metricSum(receiver, "cairn.cost.usage")).toBeGreaterThan(0);
    expect((receiver.metrics.get("cairn.tool.duration") ?? []).length).toBeGreaterThan(0);
    expect(receiver.spans.some((span) => span.name === "execute_tool Read")).toBe(true);
  });

  test("OTEL_LOG_USER_PROMPTS=1 and OTEL_LOG_TOOL_DETAILS=1 export the prompt and the tool's input and result", async () => {
    const { receiver, run } = await tracedRun({
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_LOG_USER_PROMPTS: "1",
      OTEL_LOG_TOOL_DETAILS: "1",
    });
    expect(run.code).toBe(0);
    expect(byName(receiver.spans, "invoke_agent cairn").attributes["cairn.prompt"]).toBe(PROMPT);
    const read = byName(receiver.spans, "execute_tool Read");
    expect(JSON.parse(String(read.attributes["gen_ai.tool.call.arguments"]))).toEqual({ file_path: "a.txt" });
    expect(String(read.attributes["gen_ai.tool.call.result"])).toContain("hello file contents");
  });

  test("TRACEPARENT puts the run's spans under the caller's trace", async () => {
    const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
    const parentId = "00f067aa0ba902b7";
    const { receiver, run } = await tracedRun({ TRACEPARENT: `00-${traceId}-${parentId}-01` });
    expect(run.code).toBe(0);
    expect(receiver.spans.length).toBeGreaterThan(3);
    expect(receiver.spans.every((span) => span.traceId === traceId)).toBe(true);
    expect(byName(receiver.spans, "invoke_agent cairn").parentSpanId).toBe(parentId);
  });

  test("a denied tool call (print mode refuses a shell command that writes)'s span has error status and the decision reject", async () => {
    const receiver = await startReceiver();
    const run = await runCli({
      steps: [reply().tool("Bash", { command: "rm -rf /tmp/nothing-here" }), reply().text("Denied.")],
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" },
    });
    expect(run.code).toBe(0);
    const bash = byName(receiver.spans, "execute_tool Bash");
    expect(bash.attributes["cairn.tool.decision"]).toBe("reject");
    expect(bash.attributes["error.type"]).toBe("denied");
    expect(bash.status.code).toBe(2);
    expect(
      metricSum(receiver, "cairn.tool.decisions", { decision: "reject", "gen_ai.tool.name": "Bash" }),
    ).toBe(1);
  });

  test("the config's telemetry key turns the export on without any OTEL_ variable; grpc is said once and http/protobuf is sent instead", async () => {
    const receiver = await startReceiver();
    const home = tempDir("cairn-otel-home-");
    writeFileSync(
      join(home, "config.json"),
      JSON.stringify({
        telemetry: { endpoint: receiver.url, protocol: "grpc", headers: { "x-team": "tools" } },
      }),
    );
    const run = await runCli({ steps: steps(), files: { "a.txt": "x\n" }, env: { CAIRN_HOME: home } });
    expect(run.code).toBe(0);
    expect(run.stderr.split("\n").filter(Boolean)).toEqual([
      expect.stringMatching(
        /^cairn: OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not supported .*exporting http\/protobuf/,
      ),
    ]);
    expect(receiver.contentTypes.every((type) => type === "application/x-protobuf")).toBe(true);
    expect(receiver.headers.every((headers) => headers["x-team"] === "tools")).toBe(true);
    expect(receiver.spans.some((span) => span.name === "invoke_agent cairn")).toBe(true);
  });

  test("a per-signal endpoint and protocol: only traces, as http/json, to OTEL_EXPORTER_OTLP_TRACES_ENDPOINT's URL", async () => {
    const receiver = await startReceiver();
    const run = await runCli({
      steps: steps(),
      files: { "a.txt": "x\n" },
      env: {
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${receiver.url}/v1/traces`,
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/json",
      },
    });
    expect(run.code).toBe(0);
    expect(run.stderr).toBe("");
    expect(receiver.contentTypes.length).toBeGreaterThan(0);
    expect(receiver.contentTypes.every((type) => type === "application/json")).toBe(true);
    expect(receiver.spans.some((span) => span.name === "invoke_agent cairn")).toBe(true);
    expect(receiver.metrics.size).toBe(0);
  });

  test("telemetry.enabled: false in the config wins over the environment's endpoint; enabled: true without an endpoint is said once", async () => {
    const receiver = await startReceiver();
    const off = tempDir("cairn-otel-home-");
    writeFileSync(join(off, "config.json"), JSON.stringify({ telemetry: { enabled: false } }));
    const run = await runCli({
      steps: steps(),
      files: { "a.txt": "x\n" },
      env: { CAIRN_HOME: off, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url },
    });
    expect(run.code).toBe(0);
    expect(run.stderr).toBe("");
    expect(receiver.bodies).toEqual([]);
    const on = tempDir("cairn-otel-home-");
    writeFileSync(join(on, "config.json"), JSON.stringify({ telemetry: { enabled: true } }));
    const nowhere = await runCli({ steps: steps(), files: { "a.txt": "x\n" }, env: { CAIRN_HOME: on } });
    expect(nowhere.code).toBe(0);
    expect(nowhere.stderr).toBe(
      "cairn: telemetry.enabled is set but no endpoint is (telemetry.endpoint or OTEL_EXPORTER_OTLP_ENDPOINT)\n",
    );
  });

  test("OTEL_SDK_DISABLED=true exports nothing, whatever the endpoint", async () => {
    const { receiver, run } = await tracedRun({ OTEL_SDK_DISABLED: "true" });
    expect(run.code).toBe(0);
    expect(run.stderr).toBe("");
    expect(receiver.bodies).toEqual([]);
  });

  test("an unreachable collector does not hang the run: it ends as usual and says so in one line", async () => {
    // A port nobody listens on: taken, then freed.
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, "127.0.0.1", () => {
        const { port } = probe.address() as { port: number };
        probe.close(() => resolve(port));
      });
    });
    const run = await runCli({
      steps: steps(),
      files: { "a.txt": "x\n" },
      args: ["--output-format", "json"],
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}` },
    });
    expect(run.code).toBe(0);
    expect(run.events.at(-1)).toMatchObject({ type: "result", subtype: "success" });
    const lines = run.stderr.split("\n").filter(Boolean);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^cairn: telemetry export failed: /);
  });
});
