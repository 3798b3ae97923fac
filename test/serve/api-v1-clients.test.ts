import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { reply } from "../../src/testing/index.js";
import { bareRepository } from "./git-fixtures.js";
import { type Deployment, PG_SKIP, pgTitle, runEnded, servingOnThrowawayPostgres, sql } from "./helpers.js";

/**
 * v1 as the reference's public clients use it (docs/serve.md, "Where the reference's API was looked
 * up"): `repos[0].startingRef`, archiving an agent, and the stream's closing `result` and `done`
 * frames, which such a client waits for.
 */
const serving = servingOnThrowawayPostgres();

const respond = () => reply().text("Done.");

/** A run's SSE stream as its raw frames, `{event, data}` each, until the server ends it. */
async function rawFrames(
  d: Deployment,
  path: string,
): Promise<{ id?: string; event: string; data: unknown }[]> {
  const response = await fetch(`${d.api}${path}`, { headers: { authorization: `Bearer ${d.key}` } });
  expect(response.status).toBe(200);
  const text = await response.text();
  return text
    .split("\n\n")
    .filter((frame) => frame !== "")
    .map((frame) => {
      const fields = Object.fromEntries(
        frame
          .split("\n")
          .map((line) => [line.slice(0, line.indexOf(":")), line.slice(line.indexOf(":") + 2)]),
      );
      return {
        ...(fields.id !== undefined ? { id: fields.id } : {}),
        event: fields.event!,
        data: JSON.parse(fields.data!),
      };
    });
}

describe.skipIf(PG_SKIP !== undefined)("v1 as the reference's clients use it", { timeout: 180_000 }, () => {
  test(
    pgTitle(
      "repos[0].startingRef is the ref cloned (and one that differs from repos[0].ref is refused); a run's stream ends with result and done frames without ids",
    ),
    async () => {
      const d = await serving.deploy({ respond });
      d.startWorker("w1");
      const repo = bareRepository();
      const created = await d.request("POST", "/v1/agents", {
        prompt: { text: "look around" },
        repos: [{ url: repo.url, startingRef: "release" }],
      });
      expect(created.status).toBe(200);
      expect(created.json.agent.source).toEqual({ repository: repo.url, ref: "release" });
      const { id: agentId } = created.json.agent;
      expect((await runEnded(d, agentId, created.json.run.id)).status).toBe("FINISHED");
      const cwd = sql(d, `SELECT cwd FROM cairn.agents WHERE id = '${agentId}'`)[0]!;
      expect(existsSync(join(cwd, "RELEASE.md"))).toBe(true);

      const frames = await rawFrames(d, `/v1/agents/${agentId}/runs/${created.json.run.id}/stream`);
      expect(frames.at(-3)).toMatchObject({ event: "assistant", data: { text: "Done." } });
      expect(frames.slice(-2)).toEqual([
        {
          event: "result",
          data: { runId: created.json.run.id, status: "FINISHED", result: "Done.", text: "Done." },
        },
        { event: "done", data: {} },
      ]);
      // Every frame between the opening status and the closing ones is a stored event, with its id.
      expect(frames[0]).toEqual({
        event: "status",
        data: { runId: created.json.run.id, status: "FINISHED" },
      });
      expect(frames.slice(1, -2).every((frame) => frame.id !== undefined)).toBe(true);

      const both = await d.request("POST", "/v1/agents", {
        prompt: { text: "which?" },
        repos: [{ url: repo.url, startingRef: "release", ref: "main" }],
      });
      expect(both.status).toBe(400);
      expect(both.json.error.message).toContain("startingRef");
    },
  );

  test(
    pgTitle(
      "a create with the client's agentId makes the agent under that id (again: 409); the fields it sends that cairn does not apply are named in warnings",
    ),
    async () => {
      const d = await serving.deploy({ respond });
      const agentId = "bc-0b1c2d3e-4f50-4a61-8b72-93a4b5c6d7e8";
      const body = {
        agentId,
        prompt: { text: "hello" },
        env: { type: "cloud" },
        workOnCurrentBranch: false,
        autoCreatePR: true,
        mode: "agent",
      };
      const created = await d.request("POST", "/v1/agents", body);
      expect(created.status).toBe(200);
      expect(created.json.agent.id).toBe(agentId);
      expect(created.json.run).toMatchObject({ agentId, status: "CREATING" });
      expect(created.json.warnings).toEqual([
        "autoCreatePR is not applied by cairn serve: cairn serve has no forge to open a pull request on.",
        "env is not applied by cairn serve: the workers' machines are the environment a run works in.",
      ]);
      const again = await d.request("POST", "/v1/agents", body);
      expect(again.status).toBe(409);
      expect(again.json.error).toEqual({ code: "conflict", message: `Agent ${agentId} exists already.` });
      const bad = await d.request("POST", "/v1/agents", { agentId: "mine", prompt: { text: "x" } });
      expect(bad.status).toBe(400);
      // Without the extras, no warnings.
      const plain = await d.request("POST", "/v1/agents", { prompt: { text: "hello" } });
      expect(plain.json.warnings).toBeUndefined();
    },
  );

  test(
    pgTitle(
      "POST /v1/agents/{id}/archive answers {id}, hides the agent from the list but for includeArchived=true, refuses its follow-ups (409); unarchive gives them back",
    ),
    async () => {
      const d = await serving.deploy({ respond });
      d.startWorker("w1");
      const created = await d.request("POST", "/v1/agents", { prompt: { text: "hello" } });
      const { id: agentId } = created.json.agent;
      await runEnded(d, agentId, created.json.run.id);

      const archived = await d.request("POST", `/v1/agents/${agentId}/archive`);
      expect(archived).toEqual({ status: 200, json: { id: agentId } });
      expect((await d.request("GET", "/v1/agents")).json.items).toEqual([]);
      const all = await d.request("GET", "/v1/agents?includeArchived=true");
      expect(all.json.items).toMatchObject([{ id: agentId, archived: true }]);
      expect((await d.request("GET", `/v1/agents/${agentId}`)).json).toMatchObject({ archived: true });
      const refused = await d.request("POST", `/v1/agents/${agentId}/runs`, { prompt: { text: "more" } });
      expect(refused.status).toBe(409);
      expect(refused.json.error.message).toContain("archived");

      expect(await d.request("POST", `/v1/agents/${agentId}/unarchive`)).toEqual({
        status: 200,
        json: { id: agentId },
      });
      expect((await d.request("GET", "/v1/agents")).json.items).toMatchObject([
        { id: agentId, archived: false },
      ]);
      const followUp = await d.request("POST", `/v1/agents/${agentId}/runs`, { prompt: { text: "more" } });
      expect(followUp.status).toBe(200);
      expect((await runEnded(d, agentId, followUp.json.run.id)).status).toBe("FINISHED");
      expect((await d.request("GET", `/v1/agents/${agentId}/archive`)).status).toBe(405);
    },
  );
});
