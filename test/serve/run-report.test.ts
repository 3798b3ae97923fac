import { describe, expect, test } from "vitest";
import { reply } from "../../src/testing/index.js";
import { tempDir } from "../helpers/temp.js";
import { startReceiver } from "../telemetry/otlp-receiver.js";
import {
  type Deployment,
  PG_SKIP,
  pgTitle,
  runEnded,
  servingOnThrowawayPostgres,
  waitFor,
} from "./helpers.js";

/**
 * A served run's extras (docs/serve.md): `report: true` writes the session's HTML report when the
 * run ends, downloadable from the API; the `traceparent` header of the request that created the run
 * puts the worker's spans under the caller's trace (docs/telemetry.md).
 */
const serving = servingOnThrowawayPostgres();

const ended = runEnded;

/** A raw request (headers of our own, a body that is not JSON). */
async function raw(
  d: Deployment,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: unknown,
) {
  const response = await fetch(`${d.api}${path}`, {
    method,
    headers: {
      authorization: `Basic ${Buffer.from(`${d.key}:`).toString("base64")}`,
      ...(body !== undefined ? { "content-type": "application/json" } : {}),
      ...headers,
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

describe.skipIf(PG_SKIP !== undefined)(
  "cairn serve: a run's report and trace context",
  { timeout: 180_000 },
  () => {
    test(
      pgTitle(
        "a run created with report: true and a traceparent header: its HTML report downloads from /report when it ends, and its spans are under the caller's trace",
      ),
      async () => {
        const d = await serving.deploy({
          steps: [
            reply().text("Reading.").tool("Read", { file_path: "notes.txt" }),
            reply().text("The notes say: ship it."),
            reply().text("Second run's answer."),
          ],
        });
        const receiver = await startReceiver();
        d.env.OTEL_EXPORTER_OTLP_ENDPOINT = receiver.url;
        d.env.OTEL_EXPORTER_OTLP_PROTOCOL = "http/json";
        const cwd = tempDir("cairn-report-", { "notes.txt": "ship it\n" });
        const traceId = "5b8efff798038103d269b633813fc60c";
        const parentId = "eee19b7ec3c1b174";
        const created = await raw(
          d,
          "POST",
          "/v1/agents",
          { traceparent: `00-${traceId}-${parentId}-01` },
          { prompt: { text: "What do the notes say?" }, repos: [{ url: cwd }], report: true },
        );
        expect(created.status).toBe(200);
        const { agent, run } = JSON.parse(created.text);
        // Not ended yet (no worker): the report is not there.
        const early = await raw(d, "GET", `/v1/agents/${agent.id}/runs/${run.id}/report`);
        expect(early.status).toBe(409);
        d.startWorker("w1");
        expect(await ended(d, agent.id, run.id)).toMatchObject({ status: "FINISHED" });
        const report = await raw(d, "GET", `/v1/agents/${agent.id}/runs/${run.id}/report`);
        expect(report.status).toBe(200);
        expect(report.headers.get("content-type")).toBe("text/html; charset=utf-8");
        expect(report.headers.get("content-disposition")).toBe(`attachment; filename="${run.id}.html"`);
        expect(report.text).toMatch(/^<!doctype html>/i);
        expect(report.text).toContain("What do the notes say?");
        expect(report.text).toContain("The notes say: ship it.");
        expect(report.text).toContain("notes.txt");
        // The worker exported the run's spans under the request's trace.
        const root = await waitFor("the run's spans", () =>
          receiver.spans.find((span) => span.name === "invoke_agent cairn"),
        );
        expect(root.traceId).toBe(traceId);
        expect(root.parentSpanId).toBe(parentId);
        expect(
          receiver.spans.some((span) => span.name === "execute_tool Read" && span.traceId === traceId),
        ).toBe(true);

        // A follow-up without report: true has none; a malformed traceparent is refused.
        const bad = await raw(
          d,
          "POST",
          `/v1/agents/${agent.id}/runs`,
          { traceparent: "nonsense" },
          {
            prompt: { text: "Again" },
          },
        );
        expect(bad.status).toBe(400);
        expect(JSON.parse(bad.text).error.message).toContain("traceparent");
        const second = await d.request("POST", `/v1/agents/${agent.id}/runs`, { prompt: { text: "Again" } });
        expect(second.status).toBe(200);
        expect(await ended(d, agent.id, second.json.run.id)).toMatchObject({ status: "FINISHED" });
        const none = await raw(d, "GET", `/v1/agents/${agent.id}/runs/${second.json.run.id}/report`);
        expect(none.status).toBe(404);
        expect(JSON.parse(none.text).error.message).toContain("report: true");
      },
    );
  },
);
