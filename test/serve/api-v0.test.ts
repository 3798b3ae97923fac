import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { hang, reply } from "../../src/testing/index.js";
import { tempDir } from "../helpers/temp.js";
import { bareRepository, git } from "./git-fixtures.js";
import {
  createKey,
  type Deployment,
  PG_SKIP,
  pgTitle,
  servingOnThrowawayPostgres,
  sql,
  startServe,
  waitFor,
} from "./helpers.js";
import { startWebhookReceiver } from "./webhook-receiver.js";

const serving = servingOnThrowawayPostgres();
const cleanups: (() => Promise<void> | void)[] = [];
// Registered after the deployments' hook, so it runs before it.
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

const SECRET = "a-webhook-secret-of-at-least-32-characters";

const settled = (d: Deployment, agentId: string) =>
  waitFor(`agent ${agentId} to settle`, async () => {
    const agent = await d.request("GET", `/v0/agents/${agentId}`);
    return ["FINISHED", "ERROR"].includes(agent.json.status) ? agent.json : undefined;
  });

const workspaceOf = (d: Deployment, agentId: string) =>
  sql(d, `SELECT cwd FROM cairn.agents WHERE id = '${agentId}'`)[0]!;

describe.skipIf(PG_SKIP !== undefined)(
  "cairn serve: v0 (the Background Agents API)",
  { timeout: 180_000 },
  () => {
    test(
      pgTitle(
        "an agent launched on a file:// repository at a ref works in a shallow clone, commits on its target branch and pushes it to the repository, reports FINISHED to its webhook signed with HMAC (retried after a 500), and takes a follow-up in the same clone",
      ),
      async () => {
        const d = await serving.deploy({
          steps: [
            reply().tool("Write", { file_path: "NOTES.md", content: "notes\n" }),
            reply().text("Wrote the notes."),
            reply().text("Second."),
          ],
        });
        const repo = bareRepository();
        const receiver = await startWebhookReceiver(SECRET, [500]);
        cleanups.push(receiver.close);
        const launched = await d.request("POST", "/v0/agents", {
          prompt: { text: "write notes" },
          source: { repository: repo.url, ref: "release" },
          target: { branchName: "cairn/notes" },
          webhook: { url: receiver.url, secret: SECRET },
        });
        expect(launched.status).toBe(200);
        const id = launched.json.id;
        expect(launched.json).toMatchObject({
          id: expect.stringMatching(/^bc-/),
          status: "CREATING",
          source: { repository: repo.url, ref: "release" },
          target: {
            branchName: "cairn/notes",
            autoCreatePr: false,
            url: expect.stringContaining(`/v0/agents/${id}`),
          },
        });
        d.startWorker("w1");
        expect(await settled(d, id)).toMatchObject({ status: "FINISHED", summary: "Wrote the notes." });
        // The clone: the ref's files, shallow, the model's file committed on the asked branch.
        const cwd = workspaceOf(d, id);
        expect(existsSync(join(cwd, "RELEASE.md"))).toBe(true);
        expect(readFileSync(join(cwd, "NOTES.md"), "utf8")).toBe("notes\n");
        expect(git(cwd, "rev-parse", "--is-shallow-repository")).toBe("true");
        expect(git(cwd, "rev-parse", "--abbrev-ref", "HEAD")).toBe("cairn/notes");
        expect(git(cwd, "log", "-1", "--format=%s")).toBe("write notes");
        expect(git(cwd, "status", "--porcelain")).toBe("");
        // Without a workspace remote, the asked-for branch is pushed to the agent's own repository.
        expect(git(repo.path, "--git-dir", repo.path, "rev-parse", "cairn/notes")).toBe(
          git(cwd, "rev-parse", "HEAD"),
        );
        // The webhook: refused once with 500, delivered again, the same delivery, signed.
        await waitFor(
          "the webhook's retry",
          () => receiver.received.some((hook) => hook.answered === 200) || undefined,
        );
        const [first, second] = receiver.received;
        expect(first!.answered).toBe(500);
        expect(second!.headers["x-webhook-id"]).toBe(first!.headers["x-webhook-id"]);
        expect(second!.raw).toBe(first!.raw);
        for (const hook of [first!, second!]) {
          expect(hook.signatureValid).toBe(true);
          expect(hook.headers["x-webhook-event"]).toBe("statusChange");
          expect(hook.headers["user-agent"]).toBe("Cursor-Agent-Webhook/1.0");
        }
        expect(second!.body).toMatchObject({
          event: "statusChange",
          id,
          status: "FINISHED",
          source: { repository: repo.url, ref: "release" },
          target: { branchName: "cairn/notes" },
          summary: "Wrote the notes.",
        });
        expect((await d.request("GET", `/v0/agents/${id}/conversation`)).json).toEqual({
          id,
          messages: [
            { id: expect.any(String), type: "user_message", text: "write notes" },
            { id: expect.any(String), type: "assistant_message", text: "Wrote the notes." },
          ],
        });
        // A follow-up: the same clone (the notes are still there), a second webhook.
        const followUp = await d.request("POST", `/v0/agents/${id}/followup`, { prompt: { text: "more" } });
        expect(followUp.json).toEqual({ id });
        await waitFor("the follow-up", async () => {
          const agent = await d.request("GET", `/v0/agents/${id}`);
          return agent.json.summary === "Second." ? agent.json : undefined;
        });
        expect(workspaceOf(d, id)).toBe(cwd);
        expect(existsSync(join(cwd, "NOTES.md"))).toBe(true);
        await waitFor("the second webhook", () => (receiver.received.length === 3 ? true : undefined));
        expect(receiver.received[2]!.body).toMatchObject({ status: "FINISHED", summary: "Second." });
        expect(receiver.received[2]!.headers["x-webhook-id"]).not.toBe(first!.headers["x-webhook-id"]);
        // The rest of v0.
        expect(
          (await d.request("GET", "/v0/agents")).json.agents.map((agent: { id: string }) => agent.id),
        ).toEqual([id]);
        expect((await d.request("GET", "/v0/me")).json).toMatchObject({ apiKeyName: "tests" });
        expect((await d.request("GET", "/v0/models")).json.models).toContainEqual(expect.any(String));
        expect((await d.request("GET", "/v0/repositories")).json).toEqual({ repositories: [] });
        expect((await d.request("DELETE", `/v0/agents/${id}`)).json).toEqual({ id });
        expect((await d.request("GET", `/v0/agents/${id}`)).status).toBe(404);
      },
    );

    test(
      pgTitle(
        "a repository that cannot be cloned ends the agent ERROR with git's message, and the URL's credentials are shown nowhere",
      ),
      async () => {
        const d = await serving.deploy({ steps: [] });
        d.startWorker("w1");
        const missing = await d.request("POST", "/v0/agents", {
          prompt: { text: "hi" },
          source: { repository: `file://${tempDir("cairn-git-none-")}/none.git` },
        });
        const failed = await settled(d, missing.json.id);
        expect(failed.status).toBe("ERROR");
        expect(failed.summary).toMatch(
          /git clone failed: .*(does not appear to be a git repository|not found)/,
        );
        const secret = await d.request("POST", "/v0/agents", {
          prompt: { text: "hi" },
          source: { repository: "https://someone:s3cr3t-token@127.0.0.1:1/app.git", ref: "main" },
        });
        expect(JSON.stringify(secret.json)).not.toContain("s3cr3t-token");
        const refused = await settled(d, secret.json.id);
        expect(refused.status).toBe("ERROR");
        expect(refused.summary).toContain("git clone failed");
        expect(JSON.stringify(refused)).not.toContain("s3cr3t-token");
        // Nothing was run: the model was never called.
        expect(d.model.requests).toHaveLength(0);
      },
    );

    test(
      pgTitle(
        "stop ends the running agent's run (ERROR, 'stopped'); bad launches are 400: no repository, a short secret, a branch on a directory worked in place",
      ),
      async () => {
        const d = await serving.deploy({ steps: [hang()] });
        d.startWorker("w1");
        const dir = tempDir("cairn-v0-");
        const launched = await d.request("POST", "/v0/agents", {
          prompt: { text: "wait" },
          source: { repository: dir },
        });
        expect(launched.json.source).toEqual({ repository: dir });
        await waitFor("the model call", () => d.model.requests.length === 1 || undefined);
        expect((await d.request("POST", `/v0/agents/${launched.json.id}/stop`)).json).toEqual({
          id: launched.json.id,
        });
        expect(await settled(d, launched.json.id)).toMatchObject({
          status: "ERROR",
          summary: "The agent was stopped.",
        });
        for (const body of [
          { prompt: { text: "x" } },
          {
            prompt: { text: "x" },
            source: { repository: dir },
            webhook: { url: "http://127.0.0.1:1/", secret: "short" },
          },
          { prompt: { text: "x" }, source: { repository: dir }, target: { branchName: "b" } },
        ]) {
          const refused = await d.request("POST", "/v0/agents", body);
          expect(refused.status, JSON.stringify(body)).toBe(400);
          expect(refused.json.error.code).toBe("invalid_request");
        }
      },
    );

    test(
      pgTitle(
        "autoCreatePr is not silently dropped: the launch answers a warning that no pull request can be opened, and the work goes on a branch of its own",
      ),
      async () => {
        const d = await serving.deploy({ steps: [reply().text("Done.")] });
        const repo = bareRepository();
        const launched = await d.request("POST", "/v0/agents", {
          prompt: { text: "x" },
          source: { repository: repo.url },
          target: { autoCreatePr: true },
        });
        expect(launched.json.target).toMatchObject({
          autoCreatePr: true,
          branchName: `cairn/${launched.json.id}`,
        });
        expect(launched.json.target.prUrl).toBeUndefined();
        expect(launched.json.warnings).toEqual([expect.stringContaining("cannot open a pull request")]);
      },
    );

    test(
      pgTitle(
        "past --rate-limit requests a minute a key gets 429 with Retry-After; another key is not slowed",
      ),
      async () => {
        const d = await serving.deploy({ steps: [] }, ["--rate-limit", "3"]);
        const other = createKey(d, "other");
        const me = () => fetch(`${d.api}/v0/me`, { headers: { authorization: `Bearer ${d.key}` } });
        // A minute's window can end between two requests: then a few more are allowed, never more than 3 a window.
        const allowed: number[] = [];
        let final: Response | undefined;
        for (let i = 0; i < 8 && !final; i++) {
          const answer = await me();
          if (answer.status === 429) final = answer;
          else allowed.push(answer.status);
        }
        expect(allowed.slice(0, 3)).toEqual([200, 200, 200]);
        expect(allowed.length).toBeLessThanOrEqual(6);
        if (!final) throw new Error("no 429");
        const retryAfter = Number(final.headers.get("retry-after"));
        expect(retryAfter).toBeGreaterThanOrEqual(1);
        expect(retryAfter).toBeLessThanOrEqual(60);
        expect(await final.json()).toEqual({
          error: { code: "rate_limited", message: expect.stringContaining("3 requests a minute") },
        });
        expect((await d.request("GET", "/v0/me", undefined, other)).status).toBe(200);
      },
    );

    test(
      pgTitle(
        "a webhook owed when its cairn serve is SIGKILLed is delivered by the next one: the delivery is kept in the database",
      ),
      async () => {
        const d = await serving.deploy({ steps: [reply().text("Done.")] });
        const receiver = await startWebhookReceiver(SECRET, [503, 503, 503, 503, 503, 503]);
        cleanups.push(receiver.close);
        const launched = await d.request("POST", "/v0/agents", {
          prompt: { text: "x" },
          source: { repository: tempDir("cairn-v0-") },
          webhook: { url: receiver.url, secret: SECRET },
        });
        d.startWorker("w1");
        // Killed once a refusal is recorded (not mid-attempt, whose lease would have to run out first).
        await waitFor("a refused delivery", () =>
          sql(d, "SELECT count(*) FROM cairn.webhook_deliveries WHERE last_error IS NOT NULL")[0] === "1"
            ? true
            : undefined,
        );
        const gone = new Promise((resolve) => d.apiProcess.once("exit", resolve));
        d.apiProcess.kill("SIGKILL");
        await gone;
        const refused = receiver.received.length;
        receiver.answers.splice(0);
        const next = await startServe(d);
        cleanups.push(() => {
          next.process.kill("SIGTERM");
        });
        await waitFor(
          "the delivery",
          () => receiver.received.some((hook) => hook.answered === 200) || undefined,
        );
        const delivered = receiver.received.at(-1)!;
        expect(receiver.received.length).toBeGreaterThan(refused);
        expect(delivered.signatureValid).toBe(true);
        expect(delivered.headers["x-webhook-id"]).toBe(receiver.received[0]!.headers["x-webhook-id"]);
        expect(delivered.body).toMatchObject({ id: launched.json.id, status: "FINISHED", summary: "Done." });
      },
    );

    test(
      pgTitle(
        "workers with --key-concurrency 1 share the queue between keys: a key with two runs queued first does not hold back another key's run",
      ),
      async () => {
        const d = await serving.deploy({ respond: () => hang() });
        const other = createKey(d, "other");
        const create = async (key: string) => {
          const created = await d.request(
            "POST",
            "/v1/agents",
            { prompt: { text: "x" }, repos: [{ url: tempDir("cairn-fair-") }] },
            key,
          );
          return { key, agent: created.json.agent.id as string, run: created.json.run.id as string };
        };
        const runs = [await create(d.key), await create(d.key), await create(other)];
        d.startWorker("w1", ["--concurrency", "2", "--key-concurrency", "1"]);
        await waitFor("two runs under way", () => d.model.requests.length === 2 || undefined);
        const statuses = [];
        for (const run of runs)
          statuses.push(
            (await d.request("GET", `/v1/agents/${run.agent}/runs/${run.run}`, undefined, run.key)).json
              .status,
          );
        // One run of each key; the first key's second run waits although it was queued before the other key's.
        expect(statuses).toEqual(["RUNNING", "CREATING", "RUNNING"]);
        for (const run of runs)
          await d.request("POST", `/v1/agents/${run.agent}/runs/${run.run}/cancel`, undefined, run.key);
      },
    );

    test(
      pgTitle(
        "v1: a local bare repository given by its path with a sha as repos[0].ref is cloned at that commit; a follow-up reuses the clone",
      ),
      async () => {
        const d = await serving.deploy({ steps: [reply().text("One."), reply().text("Two.")] });
        const repo = bareRepository();
        d.startWorker("w1");
        const created = await d.request("POST", "/v1/agents", {
          prompt: { text: "look" },
          repos: [{ url: repo.path, ref: repo.mainSha }],
        });
        expect(created.json.agent.source).toEqual({ repository: repo.path, ref: repo.mainSha });
        const { agent, run } = created.json;
        const ended = (runId: string) =>
          waitFor(`run ${runId}`, async () => {
            const answer = await d.request("GET", `/v1/agents/${agent.id}/runs/${runId}`);
            return ["FINISHED", "ERROR"].includes(answer.json.status) ? answer.json : undefined;
          });
        expect(await ended(run.id)).toMatchObject({ status: "FINISHED", result: "One." });
        const cwd = workspaceOf(d, agent.id);
        expect(git(cwd, "rev-parse", "HEAD")).toBe(repo.mainSha);
        expect(existsSync(join(cwd, "RELEASE.md"))).toBe(false);
        const followUp = await d.request("POST", `/v1/agents/${agent.id}/runs`, {
          prompt: { text: "again" },
        });
        expect(await ended(followUp.json.run.id)).toMatchObject({ status: "FINISHED", result: "Two." });
        expect(git(cwd, "rev-parse", "HEAD")).toBe(repo.mainSha);
      },
    );
  },
);
