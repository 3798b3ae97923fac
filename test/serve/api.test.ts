import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { hang, reply } from "../../src/testing/index.js";
import { CLI } from "../conformance/pm/helpers.js";
import { signalPid } from "../helpers/process.js";
import { tempDir } from "../helpers/temp.js";
import {
  PG_SKIP,
  pgTitle,
  readStream,
  runEnded,
  servingOnThrowawayPostgres,
  sql,
  waitFor,
} from "./helpers.js";

const serving = servingOnThrowawayPostgres();

const ended = runEnded;

describe.skipIf(PG_SKIP !== undefined)("cairn serve: the Cloud Agents API", { timeout: 180_000 }, () => {
  test(
    pgTitle(
      "an agent is created with its first run, listed and read back; a follow-up while a run is active is refused with 409, then runs on the same conversation",
    ),
    async () => {
      const d = await serving.deploy({
        steps: [reply().text("First answer."), reply().text("Second answer.")],
      });
      const cwd = tempDir("cairn-api-");
      const created = await d.request("POST", "/v1/agents", {
        prompt: { text: "hello" },
        repos: [{ url: cwd }],
      });
      expect(created.status).toBe(200);
      const { agent, run } = created.json;
      expect(agent).toMatchObject({
        id: expect.stringMatching(/^bc-/),
        latestRunId: run.id,
        status: "ACTIVE",
      });
      expect(run).toMatchObject({ id: expect.any(String), agentId: agent.id, status: "CREATING" });
      // No worker yet: the run waits, and a follow-up is refused while it does.
      const busy = await d.request("POST", `/v1/agents/${agent.id}/runs`, { prompt: { text: "again" } });
      expect(busy.status).toBe(409);
      expect(busy.json.error).toMatchObject({ code: "conflict", message: expect.stringContaining(run.id) });
      d.startWorker("w1");
      expect(await ended(d, agent.id, run.id)).toMatchObject({ status: "FINISHED", result: "First answer." });
      const listed = await d.request("GET", "/v1/agents");
      expect(listed.json.items.map((item: { id: string }) => item.id)).toEqual([agent.id]);
      expect((await d.request("GET", `/v1/agents/${agent.id}`)).json).toMatchObject({
        id: agent.id,
        latestRunId: run.id,
      });
      const followUp = await d.request("POST", `/v1/agents/${agent.id}/runs`, {
        prompt: { text: "and then?" },
      });
      expect(followUp.status).toBe(200);
      expect(await ended(d, agent.id, followUp.json.run.id)).toMatchObject({ result: "Second answer." });
      // The follow-up continued the conversation: the model saw the first prompt and answer.
      const last = d.model.requests.at(-1)!.body as { messages: { role: string }[] };
      expect(last.messages.map((message) => message.role)).toEqual(["user", "assistant", "user"]);
      // A healthy API says nothing on stderr, from its first start on a new database (where DBOS
      // logs its migrations) to its end.
      expect(await d.stopApi()).toBe("");
    },
  );

  test(
    pgTitle(
      "a run's SSE stream sends every stored event once, in order; a client that reconnects with Last-Event-ID gets exactly the rest",
    ),
    async () => {
      const d = await serving.deploy({
        steps: [reply().text("Reading.").tool("LS", { path: "." }), reply().text("Done.")],
      });
      d.startWorker("w1");
      const created = await d.request("POST", "/v1/agents", {
        prompt: { text: "look" },
        repos: [{ url: tempDir("cairn-api-") }],
      });
      const path = `/v1/agents/${created.json.agent.id}/runs/${created.json.run.id}/stream`;
      const first = await readStream(d, path, { limit: 3 });
      const rest = await readStream(d, path, { lastEventId: first.at(-1)!.id });
      const whole = [...first, ...rest];
      expect(whole.map((event) => event.id)).toEqual(whole.map((_, i) => i + 1));
      expect(whole[0]!.event).toBe("run_start");
      expect(whole.at(-1)!.event).toBe("run_end");
      const stored = sql(
        d,
        `SELECT event FROM cairn.run_events WHERE run_id = '${created.json.run.id}' ORDER BY seq`,
      );
      expect(whole.map((event) => event.data)).toEqual(stored.map((line) => JSON.parse(line)));
    },
  );

  test(
    pgTitle(
      "a running run is cancelled: its model call is interrupted, its stream ends with an aborted run_end, and a follow-up continues the conversation",
    ),
    async () => {
      const d = await serving.deploy({ steps: [hang(), reply().text("After.")] });
      d.startWorker("w1");
      const created = await d.request("POST", "/v1/agents", {
        prompt: { text: "wait" },
        repos: [{ url: tempDir("cairn-api-") }],
      });
      const { agent, run } = created.json;
      await waitFor("the model call", () => d.model.requests.length === 1 || undefined);
      const cancelled = await d.request("POST", `/v1/agents/${agent.id}/runs/${run.id}/cancel`);
      expect(cancelled.status).toBe(200);
      expect(cancelled.json.status).toBe("CANCELLED");
      const events = await readStream(d, `/v1/agents/${agent.id}/runs/${run.id}/stream`);
      expect(events.at(-1)).toMatchObject({ event: "run_end", data: { aborted: true } });
      expect((await d.request("GET", `/v1/agents/${agent.id}/runs/${run.id}`)).json.status).toBe("CANCELLED");
      const followUp = await d.request("POST", `/v1/agents/${agent.id}/runs`, { prompt: { text: "next" } });
      expect(followUp.status).toBe(200);
      expect(await ended(d, agent.id, followUp.json.run.id)).toMatchObject({ result: "After." });
      // The cancelled turn is in the conversation the follow-up continues.
      expect(JSON.stringify(d.model.requests.at(-1)!.body)).toContain("wait");
    },
  );

  test(
    pgTitle(
      "requests without a key cairn issued are refused with 401; bad input is 400 and unknown ids 404, as JSON errors",
    ),
    async () => {
      const d = await serving.deploy({ steps: [] });
      const anonymous = await fetch(`${d.api}/v1/me`);
      expect(anonymous.status).toBe(401);
      expect(await anonymous.json()).toEqual({
        error: { code: "unauthorized", message: expect.any(String) },
      });
      expect((await d.request("GET", "/v1/me", undefined, "cairn_not-a-key")).status).toBe(401);
      // The key works as a Bearer token too.
      const me = await fetch(`${d.api}/v1/me`, { headers: { authorization: `Bearer ${d.key}` } });
      expect(await me.json()).toMatchObject({ apiKeyName: "tests" });
      const models = await d.request("GET", "/v1/models");
      expect(models.json.items).toContainEqual(expect.objectContaining({ id: expect.any(String) }));
      expect((await d.request("POST", "/v1/agents", "{not json")).json.error.code).toBe("invalid_request");
      expect((await d.request("POST", "/v1/agents", { prompt: {} })).status).toBe(400);
      expect(
        (await d.request("POST", "/v1/agents", { prompt: { text: "x" }, repos: [{ url: "/no/such/dir" }] }))
          .status,
      ).toBe(400);
      const unknown = await d.request("GET", "/v1/agents/bc-unknown");
      expect(unknown.status).toBe(404);
      expect(unknown.json.error.code).toBe("not_found");
    },
  );

  test(
    pgTitle(
      "cairn serve --workers 1 runs the API and a worker, and starts the worker again under its name when it dies",
    ),
    async () => {
      const d = await serving.deploy({ steps: [reply().text("One."), reply().text("Two.")] });
      const serve = spawn(process.execPath, [CLI, "serve", "--port", "0", "--workers", "1"], {
        env: d.env,
        stdio: ["ignore", "pipe", "pipe"],
      });
      let stderr = "";
      serve.stderr!.on("data", (chunk) => {
        stderr += chunk;
      });
      try {
        const url = await new Promise<string>((resolve) => {
          let out = "";
          serve.stdout!.on("data", (chunk) => {
            out += chunk;
            if (out.includes("\n")) resolve(out.trim());
          });
        });
        // biome-ignore lint/suspicious/noExplicitAny: the API's JSON answers, which the expectations check.
        const call = async (method: string, path: string, body?: unknown): Promise<any> => {
          const response = await fetch(`${url}${path}`, {
            method,
            headers: { authorization: `Bearer ${d.key}` },
            ...(body ? { body: JSON.stringify(body) } : {}),
          });
          return response.json();
        };
        const created = await call("POST", "/v1/agents", {
          prompt: { text: "one" },
          repos: [{ url: tempDir("cairn-api-") }],
        });
        const runEnded = (runId: string) =>
          waitFor(`run ${runId}`, async () => {
            const run = await call("GET", `/v1/agents/${created.agent.id}/runs/${runId}`);
            return run.status === "FINISHED" ? run : undefined;
          });
        expect((await runEnded(created.run.id)).result).toBe("One.");
        // The worker is the serve process's child; SIGKILL it, and the next run still gets done.
        const children = () =>
          readFileSync(`/proc/${serve.pid}/task/${serve.pid}/children`, "utf8")
            .trim()
            .split(/\s+/)
            .filter(Boolean);
        const [worker] = children();
        signalPid(Number(worker), "SIGKILL");
        await waitFor("a new worker", () => (children()[0] && children()[0] !== worker ? true : undefined));
        const followUp = await call("POST", `/v1/agents/${created.agent.id}/runs`, {
          prompt: { text: "two" },
        });
        expect((await runEnded(followUp.run.id)).result).toBe("Two.");
        // Nothing on stderr, also what is held until the process ends (a library's chatter).
        const exited = new Promise((resolve) => serve.once("exit", resolve));
        serve.kill("SIGTERM");
        await exited;
        expect(stderr).toBe("");
      } finally {
        serve.kill("SIGTERM");
      }
    },
  );

  test(
    pgTitle(
      "a run that cannot start (a model cairn does not know) ends ERROR with the reason, and the agent takes a follow-up",
    ),
    async () => {
      const d = await serving.deploy({ steps: [reply().text("Fine.")] });
      d.startWorker("w1");
      const created = await d.request("POST", "/v1/agents", {
        prompt: { text: "hi" },
        model: { id: "no-such-model" },
        repos: [{ url: tempDir("cairn-api-") }],
      });
      const run = await ended(d, created.json.agent.id, created.json.run.id);
      expect(run).toMatchObject({ status: "ERROR", error: expect.stringContaining("no-such-model") });
      const followUp = await d.request("POST", `/v1/agents/${created.json.agent.id}/runs`, {
        prompt: { text: "again" },
      });
      expect(followUp.status).toBe(200);
    },
  );
});
